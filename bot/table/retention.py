"""How long tables are kept: a running game nobody moves on, and closed tables' rows.

A running game with no step for ``Table.idle_limit`` (``Limits.idle_after``, 30 days)
is stopped by its timer (``bot.play.deadlines``), timer or no turn timer; the sentence
it shows is ``idle_line``. A closed table's row is deleted ``Limits.keep_closed`` after
it closed (``Store.prune_closed_tables``): its game's record, results and ratings stay,
so ``/history`` and the replay of a record lose nothing; only the Rematch button of a
result that old answers that the table is gone. ``Pruner`` runs that now and then.
"""

from __future__ import annotations

import logging
from datetime import timedelta

from bot.storage import Store
from bot.table.tasks import TableTasks
from bot.table.timers import Clock
from engine.text import TN, T, Text

log = logging.getLogger(__name__)

MINUTE, HOUR, DAY = 60, 3600, 86400


def duration_text(seconds: float) -> Text:
    """A duration in words, said when drawn (in the table's language): the largest unit
    that measures it exactly, as ``bot.table.durations.describe_duration``."""
    whole = max(0, round(seconds))
    if whole % DAY == 0 and whole:
        return TN("{n} day", "{n} days", whole // DAY)
    if whole % HOUR == 0 and whole:
        return TN("{n} hour", "{n} hours", whole // HOUR)
    if whole % MINUTE == 0 and whole:
        return TN("{n} minute", "{n} minutes", whole // MINUTE)
    return TN("{n} second", "{n} seconds", whole)


def idle_line(idle_limit: float) -> Text:
    """The line a table stopped for want of a step shows (kept, said in its language)."""
    return T("Nobody moved for {time}, so the table was stopped.",
             time=duration_text(idle_limit))


class Pruner:
    """Deletes the rows of tables closed longer than ``keep`` ago, every ``every``
    seconds of ``clock`` (the first time at once); a failure waits for the next round.

    ``run`` is a service (``TableTasks.serve``: waiting, it leaves the bot idle); each
    pass is a task of ``tasks`` (``spawn``), so while one runs the bot is busy (shutdown
    and the tests wait for it)."""

    def __init__(self, store: Store, clock: Clock, tasks: TableTasks, keep: float,
                 every: float):
        self.store = store
        self.clock = clock
        self.tasks = tasks
        self.keep = keep
        self.every = every
        self._running = False  # a pass is under way

    async def prune(self) -> int:
        """One pass: how many rows were deleted (0 when closed tables are kept forever)."""
        if self.keep <= 0:
            return 0
        pruned = await self.store.prune_closed_tables(timedelta(seconds=self.keep))
        if pruned:
            log.info("deleted %d table(s) closed over %s ago", pruned,
                     timedelta(seconds=self.keep))
        return pruned

    async def _once(self) -> None:
        try:
            await self.prune()
        except Exception:  # storage trouble: the next round tries again
            log.exception("cannot delete closed tables")
        finally:
            self._running = False

    async def run(self) -> None:
        while True:
            if not self._running:  # (never two passes at once)
                self._running = True
                self.tasks.spawn(self._once(), "prune")
            await self.clock.sleep(self.every)
