"""AttackJack without Discord: every seat's cards, the open card, the bank, its rules."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from bot.images import scene as pictures
from bot.views.game_view import GameView, and_list, card_text, cards_text
from engine.core import STAND, TAKE, Game, Options
from engine.text import TC, T, Text
from locales import _, _n, say

RULES = T("""\
**AttackJack** — 2 to 17 players, a deck with two jokers; one deal, the best hand takes \
the bank.
**Values**: 2–10 face value, J Q K 10, A 11 or 1; cards of the same rank count once \
(5 8 8 = 13); a **joker** makes a bomb that wins outright.
**Turns**, once around from the seat that won the lot: over 21 you are out; on 21 (or with \
a bomb) you keep your cards; under 21 you take the open card beside the deck (out if you \
pass 21). The bot plays these forced turns for everyone.
**Showdown**: bombs win, else 21, else the highest total; ties by the counted ranks from \
the top. Everyone out: the stakes go back.
""")
STATUS: dict[str, Text] = {
    # Translators: a seat's state in AttackJack: waiting for its turn, keeps its cards (on
    # 21 or a bomb), took the open card, stands, is out (over 21).
    "waiting": TC("attackjack seat", "waiting"), "kept": TC("attackjack seat", "keeps"),
    "took": TC("attackjack seat", "took"), "stood": TC("attackjack seat", "stands"),
    "out": TC("attackjack seat", "out")}
STAND_AT = 17  # the simplest sensible choice for a player who timed out (house rule)


class AttackJackView(GameView):
    GAME_ID = "attackjack"
    RULES = RULES
    BLURB = T("2–17 players, a blackjack relative with bombs; chips with a stake.")
    SERIES = True  # one deal a table; the next deals follow as a series (bot.features.series)

    def heading(self, view: dict[str, Any]) -> str:
        if view["over"]:
            return showdown()
        # Translators: the chips in the bank (all the stakes); or a game without a stake.
        return _("bank {bank}", bank=view["bank"]) if view["stake"] else _("one deal")

    def draw_table(self, view: dict[str, Any], names: Sequence[str]) -> str:
        lines = []
        if view["open_card"] and not view["over"]:
            lines.append(f"**{_open_card()}**: {card_text(view['open_card'])} · "
                         f"{_in_deck(view['deck'])}")
        for seat, info in enumerate(view["seats"]):
            shown = cards_text(info["cards"]) if info["cards"] else ""
            hidden = " 🂠" * info["hidden"]
            value = f" = {info['value']}" if info["value"] is not None else ""
            bomb = " 💣" if info["bomb"] else ""
            turn = "➡️ " if seat == view["turn"] else ""
            lines.append(f"{turn}{names[seat]}: {shown}{hidden}{value}{bomb} "
                         f"({say(STATUS[info['status']])})")
        return "\n".join(lines)

    def hand_context(self, seat_view: dict[str, Any], names: Sequence[str]) -> str:
        text = self.draw_table(seat_view, names)
        if seat_view.get("hand_value") is not None:
            text += "\n" + _("Your hand is worth **{value}**.", value=seat_view["hand_value"])
        return text

    def table_scene(self, view: dict[str, Any], names: Sequence[str]) -> pictures.Scene:
        names = pictures.display_names(names)
        winners = set(view["winners"]) if view["over"] else set()
        totals = view["totals"]
        seats = tuple(
            pictures.Seat(pictures.name_of(names, seat), pictures.score_text(totals[seat]),
                          _seat_words(info),
                          tuple(pictures.Card(code) for code in info["cards"]),
                          backs=info["hidden"], active=seat == view["turn"],
                          out=info["status"] == "out", winner=seat in winners)
            for seat, info in enumerate(view["seats"]))
        bank = _n("Bank {n} chip ({stake} a seat).", "Bank {n} chips ({stake} a seat).",
                  view["bank"], stake=view["stake"]) if view["stake"] else ""
        return pictures.Scene(self.title, pictures.upper_first(self.heading(view)),
                              (_open_zone(view, "large"),), seats,
                              (bank, self.scene_status(view, names)),
                              seat_columns=pictures.columns_for(len(names)))

    def hand_scene(self, seat_view: dict[str, Any], names: Sequence[str],
                   seat: int) -> pictures.Scene:
        names = pictures.display_names(names)
        hidden = seat_view.get("face_down")
        # Translators: under a player's own card that the others cannot see.
        mine = tuple(pictures.Card(code, caption=_("face down") if code == hidden else "")
                     for code in pictures.hand_order(seat_view["hand"]))
        value = seat_view.get("hand_value")
        return pictures.Scene(
            pictures.hand_title(names, seat),
            f"{self.title} · {self.heading(seat_view)}",
            (_open_zone(seat_view, "small"),
             pictures.Zone(_("Your cards"), mine, "" if mine else "—")),
            captions=("" if value is None else _("Your hand is worth {value}.", value=value),
                      pictures.keyword_caption(seat_view["legal"])))

    def scene_status(self, view: dict[str, Any], names: Sequence[str]) -> str:
        if view["over"] and not view["winners"]:
            return _everyone_out()
        if not view["over"] and view["turn"] is not None and view["to_act"] is None:
            return _("{name}'s turn (the bot plays it).",
                     name=pictures.name_of(names, view["turn"]))
        return super().scene_status(view, names)

    def policy(self, game: Game) -> int:
        legal = game.legal_actions()
        if TAKE in legal and STAND in legal:
            seat = game.to_act
            assert seat is not None  # legal actions exist only for the seat to act
            value = game.seat_view(seat)["hand_value"] or 0
            return STAND if value >= STAND_AT else TAKE
        return super().policy(game)

    def chips(self, game: Game) -> list[int]:
        if stake(game.options) <= 0 or not game.deal_points:
            return [0] * game.players
        return list(game.deal_points[0])

    def final_text(self, game: Game, names: Sequence[str]) -> str:
        """The showdown of a completed game: who won, every seat's cards and, with a
        stake, the chips won or lost (``names`` markup, as ``draw_table``'s)."""
        view = game.public_view()
        winners = game.winners()
        if winners:
            who = and_list([f"**{names[w]}**" for w in winners])
            head = "🏆 " + _n("{who} wins!", "{who} win!", len(winners), who=who)
        else:
            head = _everyone_out()
        lines = [head, "", self.draw_table(view, names)]
        if view["stake"]:
            nets = ", ".join(f"{names[s]} {p:+d}" for s, p in enumerate(game.totals))
            # Translators: each player's chips won or lost: "Chips: Ann +30, Bo -10".
            lines.append("\n" + _("Chips: {nets}", nets=nets))
        return "\n".join(lines)


def showdown() -> str:
    # Translators: the end of an AttackJack deal, when the hands are compared.
    return _("showdown")


def _everyone_out() -> str:
    return _("Everyone is out: nobody wins, the stakes go back.")


def _open_card() -> str:
    # Translators: the face-up card beside the deck, which a player may take.
    return _("Open card")


def _in_deck(cards: int) -> str:
    # Translators: how many cards are left in the deck: "30 in the deck".
    return _n("{n} in the deck", "{n} in the deck", cards)


def _open_zone(view: dict[str, Any], size: pictures.Size) -> pictures.Zone:
    """The face-up card beside the deck, on the deck's face-down pile."""
    if view["over"] or not view["open_card"]:
        return pictures.Zone(_open_card(), note=_("the showdown") if view["over"] else "—",
                             size=size)
    return pictures.Zone(_open_card(), (pictures.Card(view["open_card"]),),
                         _in_deck(view["deck"]), size=size, backs=view["deck"])


def _seat_words(info: dict[str, Any]) -> str:
    words = [say(STATUS[info["status"]])]
    if info["value"] is not None:
        words.insert(0, f"= {info['value']}")
    if info["bomb"]:
        # Translators: a hand with a joker, which wins outright.
        words.append(_("bomb"))
    if info["hidden"]:
        # Translators: how many of a player's cards lie face down.
        words.append(_n("{n} face down", "{n} face down", info["hidden"]))
    return " · ".join(words)


def stake(options: Options) -> int:
    """The chips each seat puts in the bank (0: a game without a stake)."""
    from engine.attackjack import AttackJackOptions  # a view loads no engine at import time

    assert isinstance(options, AttackJackOptions)
    return options.stake
