"""What happens when a table's timer is due: a lobby expires, a turn is reminded or runs out,
a running game nobody moved on for ``Table.idle_limit`` is stopped, a pause ends.

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
import logging

from bot.play.driver import Asked, Driver, ask, playing
from bot.play.endings import Endings
from bot.play.front import Front
from bot.table import pause
from bot.table.ai_runner import TAKEOVER_LEVEL
from bot.table.manager import TableManager
from bot.table.retention import idle_line
from bot.table.state import LOBBY, STOPPED, Table
from bot.table.step import Steps
from bot.table.timers import Clock
from engine.text import T

log = logging.getLogger(__name__)

IDLE_RETRY = 600.0  # seconds before a failed idle stop (storage down) is tried again


class Deadlines:
    def __init__(self, steps: Steps, manager: TableManager, front: Front, endings: Endings,
                 driver: Driver, clock: Clock):
        self.steps = steps
        self.manager = manager
        self.front = front
        self.endings = endings
        self.driver = driver
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
            elif kind == "idle" and _idle_due(table, now):
                await self._stop_idle(table)
            elif kind == "resume" and pause.resume_due(table, now):  # the longest pause
                await self._resume(table, now)
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
        await self.front.lobby_closed(table)

    async def _stop_idle(self, table: Table) -> None:
        """Nobody moved for ``idle_limit``: the table is stopped as by its host (the game
        recorded as stopped, counted for nobody), and its players told in the channel."""
        kept = table.clone()
        table.status, table.stopped_by = STOPPED, None
        table.turn_deadline = table.reminder_at = None
        table.lines = [idle_line(table.idle_limit)]
        try:
            ended = await self.endings.end(table, kept, completed=False, owed="idle")
        except Exception:  # storage: the table is as it was; its stop is due at once again
            log.exception("cannot stop idle table %s: trying again later", table.table_id)
            self.driver.timers.cancel(table.table_id)
            self.driver.tasks.serve(self._again(table), f"idle-{table.table_id}")
            return
        if ended:  # told as a task of the table's: the bot is busy (and shutdown waits)
            self.driver.tasks.spawn(self.endings.debts.pay(table, "idle"),
                                    f"idle-stop-{table.table_id}")

    async def _again(self, table: Table) -> None:
        """After a failed idle stop or resume: its timer again in a while (not at once, in a
        loop)."""
        await self.clock.sleep(IDLE_RETRY)
        if self.manager.is_live(table):
            self.driver.timers.schedule(table)

    async def _remind(self, table: Table) -> None:
        now = self.clock.now()
        await self.steps.apply(table, lambda t: t.remind_later(now))
        self.driver.timers.schedule(table)
        if table.to_act is None or table.turn_deadline is None:
            return
        await self.front.remind(table)

    async def _resume(self, table: Table, now: float) -> None:
        outcome = await self.steps.apply(table, lambda t: pause.resume(t, now, by_vote=False))
        if outcome.failed:  # storage: tried again in a while (not at once, in a loop)
            self.driver.timers.cancel(table.table_id)
            self.driver.tasks.serve(self._again(table), f"resume-{table.table_id}")
            return
        if outcome.saved:
            await self.front.stepped(outcome)  # the table, and whoever is to act is told
        self.driver.settle(table)

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
        await self.front.timed_out(outcome, seat, action)
        self.driver.settle(table)


def _idle_due(table: Table, now: float) -> bool:
    idle = table.idle_deadline()  # (None unless the game runs)
    return idle is not None and now >= idle
