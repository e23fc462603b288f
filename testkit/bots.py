"""Bots that come and go on one database: a crash (the socket dies, its tasks with the
process) and a new bot on the same file, as a restart is; ``World``: the same on SQLite
or PostgreSQL."""

from __future__ import annotations

import contextlib
from collections.abc import AsyncIterator
from pathlib import Path

from bot.app.client import CardTableBot
from bot.config.settings import Settings
from bot.storage import open_storage
from testkit.clock import ManualClock
from testkit.fakediscord import FakeDiscord
from testkit.harness import FAST, cheap_ai, make_bot

# The score cogs: /leaderboard, /chips, /stats and /history.
EXTENSIONS: dict[str, str | None] = {"cogs.leaderboard": None, "cogs.stats": None,
                                     "cogs.history": None}


async def crash(fake: FakeDiscord, bot: CardTableBot) -> None:
    """Stop ``bot`` as a crash would: the socket dies, its tasks with the process."""
    await fake.kill(bot)
    assert bot.croupier is not None and bot.store is not None
    await bot.croupier.close()
    await bot.store.close()
    await fake.wait_for(lambda: not fake.gateway.live_sessions)


class Bots:
    """Every bot a test makes, on one database file; their stores are closed at teardown
    (aiosqlite's worker thread is not a daemon: an open store keeps pytest from exiting)."""

    def __init__(self, fake: FakeDiscord, path: Path,
                 extensions: dict[str, str | None] | None = None):
        self.fake, self.path = fake, path
        self.extensions = EXTENSIONS if extensions is None else extensions
        self.made: list[CardTableBot] = []

    async def new(self, clock: ManualClock | None = None) -> CardTableBot:
        bot = await make_bot(self.path, extensions=self.extensions, clock=clock)
        self.made.append(bot)
        return bot

    async def crash(self, bot: CardTableBot) -> None:
        await crash(self.fake, bot)

    async def restart(self, bot: CardTableBot, clock: ManualClock | None = None
                      ) -> CardTableBot:
        """Crash ``bot`` and connect a new one to the same database."""
        await self.crash(bot)
        fresh = await self.new(clock)
        await self.fake.start_bot(fresh)
        return fresh

    async def close(self) -> None:
        for bot in self.made:
            await self.fake.stop_bot(bot)
            if bot.store is not None:
                await bot.store.close()


class World:
    """Bots that come and go on one database, SQLite or PostgreSQL (``url``): a restart."""

    def __init__(self, fake: FakeDiscord, path: Path, url: str | None,
                 extensions: dict[str, str | None]):
        self.fake, self.path, self.url = fake, path, url
        self.extensions = extensions
        self.made: list[CardTableBot] = []

    async def new(self) -> CardTableBot:
        store = await open_storage(self.path, url=self.url)
        settings = Settings(token="fake-token", database_path=self.path, dev_guild_id=None,
                            log_level=20, timing=FAST)
        bot = CardTableBot(settings, store=store, clock=ManualClock(), timing=FAST,
                           extensions=self.extensions, seed=7, ai=cheap_ai())
        bot._owns_store = True
        self.made.append(bot)
        await self.fake.start_bot(bot)
        return bot

    async def restart(self, bot: CardTableBot) -> CardTableBot:
        """``bot`` crashes (its socket dies, its tasks with it); a new one starts."""
        await crash(self.fake, bot)
        return await self.new()

    async def close(self) -> None:
        for bot in self.made:
            await self.fake.stop_bot(bot)
            if bot.store is not None:
                await bot.store.close()


@contextlib.asynccontextmanager
async def bots_on(fake: FakeDiscord, path: Path,
                  extensions: dict[str, str | None] | None = None) -> AsyncIterator[Bots]:
    made = Bots(fake, path, extensions)
    try:
        yield made
    finally:
        await made.close()
