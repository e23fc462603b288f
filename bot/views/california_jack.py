"""California Jack without Discord: trumps, the face-up stock, tricks and draws, its rules."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace
from typing import Any

from bot.images import scene as pictures
from bot.views.game_view import GameView, card_text, cards_text
from engine.cards import SUIT_LETTERS, SUIT_SYMBOLS
from engine.text import T
from locales import _, _c, _n

RULES = T("""\
**California Jack** — 2 players, 6 cards each; the first to 10 game points wins.
The other 40 cards form a **face-up stock**: its top card at the start of a deal names \
**trumps**. Follow suit if you can (otherwise play anything); the highest trump wins, else \
the highest card of the suit led. The trick's winner takes the stock's top card, then the \
loser the next; when the stock is gone the last six cards are played out.
**Game points per deal**: High (ace of trumps), Jack (jack of trumps), Low (two of trumps) \
to whoever captures them, and Game to the most trick points (10 = 10, A 4, K 3, Q 2, J 1).
""")


def suit_symbol(letter: str | None) -> str:
    return SUIT_SYMBOLS[SUIT_LETTERS.index(letter)] if letter else "?"


class CaliforniaJackView(GameView):
    GAME_ID = "california_jack"
    RULES = RULES
    BLURB = T("2 players, a face-up stock that names trumps, High-Low-Jack-Game.")

    def heading(self, view: dict[str, Any]) -> str:
        deal = _("deal {deal}", deal=view["deal"] + 1)
        # Translators: the suit that is trumps this deal: "trumps ♠".
        trumps = _("trumps {suit}", suit=suit_symbol(view["trump"]))
        return f"{deal} · {trumps}"

    def draw_table(self, view: dict[str, Any], names: Sequence[str]) -> str:
        trumps = _("Trumps {suit}", suit=suit_symbol(view["trump"]))
        if view["stock_top"]:
            stock = _n("stock: {card} on top ({n} card)", "stock: {card} on top ({n} cards)",
                       view["stock_size"], card=card_text(view["stock_top"]))
        else:
            stock = _("the stock is empty")
        lines = [f"**{trumps}** · {stock}"]
        if view["trick"]:
            lead = view["trick"][0]
            lines.append(f"**{_trick()}**: {card_text(lead['card'])} {names[lead['seat']]}")
        elif view["to_act"] is not None:
            leads = _("{name} leads.", name=names[view["to_act"]])
            lines.append(f"**{_trick()}**: {leads}")
        last = view["last_trick"]
        if last:
            played = " ".join(card_text(t["card"]) for t in last["cards"])
            lines.append(_("Last trick: {cards} → {winner}", cards=played,
                           winner=names[last["winner"]]))
        if view["draws"]:
            draws = ", ".join(f"{names[d['seat']]} {card_text(d['card'])}" for d in view["draws"])
            # Translators: the cards drawn from the stock after the last trick: "Ann 7♥, Bo 2♣".
            lines.append(_("Drawn: {draws}", draws=draws))
        return "\n".join(lines)

    def seat_note(self, view: dict[str, Any], seat: int) -> str:
        note = _n("{n} trick", "{n} tricks", view["tricks_won"][seat])
        known = view["known"][seat]
        if known:
            # Translators: the cards a player drew face up from the stock, which all can see.
            note += " · " + _("holds {cards} (drawn)", cards=cards_text(known))
        return note

    def table_scene(self, view: dict[str, Any], names: Sequence[str]) -> pictures.Scene:
        names = pictures.display_names(names)
        seats = tuple(
            replace(seat, backs=view["hand_sizes"][i] - len(view["known"][i]),
                    cards=tuple(pictures.Card(code) for code in view["known"][i]),
                    note=_seat_note(view, i))
            for i, seat in enumerate(self.scene_seats(view, names)))
        return pictures.Scene(self.title, pictures.upper_first(self.heading(view)),
                              (_stock_zone(view), _trick_zone(view, names, "large"),
                               _last_zone(view, names)),
                              seats, (self.scene_status(view, names),))

    def hand_scene(self, seat_view: dict[str, Any], names: Sequence[str],
                   seat: int) -> pictures.Scene:
        names = pictures.display_names(names)
        legal = seat_view["legal"]
        return pictures.Scene(pictures.hand_title(names, seat),
                              f"{self.title} · {self.heading(seat_view)}",
                              (_stock_zone(seat_view), _trick_zone(seat_view, names, "small"),
                               pictures.hand_row(_("Your cards"), seat_view["hand"], legal)),
                              captions=(pictures.keyword_caption(legal),))

    def game_points_text(self, view: dict[str, Any], deal: int, names: Sequence[str]) -> str:
        """Who won each game point of ``deal`` and the trick points, from the public view
        (``names`` markup, as ``draw_table``'s); "" unless that deal's result is in it."""
        result = view["last_result"]
        if result is None or result["deal"] != deal:
            return ""
        # Translators: the four game points of a deal: High (the ace of trumps), Low
        # (the two of trumps), Jack (the jack of trumps), Game (the most trick points).
        labels = (("high", _c("game point", "High")), ("low", _c("game point", "Low")),
                  ("jack", _c("game point", "Jack")), ("game", _c("game point", "Game")))
        # Translators: a game point nobody won ("Jack: nobody").
        nobody = _("nobody")
        parts = [f"{label}: {names[result[key]] if result[key] is not None else nobody}"
                 for key, label in labels]
        points = " – ".join(str(p) for p in result["trick_points"])
        trick_points = _("Trick points {points}", points=points)
        return f"{' · '.join(parts)}\n{trick_points}"


def _trick() -> str:
    # Translators: a label: the cards played to the trick now on the table.
    return _("Trick")


def _seat_note(view: dict[str, Any], seat: int) -> str:
    tricks = _n("{n} trick", "{n} tricks", view["tricks_won"][seat])
    # Translators: a player's cards in hand, and how many of them all can see.
    held = _n("{n} card, {drawn} drawn face up", "{n} cards, {drawn} drawn face up",
              view["hand_sizes"][seat], drawn=len(view["known"][seat]))
    return f"{tricks} · {held}"


def _stock_zone(view: dict[str, Any]) -> pictures.Zone:
    """Trumps as a tile, then the face-up stock: its top card on the face-down rest."""
    top = view["stock_top"]
    label = _("Trumps and the stock")
    if not top:
        return pictures.Zone(label, badge=suit_symbol(view["trump"]),
                             note=_("the stock is empty"), size="small")
    return pictures.Zone(label, (pictures.Card(top),),
                         _n("{n} card in the stock", "{n} cards in the stock",
                            view["stock_size"]),
                         size="small", badge=suit_symbol(view["trump"]),
                         backs=view["stock_size"] - 1)


def _trick_zone(view: dict[str, Any], names: Sequence[str],
                size: pictures.Size) -> pictures.Zone:
    leads = "" if view["trick"] or view["to_act"] is None else \
        _("{name} leads.", name=pictures.name_of(names, view["to_act"]))
    return pictures.Zone(_trick(), pictures.trick_cards(view["trick"], names), leads, size=size)


def _last_zone(view: dict[str, Any], names: Sequence[str]) -> pictures.Zone:
    """The last trick (its winner's card marked), then the two cards drawn after it."""
    last = view["last_trick"]
    if not last:
        return pictures.Zone(_("Last trick"), note="—", size="small")
    played = pictures.trick_cards(last["cards"], names, last["winner"])
    # Translators: under a card drawn from the stock: who drew it ("Ann drew").
    drawn = tuple(pictures.Card(d["card"], caption=_("{name} drew",
                                                     name=pictures.name_of(names, d["seat"])))
                  for d in view["draws"])
    label = _("Last trick, then the draws") if drawn else _("Last trick")
    return pictures.Zone(label, played + drawn,
                         f"→ {pictures.name_of(names, last['winner'])}", size="small",
                         slots=(0, 1, 3, 4)[:len(played) + len(drawn)])
