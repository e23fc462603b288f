"""What the kill soak's players share with its conductor (``testkit.soak``): whether the
bot is up and the database too, the bot's generation (one per process), the clicks in
flight, the moves acknowledged so far, the disruptions so far, and ``quiet``: a moment
when nobody clicks and the bot process says it has nothing left to do."""

from __future__ import annotations

import asyncio
import contextlib
import time
from collections.abc import AsyncIterator
from dataclasses import dataclass, field

from testkit.fakediscord import FakeDiscord, FakeDiscordError
from testkit.fakediscord.interactions import Interaction
from testkit.processes import BotProcess
from testkit.soak_storage import Where

ANSWER_PATIENCE = 30.0  # a click the bot (up) has not answered by then is noted


@dataclass
class Stage:
    """What the players of every table share with the conductor."""

    fake: FakeDiscord
    bot: BotProcess
    where: Where
    stall: float  # seconds without progress (bot up and idle) before a table has stopped
    up: asyncio.Event = field(default_factory=asyncio.Event)  # clicks may go
    database_up: asyncio.Event = field(default_factory=asyncio.Event)
    generation: int = 0  # bumped by every kill
    in_flight: set[Interaction] = field(default_factory=set)
    acknowledged: int = 0  # moves answered done
    finishing: bool = False  # no new games: finish the current ones
    last_disruption: float = field(default_factory=time.monotonic)
    began: float = field(default_factory=time.monotonic)
    disruptions: list[tuple[float, str]] = field(default_factory=list)  # kills, restarts
    unanswered_while_up: int = 0
    _idle_lock: asyncio.Lock = field(default_factory=asyncio.Lock)
    _idle_asked: float = -1.0
    _hushed: int = 0  # players asking for quiet (``quiet``)
    _calm: asyncio.Event = field(default_factory=asyncio.Event)

    def __post_init__(self) -> None:
        self._calm.set()

    def disrupted(self, what: str) -> None:
        self.disruptions.append((time.monotonic() - self.began, what))
        self.last_disruption = time.monotonic()

    async def ready(self) -> None:
        """New clicks may go: the bot is connected and nobody asked for quiet (people click
        while the database is away: the bot answers them)."""
        while not (self.up.is_set() and self._calm.is_set()):
            await self.up.wait()
            await self._calm.wait()

    async def both_up(self) -> None:
        while not (self.up.is_set() and self.database_up.is_set()):
            await self.up.wait()
            await self.database_up.wait()

    @contextlib.asynccontextmanager
    async def quiet(self) -> AsyncIterator[None]:
        """Nobody clicks, every click in flight has its answer, and the bot process said it
        had nothing left to do (its /metrics), at a moment after this call: what it owes
        any table is done. One process serves every table, so with people clicking at the
        others it would hardly ever be idle; they wait a moment."""
        asked = time.monotonic()
        self._hushed += 1
        self._calm.clear()
        try:
            while True:
                await self.both_up()
                generation = self.generation
                with contextlib.suppress(FakeDiscordError):  # (each gives up by itself)
                    await self.fake.wait_for(lambda: not self.in_flight,
                                             timeout=ANSWER_PATIENCE * 2)
                async with self._idle_lock:
                    if self._idle_asked >= asked:
                        break  # a look that began after ours found it idle
                    started = time.monotonic()
                    try:
                        await self.bot.idle()
                    except AssertionError:
                        if self.generation == generation and self.up.is_set():
                            raise  # not our kill: the bot died, or it stays busy
                        continue  # killed meanwhile: ask the next process
                    self._idle_asked = started
                    break
            yield
        finally:
            self._hushed -= 1
            if not self._hushed:
                self._calm.set()
