"""The bot's own moves: new deals, forced steps, AI seats, away players, the end.

One driver task per table plays them one visible step at a time (a short pause
before each, so people can follow) until a person must act. An AI decision is
searched off the event loop (``bot.ai.AIRunner``) *before* taking the table's
lock, so clicks go on meanwhile, and is applied only if the table has not moved
on (same step, same seat to act). Every step goes through the kernel like a
player's move.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable

from bot.ai import TAKEOVER_LEVEL, AIRunner
from bot.endings import Endings
from bot.games import GameUI
from bot.presenter import Presenter
from bot.settings import Timing
from bot.step import Steps
from bot.tables import Table
from bot.tasks import TableTasks
from bot.timers import Clock, TableTimers
from engine.core import Game
from engine.text import T

log = logging.getLogger(__name__)

Decision = tuple[int, int, int]  # (the table's step, the seat, the action)


class Driver:
    def __init__(self, steps: Steps, presenter: Presenter, endings: Endings,
                 tasks: TableTasks, timers: TableTimers, ai: AIRunner,
                 uis: dict[str, GameUI], timing: Timing, clock: Clock):
        self.steps = steps
        self.presenter = presenter
        self.endings = endings
        self.tasks = tasks
        self.timers = timers
        self.ai = ai
        self.uis = uis
        self.timing = timing
        self.clock = clock

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
                if kind not in ("finish", "abandon"):
                    await self.clock.sleep(self.timing.pause)
                decided = await self._decide(table)  # outside the lock: clicks go on
                async with self.steps.hold(table) as live:
                    if not live:
                        break
                    await self._step(table, decided)
        except asyncio.CancelledError:
            raise
        except Exception:
            log.exception("the bot's move at table %s failed", key)
        self.tasks.driver_done(key)

    async def _decide(self, table: Table) -> Decision | None:
        """(step, seat, action) for an AI seat or an away player to act now, else None."""
        if table.automation() not in ("ai", "away") or table.to_act is None:
            return None
        step, seat = table.step, table.to_act
        level = table.seats[seat].ai or TAKEOVER_LEVEL
        return step, seat, await self.ai_action(table, seat, level)

    async def _step(self, table: Table, decided: Decision | None) -> None:
        kind = table.automation()
        if kind is None:
            return
        if kind == "finish":
            await self.endings.finish(table)
            return
        if kind == "abandon":
            await self.endings.stop(table, None,
                                    T("The table was stopped: every player is away."))
            return
        policy: Callable[[Game], int] = self.uis[table.game_id].policy
        if kind in ("ai", "away"):
            if decided is None or decided[:2] != (table.step, table.to_act):
                return  # the table moved on while the AI thought: the driver looks again
            policy = playing(decided[2])
        outcome = await self.steps.apply(
            table, lambda t: t.run_automation(kind, self.clock.now(), policy))
        if not outcome.saved:
            raise RuntimeError("cannot save an automatic step")
        if kind in ("ai", "away"):
            self.steps.moved()
        await self.presenter.deal_reports(outcome)
        # A new deal too: the first to act gets their hand by DM like any turn (the others
        # on their turn, or under My hand), which keeps a deal to one message per player.
        await self.presenter.after_step(table)
        self.timers.schedule(table)

    async def ai_action(self, table: Table, seat: int, level: str) -> int:
        """The AI's action for the seat to act; the simple move if the search fails, so a
        broken worker never stalls a table."""
        assert table.game is not None
        try:
            return await self.ai.choose(table.game, seat, level, table.table_id)
        except asyncio.CancelledError:
            raise
        except Exception:
            log.exception("the AI failed at table %s: playing the simple move", table.table_id)
            return self.uis[table.game_id].policy(table.game)


def playing(action: int) -> Callable[[Game], int]:
    """A policy that plays an action already chosen (by the AI, off the loop)."""
    return lambda game: action
