"""Jazz without Discord: the drawing of its table (tricks, Sevens rows), its pictures and rules."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace
from typing import Any

from bot.images import scene as pictures
from bot.views.game_view import GameView, card_text
from engine.cards import RANK, RANK_LETTERS, RANK_TEXTS, SUIT_LETTERS, SUIT_SYMBOLS, parse_card
from engine.text import T
from locales import _, _c, _n, say

RULES = T("""\
**Jazz** — 3 to 7 players, six deals; the highest total wins.
**Deals 1–5 are trick deals.** Follow suit if you can, otherwise play anything; no trumps, \
the highest card of the suit led wins and leads next. Each deal has its penalty: \
1) −1 a trick, 2) −1 a club, 3) −5 a queen, 4) −15 for the king of clubs, 5) −20 for the \
last trick.
**Deal 6 is Sevens.** A seven starts its suit's row; build up from the 8 to the ace and down \
from the 6 to the 2, each card next to the row's end. Play if you can (your choice of card); \
pass only when nothing fits (−1 a pass). The first to empty their hand gets the bonus and the \
match ends.
""")


class JazzView(GameView):
    GAME_ID = "jazz"
    RULES = RULES
    BLURB = T("3–7 players: five penalty trick deals, then Sevens.")

    def heading(self, view: dict[str, Any]) -> str:
        # Translators: {name} is the deal's name and penalty ("Clubs: −1 a club").
        return _("deal {deal} of 6: {name}", deal=view["deal"] + 1, name=view["deal_name"])

    def draw_table(self, view: dict[str, Any], names: Sequence[str]) -> str:
        if view["deal_kind"] == "sevens":
            return self._rows(view)
        return self._tricks(view, names)

    def _tricks(self, view: dict[str, Any], names: Sequence[str]) -> str:
        lines = []
        trick = view["trick"]
        if trick:
            played = " · ".join(f"{card_text(t['card'])} {names[t['seat']]}" for t in trick)
            lines.append(f"**{_trick()}**: {played}")
        elif view["to_act"] is not None:
            leads = _("{name} leads.", name=names[view["to_act"]])
            lines.append(f"**{_trick()}**: {leads}")
        last = self.deal_end(view, names)
        if last:
            lines.append(last)
        return "\n".join(lines)

    def _rows(self, view: dict[str, Any]) -> str:
        heading = _("Sevens rows")
        lines = [f"**{heading}**"]
        for letter, symbol in zip(SUIT_LETTERS, SUIT_SYMBOLS, strict=True):
            row = view["rows"].get(letter)
            if row is None:
                lines.append(f"{symbol}  —")
            elif row[0] == row[1]:
                lines.append(f"{symbol}  {card_text(row[0])}")
            else:
                lines.append(f"{symbol}  {card_text(row[0])} … {card_text(row[1])}")
        return "\n".join(lines)

    def deal_end(self, view: dict[str, Any], names: Sequence[str]) -> str:
        # Between deals the view already names the next deal: only the last trick is news.
        last = view["last_trick"]
        if not last:
            return ""
        cards_ = " ".join(card_text(t["card"]) for t in last["cards"])
        return _("Last trick: {cards} → {winner}", cards=cards_, winner=names[last["winner"]])

    def seat_note(self, view: dict[str, Any], seat: int) -> str:
        left = _n("{n} card", "{n} cards", view["hand_sizes"][seat])
        if view["deal_kind"] == "sevens":
            passes = _n("{n} pass", "{n} passes", view["passes"][seat])
            return f"{left} · {passes}"
        tricks = _n("{n} trick", "{n} tricks", view["tricks_taken"][seat])
        return f"{left} · {tricks}"

    def hand_context(self, seat_view: dict[str, Any], names: Sequence[str]) -> str:
        text = self.draw_table(seat_view, names)
        led = seat_view.get("led_suit")
        if led and seat_view.get("legal"):
            text += "\n" + _follow(led)
        return text

    def table_scene(self, view: dict[str, Any], names: Sequence[str]) -> pictures.Scene:
        names = pictures.display_names(names)
        if view["deal_kind"] == "sevens":
            zones = _row_zones(view)
        else:
            zones = (self._trick_zone(view, names, "large"), _last_trick_zone(view, names))
        seats = tuple(replace(seat, backs=view["hand_sizes"][i])
                      for i, seat in enumerate(self.scene_seats(view, names)))
        return pictures.Scene(self.title, pictures.upper_first(self.heading(view)), zones, seats,
                              (self.scene_status(view, names),),
                              seat_columns=pictures.columns_for(len(names)))

    def hand_scene(self, seat_view: dict[str, Any], names: Sequence[str],
                   seat: int) -> pictures.Scene:
        names = pictures.display_names(names)
        legal = seat_view["legal"]
        rows = pictures.suit_rows(seat_view["hand"], legal)
        if seat_view["deal_kind"] == "sevens":
            # Translators: a hand picture's line: the four Sevens rows ("♠ 5–9  ♥ 7 ...").
            context = _("Rows: {rows}", rows="  ".join(_row_text(seat_view, letter)
                                                       for letter in SUIT_LETTERS))
            zones = rows
        else:
            led = seat_view.get("led_suit")
            context = _follow(led) if led and legal else ""
            zones = (self._trick_zone(seat_view, names, "small"), *rows)
        return pictures.Scene(pictures.hand_title(names, seat),
                              f"{self.title} · {self.heading(seat_view)}", zones,
                              captions=(context, pictures.keyword_caption(legal)))

    def _trick_zone(self, view: dict[str, Any], names: Sequence[str],
                    size: pictures.Size) -> pictures.Zone:
        leads = "" if view["trick"] or view["to_act"] is None else \
            _("{name} leads.", name=pictures.name_of(names, view["to_act"]))
        return pictures.Zone(_trick(), pictures.trick_cards(view["trick"], names), leads,
                             size=size)

    def deal_headings(self, deals: int) -> list[str]:
        # Deal names, not card labels: a label here would look like a card in the channel.
        # Translators: the score table's columns, one per Jazz deal (tricks, clubs, queens,
        # king of clubs, last trick, Sevens); at most 4 characters each, no card letters.
        return [_c("jazz deal", "Trk"), _c("jazz deal", "Clb"), _c("jazz deal", "Qns"),
                _c("jazz deal", "King"), _c("jazz deal", "Last"), _c("jazz deal", "7s")][:deals]


def _trick() -> str:
    # Translators: a label: the cards played to the trick now on the table.
    return _("Trick")


def _follow(led: str) -> str:
    return _("Follow {suit} if you can.", suit=SUIT_SYMBOLS[SUIT_LETTERS.index(led)])


def _last_trick_zone(view: dict[str, Any], names: Sequence[str]) -> pictures.Zone:
    last = view["last_trick"]
    if not last:
        return pictures.Zone(_("Last trick"), note="—", size="small")
    return pictures.Zone(_("Last trick"),
                         pictures.trick_cards(last["cards"], names, last["winner"]),
                         f"→ {pictures.name_of(names, last['winner'])}", size="small")


def _row_zones(view: dict[str, Any]) -> tuple[pictures.Zone, ...]:
    """The four Sevens rows, each drawn whole: every card from its low end to its high end."""
    # Norwegian Jazz puts the ace below the two: the row's order, low to high.
    order = "A" + RANK_LETTERS[:-1] if view["options"].get("norwegian") else RANK_LETTERS
    zones = []
    for letter, symbol in zip(SUIT_LETTERS, SUIT_SYMBOLS, strict=True):
        row = view["rows"].get(letter)
        shown: tuple[pictures.Card, ...] = ()
        if row is not None:
            low, high = (order.index(code[0]) for code in row)
            shown = tuple(pictures.Card(order[r] + letter) for r in range(low, high + 1))
        zones.append(pictures.Zone(symbol, shown, "" if shown else _("no seven yet"),
                                   size="small", compact=True))
    return tuple(zones)


def _row_text(view: dict[str, Any], letter: str) -> str:
    symbol = SUIT_SYMBOLS[SUIT_LETTERS.index(letter)]
    row = view["rows"].get(letter)
    if row is None:
        return f"{symbol} —"
    # The ranks alone: the symbol says the suit.
    low, high = (say(RANK_TEXTS[RANK[parse_card(code)]]) for code in row)
    return f"{symbol} {low}" if low == high else f"{symbol} {low}–{high}"
