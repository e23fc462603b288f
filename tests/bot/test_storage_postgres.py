"""bot.storage on PostgreSQL only: what several processes sharing one database need.

Each "process" here is a ``PostgresStorage`` of its own (its own pool and connections)
on one fresh database of the session's throw-away server: table ownership by advisory
locks (freed at once when a process's connection dies), notices of table changes
between processes, and games finished at once by two processes for the same players.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import pwd
import random
from collections.abc import AsyncIterator, Callable
from datetime import UTC, datetime, timedelta, timezone
from pathlib import Path
from typing import Any

import asyncpg
import pytest

from bot.storage import (
    PG_MIGRATIONS,
    STARTING_CHIPS,
    ChannelBusy,
    PostgresStorage,
    SQLiteStorage,
    StorageError,
    Store,
    TableChange,
    TableRow,
    VersionConflict,
    open_storage,
)
from bot.storage.postgres_notices import CHANNEL, change_of, change_payload
from bot.storage.postgres_ownership import table_key
from bot.storage.postgres_pool import safe_location
from testkit import pgcluster
from tests.bot.test_storage import GUILD, OTHER_GUILD, STAKES, finished
from tests.pgserver import PostgresServer, PostgresUnavailable, find_binaries, run_sql

CHANGE = TableChange("t-1", 12, origin="forged", seat=2, collapsed=901)


@pytest.fixture
async def two(postgres_url: str) -> AsyncIterator[tuple[PostgresStorage, PostgresStorage]]:
    """Two processes' stores on one database."""
    async with (await PostgresStorage.open(postgres_url) as a,
                await PostgresStorage.open(postgres_url) as b):
        yield a, b


async def eventually(check: Callable[[], object], seconds: float = 5.0) -> None:
    loop = asyncio.get_running_loop()
    deadline = loop.time() + seconds
    while not check():
        if loop.time() > deadline:
            raise AssertionError("the condition never came true")
        await asyncio.sleep(0.02)


async def backend_pids(url: str, store: PostgresStorage, use: str) -> list[int]:
    conn = await asyncpg.connect(url)
    try:
        rows = await conn.fetch("SELECT pid FROM pg_stat_activity WHERE application_name = $1",
                                f"cardtable/{use}/{store.origin}")
        return [row["pid"] for row in rows]
    finally:
        await conn.close()


async def terminate(url: str, store: PostgresStorage, use: str) -> None:
    """Kill the server process of one of a store's dedicated connections."""
    [pid] = await backend_pids(url, store, use)
    conn = await asyncpg.connect(url)
    try:
        assert await conn.fetchval("SELECT pg_terminate_backend($1, 5000)", pid)
    finally:
        await conn.close()


# ================================================================ the store itself


async def test_info_names_the_backend_and_hides_the_password(postgres_url: str) -> None:
    secret = postgres_url.replace("postgres@", "postgres:s3cret@")  # trust: any password
    async with await PostgresStorage.open(secret, busy_timeout_ms=1500) as store:
        info = await store.info()
    assert (info.backend, info.schema_version, info.foreign_keys) == (
        "postgresql", len(PG_MIGRATIONS), True)
    assert (info.journal_mode, info.busy_timeout_ms) == ("postgresql", 1500)
    assert info.location == postgres_url and "s3cret" not in info.location
    assert safe_location("postgresql://u:pw@[::1]:5433/db?sslmode=require&password=pw") == (
        "postgresql://u@[::1]:5433/db?sslmode=require")


async def test_open_storage_picks_postgres_for_a_url(postgres_url: str,
                                                     tmp_path: Path) -> None:
    async with await open_storage(tmp_path / "x.db", url=postgres_url) as store:
        assert isinstance(store, PostgresStorage) and store.shared
        await store.set_meta("k", "pg")
    async with await open_storage(tmp_path / "x.db") as local:
        assert isinstance(local, SQLiteStorage) and not local.shared
        assert await local.get_meta("k") is None
    assert issubclass(PostgresStorage, Store)


async def test_a_closed_store_refuses_work(postgres_url: str) -> None:
    store = await PostgresStorage.open(postgres_url)
    await store.close()
    await store.close()  # twice is fine
    with pytest.raises(StorageError):
        await store.get_meta("k")
    with pytest.raises(StorageError):
        await store.claim_table("t1")


async def test_times_keep_their_microseconds_and_come_back_in_utc(postgres_url: str) -> None:
    moments = iter([datetime(2025, 5, 6, 7, 8, 9, 123456, tzinfo=timezone(timedelta(hours=2))),
                    datetime(2025, 5, 6, 5, 8, 10, 654321)])  # naive: UTC
    async with await PostgresStorage.open(postgres_url, clock=lambda: next(moments)) as store:
        created = await store.create_table(TableRow("t1", GUILD, 5, "jazz"))
        assert await store.save_table("t1", "playing", {}, 0) == 1
        row = await store.load_table("t1")
    assert isinstance(row, TableRow) and row.created_at == created.created_at
    assert row.created_at == datetime(2025, 5, 6, 5, 8, 9, 123456, tzinfo=UTC)
    assert row.updated_at == datetime(2025, 5, 6, 5, 8, 10, 654321, tzinfo=UTC)
    assert row.created_at.utcoffset() == timedelta(0)


async def test_the_database_itself_keeps_one_active_table_per_channel(
        two: tuple[PostgresStorage, PostgresStorage], postgres_url: str) -> None:
    a, b = two
    for round_ in range(10):  # two processes open a table in one channel at once
        outcomes = await asyncio.gather(
            a.create_table(TableRow(f"a{round_}", GUILD, 100 + round_, "jazz")),
            b.create_table(TableRow(f"b{round_}", GUILD, 100 + round_, "jazz")),
            return_exceptions=True)
        assert sorted(type(o).__name__ for o in outcomes) == ["ChannelBusy", "TableRow"]
        [busy] = [o for o in outcomes if isinstance(o, ChannelBusy)]
        [won] = [o for o in outcomes if isinstance(o, TableRow)]
        assert busy.table_id == won.table_id
    conn = await asyncpg.connect(postgres_url)
    try:
        with pytest.raises(asyncpg.UniqueViolationError):  # behind the store's back too
            await conn.execute("INSERT INTO live_tables (table_id, guild_id, channel_id, game,"
                               " status, version, data, created_at, updated_at) VALUES"
                               " ('x', 1, 100, 'jazz', 'lobby', 0, '{}', now(), now())")
    finally:
        await conn.close()


# ================================================================ ownership


def test_table_keys_are_stable_signed_64_bit_hashes() -> None:
    keys = {table_key(f"{n:08x}") for n in range(2000)}
    assert len(keys) == 2000
    assert all(-(2 ** 63) <= k < 2 ** 63 for k in keys) and min(keys) < 0 < max(keys)
    assert table_key("0000abcd") == table_key("0000abcd") == 6757313442027533898


async def test_a_table_has_one_owner_and_claiming_again_stacks_nothing(
        two: tuple[PostgresStorage, PostgresStorage], postgres_url: str) -> None:
    a, b = two
    assert await a.claim_table("t1") is True
    assert await a.claim_table("t1") is True  # already ours
    assert await b.claim_table("t1") is False
    assert await b.claim_table("t2") is True
    assert await a.claim_table("t2") is False
    conn = await asyncpg.connect(postgres_url)
    try:
        held = await conn.fetchval("SELECT COUNT(*) FROM pg_locks WHERE locktype = 'advisory'"
                                   " AND pid = ANY($1::int[])",
                                   await backend_pids(postgres_url, a, "owner"))
    finally:
        await conn.close()
    assert held == 1
    await a.release_table("t1")  # one release frees it: the second claim took no lock
    assert await b.claim_table("t1") is True
    await a.release_table("t1")  # not ours now: nothing happens
    assert await a.claim_table("t1") is False
    await b.release_table("t1")
    assert await a.claim_table("t1") is True


@pytest.mark.parametrize("death", ["server", "client"])
async def test_a_dead_process_frees_its_tables_at_once(
        two: tuple[PostgresStorage, PostgresStorage], postgres_url: str, death: str) -> None:
    a, b = two
    assert await a.claim_table("t1") and await a.claim_table("t2")
    assert not await b.claim_table("t1")
    if death == "server":  # its backend killed (a crash, a lost network)
        await terminate(postgres_url, a, "owner")
    else:  # its socket closed without a word (the process died)
        a._owner._conn.terminate()
    claims: list[bool] = []

    async def b_claims() -> bool:
        claims.append(await b.claim_table("t1"))
        return claims[-1]

    loop = asyncio.get_running_loop()
    deadline = loop.time() + 5
    while not await b_claims() and loop.time() < deadline:
        await asyncio.sleep(0.02)
    assert claims[-1] is True and await b.claim_table("t2")
    await eventually(lambda: not a._owner.owned)  # a knows it owns nothing any more
    assert await a.claim_table("t1") is False  # a new connection; b holds it now
    assert await a.claim_table("t3") is True


async def test_closing_a_store_releases_its_tables(postgres_url: str) -> None:
    async with await PostgresStorage.open(postgres_url) as b:
        a = await PostgresStorage.open(postgres_url)
        assert await a.claim_table("t1")
        assert not await b.claim_table("t1")
        await a.close()
        assert await b.claim_table("t1")


# ================================================================ notices


def test_a_change_survives_its_payload_and_nonsense_is_refused() -> None:
    assert change_of(change_payload(CHANGE)) == CHANGE
    plain = TableChange("t", 1)
    assert change_of(change_payload(plain)) == plain
    from_the_web = TableChange("t", 3, seat=1, deals=(0, 1))  # results the owner posts
    assert change_of(change_payload(from_the_web)) == from_the_web
    for bad in ("[]", "{}", '{"table_id": "t", "version": "1"}',
                '{"table_id": "t", "version": 1, "seat": true}',
                '{"table_id": "t", "version": 1, "deals": [true]}',
                '{"table_id": "t", "version": 1, "deals": 2}',
                '{"table_id": 5, "version": 1}', "not json"):
        with pytest.raises(ValueError):
            change_of(bad)


async def test_a_change_announced_by_one_process_reaches_the_other_only(
        two: tuple[PostgresStorage, PostgresStorage]) -> None:
    a, b = two
    heard_a: list[TableChange] = []
    heard_b: list[TableChange] = []
    await a.listen(heard_a.append)
    await b.listen(heard_b.append)
    await b.announce(CHANGE)
    await eventually(lambda: heard_a)
    assert heard_a == [TableChange("t-1", 12, b.origin, 2, 901)]
    await a.announce(TableChange("t-2", 3))
    await eventually(lambda: heard_b)
    assert heard_b == [TableChange("t-2", 3, a.origin)]
    await asyncio.sleep(0.2)  # neither heard its own
    assert len(heard_a) == len(heard_b) == 1
    assert a.origin != b.origin


async def test_a_malformed_notice_is_ignored_and_listening_goes_on(
        two: tuple[PostgresStorage, PostgresStorage], postgres_url: str) -> None:
    a, b = two
    heard: list[TableChange] = []
    failing_calls: list[TableChange] = []

    def failing(change: TableChange) -> None:
        failing_calls.append(change)
        raise RuntimeError("a bug in one listener")

    await a.listen(failing)
    await a.listen(heard.append)
    conn = await asyncpg.connect(postgres_url)
    try:
        await conn.execute("SELECT pg_notify($1, $2)", CHANNEL, '{"table_id": 1}')
    finally:
        await conn.close()
    await b.announce(TableChange("t-9", 1))
    await eventually(lambda: heard)
    assert heard == [TableChange("t-9", 1, b.origin)] == failing_calls


async def test_listening_resumes_after_the_connection_is_lost(
        two: tuple[PostgresStorage, PostgresStorage], postgres_url: str) -> None:
    a, b = two
    heard: list[TableChange] = []
    await a.listen(heard.append)
    await terminate(postgres_url, a, "listen")

    async def announced_and_heard() -> bool:
        await b.announce(TableChange("t-5", len(heard) + 1))
        await asyncio.sleep(0.05)
        return bool(heard)

    loop = asyncio.get_running_loop()
    deadline = loop.time() + 10
    while not await announced_and_heard():
        assert loop.time() < deadline, "the listener never came back"
    assert heard[0].table_id == "t-5" and heard[0].origin == b.origin


# ================================================================ finishing at once


async def test_two_processes_finishing_games_at_once_conserve_chips_and_rate_once(
        two: tuple[PostgresStorage, PostgresStorage], postgres_url: str,
        tmp_path: Path) -> None:
    """Games of the same players finished at once by two processes (two pools): every
    game is stored, every rating applied once, chips conserved, nothing deadlocks.

    Two games sharing a player are serialized by that player's row locks, and the later
    one takes its game id only after the earlier one committed: so the result must be
    exactly SQLite's for the same games recorded one by one in game id order."""
    a, b = two
    rng = random.Random(7)
    players = list(range(1, 9))
    games = []
    played = {GUILD: dict.fromkeys(players, 0), OTHER_GUILD: dict.fromkeys(players, 0)}
    for n in range(120):
        guild = GUILD if n % 3 else OTHER_GUILD
        seated = rng.sample(players, rng.randint(2, 5))
        stake = rng.choice((5, 10, 50))
        nets = [-stake] * len(seated)
        nets[0] += stake * len(seated)  # the first seat wins the bank
        points = [(u, 10 if i == 0 else rng.randint(0, 9)) for i, u in enumerate(seated)]
        games.append(finished(points, **STAKES, guild=guild, chips=nets))
        for user in seated:
            played[guild][user] += 1
    ids = await asyncio.gather(*(store.record_game(g) for store, g in
                                 zip([a, b] * 60, games, strict=True)))
    assert len(set(ids)) == 120 and len(await a.history(None, limit=500)) == 120

    conn = await asyncpg.connect(postgres_url)
    try:
        counted = await conn.fetch("SELECT scope, user_id, games, rated_games FROM ratings")
    finally:
        await conn.close()
    world = {u: played[GUILD][u] + played[OTHER_GUILD][u] for u in players}
    for row in counted:  # each game counted and rated exactly once, in each scope
        expected = world[row["user_id"]] if row["scope"] == 0 else played[row["scope"]][
            row["user_id"]]
        assert row["games"] == row["rated_games"] == expected
    assert len(counted) == len(players) + sum(1 for g in played.values()
                                              for n in g.values() if n)
    for guild in (GUILD, OTHER_GUILD):
        board = await b.chips_leaderboard(guild, limit=100)
        assert sum(r.balance for r in board) == STARTING_CHIPS * len(board)

    async with await SQLiteStorage.open(tmp_path / "serial.db") as serial:
        for _, game in sorted(zip(ids, games, strict=True), key=lambda pair: pair[0]):
            await serial.record_game(game)
        for scope in (GUILD, OTHER_GUILD, None):
            assert (await a.leaderboard("attackjack", scope, limit=100)
                    == await serial.leaderboard("attackjack", scope, limit=100))
        for guild in (GUILD, OTHER_GUILD):
            assert (await b.chips_leaderboard(guild, limit=100)
                    == await serial.chips_leaderboard(guild, limit=100))
        for user in players:
            assert await b.stats(user, None) == await serial.stats(user, None)


# ================================================================ the throw-away server


def test_without_postgres_binaries_the_server_fails_clearly(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(pgcluster, "DEBIAN_ROOT", tmp_path / "none")
    monkeypatch.setenv("PATH", str(tmp_path))
    with pytest.raises(PostgresUnavailable, match="apt-get install postgresql"):
        PostgresServer().start()


def test_a_server_runs_unprivileged_and_leaves_nothing_behind(
        postgres_server: PostgresServer) -> None:
    server = PostgresServer(find_binaries())
    dsn = server.start()
    base = server._base
    assert base is not None and (base / "data" / "postmaster.pid").is_file()
    assert dsn.startswith("postgresql://postgres@127.0.0.1:") and dsn != postgres_server.dsn()
    if os.geteuid() == 0:  # PostgreSQL refuses root: it runs as the postgres user
        assert (base / "data").stat().st_uid == pwd.getpwnam("postgres").pw_uid
    url = server.create_database()
    run_sql(url, "CREATE TABLE t (x BIGINT)", "INSERT INTO t VALUES (9007199254740993)")
    server.stop()
    assert not base.exists()
    with pytest.raises(OSError):
        run_sql(url, "SELECT 1")


class _LosesItsReply:
    """A connection whose next statement reaches the database (or not: ``before``) and
    whose reply is then lost, as when the server restarts at that moment."""

    def __init__(self, conn: Any, before: bool):
        self._conn, self._before = conn, before

    async def fetchrow(self, *args: Any) -> Any:
        if not self._before:
            await self._conn.fetchrow(*args)
        raise ConnectionResetError("the connection was closed in the middle of operation")

    def __getattr__(self, name: str) -> Any:
        return getattr(self._conn, name)


def losing_replies(store: PostgresStorage, before: bool) -> None:
    real = store._db.connection

    @contextlib.asynccontextmanager
    async def connection() -> AsyncIterator[Any]:
        async with real() as conn:
            yield _LosesItsReply(conn, before)

    store._db.connection = connection  # type: ignore[method-assign]


async def test_a_save_whose_reply_was_lost_is_saved_if_it_committed_and_not_otherwise(
        postgres_url: str) -> None:
    async with await PostgresStorage.open(postgres_url) as store:
        await store.create_table(TableRow("t1", GUILD, 5, "jazz"))
        assert await store.save_table("t1", "playing", {"move": 1}, 0) == 1
        losing_replies(store, before=False)  # committed, then the reply was lost
        assert await store.save_table("t1", "playing", {"move": 2}, 1) == 2
        row = await store.load_table("t1")
        assert isinstance(row, TableRow) and (row.version, row.data) == (2, {"move": 2})
        losing_replies(store, before=True)  # lost before it reached the database
        with pytest.raises(StorageError) as lost:
            await store.save_table("t1", "playing", {"move": 3}, 2)
        assert not isinstance(lost.value, VersionConflict)
        row = await store.load_table("t1")
        assert isinstance(row, TableRow) and (row.version, row.data) == (2, {"move": 2})
