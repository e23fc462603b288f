"""What happens when a table's timer is due: a lobby expires, a turn is reminded or runs out.

``TableTimers`` wakes ``on_due`` at the deadlines a table stores; each handler
takes the table's lock, checks the deadline is still the one that woke it (the
table may have moved on), and goes through the kernel like any other step.

A timed-out turn is the AI's to play, and its search may wait behind other
tables' in the AI queue: it is searched on a copy of the game with the lock
*released*, so the table's clicks go on meanwhile, and played only if the table
is still at the same version. A player who moves in the meantime keeps their
move (the search is then dropped, or its answer is). It runs as a task of the
table's (``TableTasks.spawn``), so shutdown and the tests see the bot busy.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging

from bot.play.driver import Asked, Driver, ask, playing
from bot.play.endings import Endings
from bot.table.ai_runner import TAKEOVER_LEVEL
from bot.table.durations import next_reminder
from bot.table.manager import TableManager
from bot.table.state import LOBBY, Table
from bot.table.step import Steps
from bot.table.timers import Clock
from bot.ui import markup, turn_notices
from bot.ui.board import Board, save_posts
from bot.ui.hands import Hands
from bot.ui.poster import DMClosed, Poster
from bot.ui.presenter import Presenter
from engine.core import action_code
from engine.text import T
from locales import _, speaking

log = logging.getLogger(__name__)


class Deadlines:
    def __init__(self, steps: Steps, manager: TableManager, presenter: Presenter, board: Board,
                 hands: Hands, endings: Endings, driver: Driver, poster: Poster,
                 clock: Clock):
        self.steps = steps
        self.manager = manager
        self.presenter = presenter
        self.board = board
        self.hands = hands
        self.endings = endings
        self.driver = driver
        self.poster = poster
        self.clock = clock
        self._timing_out: set[str] = set()  # tables whose timed-out turn the AI decides

    async def on_due(self, table_id: str, kind: str) -> None:
        table = self.manager.get(table_id)
        if table is None or table_id in self._timing_out:  # that one looks again when done
            return
        timed_out: Asked | None = None
        async with self.steps.hold(table) as live:
            if not live:
                return
            now = self.clock.now()
            if kind == "lobby" and table.status == LOBBY and now >= table.lobby_deadline():
                await self._expire_lobby(table)
            elif kind == "remind" and table.reminder_at is not None and now >= table.reminder_at:
                await self._remind(table)
            elif (kind == "expire" and table.turn_deadline is not None
                  and now >= table.turn_deadline and table.automation() is None
                  and table.to_act is not None):
                timed_out = ask(table, TAKEOVER_LEVEL)  # decided below, without the lock
            else:
                self.driver.timers.schedule(table)  # woke early or the table moved on
        if timed_out is not None:
            self._timing_out.add(table_id)
            self.driver.tasks.spawn(self._time_out(table, timed_out), f"time-out-{table_id}")

    async def _expire_lobby(self, table: Table) -> None:
        await self.endings.close_lobby(table, T("This lobby closed after 15 minutes without "
                                                "activity."))
        await self.board.edit(table)

    async def _remind(self, table: Table) -> None:
        now = self.clock.now()

        def next_reminder_only(t: Table) -> None:  # a long turn may remind once more
            t.reminder_at = next_reminder(t.turn_timer, t.turn_deadline, now)

        await self.steps.apply(table, next_reminder_only)
        self.driver.timers.schedule(table)
        seat = table.to_act
        if seat is None or table.turn_deadline is None:
            return
        player = table.seats[seat]
        posts = table.posts
        when = markup.relative_time(table.turn_deadline)
        link = markup.jump_url(table.guild_id, table.channel_id, posts.message_id)
        if table.hands == "dm" and player.user_id not in posts.dm_closed:
            with speaking(self.hands.language_of(player.user_id)):  # a DM: theirs
                reminder = _("⏳ It is still your turn at {game} ({link}); time runs out "
                             "{when}.", game=table.title, link=link, when=when)
            with contextlib.suppress(DMClosed):
                await self.poster.dm(player.user_id, posts.dm_channels.get(player.user_id),
                                     content=reminder)
                return
        mention = f"<@{player.user_id}>"
        with speaking(table.language):  # the channel reads the table's language
            text = _("⏳ {player}, it is your turn; time runs out {when}. Your cards are "
                     "under **My hand**.", player=mention, when=when)
        # It replaces their turn notice (a fresh ping), and goes like it when the turn ends.
        await turn_notices.tell(self.poster, table, seat, text)
        await save_posts(self.manager, table)

    async def _time_out(self, table: Table, asked: Asked) -> None:
        look_again = False
        try:
            action = await self.driver.decide(asked, table)  # the table's clicks go on
            async with self.steps.hold(table) as live:
                if not live:
                    return
                if action is None or not asked.current(table):
                    look_again = True  # moved on: a move stands; after a hint's mark, ask anew
                else:
                    await self._play_timed_out(table, asked.seat, action)
        except asyncio.CancelledError:
            raise
        except Exception:  # like the timer it stands for, it must never take the bot down
            log.exception("the time-out at table %s failed", table.table_id)
        finally:
            self._timing_out.discard(table.table_id)
        if look_again:
            self.driver.timers.schedule(table)  # the turn's timer, if still due, fires again

    async def _play_timed_out(self, table: Table, seat: int, action: int) -> None:
        outcome = await self.steps.apply(
            table, lambda t: t.time_out(self.clock.now(), playing(action)), seat=seat)
        if not outcome.saved:
            return
        self.steps.moved()
        await self.presenter.deal_reports(outcome)
        with speaking(self.hands.language_of(table.seats[seat].user_id)):  # their DM
            note = _("⏰ Time ran out: I played {card} for you.",
                     card=markup.label(action_code(action)))
        await self.hands.retire_menu(table, seat, note=note)
        await self.presenter.after_step(table)
        self.driver.settle(table)
