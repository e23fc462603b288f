"""Limits and retention without Discord: the caps' counting, the settings they come from,
``Store.prune_closed_tables`` on both backends, and the pruner's rounds on a fake clock.

The storage tests take ``database`` (SQLite and PostgreSQL in turn) and open it with a
clock they move by days.
"""

from __future__ import annotations

import asyncio
import dataclasses
import random
from collections.abc import AsyncIterator
from datetime import timedelta

import pytest

import bot.storage.postgres as postgres_backend
import bot.storage.sqlite as sqlite_backend
from bot.config.server_settings import ServerSettings, SettingsUnavailable, read
from bot.config.settings import DAY, Limits, SettingsError, limits
from bot.storage import Store, TableExists, TableRow
from bot.table.limits import Caps, Full, Openings
from bot.table.retention import Pruner, duration_text, idle_line
from bot.table.state import LOBBY, PLAYING, Table
from bot.table.tasks import TableTasks
from engine.jazz import Jazz
from locales import say, speaking
from testkit.clock import FakeClock, ManualClock
from tests.bot.conftest import Database
from tests.bot.test_storage import CHANNEL, GUILD, finished

# ================================================================ the caps


def table(table_id: str, guild: int, host: int, status: str = LOBBY) -> Table:
    t = Table(table_id=table_id, game_id="jazz", engine=Jazz, guild_id=guild,
              channel_id=random.randrange(1, 1 << 40), host_id=host, created_at=0.0,
              options=Jazz.OPTIONS(), rng=random.Random(0))
    t.status = status
    return t


class Live:
    """The manager's live tables, as ``Openings`` reads them."""

    def __init__(self, *tables: Table):
        self.tables = list(tables)

    def all(self) -> list[Table]:
        return list(self.tables)

    def get(self, table_id: str) -> Table | None:
        return next((t for t in self.tables if t.table_id == table_id), None)


def openings(*tables: Table) -> tuple[Openings, Live]:
    live = Live(*tables)
    return Openings(live), live  # type: ignore[arg-type]  # (what it reads of a manager)


def test_the_caps_count_a_servers_open_tables_and_its_hosts_in_it():
    made, _ = openings(table("a", 1, 10), table("b", 1, 10, PLAYING), table("c", 1, 11),
                       table("d", 2, 10))  # another server's table counts for no one here
    assert made.counts(1, 10) == (2, 3)
    assert made.full(1, 10, Caps(per_host=3, per_server=50)) is None
    assert made.full(1, 10, Caps(per_host=2, per_server=50)) == Full("host", 2)
    assert made.full(1, 12, Caps(per_host=2, per_server=3)) == Full("server", 3)
    assert made.full(None, 10, Caps(per_host=1, per_server=1)) is None  # (no server)


def test_a_start_that_passed_is_counted_until_its_table_is_open_and_never_twice():
    made, live = openings(table("a", 1, 10))
    caps = Caps(per_host=2, per_server=50)
    with made.opening(1, 10) as start:
        assert made.full(1, 10, caps) == Full("host", 2)  # a second start racing it
        assert made.counts(1, 11) == (0, 2)
        start.table_id = "b"  # its table is made: still counted until the manager has it
        assert made.counts(1, 10) == (2, 2)
        live.tables.append(table("b", 1, 10))  # the manager holds it (not yet stored)
        assert made.counts(1, 10) == (2, 2)  # not twice
        live.tables.remove(live.tables[-1])  # storage refused it: the manager let it go
        assert made.counts(1, 10) == (2, 2)
    assert made.counts(1, 10) == (1, 1)  # given up
    with made.opening(1, 10) as start:
        start.table_id = "c"
        live.tables.append(table("c", 1, 10))
    assert made.counts(1, 10) == (2, 2)  # open: the manager's


def test_a_servers_caps_are_its_choice_under_the_bots_ceiling():
    bot = Limits()
    assert ServerSettings().caps(bot.tables_per_host, bot.tables_per_server) == Caps(3, 50)
    chosen = ServerSettings(tables_per_host=5, tables_per_server=20)
    assert chosen.caps(3, 50) == Caps(5, 20)
    assert chosen.caps(3, 10) == Caps(5, 10)  # the operator lowered the ceiling since
    assert chosen.caps(3, 4) == Caps(4, 4)  # a host never above the server
    assert ServerSettings(tables_per_server=2).caps(3, 50) == Caps(2, 2)
    # Stored as plain data and read back; a value the bot never writes is corrupt.
    assert ServerSettings.from_data(chosen.to_data()) == chosen
    assert ServerSettings.from_data({"tables_per_server": None}).tables_per_server is None


@pytest.mark.parametrize("damaged", [{"tables_per_server": 0}, {"tables_per_host": "3"},
                                     {"tables_per_server": True}, {"tables_per_host": -1}])
async def test_a_damaged_cap_is_not_read_as_no_cap(damaged):
    class Stored:
        async def server_settings(self, guild_id: int) -> dict:
            return damaged

    with pytest.raises(SettingsUnavailable):
        await read(Stored(), 1)


def test_the_limits_from_the_environment():
    assert limits({}) == Limits()
    got = limits({"TABLES_PER_HOST": "5", "TABLES_PER_SERVER": "200",
                  "IDLE_TABLE_DAYS": "7", "KEEP_CLOSED_TABLES_DAYS": "0"})
    assert (got.tables_per_host, got.tables_per_server) == (5, 200)
    assert (got.idle_after, got.keep_closed) == (7 * DAY, 0)
    assert limits({"TABLES_PER_SERVER": "2"}).tables_per_host == 2  # never above
    for env in ({"TABLES_PER_HOST": "0"}, {"TABLES_PER_SERVER": "many"},
                {"TABLES_PER_HOST": "9", "TABLES_PER_SERVER": "4"},
                {"IDLE_TABLE_DAYS": "-1"}, {"KEEP_CLOSED_TABLES_DAYS": "1.5"}):
        with pytest.raises(SettingsError):
            limits(env)


def test_the_idle_line_says_the_time_in_the_tables_language():
    line = idle_line(30 * DAY)
    assert say(line) == "Nobody moved for 30 days, so the table was stopped."
    with speaking("sv"):
        assert "30 dagar" in say(line)
    assert say(duration_text(7200)) == "2 hours"
    assert say(duration_text(90)) == "90 seconds"


# ================================================================ pruning closed tables


@pytest.fixture
def days() -> FakeClock:
    return FakeClock()


@pytest.fixture
async def timed_store(database: Database, days: FakeClock) -> AsyncIterator[Store]:
    async with await database.open(clock=days) as opened:
        yield opened


async def opened(store: Store, table_id: str, channel: int, status: str = "playing") -> int:
    await store.create_table(TableRow(table_id, GUILD, channel, "jazz", data={"step": 0}))
    if status == "lobby":
        return 0
    return await store.save_table(table_id, "playing", {"step": 1}, 0)


async def test_prune_deletes_only_tables_closed_long_enough_ago_and_keeps_their_games(
        timed_store: Store, days: FakeClock):
    store = timed_store
    version = await opened(store, "played", CHANNEL)
    game = dataclasses.replace(finished([(7, 10), (8, 3)]), table_id="played")
    await store.finish_table("played", "finished", {"step": 9}, version, game)
    await opened(store, "stopped", CHANNEL + 1)
    await store.close_table("stopped", "stopped")
    await opened(store, "lobby", CHANNEL + 2, status="lobby")  # open for a month: kept
    await opened(store, "playing", CHANNEL + 3)  # open too
    days.now += timedelta(days=20)
    await opened(store, "recent", CHANNEL + 4)
    await store.close_table("recent", "finished")
    days.now += timedelta(days=11)  # the first two closed 31 days ago, "recent" 11

    assert await store.prune_closed_tables(timedelta(days=30)) == 2
    assert await store.load_table("played") is None
    assert await store.load_table("stopped") is None
    for kept in ("lobby", "playing", "recent"):
        assert isinstance(await store.load_table(kept), TableRow), kept
    assert {t for t, _ in await store.active_table_keys()} == {"lobby", "playing"}
    [summary] = await store.history(GUILD)  # the game and its record stay
    record = await store.game_record(summary.game_id)
    assert record is not None and summary.game == "jazz"
    assert [r.user_id for r in await store.leaderboard("jazz", GUILD)] == [7, 8]
    assert await store.prune_closed_tables(timedelta(days=30)) == 0

    # A pruned table's id stays taken while its game names it: a new table with it could
    # never record its own game (one game a table). Without a game it is free again.
    with pytest.raises(TableExists):
        await opened(store, "played", CHANNEL + 5)
    await opened(store, "stopped", CHANNEL + 6)
    assert isinstance(await store.load_table("stopped"), TableRow)


async def test_prune_goes_by_batches_to_the_end(timed_store: Store, days: FakeClock,
                                                monkeypatch: pytest.MonkeyPatch):
    monkeypatch.setattr(sqlite_backend, "PRUNE_BATCH", 2)
    monkeypatch.setattr(postgres_backend, "PRUNE_BATCH", 2)
    for n in range(5):
        await opened(timed_store, f"t{n}", CHANNEL + n)
        await timed_store.close_table(f"t{n}", "stopped")
    days.now += timedelta(days=2)
    assert await timed_store.prune_closed_tables(timedelta(days=1)) == 5
    assert [await timed_store.load_table(f"t{n}") for n in range(5)] == [None] * 5


# ================================================================ the pruner's rounds


class Counting:
    """A store whose prune is counted, and fails when told to."""

    def __init__(self) -> None:
        self.asked: list[timedelta] = []
        self.fail = False

    async def prune_closed_tables(self, older_than: timedelta) -> int:
        self.asked.append(older_than)
        if self.fail:
            raise RuntimeError("database is locked")
        return 3


async def settled(tasks: TableTasks) -> None:
    """Until the pruner's pass (a task of ``tasks``) is done, as the bot's ``idle``."""
    quiet = 0
    for _ in range(10_000):
        await asyncio.sleep(0)
        quiet = quiet + 1 if not tasks.busy() else 0
        if quiet >= 2:
            return
    raise AssertionError("still pruning")


async def test_the_pruner_runs_at_once_then_every_round_and_outlives_a_failure():
    clock, store, tasks = ManualClock(), Counting(), TableTasks()
    pruner = Pruner(store, clock, tasks, keep=30 * DAY, every=DAY / 4)  # type: ignore[arg-type]
    tasks.serve(pruner.run(), "prune")
    try:
        await settled(tasks)
        assert store.asked == [timedelta(days=30)]
        store.fail = True
        clock.advance(DAY / 4)
        await settled(tasks)
        assert len(store.asked) == 2  # logged; the next round comes
        store.fail = False
        clock.advance(DAY / 4 - 1)
        await settled(tasks)
        assert len(store.asked) == 2
        clock.advance(1)
        await settled(tasks)
        assert len(store.asked) == 3
    finally:
        await tasks.close()
    kept = Pruner(store, clock, tasks, keep=0, every=1)  # type: ignore[arg-type]
    assert await kept.prune() == 0  # kept forever: storage is not even asked
    assert len(store.asked) == 3
