"""``GameView``: what a game tells every front end about itself, without Discord.

The machinery in ``bot/`` is the same for every game; a game's view (``bot/views/<game
id>.py``) subclasses ``GameView`` with the drawing of its table from the engine's
**public** view: the pictures' scenes, the headings and the texts. The only hook that
ever sees a seat view is ``hand_context`` (and ``hand_scene``), and it is only drawn for
that player. Discord's embeds are ``bot.ui.game_ui.GameUI``'s, a ``GameView`` itself; a
web table uses the views as they are (``bot.views.views``). Nothing here imports discord.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from typing import Any, ClassVar

from bot.images import scene as pictures
from bot.table.autoplay import simple_action
from bot.table.durations import describe_duration
from bot.table.state import Table
from engine.core import Game, Options, action_label, choice_label, option_label, parse_action
from engine.registry import game_class
from locales import _, say


class GameView:
    GAME_ID: ClassVar[str]
    # A short summary for /<game> rules (≤ ~1500 characters) and one line for /help: each a
    # ``T(...)`` (made at import, in English), said by ``rules_text`` and ``blurb_text``
    # in the reader's language.
    RULES: ClassVar[str] = ""
    BLURB: ClassVar[str] = ""
    JOKERS: ClassVar[bool] = False  # the deck has jokers: the hand picture gets their row
    # A game of one deal played as a series (AttackJack): after each result the next deal
    # starts by itself, with the players' standings over the series (bot.features.series).
    SERIES: ClassVar[bool] = False

    def __init__(self) -> None:
        # Resolved through the registry so a game's module imports no engine at import time:
        # a missing engine then only means that game is not loaded.
        self.ENGINE: type[Game] = game_class(self.GAME_ID)

    @property
    def title(self) -> str:
        return self.ENGINE.TITLE

    # -- game-specific hooks (override in the game's view) ---------------------------

    def policy(self, game: Game) -> int:
        """The move played for a player who timed out or is away."""
        return simple_action(game)

    def heading(self, view: dict[str, Any]) -> str:
        """A short line under the title: the deal and what it is about."""
        return _("Deal {deal}", deal=view.get("deal", 0) + 1)

    def draw_table(self, view: dict[str, Any], names: Sequence[str]) -> str:
        """The middle of the table from the public view: trick, rows, sum, open card...

        ``names`` here (and in ``hand_context`` and ``deal_end``) are markup, already
        escaped (``markup_names``); the pictures' hooks get them as people typed them."""
        return ""

    def seat_note(self, view: dict[str, Any], seat: int) -> str:
        """A few public words about a seat next to its name (cards left, tricks...)."""
        return ""

    def hand_context(self, seat_view: dict[str, Any], names: Sequence[str]) -> str:
        """What a player needs above their hand to choose (the trick to follow...)."""
        return self.draw_table(seat_view, names)

    def deal_end(self, view: dict[str, Any], names: Sequence[str]) -> str:
        """How a deal that just ended looks (its last trick...), for its result message."""
        return self.draw_table(view, names)

    def table_scene(self, view: dict[str, Any], names: Sequence[str]) -> pictures.Scene:
        """The public table as a picture, from ``view`` (= ``game.public_view()``) only."""
        names = pictures.display_names(names)
        return pictures.Scene(self.title, self.heading(view),
                              seats=self.scene_seats(view, names),
                              captions=(self.scene_status(view, names),),
                              seat_columns=pictures.columns_for(len(names)), seat_cards=False)

    def hand_scene(self, seat_view: dict[str, Any], names: Sequence[str],
                   seat: int) -> pictures.Scene:
        """A player's hand as a picture, from ``seat_view`` (= ``game.seat_view(seat)``)
        only: one row per suit as the text shows it, the legal cards marked."""
        names = pictures.display_names(names)
        legal = seat_view.get("legal") or []
        caption = pictures.keyword_caption(legal)
        return pictures.Scene(pictures.hand_title(names, seat),
                              f"{self.title} · {self.heading(seat_view)}",
                              zones=pictures.suit_rows(seat_view.get("hand") or [], legal,
                                                       jokers=self.JOKERS),
                              captions=(caption,))

    def scene_seats(self, view: dict[str, Any], names: Sequence[str]) -> tuple[pictures.Seat, ...]:
        """A box per seat: name, total, ``seat_note`` and whose turn it is."""
        totals = view.get("totals") or view.get("scores") or [0] * len(names)
        winners = set(view.get("winners") or []) if view.get("over") else set()
        return tuple(pictures.Seat(name, pictures.score_text(totals[seat]),
                                   self.seat_note(view, seat),
                                   active=seat == view.get("to_act"), winner=seat in winners)
                     for seat, name in enumerate(names))

    def scene_status(self, view: dict[str, Any], names: Sequence[str]) -> str:
        """A picture's last line: who is to play, or who won."""
        if view.get("over"):
            winners = and_list([pictures.name_of(names, w) for w in view.get("winners", [])])
            return _("The game is over: {winners} won.", winners=winners) if winners \
                else _("The game is over.")
        to_act = view.get("to_act")
        return "" if to_act is None else _("{name} to play.",
                                           name=pictures.name_of(names, to_act))

    def chips(self, game: Game) -> list[int]:
        """Net chips per seat of a completed game, for a game whose registry entry declares
        chips."""
        return [0] * game.players

    def deal_headings(self, deals: int) -> list[str]:
        # Translators: a score table's column head, deal number {n}; keep it very short (D1)
        return [_("D{n}", n=d + 1) for d in range(deals)]

    # -- shared texts --------------------------------------------------------------

    def options_text(self, table: Table) -> str:
        """The table's options, one a line, each by its name for people and its value in
        words: "Sevens bonus: 10", "Norwegian variant: off"."""
        values = table.options.to_dict()
        parts = [option_line(f, values[f.name]) for f in dataclasses.fields(table.options)]
        # Translators: the `hands` option: each player's cards come in a DM, or only under
        # the table's My hand button.
        hands = _("by DM") if table.hands_mode == "dm" else _("My hand button only")
        # Translators: the table's setting of where the hands are shown, as in "Hands: by DM"
        parts.append(_("{option}: {value}", option=_("Hands"), value=hands))
        # Translators: the time a player has for a move, as in "Turn timer: 5 minutes"
        parts.append(_("{option}: {value}", option=_("Turn timer"),
                       value=describe_duration(table.turn_timer)))
        return "\n".join(parts)

    def rules_text(self, options: Options | None) -> str:
        """The rules and the options (with their values), in the current language."""
        text = say(self.RULES).strip()
        fields = self.ENGINE.OPTIONS.__dataclass_fields__
        current = (options if options is not None else self.ENGINE.OPTIONS()).to_dict()
        lines = [f"• **{option_line(f, current[name])}** — {say(f.metadata.get('help', ''))}"
                 for name, f in fields.items()]
        heading = options_heading()
        return _clip(f"{text}\n\n**{heading}**\n" + "\n".join(lines), 1900)

    def blurb_text(self) -> str:
        """The one line for /help, in the current language."""
        return say(self.BLURB)


def card_text(code: str) -> str:
    """A card or keyword code as people read it (``10♥``, ``Pass``), in the current
    language: for text that is not itself a translated sentence (a row of cards). The same
    as ``bot.ui.markup.label``, which a view cannot import (it brings discord)."""
    return say(action_label(parse_action(code)))


def cards_text(codes: Sequence[str]) -> str:
    """Cards side by side in the current language, like ``markup.labels``; "—" for none."""
    return " ".join(card_text(c) for c in codes) or "—"


def and_list(names: Sequence[str]) -> str:
    """Names joined with the current language's "and" (``Ann and Bo and Cy``); "" for none."""
    if not names:
        return ""
    joined = names[0]
    for name in names[1:]:
        # Translators: two names (or a list of names, then one more) joined: "Ann and Bo".
        joined = _("{first} and {second}", first=joined, second=name)
    return joined


def options_heading() -> str:
    # Translators: the heading of a table's options (a list of `name`: value).
    return _("Options")


def option_value_text(f: dataclasses.Field, value: Any) -> str:
    """An option's value in words, in the current language: on/off, a choice's words, a
    number."""
    if isinstance(value, bool):
        # Translators: an option's value: switched on, switched off.
        return _("on") if value else _("off")
    if isinstance(value, str):
        return say(choice_label(f, value))
    return say(value)


def option_line(f: dataclasses.Field, value: Any) -> str:
    """An option by its name for people and its value: "Sevens bonus: 10"."""
    # Translators: an option and its value, as in "Sevens bonus: 10" or "Blind card: on"
    return _("{option}: {value}", option=say(option_label(f)),
             value=option_value_text(f, value))


def _clip(text: str, limit: int) -> str:
    """``text`` cut to ``limit`` characters, with an ellipsis when something was cut (as
    ``bot.ui.markup.clip``, which a view cannot import)."""
    if len(text) <= limit:
        return text
    return text[: max(0, limit - 1)] + "…"
