"""Turn timers and lobby expiry, restorable from the deadlines a table stores.

A table keeps absolute deadlines (``lobby_deadline()``, ``reminder_at``,
``turn_deadline``), so after a restart the timers are simply scheduled again
from the saved data. One task per table sleeps until the next deadline through
an injectable ``Clock``: tests drive time by hand instead of sleeping minutes.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from collections.abc import Awaitable, Callable
from typing import Protocol

from bot.table.state import LOBBY, PLAYING, Table

log = logging.getLogger(__name__)

# table id, kind (lobby, remind, expire, series, idle, resume)
OnDue = Callable[[str, str], Awaitable[None]]


class Clock(Protocol):
    def now(self) -> float: ...
    async def sleep_until(self, when: float) -> None: ...
    async def sleep(self, seconds: float) -> None: ...


class SystemClock:
    """Wall-clock time (epoch seconds, as Discord timestamps need)."""

    def now(self) -> float:
        return time.time()

    async def sleep_until(self, when: float) -> None:
        await asyncio.sleep(max(0.0, when - time.time()))

    async def sleep(self, seconds: float) -> None:
        if seconds > 0:
            await asyncio.sleep(seconds)


def next_due(table: Table) -> tuple[float, str] | None:
    """The table's next timed event: the lobby's expiry, a turn's reminder or its expiry,
    or a running game's end after a long time without a step (``Table.idle_deadline``)."""
    if table.status == LOBBY:
        if table.tournament_id is not None:  # started by its tournament's own timer
            return None
        if table.series_start_at is not None:  # a series' next deal waits to start
            return table.series_start_at, "series"
        # A scheduled lobby waits for its reminders and its time, not for activity.
        return table.gathering_due() or (table.lobby_deadline(), "lobby")
    if table.status != PLAYING:
        return None
    if table.paused_until is not None:  # paused: nothing runs but the pause's end
        return table.paused_until, "resume"
    due: tuple[float, str] | None = None
    if table.reminder_at is not None:
        due = table.reminder_at, "remind"
    elif table.turn_deadline is not None:
        due = table.turn_deadline, "expire"
    idle = table.idle_deadline()
    if idle is not None and (due is None or idle < due[0]):
        due = idle, "idle"
    return due


class TableTimers:
    """One sleeping task per table, replaced whenever the table's deadlines change."""

    def __init__(self, clock: Clock, on_due: OnDue):
        self.clock = clock
        self._on_due = on_due
        self._tasks: dict[str, asyncio.Task[None]] = {}

    def schedule(self, table: Table) -> None:
        self.cancel(table.table_id)
        due = next_due(table)
        if due is not None:
            self._tasks[table.table_id] = asyncio.create_task(
                self._wait(table.table_id, *due), name=f"timer-{table.table_id}")

    def cancel(self, table_id: str) -> None:
        task = self._tasks.pop(table_id, None)
        # A timer that fires reschedules its own table: never cancel the running task.
        if task is not None and task is not asyncio.current_task():
            task.cancel()

    def pending(self, table_id: str) -> bool:
        task = self._tasks.get(table_id)
        return task is not None and not task.done()

    def cancel_all(self) -> list[asyncio.Task[None]]:
        """Cancel every timer now (no await: see ``Croupier.close``); returns them."""
        tasks = list(self._tasks.values())
        self._tasks.clear()
        for task in tasks:
            task.cancel()
        return tasks

    async def close(self) -> None:
        tasks = self.cancel_all()
        for task in tasks:
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await task

    async def _wait(self, table_id: str, when: float, kind: str) -> None:
        await self.clock.sleep_until(when)
        try:
            await self._on_due(table_id, kind)
        except asyncio.CancelledError:
            raise
        except Exception:  # a timer must never take the bot down
            log.exception("timer %s of table %s failed", kind, table_id)
