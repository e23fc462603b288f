"""The end-to-end tests' set-up, written once: the fake Discord's users and channel, the
clock, bots on a fresh database (made, or made and connected), a started Jazz table of
three players, bots that restart on one database, and the bot as a real process.

Users are made in the order a test names them (``alice, bob`` before ``cy``): name the
users before the bot, so that they exist when it connects, as they did when each test
made them itself. Every bot made here is stopped and its store closed at teardown.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable
from pathlib import Path
from typing import Any

import pytest

from bot.app.client import CardTableBot
from testkit.bots import EXTENSIONS, Bots, World, bots_on
from testkit.clock import ManualClock
from testkit.fakediscord import FakeChannel, FakeDiscord, FakeUser
from testkit.games.jazz import JAZZ_ONLY
from testkit.harness import MakeBot, make_bot
from testkit.processes import LAUNCHER, BotProcess
from testkit.tables import start_jazz

# ------------------------------------------------------------------ the fake's world


@pytest.fixture
def fake(fake_discord: FakeDiscord) -> FakeDiscord:
    """The test's fake Discord (``fake_discord``, by its short name)."""
    return fake_discord


@pytest.fixture
def general(fake: FakeDiscord) -> FakeChannel:
    """The default guild's #general."""
    return fake.channel("general")


@pytest.fixture
def alice(fake: FakeDiscord) -> FakeUser:
    return fake.add_user("alice")


@pytest.fixture
def bob(fake: FakeDiscord) -> FakeUser:
    return fake.add_user("bob")


@pytest.fixture
def cy(fake: FakeDiscord) -> FakeUser:
    return fake.add_user("cy")


@pytest.fixture
def users(alice: FakeUser, bob: FakeUser, cy: FakeUser) -> list[FakeUser]:
    """Three players, alice (the host), bob and cy, DMs open."""
    return [alice, bob, cy]


@pytest.fixture
def clock() -> ManualClock:
    """The clock of ``jazz_bot`` (and of any bot a test hands it to): moved by hand."""
    return ManualClock()


# ------------------------------------------------------------------ bots


@pytest.fixture
def db_path(tmp_path: Path) -> Path:
    """The test's own SQLite file (in its tmp_path: never shared with another test)."""
    return tmp_path / "db.sqlite"


@pytest.fixture
async def new_bot(db_path: Path) -> AsyncIterator[MakeBot]:
    """``await new_bot(**options)``: ``make_bot`` on ``db_path`` (or ``path=``), not yet
    connected (``fake.start_bot``, ``fake.running``); its store is closed at teardown."""
    made: list[CardTableBot] = []

    async def new(path: Path | None = None, **options: Any) -> CardTableBot:
        bot = await make_bot(db_path if path is None else path, **options)
        made.append(bot)
        return bot

    yield new
    for bot in made:
        await bot.store.close()  # closing twice is harmless


@pytest.fixture
async def run_bot(fake: FakeDiscord, new_bot: MakeBot) -> AsyncIterator[MakeBot]:
    """``await run_bot(**options)``: a ``new_bot`` connected to the fake, as inside
    ``fake.running(bot)``: stopped cleanly at teardown (a killed one is left dead)."""
    started: list[CardTableBot] = []

    async def run(**options: Any) -> CardTableBot:
        bot = await new_bot(**options)
        await fake.start_bot(bot)
        started.append(bot)
        return bot

    try:
        yield run
    finally:
        for bot in started:
            await fake.stop_bot(bot)


@pytest.fixture
async def jazz_bot(run_bot: MakeBot, clock: ManualClock) -> CardTableBot:
    """A connected bot with the Jazz cog only, on ``clock``."""
    return await run_bot(extensions=JAZZ_ONLY, clock=clock)


@pytest.fixture
async def jazz_game(fake: FakeDiscord, general: FakeChannel, users: list[FakeUser],
                    jazz_bot: CardTableBot) -> CardTableBot:
    """Jazz started in #general by ``users`` (alice hosts, bob and cy join); its bot."""
    await start_jazz(fake, general, users)
    return jazz_bot


@pytest.fixture
def bot_extensions() -> dict[str, str | None]:
    """The cogs of the ``bots`` (a module may override this fixture)."""
    return EXTENSIONS


@pytest.fixture
async def bots(fake: FakeDiscord, db_path: Path, bot_extensions: dict[str, str | None]
               ) -> AsyncIterator[Bots]:
    """Bots made one after another on ``db_path`` (``bots.new()``, ``bots.restart(bot)``)."""
    async with bots_on(fake, db_path, bot_extensions) as made:
        yield made


# ------------------------------------------------------------------ the bot as a process


@pytest.fixture
async def bot_process(fake: FakeDiscord, tmp_path: Path) -> AsyncIterator[BotProcess]:
    """``python -m bot`` on the fake (``start()``, ``kill()``), its log in tmp_path."""
    launcher = tmp_path / "launch_bot.py"
    launcher.write_text(LAUNCHER)
    process = BotProcess(fake, tmp_path / "data" / "cardtable.db", launcher,
                         tmp_path / "bot.log")
    try:
        yield process
    finally:
        await process.stop()


@pytest.fixture(params=["sqlite", "postgres"])
async def any_bot_process(request: pytest.FixtureRequest, bot_process: BotProcess
                          ) -> BotProcess:
    """``bot_process`` on SQLite, and on a fresh database of a real PostgreSQL server."""
    if request.param == "postgres":
        bot_process.url = request.getfixturevalue("postgres_url")
    return bot_process


@pytest.fixture
async def bot_processes(fake: FakeDiscord, tmp_path: Path
                        ) -> AsyncIterator[Callable[..., BotProcess]]:
    """``make(launcher_source)`` → a BotProcess (stopped with SIGKILL at teardown)."""
    made: list[BotProcess] = []

    def make(source: str = LAUNCHER) -> BotProcess:
        launcher = tmp_path / f"launch_{len(made)}.py"
        launcher.write_text(source)
        made.append(BotProcess(fake, tmp_path / "data" / "cardtable.db", launcher,
                               tmp_path / f"bot_{len(made)}.log"))
        return made[-1]

    try:
        yield make
    finally:
        for process in made:
            await process.stop()


@pytest.fixture(params=["sqlite", "postgres"])
async def world(request: pytest.FixtureRequest, fake: FakeDiscord, tmp_path: Path
                ) -> AsyncIterator[World]:
    """Bots that restart on one database: Jazz and AttackJack, on SQLite and PostgreSQL."""
    url = request.getfixturevalue("postgres_url") if request.param == "postgres" else None
    made = World(fake, tmp_path / "db.sqlite", url,
                 {"cogs.jazz": "jazz", "cogs.attackjack": "attackjack"})
    try:
        yield made
    finally:
        await made.close()
