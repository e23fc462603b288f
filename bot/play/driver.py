"""The bot's own moves: new deals, forced steps, AI seats, away players, the end.

One driver task per table plays them one visible step at a time (a short pause
before each, so people can follow) until a person must act. An AI decision is
searched off the event loop (``bot.table.ai_runner.AIRunner``) on a copy of the game taken
under the table's lock (never a step half done), *without* holding the lock
while the AI thinks: the search may wait for a worker behind other tables', and
the table's clicks must not wait with it. The decision is applied only if the
table is still at the same saved version (else the driver asks again). Every
step goes through the kernel like a player's move.

A step of the bot's that fails (storage down: the end of a table, typically, which
``TableManager.finish`` leaves live at its version) is tried again after a pause, longer
each time (``RETRY``), so the players get their result without having to click; a
click that kicks the driver meanwhile tries at once, as before.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable
from dataclasses import dataclass

from bot.config.settings import Timing
from bot.play.endings import Endings
from bot.play.front import Front, Rules
from bot.table.ai_pool import Dropped
from bot.table.ai_runner import TAKEOVER_LEVEL, AIRunner
from bot.table.state import Automation, Table
from bot.table.step import Steps
from bot.table.tasks import TableTasks
from bot.table.timers import Clock, TableTimers
from engine.core import Game
from engine.text import T

log = logging.getLogger(__name__)

# Seconds before the bot tries again a step of its own that failed, then every last one
# until it works: soon for a passing failure, seldom while storage stays down.
RETRY = (5.0, 15.0, 60.0, 300.0)


@dataclass(frozen=True)
class Asked:
    """An AI decision to make: a copy of the table's game at one saved ``version``."""

    table_id: str
    version: int  # every save bumps it: the same version is the same state
    seat: int
    level: str
    game: Game

    def current(self, table: Table) -> bool:
        """Whether the table is still where the question was asked."""
        return table.version == self.version and table.to_act == self.seat


def ask(table: Table, level: str) -> Asked:
    """The question for the seat to act now; call it holding the table's lock."""
    assert table.game is not None and table.to_act is not None
    return Asked(table.table_id, table.version, table.to_act, level, table.game.clone())


Decision = tuple[Asked, int]  # the question, the action the AI chose
SEATS_PLAYED = (Automation.AI, Automation.AWAY)  # a seat's move the AI decides


class Driver:
    def __init__(self, steps: Steps, front: Front, endings: Endings,
                 tasks: TableTasks, timers: TableTimers, ai: AIRunner,
                 rules: Rules, timing: Timing, clock: Clock):
        self.steps = steps
        self.front = front
        self.endings = endings
        self.tasks = tasks
        self.timers = timers
        self.ai = ai
        self.rules = rules
        self.timing = timing
        self.clock = clock
        self._failures: dict[str, int] = {}  # table → its driver's failures in a row
        self._retries: set[str] = set()  # tables with a retry waiting

    def settle(self, table: Table) -> None:
        """After any step: the timers the table needs now, and the bot's moves if due."""
        self.timers.schedule(table)
        self.kick(table)

    def kick(self, table: Table) -> None:
        """Start the driver if the bot has something to do at this table."""
        if table.automation() is not None and not self.tasks.has_driver(table.table_id):
            self.tasks.start_driver(table.table_id, self._drive(table))

    async def _drive(self, table: Table) -> None:
        key = table.table_id
        try:
            while self.steps.manager.is_live(table):
                kind = table.automation()
                if kind is None:
                    self.tasks.driver_done(key)  # no await since the check: no lost wake-up
                    return
                if kind not in (Automation.FINISH, Automation.ABANDON):
                    await self.clock.sleep(self.timing.pause)
                decided = await self._decide(table)  # outside the lock: clicks go on
                async with self.steps.hold(table) as live:
                    if not live:
                        break
                    await self._step(table, decided)
                self._failures.pop(key, None)
        except asyncio.CancelledError:
            raise
        except Exception:
            log.exception("the bot's move at table %s failed", key)
            self.tasks.driver_done(key)
            self._retry_later(table)
            return
        self._failures.pop(key, None)
        self.tasks.driver_done(key)

    def _retry_later(self, table: Table) -> None:
        """Kick the driver again after a pause (``RETRY``), unless a retry waits already."""
        key = table.table_id
        failures = self._failures[key] = self._failures.get(key, 0) + 1
        if key in self._retries:
            return
        self._retries.add(key)
        pause = RETRY[min(failures, len(RETRY)) - 1]
        # A service: waiting for it, the bot is idle (tests, shutdown's drain).
        self.tasks.serve(self._retry(table, pause), f"retry-{key}")

    async def _retry(self, table: Table, pause: float) -> None:
        try:
            await self.clock.sleep(pause)
        finally:
            self._retries.discard(table.table_id)
        if self.steps.manager.is_live(table):
            self.kick(table)
        else:
            self._failures.pop(table.table_id, None)

    async def _decide(self, table: Table) -> Decision | None:
        """The action for an AI seat or an away player to act now, else None."""
        if table.automation() not in SEATS_PLAYED:
            return None
        async with self.steps.hold(table) as live:  # a copy of a saved state
            if not live or table.automation() not in SEATS_PLAYED or table.to_act is None:
                return None
            asked = ask(table, table.seats[table.to_act].ai or TAKEOVER_LEVEL)
        action = await self.decide(asked, table)  # the lock is free: the table's clicks go on
        return None if action is None else (asked, action)

    async def _step(self, table: Table, decided: Decision | None) -> None:
        kind = table.automation()
        if kind is None:
            return
        if kind == Automation.FINISH:
            await self.endings.finish(table)
            return
        if kind == Automation.ABANDON:
            await self.endings.stop(table, None,
                                    T("The table was stopped: every player is away."))
            return
        policy: Callable[[Game], int] = self.rules[table.game_id].policy
        if kind in SEATS_PLAYED:
            if decided is None or not decided[0].current(table):
                return  # the table moved on while the AI thought: the driver looks again
            policy = playing(decided[1])
        outcome = await self.steps.apply(
            table, lambda t: t.run_automation(kind, self.clock.now(), policy))
        if outcome.stale:
            return  # another process had saved the table: reread, the driver looks again
        if not outcome.saved:
            raise RuntimeError("cannot save an automatic step")
        if kind in SEATS_PLAYED:
            self.steps.moved()
        # A new deal too: the first to act is told like any turn (the others on their turn).
        await self.front.stepped(outcome)
        self.timers.schedule(table)

    async def decide(self, asked: Asked, table: Table) -> int | None:
        """The AI's action for the question (None: dropped, the table closed or moved on);
        the simple move if the search fails, so a broken worker never stalls a table. Call
        it without the table's lock."""
        try:
            # Dropped unrun if the table closes or moves on while it waits for a worker.
            return await self.ai.choose(
                asked.game, asked.seat, asked.level, asked.table_id,
                live=lambda: self.steps.manager.is_live(table) and asked.current(table))
        except asyncio.CancelledError:
            raise
        except Dropped:
            return None
        except Exception:
            log.exception("the AI failed at table %s: playing the simple move", asked.table_id)
            return self.rules[table.game_id].policy(asked.game)


def playing(action: int) -> Callable[[Game], int]:
    """A policy that plays an action already chosen (by the AI, off the loop)."""
    return lambda game: action
