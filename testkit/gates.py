"""An executor whose jobs wait at a gate the test opens, so that tests assert the order
jobs ran in (who started, who never ran), never how long something took.

A copy of ``Gate`` and ``until`` of tests/bot/test_ai_pool.py, for the end-to-end tests,
which may not import a test module.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import threading
from collections.abc import Callable
from typing import Any, cast


class Gate(concurrent.futures.ThreadPoolExecutor):
    """More threads than the pool's slots (so the pool alone limits), each job waiting at
    a gate; remembers the order jobs started and finished, and the most at once."""

    def __init__(self, threads: int = 8) -> None:
        super().__init__(max_workers=threads)
        self.started: list[Any] = []
        self.finished: list[Any] = []
        self.most = 0
        self._passes = threading.Semaphore(0)
        self._open = threading.Event()
        self._lock = threading.Lock()

    def let_through(self, jobs: int = 1) -> None:
        for _ in range(jobs):
            self._passes.release()

    def open(self) -> None:
        self._open.set()
        self.let_through(100)

    def submit(self, fn: Callable[..., Any], /, *args: Any, **kwargs: Any
               ) -> concurrent.futures.Future[Any]:
        # A test's job (its name), or the runner's call (a partial: its seed).
        name = getattr(fn, "name", None) or cast(Any, fn).args[3]

        def run() -> Any:
            with self._lock:
                self.started.append(name)
                self.most = max(self.most, len(self.started) - len(self.finished))
            if not self._open.is_set():
                assert self._passes.acquire(timeout=10), "the test never opened the gate"
            try:
                return fn(*args, **kwargs)
            finally:
                with self._lock:
                    self.finished.append(name)
        return super().submit(run)


async def until(condition: Callable[[], bool]) -> None:
    """Wait until ``condition`` holds (the long timeout only stops a broken test hanging)."""
    for _ in range(20_000):
        if condition():
            return
        await asyncio.sleep(0.001)
    raise AssertionError("the condition never held")
