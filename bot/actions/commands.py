"""The slash commands every game shares: ``/<game> start|join|leave|hand|stop|rules|status``.

``start`` parses the table's options once, into the engine's typed options, and
opens a lobby; the others find the table in the channel and hand over to the
lobby, the moves or the endings.
"""

from __future__ import annotations

import logging
import random
from collections.abc import Awaitable, Callable
from typing import Any

import discord

import locales
from bot.actions import table_setup
from bot.actions.clicks import Clicks
from bot.actions.lobby import Lobby
from bot.actions.moves import Moves
from bot.config import server_settings
from bot.config.settings import Limits, Timing
from bot.play.endings import Endings
from bot.table.limits import Openings, Start
from bot.table.manager import TableManager
from bot.table.state import HANDS_MODES, LOBBY, STOPPED, Table, TableError, new_table_id
from bot.table.timers import Clock, TableTimers
from bot.table.when import WhenError
from bot.ui import answer_guard, markup, replies
from bot.ui.board import Board, save_posts
from bot.ui.game_ui import GameUI, game_status_text
from bot.ui.languages import table_language
from bot.ui.markup import say_safe
from bot.ui.permissions import can_attach, missing_permissions
from engine.core import OptionError, Options
from engine.text import T
from locales import _, _n

log = logging.getLogger(__name__)

# A new table's host's name, its game's title, the server's settings → a note for the host.
Opened = Callable[[Table, str, str, server_settings.ServerSettings], Awaitable[str | None]]
Invited = Callable[[discord.Interaction, Table, list[Any]], Awaitable[None]]



class Commands:
    def __init__(self, manager: TableManager, clicks: Clicks, lobby: Lobby, moves: Moves,
                 board: Board, endings: Endings, timers: TableTimers, uis: dict[str, GameUI],
                 timing: Timing, clock: Clock, seed: int | None, limits: Limits | None = None):
        self.manager = manager
        self.clicks = clicks
        self.lobby = lobby
        self.moves = moves
        self.board = board
        self.endings = endings
        self.timers = timers
        self.uis = uis
        self.timing = timing
        self.clock = clock
        self.limits = limits or Limits()
        self.openings = Openings(manager)  # open tables per server and host (the caps)
        # After a table is open and posted (``bot.features.gathering``, set by the croupier).
        self.opened: Opened | None = None
        self.invited: Invited | None = None  # /<game> invite, likewise
        # Tables shuffle with their own Random; a seed (tests) makes every table reproducible.
        self._seeds = random.Random(seed) if seed is not None else None

    def _table_for(self, interaction: discord.Interaction, ui: GameUI) -> Table:
        table = self.manager.in_channel(interaction.channel_id or 0)
        if table is None:
            start = f"`/{ui.COMMAND} start`"
            raise TableError(T("There is no table in this channel. Open one with {command}.",
                               command=start))
        if table.game_id != ui.GAME_ID:
            other = self.uis[table.game_id]
            command = f"`/{other.COMMAND}`"
            raise TableError(T("The table in this channel plays {game}: use {command} here.",
                               game=other.title, command=command))
        return table

    async def open_table(self, interaction: discord.Interaction, ui: GameUI,
                         raw_options: dict[str, Any], hands: str | None,
                         turn_timer: int | None, images: bool | None = None,
                         language: str | None = None,
                         invitation: table_setup.Invitation | None = None) -> None:
        """``/<game> start``: a lobby in this channel, its opener seated as host.

        ``turn_timer`` is in seconds (0: no timer; None: not given); ``invitation``: when
        it starts and whose seats are kept (``bot.features.gathering``)."""
        answer_guard.answer_within(interaction, self.timing.start_answer_within)
        channel_id = interaction.channel_id or 0
        settings = await server_settings.read(self.manager.store, interaction.guild_id)
        threaded = table_setup.opens_thread(settings, interaction)
        problem = (table_setup.channel_refusal(settings, interaction)
                   or self._start_problem(interaction, channel_id, threaded))
        options: Options | None = None
        if problem is None:
            try:
                options = ui.ENGINE.OPTIONS.from_dict(table_setup.with_house_rules(
                    settings, ui.GAME_ID, ui.ENGINE.OPTIONS, raw_options))
            except OptionError as error:
                problem = say_safe(error)
        invitation = invitation or table_setup.Invitation()
        starts_at: float | None = None
        kept: list[int] = []
        if problem is None:
            try:
                starts_at = table_setup.start_time(invitation, settings, self.clock.now())
                kept = table_setup.kept_for(invitation, interaction.user.id)
            except WhenError as error:  # (it quotes what they typed: escaped like a name)
                problem = say_safe(error, typed=("value",))
            except ValueError as error:
                problem = str(error)
        if problem is None and invitation.fill and not settings.ai_allowed:
            problem = _("This server does not allow AI players, so empty seats cannot be "
                        "filled with them.")
        if problem is None and options is not None \
                and len(kept) >= ui.ENGINE.player_range(options)[1]:
            problem = _("You named more players than the table has seats for besides yours.")
        if problem is not None or options is None:
            await replies.reply(interaction, problem)
            return
        # The caps, before anything is made (a thread); counted until the table is open.
        caps = settings.caps(self.limits.tables_per_host, self.limits.tables_per_server)
        host, guild = interaction.user.id, interaction.guild_id
        full = self.openings.full(guild, host, caps)
        if full is not None:
            hosted = [t for t in self.manager.all() if t.guild_id == guild and t.host_id == host]
            await replies.reply(interaction, table_setup.cap_refusal(full, hosted))
            return
        with self.openings.opening(guild, host) as start:
            await self._open(interaction, ui, options, hands, turn_timer, images, language,
                             settings, threaded, start,
                             table_setup.Arrival(starts_at, kept, invitation))

    async def _open(self, interaction: discord.Interaction, ui: GameUI, options: Options,
                    hands: str | None, turn_timer: int | None, images: bool | None,
                    language: str | None, settings: server_settings.ServerSettings,
                    threaded: bool, start: Start, arrival: table_setup.Arrival) -> None:
        """The start checked: the thread (if any), the lobby stored and posted."""
        channel_id = interaction.channel_id or 0
        thread = await table_setup.open_thread(interaction, ui.title) if threaded else None
        if threaded and thread is None:
            await replies.reply(interaction, _("I could not open a thread for the game just "
                                               "now, so no table was opened. Please try "
                                               "again."))
            return
        table = self._new_table(interaction, ui, options, hands, turn_timer)
        start.table_id = table.table_id  # counted by the manager once it holds it
        if turn_timer is None:  # none given: the server's default timer, else the bot's
            table.turn_timer = table_setup.turn_timer(settings, table.turn_timer)
        if thread is not None:  # the game's own thread
            table.channel_id, table.channel_name = thread.id, thread.name
        table.language = table_language(interaction, language or settings.language)
        table.ai_allowed, table.hints_allowed = settings.ai_allowed, settings.hints_allowed
        table_setup.settle_in(table, settings, arrival, self.clock.now())
        # Pictures need Attach Files: without it they are left out, and the text says so.
        wanted = settings.images if images is None else images
        table.images = wanted and can_attach(interaction)
        try:
            await self.manager.open(table)
        except TableError as error:  # another start in this channel got there first
            await replies.reply(interaction, say_safe(error))
            return
        except Exception as error:  # storage trouble
            log.warning("cannot open a table in %s: %s", channel_id, error)
            await replies.reply(interaction, _("I could not open a table here just now. "
                                               "Please try again."))
            return
        message = await self.board.post(table)
        if message is None:
            table.status = STOPPED
            await self.manager.close(table)
            await replies.reply(interaction, _("I could not post in this channel, so no "
                                               "table was opened. Check my permissions "
                                               "here."))
            return
        await save_posts(self.manager, table)
        self.timers.schedule(table)
        if table.starts_at is not None:
            opened = _("Your {game} table is scheduled for {when}: {link}\nFriends press "
                       "**Join** (or **Interested** on the server's event); it starts by "
                       "itself at that time when {players} players are seated.",
                       game=ui.title, when=markup.start_time(table.starts_at),
                       link=message.jump_url, players=table.player_range())
        else:
            opened = _("Your {game} table is open: {link}\nFriends press **Join**; you "
                       "press **Start** when {players} players are seated.", game=ui.title,
                       link=message.jump_url, players=table.player_range())
        if self.opened is not None:  # its event, the invited told, the role called
            note = await self.opened(table, interaction.user.display_name, ui.title,
                                     settings)
            if note:
                opened += "\n" + note
        if wanted and not table.images:
            opened += "\n" + _("Pictures are off at this table: I lack the Attach Files "
                               "permission here.")
        await replies.reply(interaction, opened)

    def _start_problem(self, interaction: discord.Interaction, channel_id: int,
                       threaded: bool = False) -> str | None:
        # A table in a thread of its own cannot meet one in this channel.
        existing = None if threaded else self.manager.in_channel(channel_id)
        if existing is not None:
            where = markup.jump_url(existing.guild_id, existing.channel_id,
                                    existing.posts.message_id)
            return _("There is already a table of {game} in this channel: {link}\nOne game "
                     "at a time per channel; a thread counts as its own channel.",
                     game=existing.title, link=where)
        missing = missing_permissions(interaction, threaded)
        if missing:
            return _n("I cannot run a table here: I am missing the permission {permissions} "
                      "in this channel. Ask a moderator to grant it, or start the game in "
                      "another channel.",
                      "I cannot run a table here: I am missing the permissions {permissions} "
                      "in this channel. Ask a moderator to grant them, or start the game in "
                      "another channel.", len(missing), permissions=", ".join(missing))
        return None

    def table_rng(self) -> random.Random | None:
        """A new table's own Random when a seed was given (tests), else None (its default)."""
        return random.Random(self._seeds.getrandbits(64)) if self._seeds is not None else None

    def _new_table(self, interaction: discord.Interaction, ui: GameUI, options: Options,
                   hands: str | None, turn_timer: int | None) -> Table:
        now = self.clock.now()
        user = interaction.user
        channel = interaction.channel
        rng = self.table_rng()
        table = Table(
            table_id=new_table_id(), game_id=ui.GAME_ID, engine=ui.ENGINE,
            guild_id=interaction.guild_id, channel_id=interaction.channel_id or 0,
            host_id=user.id, created_at=now, options=options,
            hands_mode=hands if hands in HANDS_MODES else "dm",
            # Seconds (bot.table.durations.parse_duration), 0 = off; None: not given.
            turn_timer=float(turn_timer if turn_timer is not None else self.timing.turn_timer),
            lobby_idle=self.timing.lobby_idle, idle_limit=self.limits.idle_after,
            guild_name=interaction.guild.name if interaction.guild else "",
            channel_name=getattr(channel, "name", "") or "", last_activity=now)
        if rng is not None:
            table.rng = rng
        table.join(user.id, user.display_name, now)
        return table

    async def lobby_command(self, interaction: discord.Interaction, ui: GameUI,
                            action: str) -> None:
        """``/<game> join`` and ``leave``: as the lobby's buttons, from anywhere in the channel."""
        try:
            table = self._table_for(interaction, ui)
        except TableError as error:
            await replies.reply(interaction, say_safe(error))
            return
        await self.lobby.click(interaction, table.table_id, table.step, action, via_command=True)

    async def invite_command(self, interaction: discord.Interaction, ui: GameUI,
                             members: list[Any]) -> None:
        """``/<game> invite``: the host keeps seats (``bot.features.gathering``)."""
        try:
            table = self._table_for(interaction, ui)
        except TableError as error:
            await replies.reply(interaction, say_safe(error))
            return
        if self.invited is not None:
            await self.invited(interaction, table, members)

    async def hand_command(self, interaction: discord.Interaction, ui: GameUI) -> None:
        try:
            table = self._table_for(interaction, ui)
        except TableError as error:
            await replies.reply(interaction, say_safe(error))
            return
        await self.moves.hand_click(interaction, table.table_id)

    async def status_command(self, interaction: discord.Interaction, ui: GameUI) -> None:
        try:
            table = self._table_for(interaction, ui)
        except TableError as error:
            await replies.reply(interaction, say_safe(error))
            return
        link = markup.jump_url(table.guild_id, table.channel_id, table.posts.message_id)
        if table.status == LOBBY or table.game is None:
            embed = ui.lobby_embed(table)
        else:
            embed = ui.table_embed(table, table.game.public_view())
        await replies.reply(interaction, _("{status} Table: {link}",
                                           status=game_status_text(table, ui), link=link),
                            embed=embed)

    async def rules_command(self, interaction: discord.Interaction, ui: GameUI) -> None:
        table = self.manager.in_channel(interaction.channel_id or 0)
        options = table.options if table is not None and table.game_id == ui.GAME_ID else None
        embed = discord.Embed(title=_("{game}: the rules", game=ui.title), colour=ui.COLOUR,
                              description=ui.rules_text(options))
        if options is not None and table is not None:
            embed.set_footer(text=_("Options shown are this table's ({table}).",
                                    table=table.table_id))
        await replies.reply(interaction, embed=markup.fit_embed(embed))

    async def stop_command(self, interaction: discord.Interaction, ui: GameUI) -> None:
        """``/<game> stop``: the host, or anyone who may manage messages here."""
        try:
            table = self._table_for(interaction, ui)
        except TableError as error:
            await replies.reply(interaction, say_safe(error))
            return
        user = interaction.user
        if user.id != table.host_id and not interaction.permissions.manage_messages:
            await replies.reply(interaction, _("Only the host, {host}, or someone who may "
                                               "manage messages here can stop this table.",
                                               host=markup.safe_name(table.host_name)))
            return
        async with self.clicks.table(interaction, None, table=table,
                                     channel_bound=False) as found:
            if found is None:
                return
            await self.endings.stop(found, user.id,
                                    T("The table was stopped by {player}.",
                                      player=user.display_name))
        with locales.speaking(table.language):  # the channel reads it
            stopped = _("{player} stopped the {game} table.", player=user.mention,
                        game=ui.title)
        await replies.reply(interaction, stopped, ephemeral=False)
