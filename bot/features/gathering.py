"""Bringing people to a table: a scheduled table's event, reminders and start, the call
to the server's role, and the host's invitations.

A scheduled lobby (``Table.starts_at``) waits on its own timer (``next_due``: "call" at
each reminder, "begin" at the time) instead of idling out. At a reminder and at the
time, whoever pressed Interested on the server's event is seated first (as by Join).
At the time the game starts if enough are seated, or with AI players in the empty
seats if the host asked for that (``fill_ai``) and the server allows AI players;
otherwise the table is called off. Everything is in the table's saved fields and its
timer, so a restart picks it up where it was.
"""

from __future__ import annotations

import logging

import discord

from bot.actions.lobby import Lobby, StartFailed
from bot.config import server_settings
from bot.play.endings import Endings
from bot.table import gathering, quiet
from bot.table.bus import Change, Saved
from bot.table.manager import TableManager
from bot.table.state import LOBBY, PLAYING, Table, TableError
from bot.table.step import Steps
from bot.table.tasks import TableTasks
from bot.table.timers import Clock, TableTimers
from bot.ui import markup, replies
from bot.ui.board import Board, save_posts
from bot.ui.gathering import Gatherings
from bot.ui.markup import say_safe
from engine.text import T
from locales import _

log = logging.getLogger(__name__)

RETRY = 600.0  # seconds before a reminder or a start that failed is tried again
CALLED_OFF = T("Called off: not enough players had joined by its time.")


class Gathering:
    def __init__(self, manager: TableManager, steps: Steps, lobby: Lobby, board: Board,
                 endings: Endings, timers: TableTimers, tasks: TableTasks,
                 discord_side: Gatherings, clock: Clock):
        self.manager = manager
        self.steps = steps
        self.lobby = lobby
        self.board = board
        self.endings = endings
        self.timers = timers
        self.tasks = tasks
        self.discord = discord_side
        self.clock = clock
        # Each table with an event: its server and event, and whether it is running
        # (learnt from the table's saves, so a restarted process knows them too).
        self._events: dict[str, tuple[int | None, int, bool]] = {}
        self._answered: set[str] = set()  # tables whose call was edited a last time
        manager.bus.subscribe(self._follow)

    # -- a table just opened ----------------------------------------------------------

    async def opened(self, table: Table, host: str, title: str,
                     settings: server_settings.ServerSettings) -> str | None:
        """After the lobby is posted: its event (if scheduled), the word to the invited,
        the call to the role (now, or at the first reminder of a scheduled table).
        Returns what the host is told besides (None: nothing)."""
        note = None
        if table.starts_at is not None:
            event = await self.discord.create_event(table, title, host)
            if event is None:
                note = _("I could not create a server event for it (I need the Create "
                         "Events permission): the lobby shows the time instead.")
            table.posts.event_id = event
        if table.reserved:
            await self.discord.say(table, self.discord.invited_text(table, host,
                                                                     table.reserved),
                                   table.reserved)
        if settings.call_role is not None and (table.starts_at is None or (
                table.reminders_done > 0 and not _quiet(table, self.clock.now()))):
            async with self.steps.hold(table) as live:  # (a Join may be under way)
                if live:
                    await self._call(table, settings.call_role)
        await save_posts(self.manager, table)
        return note

    async def _call(self, table: Table, role_id: int) -> None:
        """Ping the role, once per lobby (the mark is saved before the ping: a crash in
        between loses a ping rather than sending two). The caller holds the table."""
        if table.called:
            return

        def mark(t: Table) -> None:
            t.called = True

        outcome = await self.steps.apply(table, mark)
        if not outcome.saved:
            return
        table.posts.call_message_id = await self.discord.call(table, role_id)

    # -- the host invites ------------------------------------------------------------

    async def invite(self, interaction: discord.Interaction, table: Table,
                     members: list[discord.Member | discord.User]) -> None:
        """``/<game> invite``: the host keeps seats for ``members`` and they are told."""
        async with self.steps.hold(table) as live:
            if not live:
                await replies.reply(interaction, _("This table is closed."))
                return
            if table.status != LOBBY:
                await replies.reply(interaction, _("The game has already started: "
                                                   "invitations are for the lobby."))
                return
            if interaction.user.id != table.host_id:
                await replies.reply(interaction, _("Only the host, {host}, can invite "
                                                   "players.",
                                                   host=markup.safe_name(table.host_name)))
                return
            people = [m.id for m in members if not m.bot]
            invited: list[int] = []

            def keep(t: Table) -> None:
                invited.extend(gathering.invite(t, people))

            outcome = await self.steps.apply(table, keep)
            if outcome.refusal is not None:
                await replies.reply(interaction, say_safe(outcome.refusal))
                return
            if outcome.failed:
                await replies.reply(interaction, _("Something went wrong; nothing was "
                                                   "changed. Please try again."))
                return
            if not invited:
                await replies.reply(interaction, _("They are seated or invited already."))
                return
            await self.board.edit(table)
            await self.discord.say(table, self.discord.invited_text(
                table, interaction.user.display_name, invited), invited)
            await replies.reply(interaction, _("Seats are kept for {players}.", players=" ".join(
                markup.mention(u) for u in invited)))

    # -- a scheduled table's timer ------------------------------------------------------

    async def due(self, table_id: str, kind: str) -> None:
        table = self.manager.get(table_id)
        if table is None:
            return
        async with self.steps.hold(table) as live:
            if not live or table.status != LOBBY:
                return
            due, now = table.gathering_due(), self.clock.now()
            if due is None or due[1] != kind or now < due[0]:
                self.timers.schedule(table)  # woke early, or the table moved on
                return
            assert table.starts_at is not None  # (gathering_due says so)
            if kind == "begin" and now > table.starts_at + table.lobby_idle:
                await self._call_off(table)  # back long after its time (the bot was down)
                return
            try:
                await self._seat_interested(table)
                if kind == "call":
                    await self._remind(table, now)
                else:
                    await self._begin(table)
            except StartFailed:  # storage: the table is as it was; try again in a while
                self._again(table)
            except Exception:  # Discord, storage: never a timer's end, and never a loop
                log.exception("the scheduled table %s: its %s failed", table.table_id, kind)
                self._again(table)

    def _again(self, table: Table) -> None:
        """After a failed reminder or start: its timer again in a while, not at once."""
        self.timers.cancel(table.table_id)

        async def later() -> None:
            await self.clock.sleep(RETRY)
            if self.manager.is_live(table):
                self.timers.schedule(table)

        self.tasks.serve(later(), f"gather-again-{table.table_id}")

    async def _seat_interested(self, table: Table) -> None:
        """Whoever pressed Interested on the event takes a seat, as by Join (while the
        seats and the invitations allow)."""
        if table.posts.event_id is None:
            return
        users = await self.discord.interested(table.guild_id, table.posts.event_id)
        now = self.clock.now()

        def seat(t: Table) -> None:
            for user in users:
                # (who left this lobby, or was removed, is not seated again by an interest)
                if t.seat_of(user.id) is None and user.id not in t.removed \
                        and user.id not in t.declined:
                    try:
                        t.join(user.id, user.display_name, now)
                    except TableError:
                        continue  # full, kept for others, invitation only

        if any(table.seat_of(u.id) is None for u in users) \
                and (await self.steps.apply(table, seat)).failed:
            raise StartFailed("cannot seat the interested members")  # not for players

    async def _remind(self, table: Table, now: float) -> None:
        """A reminder is due: sent once, however many were due meanwhile (the bot down)."""

        def done(t: Table) -> None:
            t.called_done()
            while (next_due := t.gathering_due()) is not None and next_due[1] == "call" \
                    and next_due[0] <= now:
                t.called_done()  # (an older reminder is no news next to this one)

        outcome = await self.steps.apply(table, done)
        if outcome.failed:
            raise StartFailed("cannot save the reminder")  # not for players
        self.timers.schedule(table)
        if not outcome.saved:
            return
        await self.board.edit(table)  # (its Start, now allowed; who is seated)
        if _quiet(table, now):
            return  # no reminders (nor calls) in the quiet hours
        settings = await self._settings(table)
        if settings is not None and settings.call_role is not None:
            await self._call(table, settings.call_role)
            await save_posts(self.manager, table)
        await self.discord.say(table, self.discord.reminder_text(table),
                               [s.user_id for s in table.humans])

    async def _begin(self, table: Table) -> None:
        """The time has come: start, fill with AI players and start, or call it off."""
        if gathering.needed(table) and table.fill_ai and table.ai_allowed and table.humans:
            now = self.clock.now()

            def fill(t: Table) -> None:
                t.reserved = [u for u in t.reserved if t.seat_of(u) is not None]  # (lapsed)
                while gathering.needed(t):
                    t.add_ai(t.host_id, "normal", now)

            outcome = await self.steps.apply(table, fill)
            if outcome.failed:
                raise StartFailed("cannot fill the table")  # not for players
            if outcome.refusal is not None:
                log.info("cannot fill table %s with AI players", table.table_id)
        if gathering.needed(table):
            await self._call_off(table)
            return

        def begun(t: Table) -> None:
            t.starts_at = None

        try:
            await self.lobby.start_game(table, table.host_id, also=begun)
        except StartFailed:
            raise  # storage: tried again later (``due``)
        except TableError as error:  # refused: a stake somebody cannot pay
            log.info("the scheduled table %s cannot start: %s", table.table_id, error)
            await self.endings.close_lobby(table, error.args[0] if error.args else CALLED_OFF)
            await self.board.edit(table)
            return
        await self.lobby.started_by_itself(table)

    async def _call_off(self, table: Table) -> None:
        """Not enough players by the time (or the bot came back long after it): the lobby
        closes, and its players are told (pinged)."""
        await self.endings.close_lobby(table, CALLED_OFF)
        await self.board.edit(table)
        await self.discord.say(table, self.discord.called_off_text(table),
                               [s.user_id for s in table.humans])

    async def _settings(self, table: Table) -> server_settings.ServerSettings | None:
        try:
            return await server_settings.read(self.manager.store, table.guild_id)
        except server_settings.SettingsUnavailable:
            return None

    # -- following the table: the call's count, the event's status -------------------------

    def _follow(self, saved: Saved) -> None:
        table = self.manager.get(saved.table_id)
        if table is None:
            return
        if table.posts.event_id is not None and saved.table_id not in self._events:
            self._events[saved.table_id] = (table.guild_id, table.posts.event_id, False)
        if table.posts.call_message_id is not None and saved.table_id not in self._answered:
            if saved.status != LOBBY:  # started or closed: its last edit
                self._answered.add(saved.table_id)
            self.tasks.spawn(self._recount(table), f"call-{table.table_id}")
        if saved.change == Change.CLOSED:
            self._answered.discard(saved.table_id)
        known = self._events.get(saved.table_id)
        if known is None:
            return
        guild, event, running = known
        if saved.change == Change.CLOSED:
            del self._events[saved.table_id]
            self.tasks.spawn(self.discord.set_event(guild, event, running=False),
                             f"event-{table.table_id}")
        elif saved.status == PLAYING and not running:
            self._events[saved.table_id] = (guild, event, True)
            self.tasks.spawn(self.discord.set_event(guild, event, running=True),
                             f"event-{table.table_id}")

    async def _recount(self, table: Table) -> None:
        settings = await self._settings(table)
        if settings is not None and settings.call_role is not None:
            await self.discord.update_call(table, settings.call_role)


def _quiet(table: Table, now: float) -> bool:
    hours = quiet.of(table)
    return hours is not None and hours.contains(now)
