"""AI decisions for the tables, computed off the event loop.

A search is CPU-bound Python: run on the loop it would freeze every table for
hundreds of milliseconds. ``AIRunner`` sends the game as plain data
(``Game.to_data()``) to an executor and awaits the answer, so the loop keeps
serving clicks while an AI thinks. The default executor is a pool of ``workers``
processes (spawned as needed; by default the machine's cores less one, which the
bot's own process keeps), fed by ``bot.table.ai_pool``'s fair queue: tables take turns
and a hint goes first, within its share of the workers. Tests inject a cheap executor
and a small search budget.

Each decision is deterministic: its seed comes from the table id, and
``AIPlayer`` mixes in the seat and the number of actions so far, so a table
restored after a restart gets the same decisions as the one that was saved.
"""

from __future__ import annotations

import concurrent.futures
import functools
import logging
import multiprocessing
import os
import re
from collections.abc import Callable

from bot.table.ai_pool import AIPool, Live
from engine.ai import DEFAULT_LEVEL, LEVELS, choose_from_data
from engine.core import Game
from engine.text import T, Text

log = logging.getLogger(__name__)

AI_LEVELS = ("easy", "normal", "hard")  # the levels a host may seat (not "random")
TAKEOVER_LEVEL = DEFAULT_LEVEL  # plays a timed-out turn and an away player's seat
ExecutorFactory = Callable[[], concurrent.futures.Executor]


def seat_name(level: str, number: int = 1) -> str:
    """How an AI seat is named (and saved): "🤖 Normal AI", then "🤖 Normal AI 2"... in
    English; ``seat_text`` says it in the reader's language."""
    return str(seat_text(level, number))


# Translators: the name of an AI player at the table ("number": the 2nd, 3rd...)
SEAT_NAMES = {"easy": (T("🤖 Easy AI"), T("🤖 Easy AI {number}")),
              "normal": (T("🤖 Normal AI"), T("🤖 Normal AI {number}")),
              "hard": (T("🤖 Hard AI"), T("🤖 Hard AI {number}"))}


def seat_text(level: str, number: int = 1) -> Text:
    """An AI seat's name as a ``Text`` (``say`` it): the level word is translated, the
    saved name (``seat_name``) stays English."""
    names = SEAT_NAMES.get(level)
    if names is None:  # a level without a catalogue entry: said as it is
        return Text.from_data(f"🤖 {level.capitalize()} AI" + (f" {number}" if number > 1
                                                                else ""))
    return names[1].filled(number=number) if number > 1 else names[0]


def seat_text_of(level: str, name: str) -> str:
    """The name an AI seat of ``level`` was saved with, as a ``Text`` when it is one
    ``seat_name`` made (a name it did not make is kept as it is)."""
    match = re.fullmatch(r".* (\d+)", name)
    number = int(match[1]) if match else 1
    text = seat_text(level, number)
    return text if text == name else name


def table_seed(table_id: str) -> int:
    """A stable seed per table (table ids are hex)."""
    return int(table_id, 16)


def default_workers() -> int:
    """The machine's cores less one (the bot's own process needs one), at least one."""
    # process_cpu_count (Python 3.13+) counts only the CPUs this process may run on.
    count = getattr(os, "process_cpu_count", os.cpu_count)()
    return max(1, (count or 1) - 1)


class AIRunner:
    """Chooses AI actions in an executor, at most ``workers`` at once (None: one per core
    but one); ``iterations``/``time_limit`` override the level's search budget (tests).
    An injected executor is used as it is: give it ``workers`` workers."""

    def __init__(self, executor: concurrent.futures.Executor | None = None, *,
                 workers: int | None = None, iterations: int | None = None,
                 time_limit: float | str | None = "level",
                 owns_executor: bool | None = None) -> None:
        self._executor = executor
        # Shut down at close: the default executor always, an injected one if asked.
        self._owns_executor = executor is None if owns_executor is None else owns_executor
        self.workers = default_workers() if workers is None else workers
        self.iterations = iterations
        self.time_limit = time_limit
        self.pool = AIPool(self.workers, lambda: self.executor, self._broken)

    @property
    def executor(self) -> concurrent.futures.Executor:
        if self._executor is None:  # lazily: a bot without AI seats starts no process
            # "spawn", not fork: the bot has threads (aiosqlite) that a fork would copy
            # mid-flight; a spawned worker also blocks the loop less while it starts.
            self._executor = concurrent.futures.ProcessPoolExecutor(
                max_workers=self.workers, mp_context=multiprocessing.get_context("spawn"))
        return self._executor

    async def choose(self, game: Game, seat: int, level: str, table_id: str, *,
                     urgent: bool = False, live: Live | None = None) -> int:
        """The AI's action for ``seat`` (the seat to act); the loop stays free meanwhile.

        ``urgent``: a person waits for it (a hint), so it goes before the bots' moves, up to
        a share of the workers (``bot.table.ai_pool``).
        ``live``: asked before the search starts; False drops it (``bot.table.ai_pool.Dropped``).
        """
        if level not in LEVELS:
            raise ValueError(f"unknown AI level {level!r}")
        job = functools.partial(choose_from_data, game.to_data(), seat, level,
                                table_seed(table_id), iterations=self.iterations,
                                time_limit=self.time_limit)
        action = await self.pool.run(table_id, job, urgent=urgent, live=live)
        if action not in game.legal_actions():  # the worker saw another state: a bug
            raise RuntimeError(f"the AI chose an illegal action {action}")
        return action

    def _broken(self, executor: concurrent.futures.Executor) -> None:
        # A worker died (killed, out of memory): the next decision gets a fresh pool. Only
        # the pool that broke: another search may fail on it after a new one started.
        if self._owns_executor and executor is self._executor:
            log.warning("an AI worker died; starting a new pool for the next decisions")
            self._shut_down()

    def _shut_down(self) -> None:
        if self._owns_executor and self._executor is not None:
            self._executor.shutdown(wait=False, cancel_futures=True)
            self._executor = None

    def close(self) -> None:
        """Drop the decisions still waiting and shut the executor down (if it is ours)."""
        self.pool.close()
        self._shut_down()
