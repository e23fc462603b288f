"""``GameUI``: what a cog tells the shared table machinery about its game, in Discord.

A game's cog subclasses its view (``bot/views/<game id>.py``: the drawing of its table
from the engine's **public** view, its pictures and texts, all without Discord) and
``GameUI``, which adds its slash-command name and the embeds built from the view's hooks.
The only hook that ever sees a seat view is ``hand_context``, and it is only drawn into
that player's DM or ephemeral message.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, ClassVar

import discord

from bot.images import scene as pictures
from bot.storage import Store
from bot.table import gathering
from bot.table.durations import describe_duration
from bot.table.state import LOBBY, PLAYING, Table
from bot.ui import markup, pause_buttons, tournament_text
from bot.ui.markup import safe_name, say_safe
from bot.views.game_view import GameView, and_list, option_line, options_heading
from engine.core import Game
from locales import _, _n

# option_line too: the lobby's and the host's controls take it from here.
__all__ = ["GameUI", "game_status_text", "markup_names", "option_line", "winners_line"]


class GameUI(GameView):
    COMMAND: ClassVar[str]  # the slash command group: /jazz
    COLOUR: ClassVar[discord.Colour] = markup.COLOUR

    async def start_problem(self, table: Table, store: Store) -> str | None:
        """Why this table cannot start now (AttackJack: a stake above someone's chips)."""
        return None

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
        embed.add_field(name=options_heading(), value=self.options_text(table), inline=False)
        minutes = int(table.lobby_idle // 60)
        idle = _n("an idle lobby closes after {n} minute", "an idle lobby closes after {n} minutes",
                  minutes)
        # (a scheduled lobby does not idle out: its time is in the description)
        embed.set_footer(text=_table(table) if table.starts_at is not None
                         or table.tournament_id is not None else f"{_table(table)} · {idle}")
        return markup.fit_embed(embed)

    def lobby_text(self, table: Table) -> str:
        if table.tournament_id is not None:  # its players join; it starts by itself
            return tournament_text.lobby_text(table)
        # Translators: **Join** and **Start** are the lobby's buttons: use their labels.
        press = _("Press **Join** to take a seat. {host} presses **Start** when {needed} "
                  "players are seated.", host=safe_name(table.host_name),
                  needed=table.player_range())
        if table.starts_at is not None:  # a scheduled table: no idle end, a time
            when = markup.start_time(table.starts_at)
            closes = _("Starts by itself {when}, with the players seated then.", when=when)
        else:
            closes = _("Closes {when} if nobody joins.",
                       when=markup.relative_time(table.lobby_deadline()))
        lines = [press, closes]
        kept = gathering.kept_free(table)
        if kept:  # (a mention in an embed pings nobody)
            lines.append(_("Seats kept for: {players}",
                           players=" ".join(markup.mention(u) for u in kept)))
        if table.invite_only:
            invite = f"`/{self.COMMAND} invite`"
            lines.append(_("By invitation only: the host invites with {command}.",
                           command=invite))
        return "\n".join(lines)

    def table_embed(self, table: Table, view: dict[str, Any]) -> discord.Embed:
        """The public table: drawn from ``view`` (= ``game.public_view()``) only."""
        embed = discord.Embed(title=f"{self.title} · {self.heading(view)}", colour=self.COLOUR)
        middle = self.draw_table(view, markup_names(table))
        lines = [middle] if middle else []
        if table.lines:
            lines.append("\n".join(f"› {say_safe(e)}" for e in table.lines))
        lines.append(pause_buttons.paused_line(table) or self.turn_line(table, view))
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


def markup_names(table: Table) -> list[str]:
    """The seats' names for text, in the current language: a person's escaped
    (``markup.safe_name``), an AI seat's as the bot says it."""
    return [safe_name(seat.name_text) for seat in table.seats]


def winners_line(names: Sequence[str], winners: Sequence[int]) -> str:
    """🏆 and who won, in bold (``names`` as people typed them: escaped here)."""
    who = and_list([f"**{safe_name(names[w])}**" for w in winners])
    return "🏆 " + _n("{who} wins!", "{who} win!", len(winners), who=who)


def _table(table: Table) -> str:
    # Translators: a table's number, in the footers of its messages.
    return _("Table {table}", table=table.table_id)


def _running(points: Sequence[Sequence[int]], players: int) -> list[int]:
    return [sum(deal[seat] for deal in points) for seat in range(players)]


def game_status_text(table: Table, ui: GameUI) -> str:
    """One line for /status and stale answers."""
    if table.status == LOBBY:
        seated = len(table.seats)
        return _n("A {game} lobby with {n} seated, hosted by {host}.",
                  "A {game} lobby with {n} seated, hosted by {host}.", seated,
                  game=ui.title, host=safe_name(table.host_name))
    return _("{game} is being played by {names}.", game=ui.title,
             names=", ".join(markup_names(table)))
