"""``GameUI``: what a cog tells the shared table machinery about its game.

The machinery in ``bot/`` is the same for every game; a game's cog subclasses
``GameUI`` with its engine, its slash-command name and the drawing of its table
from the engine's **public** view. The only hook that ever sees a seat view is
``hand_context``, and it is only drawn into that player's DM or ephemeral
message.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from typing import Any, ClassVar

import discord

from bot.images import scene as pictures
from bot.storage import Store
from bot.table.autoplay import simple_action
from bot.table.durations import describe_duration
from bot.table.state import LOBBY, PLAYING, Table
from bot.ui import markup
from bot.ui.markup import safe_name, say_safe
from engine.core import Game, Options, choice_label, option_label
from engine.registry import game_class
from locales import _, _n, say


class GameUI:
    GAME_ID: ClassVar[str]
    COMMAND: ClassVar[str]  # the slash command group: /jazz
    COLOUR: ClassVar[discord.Colour] = markup.COLOUR
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
        # Resolved through the registry so a cog module imports no engine at import time:
        # a missing engine then only means that cog is not loaded.
        self.ENGINE: type[Game] = game_class(self.GAME_ID)

    @property
    def title(self) -> str:
        return self.ENGINE.TITLE

    # -- game-specific hooks (override in the cog) ------------------------------

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

    async def start_problem(self, table: Table, store: Store) -> str | None:
        """Why this table cannot start now (AttackJack: a stake above someone's chips)."""
        return None

    def chips(self, game: Game) -> list[int]:
        """Net chips per seat of a completed game, for a game whose registry entry declares
        chips."""
        return [0] * game.players

    def deal_headings(self, deals: int) -> list[str]:
        # Translators: a score table's column head, deal number {n}; keep it very short (D1)
        return [_("D{n}", n=d + 1) for d in range(deals)]

    # -- shared drawing ------------------------------------------------------------

    def lobby_embed(self, table: Table) -> discord.Embed:
        names = "\n".join(
            f"{i + 1}. " + (_("{name} (host)", name=safe_name(s.name))
                            if s.user_id == table.host_id else safe_name(s.name))
            for i, s in enumerate(table.seats)) or _("Nobody yet.")
        description = self.lobby_text(table)
        if table.lines:  # what the host changed (a player removed, an option)
            description += "\n\n" + "\n".join(f"› {say_safe(e)}" for e in table.lines)
        embed = discord.Embed(title=_("{game}: a new table", game=self.title),
                              colour=self.COLOUR, description=description)
        embed.add_field(name=_("Players ({seated}, {needed} needed)", seated=len(table.seats),
                               needed=table.player_range()),
                        value=names, inline=False)
        embed.add_field(name=_options(), value=self.options_text(table), inline=False)
        minutes = int(table.lobby_idle // 60)
        idle = _n("an idle lobby closes after {n} minute", "an idle lobby closes after {n} minutes",
                  minutes)
        embed.set_footer(text=f"{_table(table)} · {idle}")
        return markup.fit_embed(embed)

    def lobby_text(self, table: Table) -> str:
        # Translators: **Join** and **Start** are the lobby's buttons: use their labels.
        press = _("Press **Join** to take a seat. {host} presses **Start** when {needed} "
                  "players are seated.", host=safe_name(table.host_name),
                  needed=table.player_range())
        closes = _("Closes {when} if nobody joins.",
                   when=markup.relative_time(table.lobby_deadline()))
        return f"{press}\n{closes}"

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

    def table_embed(self, table: Table, view: dict[str, Any]) -> discord.Embed:
        """The public table: drawn from ``view`` (= ``game.public_view()``) only."""
        embed = discord.Embed(title=f"{self.title} · {self.heading(view)}", colour=self.COLOUR)
        middle = self.draw_table(view, markup_names(table))
        lines = [middle] if middle else []
        if table.lines:
            lines.append("\n".join(f"› {say_safe(e)}" for e in table.lines))
        lines.append(self.turn_line(table, view))
        embed.description = "\n\n".join(lines)
        embed.add_field(name=_("Players"), value=self.players_text(table, view), inline=False)
        # Translators: "My hand" is the table's button that shows a player their cards.
        mode = _("hands by DM") if table.hands_mode == "dm" else _("hands under My hand")
        shows = _("My hand shows your cards")
        footer = f"{_table(table)} · {mode} · {shows}"
        if table.status == PLAYING and table.idle_limit > 0:  # (bot.play.deadlines)
            footer += " · " + _("stopped after {time} without a move",
                                time=describe_duration(table.idle_limit))
        embed.set_footer(text=footer)
        return markup.fit_embed(embed)

    def turn_line(self, table: Table, view: dict[str, Any]) -> str:
        if view.get("over"):
            return _("The game is over.")
        seat = view.get("to_act")
        if seat is None or table.status != PLAYING:
            return _("The bot is playing…")
        player = table.seats[seat]
        name = safe_name(player.name)
        if player.away:
            return "➡️ " + _("**{name}** to play (away: the bot plays for them)", name=name)
        if table.turn_deadline is not None:
            return "➡️ " + _("**{name}** to play · time runs out {when}", name=name,
                             when=markup.relative_time(table.turn_deadline))
        return "➡️ " + _("**{name}** to play", name=name)

    def players_text(self, table: Table, view: dict[str, Any]) -> str:
        totals = view.get("totals") or view.get("scores") or [0] * len(table.seats)
        to_act = view.get("to_act")
        lines = []
        for seat, player in enumerate(table.seats):
            marks = ("➡️ " if seat == to_act else "") + ("💤 " if player.away else "")
            note = self.seat_note(view, seat)
            lines.append(f"{marks}**{safe_name(player.name)}** "
                         f"{totals[seat]:+d}" + (f" · {note}" if note else ""))
        return "\n".join(lines)

    def hand_embed(self, table: Table, seat_view: dict[str, Any], seat: int,
                   link: str) -> discord.Embed:
        """A player's private hand: for their DM or an ephemeral message only."""
        legal = seat_view.get("legal") or []
        embed = discord.Embed(title=f"{pictures.your_hand()} · {self.title} · "
                                    f"{self.heading(seat_view)}", colour=self.COLOUR)
        parts = []
        context = self.hand_context(seat_view, markup_names(table))
        if context:
            parts.append(context)
        parts.append(markup.hand_lines(seat_view.get("hand") or [], legal))
        parts.append(self.hand_status(table, seat_view, seat))
        embed.description = "\n\n".join(parts)
        # The link's text: the server's and the channel's (or thread's) names, escaped (no
        # "]" or line break can end it early); its target is the bot's own jump URL.
        guild, channel = (safe_name(table.guild_name.strip()),
                          safe_name(table.channel_name.strip()))
        where = " › ".join(filter(None, (guild, f"#{channel}" if channel else "")))
        where = where or _("the table")
        # Translators: a field's name: its value links to the table's message.
        embed.add_field(name=_("Table"), value=f"[{where}]({link})", inline=False)
        embed.set_footer(text=_table(table))
        return markup.fit_embed(embed)

    def hand_status(self, table: Table, seat_view: dict[str, Any], seat: int) -> str:
        if seat_view.get("over") or table.status != PLAYING:
            return _("The game is over.")
        if seat_view.get("legal"):
            line = _("**Your turn**: choose below.")
            if table.turn_deadline is not None:
                line += " " + _("Time runs out {when}.",
                                when=markup.relative_time(table.turn_deadline))
            return line
        to_act = seat_view.get("to_act")
        if to_act is None:
            return _("Waiting for the bot…")
        return _("Waiting for {name}.", name=safe_name(table.seats[to_act].name))

    def deal_result_embed(self, table: Table, game: Game, deal: int) -> discord.Embed:
        points = game.deal_points
        names = table.names
        over = _("deal {deal} is over", deal=deal + 1)
        embed = discord.Embed(title=f"{self.title} · {over}", colour=self.COLOUR)
        scores = markup.score_table(names, points[: deal + 1],
                                    _running(points[: deal + 1], len(names)),
                                    self.deal_headings(deal + 1))
        # How the deal ended (the last trick...), from the public view, above the scores.
        end = (self.deal_end(game.public_view(), markup_names(table))
               if len(points) == deal + 1 else "")
        embed.description = f"{end}\n{scores}" if end else scores
        return markup.fit_embed(embed)

    def final_embed(self, table: Table, game: Game) -> discord.Embed:
        names = table.names
        winners = game.winners()
        result = _("final result")
        embed = discord.Embed(title=f"{self.title} · {result}", colour=markup.GOLD)
        head = winners_line(names, winners) if winners else _("Nobody wins this time.")
        table_text = markup.score_table(names, game.deal_points, game.totals,
                                        self.deal_headings(len(game.deal_points)))
        embed.description = f"{head}\n{table_text}"
        embed.add_field(name=_("Standings"),
                        value=markup.standings(names, game.totals, winners), inline=False)
        return markup.fit_embed(embed)

    def rules_text(self, options: Options | None) -> str:
        """The rules and the options (with their values), in the current language."""
        text = say(self.RULES).strip()
        fields = self.ENGINE.OPTIONS.__dataclass_fields__
        current = (options if options is not None else self.ENGINE.OPTIONS()).to_dict()
        lines = [f"• **{option_line(f, current[name])}** — {say(f.metadata.get('help', ''))}"
                 for name, f in fields.items()]
        heading = _options()
        return markup.clip(f"{text}\n\n**{heading}**\n" + "\n".join(lines), 1900)

    def blurb_text(self) -> str:
        """The one line for /help, in the current language."""
        return say(self.BLURB)


def card_text(code: str) -> str:
    """A card or keyword code as people read it (``10♥``, ``Pass``), in the current
    language: for text that is not itself a translated sentence (a row of cards)."""
    return say(markup.label(code))


def cards_text(codes: Sequence[str]) -> str:
    """Cards side by side in the current language, like ``markup.labels``; "—" for none."""
    return " ".join(card_text(c) for c in codes) or "—"


def markup_names(table: Table) -> list[str]:
    """The seats' names for text, in the current language: a person's escaped
    (``markup.safe_name``), an AI seat's as the bot says it."""
    return [safe_name(seat.name_text) for seat in table.seats]


def and_list(names: Sequence[str]) -> str:
    """Names joined with the current language's "and" (``Ann and Bo and Cy``); "" for none."""
    if not names:
        return ""
    joined = names[0]
    for name in names[1:]:
        # Translators: two names (or a list of names, then one more) joined: "Ann and Bo".
        joined = _("{first} and {second}", first=joined, second=name)
    return joined


def winners_line(names: Sequence[str], winners: Sequence[int]) -> str:
    """🏆 and who won, in bold (``names`` as people typed them: escaped here)."""
    who = and_list([f"**{safe_name(names[w])}**" for w in winners])
    return "🏆 " + _n("{who} wins!", "{who} win!", len(winners), who=who)


def _options() -> str:
    # Translators: the heading of a table's options (a list of `name`: value).
    return _("Options")


def _table(table: Table) -> str:
    # Translators: a table's number, in the footers of its messages.
    return _("Table {table}", table=table.table_id)


def _running(points: Sequence[Sequence[int]], players: int) -> list[int]:
    return [sum(deal[seat] for deal in points) for seat in range(players)]


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


def game_status_text(table: Table, ui: GameUI) -> str:
    """One line for /status and stale answers."""
    if table.status == LOBBY:
        seated = len(table.seats)
        return _n("A {game} lobby with {n} seated, hosted by {host}.",
                  "A {game} lobby with {n} seated, hosted by {host}.", seated,
                  game=ui.title, host=safe_name(table.host_name))
    return _("{game} is being played by {names}.", game=ui.title,
             names=", ".join(markup_names(table)))
