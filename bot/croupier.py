"""The croupier runs every table: commands, clicks, timers and the bot's own moves.

Every change to a table is ONE step under the table's lock:

1. re-check the player, the turn and the table's step (``Table.check_move``);
2. apply in the engine;
3. persist (``TableManager.save``, version-checked by storage; rolled back on failure);
4. answer the interaction (the clicked hand message is updated in the same response);
5. edit the table message (coalesced when edits come faster than ``edit_interval``);
6. notify the next player (their hand by DM, with the menu of legal actions).

Turn timeouts, away players, AI seats, forced passes, AttackJack's forced turns and
new deals go through the same step, started by ``_drive`` after a short visible pause.
AI decisions (AI seats, timed-out turns, away players) are searched off the event
loop by ``bot.ai.AIRunner``. The driver searches before taking the table's lock and
applies the action only if the table has not moved on meanwhile (same step, same
seat to act); a timed-out turn is searched under the lock (rare, ``normal`` only).
Discord errors are logged and absorbed (``Poster``): a table never crashes on them.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import random
from collections.abc import AsyncIterator, Callable
from datetime import UTC, datetime
from typing import Any

import discord

from bot import render, views
from bot.ai import TAKEOVER_LEVEL, AIRunner
from bot.games import GameUI, game_status_text
from bot.posting import DMClosed, EditCoalescer, Gone, Poster
from bot.settings import Timing
from bot.storage import FinishedGame, SeatResult, Store, TableRow
from bot.tables import (
    FINISHED,
    HANDS_MODES,
    LOBBY,
    PLAYING,
    STOPPED,
    StaleClick,
    Table,
    TableError,
    TableManager,
    new_table_id,
)
from bot.timers import Clock, TableTimers
from engine.core import Game, OptionError, action_code

log = logging.getLogger(__name__)

PINGS = discord.AllowedMentions(everyone=False, roles=False, users=True)
NO_PINGS = discord.AllowedMentions.none()
REQUIRED_PERMISSIONS = (("view_channel", "View Channel"), ("send_messages", "Send Messages"),
                        ("embed_links", "Embed Links"))


def make_row(table: Table) -> TableRow:
    return TableRow(table_id=table.table_id, guild_id=table.guild_id or 0,
                    channel_id=table.channel_id, game=table.game_id, status=table.status,
                    version=table.version, data=table.to_data())


class Croupier:
    def __init__(self, client: discord.Client, store: Store, uis: dict[str, GameUI],
                 timing: Timing, clock: Clock, seed: int | None = None,
                 ai: AIRunner | None = None):
        self.client = client
        # Tables shuffle with their own Random; a seed (tests) makes every table reproducible.
        self._seeds = random.Random(seed) if seed is not None else None
        self.store = store
        self.uis = uis
        self.timing = timing
        self.clock = clock
        self.manager = TableManager(store, self._engine_of, make_row)
        self.poster = Poster(client)
        self.timers = TableTimers(clock, self.on_due)
        self.edits = EditCoalescer(timing.edit_interval, self._edit_table_by_id)
        self._drivers: dict[str, asyncio.Task[None]] = {}
        self._background: set[asyncio.Task[Any]] = set()
        self.ai = ai if ai is not None else AIRunner()

    def _engine_of(self, game_id: str) -> type[Game] | None:
        ui = self.uis.get(game_id)
        return ui.ENGINE if ui is not None else None

    def ui(self, table: Table) -> GameUI:
        return self.uis[table.game_id]

    # ======================================================== lifecycle

    async def restore(self) -> list[Table]:
        """Bring back every table after a restart: timers, pending bot moves, the message."""
        tables, problems = await self.manager.restore()
        for problem in problems:
            await self._abandon(problem.table_id, problem.channel_id, problem.guild_id,
                                problem.reason)
        for table in tables:
            self.timers.schedule(table)
            if table.status == PLAYING:
                self._spawn(self._resume(table), f"resume-{table.table_id}")
            else:
                self._kick(table)
        return tables

    async def _resume(self, table: Table) -> None:
        """After a restart: say so on the table, and redo steps 5 and 6 of the last move
        (the table edit and the next player's DM may have died with the old process)."""
        async with self._locked(table):
            if not self._live(table):
                return
            table.events.append("♻️ The bot restarted: the game resumed where it was.")
            del table.events[:-3]
            await self.edits.now(table.table_id)
            seat = table.to_act
            if seat is not None and table.automation() is None:
                await self._send_hand(table, seat)
            await self._save(table)
        self._kick(table)

    async def _abandon(self, table_id: str, channel_id: int | None, guild_id: int | None,
                       reason: str) -> None:
        log.error("table %s cannot be restored: %s", table_id, reason)
        with contextlib.suppress(Exception):
            await self.store.close_table(table_id, STOPPED)
        if channel_id is not None:
            await self.poster.send(channel_id, guild_id, content=render.content(
                "⚠️ The game at this table could not be brought back after a restart, so it "
                "was stopped. Sorry! Start a new one whenever you like."))

    async def close(self) -> None:
        """Stop every task of the croupier and wait for them (before the cogs go away)."""
        tasks = list(self._drivers.values()) + list(self._background)
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)
        await self.timers.close()
        await self.edits.close()
        self.ai.close()

    def busy(self) -> bool:
        """Whether a step, a bot move, a table edit or a save is still running (tests, shutdown)."""
        return (self.manager.any_locked() or self.edits.pending()
                or any(not t.done() for t in self._drivers.values())
                or any(not t.done() for t in self._background))

    def _spawn(self, coro: Any, name: str) -> None:
        task = asyncio.create_task(coro, name=name)
        self._background.add(task)
        task.add_done_callback(self._background.discard)

    # ======================================================== answering interactions

    async def _reply(self, interaction: discord.Interaction, content: str | None = None, *,
                     embed: discord.Embed | None = None, view: discord.ui.View | None = None,
                     ephemeral: bool = True) -> None:
        """A new message answering the interaction (or a follow-up once it was deferred)."""
        kwargs: dict[str, Any] = {"content": render.content(content) if content else None,
                                  "ephemeral": ephemeral, "allowed_mentions": NO_PINGS}
        if embed is not None:
            kwargs["embed"] = embed
        if view is not None:
            kwargs["view"] = view
        try:
            if interaction.response.is_done():
                await interaction.followup.send(**kwargs)
            else:
                await interaction.response.send_message(**kwargs)
        except discord.HTTPException as error:
            log.warning("cannot answer an interaction: %s", error)

    async def _update(self, interaction: discord.Interaction, **kwargs: Any) -> None:
        """Replace the clicked message (DM hand, ephemeral hand, lobby) in the response."""
        try:
            if interaction.response.is_done():
                await interaction.edit_original_response(**kwargs)
            else:
                await interaction.response.edit_message(**kwargs)
        except discord.HTTPException as error:
            log.warning("cannot update the clicked message: %s", error)

    @contextlib.asynccontextmanager
    async def _locked(self, table: Table, interaction: discord.Interaction | None = None
                      ) -> AsyncIterator[None]:
        """The table's lock; a click that waits too long is deferred to keep Discord's 3 s."""
        lock = self.manager.lock(table)
        acquire = asyncio.ensure_future(lock.acquire())
        if interaction is not None and not acquire.done():
            done, _ = await asyncio.wait({acquire}, timeout=self.timing.lock_patience)
            if not done and not interaction.response.is_done():
                with contextlib.suppress(discord.HTTPException):
                    await interaction.response.defer(ephemeral=True, thinking=True)
        try:
            await acquire
        except asyncio.CancelledError:
            # Cancelled while waiting: if the lock was taken meanwhile, give it back.
            if acquire.done() and not acquire.cancelled():
                lock.release()
            else:
                acquire.cancel()
            raise
        try:
            yield
        finally:
            lock.release()

    def _live(self, table: Table) -> bool:
        """Whether the table is still the live one (it may have closed while we waited)."""
        return self.manager.get(table.table_id) is table

    async def _closed_answer(self, interaction: discord.Interaction) -> None:
        await self._reply(interaction, "That table is closed: its game is over or was stopped. "
                                       "Nothing was changed.")

    # ======================================================== slash commands

    def _table_for(self, interaction: discord.Interaction, ui: GameUI) -> Table:
        table = self.manager.in_channel(interaction.channel_id or 0)
        if table is None:
            raise TableError(f"There is no table in this channel. Open one with "
                             f"`/{ui.COMMAND} start`.")
        if table.game_id != ui.GAME_ID:
            other = self.uis[table.game_id]
            raise TableError(f"The table in this channel plays {other.title}: use "
                             f"`/{other.COMMAND}` here.")
        return table

    async def open_table(self, interaction: discord.Interaction, ui: GameUI,
                         options: dict[str, Any], hands: str | None,
                         turn_timer: int | None) -> None:
        """``/<game> start``: a lobby in this channel, its opener seated as host."""
        channel_id = interaction.channel_id or 0
        problem = self._start_problem(interaction, channel_id)
        if problem is None:
            try:
                ui.ENGINE.OPTIONS.from_dict(options)
            except OptionError as error:
                problem = str(error)
        if problem is not None:
            await self._reply(interaction, problem)
            return
        table = self._new_table(interaction, ui, options, hands, turn_timer)
        try:
            await self.manager.open(table)
        except TableError as error:  # another start in this channel got there first
            await self._reply(interaction, str(error))
            return
        except Exception as error:  # storage trouble
            log.warning("cannot open a table in %s: %s", channel_id, error)
            await self._reply(interaction, "I could not open a table here just now. "
                                           "Please try again.")
            return
        message = await self.poster.send(channel_id, table.guild_id,
                                         **self._table_message(table))
        if message is None:
            table.status = STOPPED
            await self.manager.close(table)
            await self._reply(interaction, "I could not post in this channel, so no table was "
                                           "opened. Check my permissions here.")
            return
        table.message_id, table.message_posted_at = message.id, self.clock.now()
        await self._save(table)
        self.timers.schedule(table)
        await self._reply(interaction, f"Your {ui.title} table is open: {message.jump_url}\n"
                                       f"Friends press **Join**; you press **Start** when "
                                       f"{table.player_range()} players are seated.")

    def _start_problem(self, interaction: discord.Interaction, channel_id: int) -> str | None:
        existing = self.manager.in_channel(channel_id)
        if existing is not None:
            where = render.jump_url(existing.guild_id, existing.channel_id, existing.message_id)
            return (f"There is already a table of {existing.title} in this channel: {where}\n"
                    "One game at a time per channel; a thread counts as its own channel.")
        missing = missing_permissions(interaction)
        if missing:
            return (f"I cannot run a table here: I am missing the permission"
                    f"{'s' if len(missing) > 1 else ''} {', '.join(missing)} in this channel. "
                    "Ask a moderator to grant it, or start the game in another channel.")
        return None

    def _new_table(self, interaction: discord.Interaction, ui: GameUI, options: dict[str, Any],
                   hands: str | None, turn_timer: int | None) -> Table:
        now = self.clock.now()
        user = interaction.user
        channel = interaction.channel
        table = Table(
            table_id=new_table_id(), game_id=ui.GAME_ID, engine=ui.ENGINE,
            guild_id=interaction.guild_id, channel_id=interaction.channel_id or 0,
            host_id=user.id, created_at=now, options=dict(options),
            hands=hands if hands in HANDS_MODES else "dm",
            turn_timer=float(turn_timer * 60) if turn_timer else float(self.timing.turn_timer),
            lobby_idle=self.timing.lobby_idle, **self._rng(),
            guild_name=interaction.guild.name if interaction.guild else "",
            channel_name=getattr(channel, "name", "") or "", last_activity=now)
        table.join(user.id, user.display_name, now)
        return table

    def _rng(self) -> dict[str, random.Random]:
        return {} if self._seeds is None else {"rng": random.Random(self._seeds.getrandbits(64))}

    async def join_command(self, interaction: discord.Interaction, ui: GameUI) -> None:
        await self._lobby_command(interaction, ui, "join")

    async def leave_command(self, interaction: discord.Interaction, ui: GameUI) -> None:
        await self._lobby_command(interaction, ui, "leave")

    async def _lobby_command(self, interaction: discord.Interaction, ui: GameUI,
                             action: str) -> None:
        try:
            table = self._table_for(interaction, ui)
        except TableError as error:
            await self._reply(interaction, str(error))
            return
        await self.lobby_click(interaction, table.table_id, table.step, action, via_command=True)

    async def hand_command(self, interaction: discord.Interaction, ui: GameUI) -> None:
        try:
            table = self._table_for(interaction, ui)
        except TableError as error:
            await self._reply(interaction, str(error))
            return
        await self.hand_click(interaction, table.table_id)

    async def status_command(self, interaction: discord.Interaction, ui: GameUI) -> None:
        try:
            table = self._table_for(interaction, ui)
        except TableError as error:
            await self._reply(interaction, str(error))
            return
        link = render.jump_url(table.guild_id, table.channel_id, table.message_id)
        embed = self._status_embed(table)
        await self._reply(interaction, f"{game_status_text(table, ui)} Table: {link}", embed=embed)

    def _status_embed(self, table: Table) -> discord.Embed:
        ui = self.ui(table)
        if table.status == LOBBY or table.game is None:
            return ui.lobby_embed(table)
        return ui.table_embed(table, table.game.public_view())

    async def rules_command(self, interaction: discord.Interaction, ui: GameUI) -> None:
        table = self.manager.in_channel(interaction.channel_id or 0)
        options = table.options if table is not None and table.game_id == ui.GAME_ID else None
        embed = discord.Embed(title=f"{ui.title}: the rules", colour=ui.COLOUR,
                              description=ui.rules_text(options))
        if options is not None and table is not None:
            embed.set_footer(text=f"Options shown are this table's ({table.table_id}).")
        await self._reply(interaction, embed=render.fit_embed(embed))

    async def stop_command(self, interaction: discord.Interaction, ui: GameUI) -> None:
        """``/<game> stop``: the host, or anyone who may manage messages here."""
        try:
            table = self._table_for(interaction, ui)
        except TableError as error:
            await self._reply(interaction, str(error))
            return
        user = interaction.user
        perms = interaction.permissions
        if user.id != table.host_id and not perms.manage_messages:
            await self._reply(interaction, f"Only the host, {table.host_name}, or someone who "
                                           "may manage messages here can stop this table.")
            return
        async with self._locked(table, interaction):
            if not self._live(table):
                await self._closed_answer(interaction)
                return
            await self._stop(table, user.id, f"stopped by {user.display_name}")
        await self._reply(interaction, f"{user.mention} stopped the {ui.title} table.",
                          ephemeral=False)

    # ======================================================== lobby

    async def lobby_click(self, interaction: discord.Interaction, table_id: str, step: int,
                          action: str, via_command: bool = False) -> None:
        table = self.manager.get(table_id)
        if table is None:
            await self._closed_answer(interaction)
            return
        if not via_command and interaction.channel_id != table.channel_id:
            await self._reply(interaction, "That button belongs to a table in another channel.")
            return
        async with self._locked(table, interaction):
            if not self._live(table):
                await self._closed_answer(interaction)
                return
            try:
                await self._lobby_step(interaction, table, step, action, via_command)
            except TableError as error:
                await self._reply(interaction, str(error))

    async def _lobby_step(self, interaction: discord.Interaction, table: Table, step: int,
                          action: str, via_command: bool) -> None:
        user, now = interaction.user, self.clock.now()
        if action == "join":
            table.join(user.id, user.display_name, now)
        elif action == "leave":
            if table.leave(user.id, now) == "empty":
                await self._cancel(interaction, table, "Everybody left, so the lobby closed.",
                                   via_command)
                return
        elif action == "cancel":
            if table.status != LOBBY:
                raise TableError("The game has already started: use the stop command instead.")
            if user.id != table.host_id:
                raise TableError(f"Only the host, {table.host_name}, can cancel this lobby.")
            await self._cancel(interaction, table, f"{user.display_name} cancelled the lobby.",
                               via_command)
            return
        elif action.startswith("ai-"):
            note = self._ai_lobby_step(table, user.id, action, now)
            await self._save(table)
            self.timers.schedule(table)
            await self._show_lobby(interaction, table, via_command, note)
            return
        elif action == "start":
            if step != table.step and table.status == LOBBY:
                raise TableError("The lobby just changed: check who is seated and press Start "
                                 "again.")
            await self._start(interaction, table)
            return
        if table.status == PLAYING:  # leaving a running game: the bot plays that seat
            await self._save(table)
            await self._reply(interaction, "You left the game: I will play your seat until the "
                                           "end. Press **My hand** to take it back.")
            await self.edits.request(table.table_id)
            self.timers.schedule(table)
            self._kick(table)
            return
        await self._save(table)
        self.timers.schedule(table)
        await self._show_lobby(interaction, table, via_command,
                               "You joined the table." if action == "join" else "You left.")

    @staticmethod
    def _ai_lobby_step(table: Table, user_id: int, action: str, now: float) -> str:
        """The host's Add AI / Remove AI; returns what to tell them."""
        if action == "ai-remove":
            table.remove_ai(user_id, now)
            return "You removed an AI player."
        table.add_ai(user_id, action.removeprefix("ai-"), now)
        return f"You seated {table.seats[-1].name}."

    async def _show_lobby(self, interaction: discord.Interaction, table: Table,
                          via_command: bool, note: str) -> None:
        if via_command:  # a slash command: edit the lobby message, then answer
            await self._edit_table(table)
            await self._reply(interaction, note)
        else:  # a click on the lobby itself: redraw it in the response (one API call)
            await self._update(interaction, **self._table_message(table))

    async def _cancel(self, interaction: discord.Interaction, table: Table, why: str,
                      via_command: bool) -> None:
        table.status = STOPPED
        table.events = [why]
        await self._close(table)
        if via_command:
            await self._edit_table(table)
            await self._reply(interaction, why)
        else:
            await self._update(interaction, **self._table_message(table))

    async def _start(self, interaction: discord.Interaction, table: Table) -> None:
        ui = self.ui(table)
        if interaction.user.id == table.host_id and table.count_fits:
            problem = await ui.start_problem(table, self.store)
            if problem:
                raise TableError(problem)
        snapshot = table.to_data()
        table.start(interaction.user.id, self.clock.now())
        table.run_automation("deal", self.clock.now())  # the first deal, dealt at once
        if not await self._save(table, rollback_to=snapshot):
            raise TableError("Something went wrong while starting; please press Start again.")
        names = ", ".join(s.name for s in table.seats)
        await self._update(interaction, content=None, view=None, embed=discord.Embed(
            title=f"{ui.title} has started", colour=ui.COLOUR,
            description=f"Players, in seat order: {names}. The table is just below."))
        await self._post_table(table, ping=True)
        self.timers.schedule(table)
        await self._send_hands(table)
        await self._save(table)  # the new table message id and the players' DM channels
        self._kick(table)

    # ======================================================== hands

    async def hand_click(self, interaction: discord.Interaction, table_id: str) -> None:
        """The table's My hand button (and ``/<game> hand``): the hand, ephemerally."""
        table = self.manager.get(table_id)
        if table is None:
            await self._closed_answer(interaction)
            return
        if interaction.guild_id is not None and interaction.channel_id != table.channel_id:
            await self._reply(interaction, "That button belongs to a table in another channel.")
            return
        async with self._locked(table, interaction):
            if not self._live(table):
                await self._closed_answer(interaction)
                return
            try:
                table.require_playing()
                seat = table.seated(interaction.user.id)
            except TableError as error:
                await self._reply(interaction, str(error))
                return
            back = table.come_back(interaction.user.id)
            if back:
                if table.to_act == seat:  # their turn again: their own timer starts
                    table.arm_turn_timer(self.clock.now())
                table.events.append(f"{table.seats[seat].name} is back.")
                await self._save(table)
            note = "Welcome back: you play your own seat again." if back else None
            await self._reply(interaction, note, **self._hand_parts(table, seat))
            if back:
                await self.edits.request(table.table_id)
                self.timers.schedule(table)
        self._kick(table)  # a bot move that failed earlier gets another chance

    def _hand_parts(self, table: Table, seat: int, menu: bool = True) -> dict[str, Any]:
        """The embed and menu of one player's hand: only ever sent to that player."""
        assert table.game is not None
        seat_view = table.game.seat_view(seat)
        if table.automation() is not None:
            seat_view = {**seat_view, "legal": []}  # the bot is about to move: no menu
        link = render.jump_url(table.guild_id, table.channel_id, table.message_id)
        embed = self.ui(table).hand_embed(table, seat_view, seat, link)
        view = views.hand_view(table.table_id, table.step, seat_view.get("legal") or []) \
            if menu else None
        return {"embed": embed, "view": view}

    async def _send_hand(self, table: Table, seat: int) -> None:
        """DM a player their hand (with the menu when it is their turn)."""
        player = table.seats[seat]
        if table.hands != "dm" or player.dm_closed or player.away or player.is_ai:
            return
        try:
            message = await self.poster.dm(player.user_id, player.dm_channel_id,
                                           **self._hand_parts(table, seat))
        except DMClosed:
            player.dm_closed = True
            await self._announce_closed_dms(table, seat)
            return
        if message is not None:
            player.dm_channel_id = message.channel.id
            player.hand_message_id = message.id

    async def _retire_menu(self, table: Table, seat: int, note: str | None = None) -> None:
        """Take the menu off a player's last hand DM (the move was made another way)."""
        player = table.seats[seat]
        if player.hand_message_id is None or player.dm_channel_id is None:
            return
        message_id, player.hand_message_id = player.hand_message_id, None
        with contextlib.suppress(Gone):
            await self.poster.edit(player.dm_channel_id, None, message_id, content=note,
                                   **self._hand_parts(table, seat, menu=False))

    async def _send_hands(self, table: Table) -> None:
        for seat in range(len(table.seats)):
            await self._send_hand(table, seat)

    async def _announce_closed_dms(self, table: Table, seat: int) -> None:
        """Said once per player and table: where their hand is instead."""
        player = table.seats[seat]
        await self.poster.send(
            table.channel_id, table.guild_id, allowed_mentions=PINGS, content=render.content(
                f"📪 <@{player.user_id}>, I cannot send you DMs, so your hand is under the "
                f"table's **My hand** button (only you see it). The game goes on as usual."))

    # ======================================================== moves

    async def move_click(self, interaction: discord.Interaction, table_id: str, step: int,
                         code: str) -> None:
        table = self.manager.get(table_id)
        if table is None:
            await self._closed_answer(interaction)
            return
        async with self._locked(table, interaction):
            if not self._live(table):
                await self._closed_answer(interaction)
                return
            try:
                seat, action = table.check_move(interaction.user.id, step, code)
            except TableError as error:
                await self._refuse(interaction, table, error)
                return
            snapshot = table.to_data()
            table.apply(seat, action, self.clock.now())
            reports = table.take_deal_reports()
            if not await self._save(table, rollback_to=snapshot):
                await self._reply(interaction, "Something went wrong while saving your move; "
                                               "nothing was changed. Please try again.")
                return
            await self._post_reports(table, reports)  # before the answer: once, even on a crash
            await self._update(interaction, content=None, **self._hand_parts(table, seat))
            clicked = interaction.message.id if interaction.message else None
            if table.seats[seat].hand_message_id not in (None, clicked):
                await self._retire_menu(table, seat)  # played elsewhere: one live menu only
            if interaction.guild_id is None and clicked is not None:
                table.seats[seat].hand_message_id = clicked  # that DM shows the hand now
            await self._after_step(table, answered=seat)

    async def _refuse(self, interaction: discord.Interaction, table: Table,
                      error: TableError) -> None:
        """A polite no, changing nothing; a seated player also gets their current hand."""
        seat = table.seat_of(interaction.user.id)
        if seat is None or table.status != PLAYING or table.game is None:
            await self._reply(interaction, str(error))
            return
        text = str(error)
        if not isinstance(error, StaleClick):
            text += " Nothing was changed."
        await self._reply(interaction, text + " Here is your hand as it is now:",
                          **self._hand_parts(table, seat))

    async def _save(self, table: Table, rollback_to: dict[str, Any] | None = None) -> bool:
        """Persist; on failure restore the table as it was before the step (if given)."""
        try:
            await self.manager.save(table)
            return True
        except Exception:
            log.exception("cannot save table %s", table.table_id)
            if rollback_to is not None:
                fresh = Table.from_data(rollback_to, table.engine, table.version)
                table.__dict__.update(fresh.__dict__)
            return False

    async def _after_step(self, table: Table, answered: int | None = None) -> None:
        """Steps 5 and 6 of a move, plus what follows: deal results, timers, bot moves."""
        before = _bookkeeping(table)
        if table.automation() not in ("deal", "finish"):
            # (A new deal or the end redraws the table in a moment; the deal's result
            # message shows how it ended.)
            await self.edits.request(table.table_id)
        if table.automation() is None:
            seat = table.to_act
            if seat is not None and seat != answered:
                await self._send_hand(table, seat)
        if _bookkeeping(table) != before:  # a DM channel learnt, a message re-posted...
            await self._save(table)
        self.timers.schedule(table)
        self._kick(table)

    async def _post_reports(self, table: Table, deals: list[int]) -> None:
        """A new message with each finished deal's result (the final one: see ``_finish``)."""
        ui = self.ui(table)
        for deal in deals:
            assert table.game is not None
            await self.poster.send(table.channel_id, table.guild_id,
                                   embed=ui.deal_result_embed(table, table.game, deal))

    # ======================================================== the bot's own moves

    def _kick(self, table: Table) -> None:
        """Start the driver if the bot has something to do at this table."""
        if table.automation() is not None and table.table_id not in self._drivers:
            self._drivers[table.table_id] = asyncio.create_task(
                self._drive(table), name=f"drive-{table.table_id}")

    async def _drive(self, table: Table) -> None:
        """Play the bot's moves one visible step at a time until a player must act."""
        key = table.table_id
        try:
            while self._live(table):
                kind = table.automation()
                if kind is None:
                    self._drivers.pop(key, None)  # no await since the check: no lost wake-up
                    return
                if kind not in ("finish", "abandon"):
                    await self.clock.sleep(self.timing.pause)
                decided = await self._decide(table)  # outside the lock: clicks go on
                async with self._locked(table):
                    if not self._live(table):
                        break
                    await self._automatic_step(table, decided)
        except asyncio.CancelledError:
            raise
        except Exception:
            log.exception("the bot's move at table %s failed", key)
        if self._drivers.get(key) is asyncio.current_task():
            del self._drivers[key]

    async def _decide(self, table: Table) -> tuple[int, int, int] | None:
        """(step, seat, action) for an AI seat or an away player to act now, else None."""
        if table.automation() not in ("ai", "away") or table.to_act is None:
            return None
        step, seat = table.step, table.to_act
        level = table.seats[seat].ai or TAKEOVER_LEVEL
        return step, seat, await self._ai_action(table, seat, level)

    async def _automatic_step(self, table: Table,
                              decided: tuple[int, int, int] | None = None) -> None:
        kind = table.automation()
        if kind is None:
            return
        if kind == "finish":
            await self._finish(table)
            return
        if kind == "abandon":
            await self._stop(table, None, "stopped: every player is away")
            return
        policy = self.ui(table).policy
        if kind in ("ai", "away"):
            if decided is None or decided[:2] != (table.step, table.to_act):
                return  # the table moved on while the AI thought: the driver looks again
            policy = _playing(decided[2])
        snapshot = table.to_data()
        table.run_automation(kind, self.clock.now(), policy)
        reports = table.take_deal_reports()
        if not await self._save(table, rollback_to=snapshot):
            raise RuntimeError("cannot save an automatic step")
        await self._post_reports(table, reports)
        # A new deal too: the first to act gets their hand by DM like any turn (the others
        # on their turn, or under My hand), which keeps a deal to one message per player.
        await self._after_step(table)

    async def _ai_action(self, table: Table, seat: int, level: str) -> int:
        """The AI's action for the seat to act; the simple move if the search fails, so a
        broken worker never stalls a table."""
        assert table.game is not None
        try:
            return await self.ai.choose(table.game, seat, level, table.table_id)
        except asyncio.CancelledError:
            raise
        except Exception:
            log.exception("the AI failed at table %s: playing the simple move", table.table_id)
            return self.ui(table).policy(table.game)

    # ======================================================== timers

    async def on_due(self, table_id: str, kind: str) -> None:
        table = self.manager.get(table_id)
        if table is None:
            return
        async with self._locked(table):
            if not self._live(table):
                return
            now = self.clock.now()
            if kind == "lobby" and table.status == LOBBY and now >= table.lobby_deadline():
                await self._expire_lobby(table)
            elif kind == "remind" and table.reminder_at is not None and now >= table.reminder_at:
                await self._remind(table)
            elif (kind == "expire" and table.turn_deadline is not None
                  and now >= table.turn_deadline and table.automation() is None):
                await self._time_out(table)
            else:
                self.timers.schedule(table)  # woke early or the table moved on

    async def _expire_lobby(self, table: Table) -> None:
        table.status = STOPPED
        table.events = ["This lobby closed after 15 minutes without activity."]
        await self._close(table)
        await self._edit_table(table)

    async def _remind(self, table: Table) -> None:
        table.reminder_at = None
        await self._save(table)
        self.timers.schedule(table)
        seat = table.to_act
        if seat is None or table.turn_deadline is None:
            return
        player = table.seats[seat]
        when = render.relative_time(table.turn_deadline)
        link = render.jump_url(table.guild_id, table.channel_id, table.message_id)
        if table.hands == "dm" and not player.dm_closed:
            with contextlib.suppress(DMClosed):
                await self.poster.dm(player.user_id, player.dm_channel_id, content=(
                    f"⏳ It is still your turn at {table.title} ({link}); "
                    f"time runs out {when}."))
                return
        await self.poster.send(table.channel_id, table.guild_id, allowed_mentions=PINGS,
                               content=f"⏳ <@{player.user_id}>, it is your turn; time runs "
                                       f"out {when}. Your cards are under **My hand**.")

    async def _time_out(self, table: Table) -> None:
        seat = table.to_act
        assert seat is not None and table.game is not None
        action = await self._ai_action(table, seat, TAKEOVER_LEVEL)
        snapshot = table.to_data()
        seat = table.time_out(self.clock.now(), _playing(action))
        reports = table.take_deal_reports()
        if await self._save(table, rollback_to=snapshot):
            await self._post_reports(table, reports)
            played = render.label(action_code(table.game.history[-1].actions[-1][1]))
            await self._retire_menu(table, seat, note=f"⏰ Time ran out: I played {played} "
                                                      "for you.")
            await self._after_step(table)

    # ======================================================== the end of a table

    async def _finish(self, table: Table) -> None:
        """The game is over: results, the record, and the table closed."""
        table.status = FINISHED
        table.turn_deadline = table.reminder_at = None
        await self._close(table)
        await self._record(table, completed=True)
        game = table.game
        assert game is not None
        mentions = " ".join(f"<@{s.user_id}>" for s in table.humans)
        await self.poster.send(table.channel_id, table.guild_id, allowed_mentions=PINGS,
                               content=render.content(f"🏁 {mentions}"),
                               embed=self.ui(table).final_embed(table, game))
        await self._edit_table(table)

    async def _stop(self, table: Table, by: int | None, why: str) -> None:
        was_playing = table.status == PLAYING and table.game is not None
        table.status = STOPPED
        table.stopped_by = by
        table.turn_deadline = table.reminder_at = None
        table.events = [f"The table was {why}."]
        await self._close(table)
        if was_playing:
            await self._record(table, completed=False)
        await self._edit_table(table)

    async def _close(self, table: Table) -> None:
        self.timers.cancel(table.table_id)
        self.edits.cancel(table.table_id)
        driver = self._drivers.get(table.table_id)
        if driver is not None and driver is not asyncio.current_task():
            del self._drivers[table.table_id]  # a running driver removes itself when done
            driver.cancel()
        try:
            await self.manager.close(table)
        except Exception:
            log.exception("cannot close table %s in storage", table.table_id)
            self.manager.forget(table)

    async def _record(self, table: Table, completed: bool) -> None:
        """Hand the finished (or stopped) game to storage: ratings, history, chips."""
        game = table.game
        if game is None:
            return
        try:
            await self.store.record_game(finished_game(table, self.ui(table), completed,
                                                       self.clock.now()))
        except Exception:
            log.exception("cannot record the game of table %s", table.table_id)

    # ======================================================== the table message

    def _table_message(self, table: Table) -> dict[str, Any]:
        """Content, embed and components of the public table: from the public view only."""
        ui = self.ui(table)
        if table.status == LOBBY:
            full = len(table.seats) >= table.engine.MAX_PLAYERS
            return {"content": None, "embed": ui.lobby_embed(table),
                    "view": views.lobby_view(table.table_id, table.step, table.count_fits,
                                             can_add_ai=not full,
                                             can_remove_ai=len(table.humans) < len(table.seats))}
        if table.game is None:  # a lobby that closed
            embed = discord.Embed(title=f"{ui.title}: closed", colour=ui.COLOUR,
                                  description="\n".join(table.events) or "Closed.")
            return {"content": None, "embed": embed, "view": None}
        embed = ui.table_embed(table, table.game.public_view())
        if table.status != PLAYING:
            return {"content": None, "embed": embed, "view": None}
        seat = table.to_act
        turn = (f"<@{table.seats[seat].user_id}> to play" if seat is not None
                and table.automation() is None else None)
        return {"content": turn, "embed": embed,
                "view": views.table_view(table.table_id, table.step)}

    async def _post_table(self, table: Table, ping: bool = False) -> None:
        kwargs = self._table_message(table)
        if ping:  # the start: a notification for every player, and whose turn it is
            players = " ".join(f"<@{s.user_id}>" for s in table.humans)
            turn = kwargs["content"]
            kwargs["content"] = render.content(f"🎴 {table.title} starts: {players}."
                                               + (f"\n{turn}." if turn else ""))
        message = await self.poster.send(table.channel_id, table.guild_id,
                                         allowed_mentions=PINGS if ping else NO_PINGS, **kwargs)
        if message is not None:
            table.message_id, table.message_posted_at = message.id, self.clock.now()

    async def _edit_table_by_id(self, table_id: str) -> None:
        table = self.manager.get(table_id)
        if table is not None:
            await self._edit_table(table)

    async def _edit_table(self, table: Table) -> None:
        """Edit the table message in place; re-post it when deleted or when it is old."""
        old = table.message_id
        if old is not None and self.clock.now() - table.message_posted_at < \
                self.timing.retire_after:
            try:
                await self.poster.edit(table.channel_id, table.guild_id, old,
                                       allowed_mentions=NO_PINGS, **self._table_message(table))
                return
            except Gone:
                old = None  # deleted: post a new one
        await self._post_table(table)
        if old is not None and old != table.message_id:  # retire the old message
            link = render.jump_url(table.guild_id, table.channel_id, table.message_id)
            with contextlib.suppress(Gone):
                await self.poster.edit(table.channel_id, table.guild_id, old, embed=None,
                                       view=None, content=f"This table moved on: {link}")
        if table.message_id != old and self._live(table):
            self._spawn(self._save_locked(table), f"save-{table.table_id}")

    async def _save_locked(self, table: Table) -> None:
        async with self._locked(table):
            if self._live(table):
                await self._save(table)


def _playing(action: int) -> Callable[[Game], int]:
    """A policy that plays an action already chosen (by the AI, off the loop)."""
    return lambda game: action


def _bookkeeping(table: Table) -> tuple[Any, ...]:
    """What a step may change besides the game and that a restart should remember."""
    return (table.message_id,
            tuple((s.dm_channel_id, s.dm_closed) for s in table.seats))


def missing_permissions(interaction: discord.Interaction) -> list[str]:
    """The permissions a table needs that the bot lacks in the interaction's channel."""
    # Discord computes the bot's permissions in the channel (threads included) and sends
    # them with every interaction; the cache is only a fallback if they are missing.
    perms = interaction.app_permissions
    channel, guild = interaction.channel, interaction.guild
    if perms.value == 0 and guild is not None and hasattr(channel, "permissions_for"):
        perms = channel.permissions_for(guild.me)  # type: ignore[union-attr]
    needed = list(REQUIRED_PERMISSIONS)
    if isinstance(channel, discord.Thread):
        needed[1] = ("send_messages_in_threads", "Send Messages in Threads")
    return [label for attr, label in needed if not getattr(perms, attr)]


def finished_game(table: Table, ui: GameUI, completed: bool, now: float) -> FinishedGame:
    game = table.game
    assert game is not None
    totals, places, winners = game.totals, game.ranking(), set(game.winners())
    chips = ui.chips(game) if completed else [0] * game.players
    if any(s.is_ai for s in table.seats):  # chips never move with AI seats (storage)
        chips = [0] * game.players
    seats = [SeatResult(seat=i, user_id=None if s.is_ai else s.user_id, name=s.name,
                        points=totals[i], place=places[i], won=i in winners, chips=chips[i])
             for i, s in enumerate(table.seats)]
    started = table.started_at if table.started_at is not None else table.created_at
    return FinishedGame(guild_id=table.guild_id or 0, channel_id=table.channel_id,
                        game=table.game_id, started_at=datetime.fromtimestamp(started, UTC),
                        ended_at=datetime.fromtimestamp(now, UTC), completed=completed,
                        record=game.to_record(), seats=seats, table_id=table.table_id)
