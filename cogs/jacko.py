"""Jacko at a Discord table: the running sum, the round's cards and their values."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from bot import render
from bot.client import CardTableBot
from bot.gamecog import GameCog, add_game_cog
from bot.games import GameUI

RULES = """\
**Jacko** — 2 players, 26 cards each; the first to the target (121) wins, even mid-round.
**Values**: J 0, A 1, 2–10 face value, Q copies the card before it (a queen led waits for \
the next card), K doubles the sum (only while the sum is ≤ 10; a king led makes every later \
card of the round count double). The sum may never pass 21.
**Suit order**: you play from your first suit in the order ♠ ♥ ♣ ♦ that you still hold.
**Rounds**: players alternate; with no legal card you pass and the other continues alone — \
above 15 they may stop and score or lay one more card, at 15 or below they must keep \
playing until above 15.
**Points**: making exactly 11 +3; each zero card laid on 11 +1; the round's winner scores \
16→1, 17→2, 18→3, 19→4, 20→5, 21→7 (−1 for each zero card laid on 21).
"""
SUITS = {"spades": "♠", "hearts": "♥", "clubs": "♣", "diamonds": "♦"}


class JackoUI(GameUI):
    GAME_ID = "jacko"
    COMMAND = "jacko"
    RULES = RULES
    BLURB = "2 players lay cards onto a running sum that may never pass 21."

    def heading(self, view: dict[str, Any]) -> str:
        return f"deal {view['deal'] + 1} · first to {view['target']}"

    def draw_table(self, view: dict[str, Any], names: Sequence[str]) -> str:
        lines = []
        sum_line = f"**Sum: {view['sum']}**"
        if view["doubling"]:
            sum_line += " (a king led: cards count double)"
        lines.append(sum_line)
        if view["round"]:
            lines.append(" · ".join(_laid(entry, names) for entry in view["round"]))
        if view["passed"] is not None and not view["over"]:
            other = names[1 - view["passed"]]
            lines.append(f"{names[view['passed']]} passed: {other} continues alone.")
        last = view["last_round"]
        if last:
            lines.append(f"Last round: {names[last['winner']]} won at {last['sum']} "
                         f"(+{last['points']}).")
        return "\n".join(lines)

    def seat_note(self, view: dict[str, Any], seat: int) -> str:
        return f"{view['cards_left'][seat]} cards"

    def hand_context(self, seat_view: dict[str, Any], names: Sequence[str]) -> str:
        text = self.draw_table(seat_view, names)
        suit = seat_view.get("current_suit")
        if suit:
            text += f"\nYou play from {SUITS[suit]} now."
        opponent = seat_view.get("opponent_hand")
        if opponent is not None:
            text += f"\nYour opponent holds: {render.labels(opponent)}"
        return text


def _laid(entry: dict[str, Any], names: Sequence[str]) -> str:
    value = "waits" if entry["value"] is None else f"{entry['value']}"
    bonus = f", +{entry['points']}" if entry.get("points") else ""
    return f"{render.label(entry['card'])} {names[entry['seat']]} ({value}{bonus})"


class JackoCog(GameCog):
    UI = JackoUI


async def setup(bot: CardTableBot) -> None:
    await add_game_cog(bot, JackoCog)
