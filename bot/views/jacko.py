"""Jacko without Discord: the running sum, the round's cards and their values, its rules."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace
from typing import Any

from bot.images import scene as pictures
from bot.views.game_view import GameView, card_text, cards_text
from engine.cards import SUIT_LETTERS
from engine.text import T
from locales import _, _n

RULES = T("""\
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
""")
SUITS = {"spades": "♠", "hearts": "♥", "clubs": "♣", "diamonds": "♦"}


class JackoView(GameView):
    GAME_ID = "jacko"
    RULES = RULES
    BLURB = T("2 players lay cards onto a running sum that may never pass 21.")

    def heading(self, view: dict[str, Any]) -> str:
        # Translators: the deal's number, then the points a player needs to win.
        return _("deal {deal} · first to {target}", deal=view["deal"] + 1,
                 target=view["target"])

    def draw_table(self, view: dict[str, Any], names: Sequence[str]) -> str:
        lines = []
        if view["doubling"]:
            lines.append(_("**Sum: {sum}** (a king led: cards count double)", sum=view["sum"]))
        else:
            total = _("Sum: {sum}", sum=view["sum"])
            lines.append(f"**{total}**")
        if view["round"]:
            lines.append(" · ".join(_laid(entry, names) for entry in view["round"]))
        passed, won = _round_lines(view, names)
        lines.extend(line for line in (passed, won) if line)
        return "\n".join(lines)

    def seat_note(self, view: dict[str, Any], seat: int) -> str:
        return _n("{n} card", "{n} cards", view["cards_left"][seat])

    def hand_context(self, seat_view: dict[str, Any], names: Sequence[str]) -> str:
        text = self.draw_table(seat_view, names)
        suit = seat_view.get("current_suit")
        if suit:
            text += "\n" + _("You play from {suit} now.", suit=SUITS[suit])
        opponent = seat_view.get("opponent_hand")
        if opponent is not None:
            text += "\n" + _("Your opponent holds: {cards}", cards=cards_text(opponent))
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
            # Translators: a label over the other player's cards (Jacko with open hands).
            zones += (pictures.hand_row(_("Your opponent holds"),
                                        seat_view.get("opponent_hand") or [], size="small"),)
        return pictures.Scene(pictures.hand_title(names, seat),
                              f"{self.title} · {self.heading(seat_view)}", zones,
                              captions=(pictures.keyword_caption(legal),))


def _sum_zone(view: dict[str, Any]) -> pictures.Zone:
    """The running sum as a tile; doubled once a king led the round."""
    notes = []
    if view["doubling"]:
        notes.append(_("a king led: cards count double"))
    if view["waiting_queens"]:
        notes.append(_("a queen waits for the next card"))
    badge = f"{view['sum']}" + (" ×2" if view["doubling"] else "")
    return pictures.Zone(_("Running sum"), badge=badge, note=" · ".join(notes), size="small")


def _piles(view: dict[str, Any], names: Sequence[str]) -> tuple[pictures.Zone, ...]:
    """Each player's cards of this round in a row of their own, each at its place in
    the round's order, so the two piles read left to right as they were laid."""
    laid = view["round"]
    span = max(1, len(laid))
    piles = []
    for seat in (0, 1):
        mine = [(i, entry) for i, entry in enumerate(laid) if entry["seat"] == seat]
        cards = tuple(pictures.Card(e["card"], caption=_value(e)) for _, e in mine)
        # Translators: a label over the cards a player laid this round: "Ann laid".
        piles.append(pictures.Zone(_("{name} laid", name=pictures.name_of(names, seat)), cards,
                                   "" if cards else "—", slots=tuple(i for i, _ in mine),
                                   span=span))
    return tuple(piles)


def _waits() -> str:
    # Translators: a queen led: its value is not known until the next card is laid.
    return _("waits")


def _value(entry: dict[str, Any]) -> str:
    value = _waits() if entry["value"] is None else f"= {entry['value']}"
    return value + (f", +{entry['points']}" if entry.get("points") else "")


def _round_lines(view: dict[str, Any], names: Sequence[str]) -> tuple[str, str]:
    passed = ""
    if view["passed"] is not None and not view["over"]:
        passed = _("{name} passed: {other} continues alone.",
                   name=pictures.name_of(names, view["passed"]),
                   other=pictures.name_of(names, 1 - view["passed"]))
    last = view["last_round"]
    won = "" if not last else _("Last round: {name} won at {sum} (+{points}).",
                                name=pictures.name_of(names, last["winner"]), sum=last["sum"],
                                points=last["points"])
    return passed, won


def _laid(entry: dict[str, Any], names: Sequence[str]) -> str:
    value = _waits() if entry["value"] is None else f"{entry['value']}"
    bonus = f", +{entry['points']}" if entry.get("points") else ""
    return f"{card_text(entry['card'])} {names[entry['seat']]} ({value}{bonus})"
