"""The step kernel: every change to a table is one step, and this module is all of it.

A step takes the table's lock, checks the click (seated, their turn, the menu's
step), applies the change in the engine, saves the table once with its version,
and on a failed save puts back the copy it kept — all without a word to
Discord. It returns an ``Outcome``; ``bot.ui.presenter`` turns that into messages.
The caller holds the lock (``Steps.hold``) for as long as it presents the
outcome, so two steps at one table never interleave.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import AsyncIterator, Awaitable, Callable
from dataclasses import dataclass, field
from typing import Any, Protocol

from bot.storage import VersionConflict
from bot.table.lines import deal_reports
from bot.table.manager import TableManager
from bot.table.state import Table, TableError
from bot.table.timers import Clock
from engine.events import Event

log = logging.getLogger(__name__)

OnWait = Callable[[], Awaitable[None]]
Change = Callable[[Table], Any]  # may return the engine's events of the step


@dataclass
class Outcome:
    """What one step did. ``saved`` False: nothing changed (refused, or the save failed)."""

    table: Table
    saved: bool
    refusal: TableError | None = None  # a click the table refused (nothing changed)
    seat: int | None = None  # the seat that acted, for a move
    events: list[Event] = field(default_factory=list)  # the engine's events of the step
    deal_reports: list[int] = field(default_factory=list)  # deals whose result to post
    next_seat: int | None = None  # the person to act now (None: nobody, or the bot)
    game_over: bool = False
    stale: bool = False  # another process had saved a newer version: the table was reread

    @property
    def failed(self) -> bool:
        """The step was allowed but could not be saved (storage trouble)."""
        return not self.saved and self.refusal is None


class MoveCounter(Protocol):
    """Counts the moves saved (``bot.app.health.Metrics``)."""

    def count_move(self, n: int = 1) -> None: ...


class Steps:
    def __init__(self, manager: TableManager, clock: Clock, patience: float,
                 metrics: MoveCounter | None = None):
        self.manager = manager
        self.clock = clock
        self.patience = patience  # how long a click waits for a busy table before on_wait
        self.metrics = metrics
        # Told of a table of this process that another process changed (found by a save
        # refused for its version): the croupier catches up and drives it again.
        self.on_stale: Callable[[Table], None] | None = None

    def moved(self) -> None:
        """A move (a player's, or one the bot made for a seat) was saved."""
        if self.metrics is not None:
            self.metrics.count_move()

    @contextlib.asynccontextmanager
    async def hold(self, table: Table, on_wait: OnWait | None = None) -> AsyncIterator[bool]:
        """The table's lock, yielding whether the table is still live once it is ours.

        ``on_wait`` is called once if the lock is still busy after ``patience`` (a click
        defers its answer there, to keep Discord's 3 seconds)."""
        lock = self.manager.lock(table)
        if on_wait is not None and lock.locked():
            await self._acquire_patiently(lock, on_wait)
        else:
            # Free (nearly always): taken at once, with no task and no wait to set up: a
            # fifth of a click's lock-taking cost. (Free but with waiters just woken, it
            # waits its turn, and the click's watchdog answers it at 2.2 s.)
            await lock.acquire()
        try:
            yield self.manager.is_live(table)
        finally:
            lock.release()

    async def _acquire_patiently(self, lock: asyncio.Lock, on_wait: OnWait) -> None:
        """Wait for a busy lock; ``on_wait`` once if it is still busy after ``patience``."""
        acquire = asyncio.ensure_future(lock.acquire())
        done, _ = await asyncio.wait({acquire}, timeout=self.patience)
        if not done:
            await on_wait()
        try:
            await acquire
        except asyncio.CancelledError:
            # Cancelled while waiting: if the lock was taken meanwhile, give it back.
            if acquire.done() and not acquire.cancelled():
                lock.release()
            else:
                acquire.cancel()
            raise

    async def move(self, table: Table, user_id: int, step: int, code: str) -> Outcome:
        """A player's move from a menu drawn at ``step``; call it holding the lock.

        If another process saved the table meanwhile, the move is checked again on the
        table as it is now (once): a menu that is still current still plays."""
        for _attempt in range(2):
            try:
                seat, action = table.check_move(user_id, step, code)
            except TableError as error:
                return Outcome(table, saved=False, refusal=error, seat=table.seat_of(user_id))
            outcome = await self.apply(table, self._playing(seat, action), seat=seat)
            if not outcome.stale:
                break
        if outcome.saved:
            self.moved()
        return outcome

    def _playing(self, seat: int, action: int) -> Change:
        return lambda t: t.apply(seat, action, self.clock.now())

    async def apply(self, table: Table, change: Change, *, seat: int | None = None) -> Outcome:
        """Run ``change`` on the table and save it once; on a failed save the table is put
        back as it was. A ``TableError`` from ``change`` is a refusal (nothing changed).

        Any other exception from ``change`` is a bug, not a refusal: the table is put back
        as it was (so no later step saves a half-made change) and the exception goes on to
        the caller, as before, to be logged and answered there. It is not a failed
        ``Outcome``: that means storage trouble, which pressing again may cure."""
        kept = table.clone()
        try:
            result = change(table)
        except TableError as error:
            table.restore(kept)
            return Outcome(table, saved=False, refusal=error, seat=seat)
        except BaseException:
            table.restore(kept)
            raise
        events = result if isinstance(result, list) else []
        try:
            await self.manager.save(table)
        except VersionConflict:
            # Another process saved this table (a click on a DM hand reaches shard 0's
            # process): never overwrite it; read it as it is now.
            table.restore(kept)
            log.info("table %s was changed by another process; reading it again",
                     table.table_id)
            if await self.manager.reload(table) and self.on_stale is not None \
                    and not self.manager.is_visiting(table):
                self.on_stale(table)
            return Outcome(table, saved=False, seat=seat, stale=True)
        except Exception:
            log.exception("cannot save table %s", table.table_id)
            table.restore(kept)
            return Outcome(table, saved=False, seat=seat)
        waiting = table.automation() is None
        return Outcome(table, saved=True, seat=seat, events=events,
                       deal_reports=deal_reports(events),
                       next_seat=table.to_act if waiting else None,
                       game_over=table.automation() == "finish")
