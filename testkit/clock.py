"""A clock the tests move by hand, so timers of minutes run in no time."""

from __future__ import annotations

import asyncio
from datetime import UTC, datetime, timedelta


class ManualClock:
    def __init__(self, start: float = 1_700_000_000.0):
        self._now = start
        self._waiters: list[tuple[float, asyncio.Future[None]]] = []

    def now(self) -> float:
        return self._now

    async def sleep_until(self, when: float) -> None:
        if when <= self._now:
            await asyncio.sleep(0)
            return
        future: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        self._waiters.append((when, future))
        try:
            await future
        finally:
            self._waiters = [(w, f) for w, f in self._waiters if f is not future]

    async def sleep(self, seconds: float) -> None:
        await self.sleep_until(self._now + seconds)

    def advance(self, seconds: float) -> None:
        """Move time on and wake every sleeper whose moment has come."""
        self._now += seconds
        for when, future in list(self._waiters):
            if when <= self._now and not future.done():
                future.set_result(None)

    @property
    def sleepers(self) -> int:
        return sum(1 for _, f in self._waiters if not f.done())


class FakeClock:
    """Storage's clock in tests: it moves one second each time it is read, so every
    stamp is distinct."""

    def __init__(self, start: datetime = datetime(2025, 3, 1, 12, 0, tzinfo=UTC)) -> None:
        self.now = start

    def __call__(self) -> datetime:
        self.now += timedelta(seconds=1)
        return self.now
