"""Jacko at a Discord table: the running sum, the round's cards and their values."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace
from typing import Any

from bot import render
from bot.client import CardTableBot
from bot.gamecog import GameCog, add_game_cog
from bot.games import GameUI
from bot.images import scene as pictures
from engine.cards import SUIT_LETTERS

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

    def table_scene(self, view: dict[str, Any], names: Sequence[str]) -> pictures.Scene:
        names = pictures.display_names(names)
        seats = tuple(replace(seat, backs=view["cards_left"][i])
                      for i, seat in enumerate(self.scene_seats(view, names)))
        return pictures.Scene(self.title, pictures.upper_first(self.heading(view)),
                              (_sum_zone(view), *_piles(view, names)), seats,
                              (*_round_lines(view, names), self.scene_status(view, names)))

    def hand_scene(self, seat_view: dict[str, Any], names: Sequence[str],
                   seat: int) -> pictures.Scene:
        names = pictures.display_names(names)
        legal = seat_view["legal"]
        current = seat_view.get("current_suit")
        letter = SUIT_LETTERS[list(SUITS).index(current)] if current else None
        zones = (_sum_zone(seat_view), *pictures.suit_rows(seat_view["hand"], legal,
                                                           current=letter))
        if seat_view.get("open_hands"):
            zones += (pictures.hand_row("Your opponent holds",
                                        seat_view.get("opponent_hand") or [], size="small"),)
        return pictures.Scene(f"Your hand · {pictures.name_of(names, seat)}",
                              f"{self.title} · {self.heading(seat_view)}", zones,
                              captions=(pictures.keyword_caption(legal),))


def _sum_zone(view: dict[str, Any]) -> pictures.Zone:
    """The running sum as a tile; doubled once a king led the round."""
    note = "a king led: cards count double" if view["doubling"] else ""
    if view["waiting_queens"]:
        note = (note + " · " if note else "") + "a queen waits for the next card"
    badge = f"{view['sum']}" + (" ×2" if view["doubling"] else "")
    return pictures.Zone("Running sum", badge=badge, note=note, size="small")


def _piles(view: dict[str, Any], names: Sequence[str]) -> tuple[pictures.Zone, ...]:
    """Each player's cards of this round in a row of their own, each at its place in
    the round's order, so the two piles read left to right as they were laid."""
    laid = view["round"]
    span = max(1, len(laid))
    piles = []
    for seat in (0, 1):
        mine = [(i, entry) for i, entry in enumerate(laid) if entry["seat"] == seat]
        cards = tuple(pictures.Card(e["card"], caption=_value(e)) for _, e in mine)
        piles.append(pictures.Zone(f"{pictures.name_of(names, seat)} laid", cards,
                                   "" if cards else "—", slots=tuple(i for i, _ in mine),
                                   span=span))
    return tuple(piles)


def _value(entry: dict[str, Any]) -> str:
    value = "waits" if entry["value"] is None else f"= {entry['value']}"
    return value + (f", +{entry['points']}" if entry.get("points") else "")


def _round_lines(view: dict[str, Any], names: Sequence[str]) -> tuple[str, str]:
    passed = ""
    if view["passed"] is not None and not view["over"]:
        passed = (f"{pictures.name_of(names, view['passed'])} passed: "
                  f"{pictures.name_of(names, 1 - view['passed'])} continues alone.")
    last = view["last_round"]
    won = "" if not last else (f"Last round: {pictures.name_of(names, last['winner'])} won "
                               f"at {last['sum']} (+{last['points']}).")
    return passed, won


def _laid(entry: dict[str, Any], names: Sequence[str]) -> str:
    value = "waits" if entry["value"] is None else f"{entry['value']}"
    bonus = f", +{entry['points']}" if entry.get("points") else ""
    return f"{render.label(entry['card'])} {names[entry['seat']]} ({value}{bonus})"


class JackoCog(GameCog):
    UI = JackoUI


async def setup(bot: CardTableBot) -> None:
    await add_game_cog(bot, JackoCog)
