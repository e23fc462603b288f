"""bot.storage: the numbered migration files, and a real old database upgraded by them.

``tests/fixtures/legacy-schema3.sql`` is a dump of a database the bot wrote at
schema version 3 (a finished Jacko game, Jazz mid-game, an AttackJack lobby):
the upgrade must keep every row of it and leave it fully usable. PostgreSQL's
migrations (``migrations_pg/``) are the same numbered changes: the tests that take
``database`` run on both backends, and the last ones are PostgreSQL's own (its
version table, its migration lock).
"""

from __future__ import annotations

import asyncio
import json
import sqlite3
from importlib import resources
from pathlib import Path

import asyncpg
import pytest

from bot.storage import (
    MIGRATIONS,
    PG_MIGRATIONS,
    STARTING_CHIPS,
    FinishedGame,
    PostgresStorage,
    SeatResult,
    Storage,
    TableRow,
    load_migrations,
    migration_files,
    ratings,
)
from bot.storage.postgres_migrate import MIGRATION_LOCK
from tests.bot.conftest import Database
from tests.bot.test_storage import CHANNEL, T0, finished, raw, record_of

FIXTURES = Path(__file__).resolve().parent.parent / "fixtures"
LEGACY_SQL = FIXTURES / "legacy-schema3.sql"
IDS = json.loads((FIXTURES / "legacy-schema3.json").read_text(encoding="utf-8"))
GUILD, ALICE, BOB, CY = IDS["guild"], IDS["users"]["alice"], IDS["users"]["bob"], IDS["users"]["cy"]


def legacy_database(path: Path) -> Path:
    """A fresh file holding the legacy dump, as the schema-3 bot left it."""
    path.parent.mkdir(parents=True, exist_ok=True)
    conn = sqlite3.connect(path)
    try:
        conn.executescript(LEGACY_SQL.read_text(encoding="utf-8"))
    finally:
        conn.close()
    return path


def schema(path: Path) -> set[tuple[str, str, str, str | None]]:
    return set(raw(path, "SELECT type, name, tbl_name, sql FROM sqlite_master"))


def contents(path: Path) -> dict[str, list[tuple]]:
    """Every row of every table, in the columns the table has now."""
    tables = [name for (name,) in raw(path, "SELECT name FROM sqlite_master"
                                            " WHERE type = 'table' ORDER BY name")]
    return {name: raw(path, f'SELECT * FROM "{name}" ORDER BY rowid') for name in tables}


# ================================================================ the files


def test_migration_files_are_found_and_numbered_from_one_without_gaps() -> None:
    names = migration_files()
    assert [int(name[:4]) for name in names] == list(range(1, len(names) + 1))
    assert len(names) == len(MIGRATIONS) >= 4
    assert names[:4] == ["0001_first.sql", "0002_chips.sql", "0003_rated_games.sql",
                         "0004_posts.sql"]
    folder = resources.files("bot.storage").joinpath("migrations")
    assert tuple(folder.joinpath(n).read_text(encoding="utf-8") for n in names) == MIGRATIONS


def test_the_loader_takes_any_folder_and_refuses_gaps_and_bad_names(tmp_path: Path) -> None:
    for n in range(1, 12):  # 0010 and 0011 sort after 0009
        (tmp_path / f"{n:04d}_step_{n}.sql").write_text(f"CREATE TABLE t{n} (x);")
    (tmp_path / "README.md").write_text("not a migration")
    assert load_migrations(tmp_path) == tuple(f"CREATE TABLE t{n} (x);" for n in range(1, 12))
    (tmp_path / "0013_gap.sql").write_text("SELECT 1;")
    with pytest.raises(ValueError, match="0012"):
        migration_files(tmp_path)
    cases = (["0001_a.sql", "0001_b.sql"], ["0002_a.sql"], ["1_a.sql"], ["0001_Bad-Name.sql"], [])
    for n, bad in enumerate(cases):
        folder = tmp_path / f"case{n}"
        folder.mkdir()
        for name in bad:
            (folder / name).write_text("SELECT 1;")
        with pytest.raises(ValueError):
            load_migrations(folder)


def test_postgres_has_the_same_numbered_migrations() -> None:
    pg_names = migration_files("migrations_pg")
    assert pg_names == migration_files() and len(PG_MIGRATIONS) == len(MIGRATIONS) == 12
    folder = resources.files("bot.storage").joinpath("migrations_pg")
    assert tuple(folder.joinpath(n).read_text(encoding="utf-8") for n in pg_names) == (
        PG_MIGRATIONS)


async def test_migrations_apply_one_by_one_in_order(database: Database) -> None:
    added = {1: ("table", "live_tables"), 2: ("table", "chips"), 3: ("ratings", "rated_games"),
             4: ("live_tables", "posts"), 5: ("table", "user_languages"),
             6: ("table", "server_settings"), 7: ("index", "games_table"),
             10: ("table", "season_ratings"), 11: ("table", "rating_history"),
             12: ("table", "tournaments")}

    async def has(kind: str, name: str) -> bool:
        if database.backend == "sqlite":
            if kind in ("table", "index"):
                return bool(await database.raw("SELECT 1 FROM sqlite_master WHERE name = ?"
                                               " AND type = ?", (name, kind)))
            return name in [c[1] for c in await database.raw(f"PRAGMA table_info({kind})")]
        if kind == "index":
            return bool(await database.raw("SELECT 1 FROM pg_indexes WHERE indexname = ?",
                                           (name,)))
        if kind == "table":
            return bool(await database.raw("SELECT 1 FROM information_schema.tables"
                                           " WHERE table_name = ?", (name,)))
        return bool(await database.raw("SELECT 1 FROM information_schema.columns"
                                       " WHERE table_name = ? AND column_name = ?",
                                       (kind, name)))

    for version in range(1, len(database.migrations) + 1):
        async with await database.open(migrations=database.migrations[:version]) as store:
            assert (await store.info()).schema_version == version
        for step, what in added.items():
            assert await has(*what) is (step <= version), (version, step)


@pytest.mark.parametrize("version", [1, 3, 5])
@pytest.mark.usefixtures("before_rating_history")
async def test_an_older_database_upgrades_keeping_its_tables_and_games(
        database: Database, version: int) -> None:
    async with await database.open(migrations=database.migrations[:version]) as old:
        await old.create_table(TableRow("t-old", 1, CHANNEL, "jazz", data={"step": 4}))
        assert await old.save_table("t-old", "playing", {"step": 5}, 0) == 1
        await old.set_meta("k", f"v{version}")
        if version >= 3:  # from 3 on, that bot recorded its games with chips
            await old.record_game(finished([(7, 12), (8, 4)], guild=1))
    async with await database.open() as store:
        assert (await store.info()).schema_version == len(database.migrations)
        [table] = await store.load_active_tables()
        assert isinstance(table, TableRow)
        assert (table.version, table.data, table.posts) == (1, {"step": 5}, None)
        assert await store.get_meta("k") == f"v{version}"
        assert await store.save_table("t-old", "playing", {"step": 6}, 1) == 2
        assert len(await store.history(1)) == (1 if version >= 3 else 0)
        await store.record_game(finished([(8, 9), (7, 1)], guild=1))
        board = await store.leaderboard("jazz", 1)
        assert [(r.games, r.provisional) for r in board] == [(2 if version >= 3 else 1, True)] * 2


async def test_the_shipped_migrations_still_build_the_schema_they_shipped(
        tmp_path: Path) -> None:
    # Migration files are never edited: three of them make exactly the legacy schema.
    async with await Storage.open(tmp_path / "new.db", migrations=MIGRATIONS[:3]):
        pass
    assert schema(tmp_path / "new.db") == schema(legacy_database(tmp_path / "old.db"))


# ================================================================ the legacy database


async def test_a_schema3_database_upgrades_keeping_every_row(tmp_path: Path) -> None:
    path = legacy_database(tmp_path / "data" / "cardtable.db")
    assert raw(path, "PRAGMA user_version") == [(3,)]
    before = contents(path)
    async with await Storage.open(path) as store:
        assert (await store.info()).schema_version == len(MIGRATIONS)
        active = await store.load_active_tables()
        [summary] = await store.history(None)
        record = await store.game_record_json(1)
        boards = {scope: await store.leaderboard("jacko", scope) for scope in (GUILD, None)}
        assert await store.get_meta("command_tree_hash:global") == (
            "34c17444afa596adc9b9edebe3d25fdaaa63171c36cd90a198445ae4d2e84f4a")
    after = contents(path)
    # Every row is kept as it was; live tables only gained posts and owed, all NULL, and the
    # users' languages, the servers' settings, the web table's spent links, the seasons, the
    # rating history and the tournaments have tables of their own, empty.
    added = {"user_languages", "server_settings", "web_links", "season_ratings",
             "season_posts", "role_holders", "rating_history", "tournaments",
             "tournament_signups"}
    assert set(after) == set(before) | added and all(after[t] == [] for t in added)
    assert after["live_tables"] == [(*row, None, None) for row in before["live_tables"]]
    for table in set(before) - {"live_tables"}:
        assert after[table] == before[table], table
    assert [len(before[t]) for t in ("live_tables", "games", "results", "ratings")] == [3, 1, 2, 4]

    assert [(t.game, t.status, t.version, t.posts) for t in active] == [
        ("jazz", "playing", 15, None), ("attackjack", "lobby", 2, None)]  # jacko is finished
    data = {row[0]: json.loads(row[6]) for row in before["live_tables"]}
    for table in active:
        assert isinstance(table, TableRow) and table.data == data[table.table_id]
    assert (summary.game_id, summary.game, summary.completed, summary.rated) == (
        1, "jacko", True, True)
    assert [(p.name, p.points, p.won) for p in summary.players] == [("Alice", 65, False),
                                                                   ("Bob", 122, True)]
    assert record == before["games"][0][-2]  # byte for byte
    for board in boards.values():
        assert [(r.user_id, r.rank, r.games, r.wins, r.points) for r in board] == [
            (BOB, 1, 1, 1, 122), (ALICE, 2, 1, 0, 65)]
        assert all(r.provisional for r in board)


async def test_an_upgraded_schema3_database_records_games_and_tables(tmp_path: Path) -> None:
    path = legacy_database(tmp_path / "cardtable.db")
    async with await Storage.open(path) as store:
        alice_before = await store.rank_of("jacko", GUILD, ALICE)
        bob_before = await store.rank_of("jacko", GUILD, BOB)
        assert alice_before is not None and bob_before is not None
        seats = [SeatResult(0, ALICE, "Alice", 121, 0, True),
                 SeatResult(1, BOB, "Bob", 90, 1, False)]
        game_id = await store.record_game(FinishedGame(
            GUILD, 1, "jacko", T0, T0, True, record_of("jacko", 2), seats))
        assert game_id == 2  # the AUTOINCREMENT sequence came along
        expected = ratings.rate([ratings.Rating(alice_before.mu, alice_before.sigma),
                                 ratings.Rating(bob_before.mu, bob_before.sigma)], [0, 1])
        for scope in (GUILD, None):
            board = await store.leaderboard("jacko", scope)
            assert [(r.user_id, r.rank, r.games, r.wins) for r in board] == [
                (ALICE, 1, 2, 1), (BOB, 2, 2, 1)]
            assert board[0].mu == pytest.approx(expected[0].mu)
            assert board[1].sigma == pytest.approx(expected[1].sigma)
        assert len(await store.history(GUILD)) == 2

        # A game with stakes moves chips on the old file too.
        chips = [SeatResult(0, ALICE, "Alice", 1, 0, True, 30),
                 SeatResult(1, CY, "Cy", 0, 1, False, -30)]
        await store.record_game(FinishedGame(GUILD, 1, "attackjack", T0, T0, True,
                                             record_of("attackjack", 2), chips, stakes=True))
        assert await store.chips(GUILD, ALICE) == STARTING_CHIPS + 30
        assert [r.name for r in await store.chips_leaderboard(GUILD)] == ["Alice", "Cy"]

        # The Jazz game in progress goes on from its version; posts are written apart.
        [jazz] = [t for t in await store.load_active_tables() if t.game == "jazz"]
        assert isinstance(jazz, TableRow)
        await store.save_posts(jazz.table_id, {"message_id": jazz.data["message_id"]})
        assert await store.save_table(jazz.table_id, "playing", {**jazz.data, "step": 16},
                                      15) == 16
    async with await Storage.open(path) as store:
        again = await store.active_table_in_channel(jazz.channel_id)
        assert isinstance(again, TableRow)
        assert (again.version, again.data["step"]) == (16, 16)
        assert again.posts == {"message_id": jazz.data["message_id"]}


async def test_two_processes_upgrading_the_legacy_file_at_once_migrate_it_once(
        tmp_path: Path) -> None:
    path = legacy_database(tmp_path / "cardtable.db")
    first, second = await asyncio.gather(Storage.open(path), Storage.open(path))
    async with first, second:
        assert {(await s.info()).schema_version for s in (first, second)} == {len(MIGRATIONS)}
        assert len(await second.load_active_tables()) == 2


# ================================================================ opening races


async def test_many_connections_opening_new_files_at_once_all_succeed(tmp_path: Path) -> None:
    # A new file's switch to WAL needs a lock upgrade, for which SQLite does not wait
    # (busy_timeout); the store must wait itself rather than fail with "locked".
    for attempt in range(15):
        path = tmp_path / f"race{attempt}.db"
        stores = await asyncio.gather(*(Storage.open(path) for _ in range(6)))
        try:
            for store in stores:
                info = await store.info()
                assert (info.schema_version, info.journal_mode) == (len(MIGRATIONS), "wal")
        finally:
            for store in stores:
                await store.close()


# ================================================================ PostgreSQL's own


async def test_postgres_keeps_its_schema_version_in_one_row(postgres_url: str) -> None:
    database = Database("postgres", url=postgres_url)
    async with await PostgresStorage.open(postgres_url, migrations=PG_MIGRATIONS[:2]):
        pass
    assert await database.raw("SELECT version FROM schema_version") == [(2,)]
    async with await PostgresStorage.open(postgres_url) as store:
        assert (await store.info()).schema_version == len(PG_MIGRATIONS)
    assert await database.raw("SELECT version FROM schema_version") == [(len(PG_MIGRATIONS),)]


async def test_postgres_migrates_only_under_its_migration_lock(postgres_url: str) -> None:
    """A process that migrates holds the lock: another one starting waits for it, then
    finds the work done (it would fail on CREATE TABLE if it ran the migrations again)."""
    other = await asyncpg.connect(postgres_url)
    try:
        transaction = other.transaction()
        await transaction.start()
        await other.execute("SELECT pg_advisory_xact_lock($1)", MIGRATION_LOCK)
        opening = asyncio.create_task(PostgresStorage.open(postgres_url))
        await asyncio.sleep(0.5)
        assert not opening.done()  # waiting for the lock
        # What the other process did under the lock: the whole schema, as a store would.
        await other.execute("CREATE TABLE schema_version (only_row BOOLEAN PRIMARY KEY"
                            " DEFAULT TRUE CHECK (only_row), version INTEGER NOT NULL)")
        for script in PG_MIGRATIONS:
            await other.execute(script)
        await other.execute("INSERT INTO schema_version VALUES (TRUE, $1)", len(PG_MIGRATIONS))
        await transaction.commit()
        async with await asyncio.wait_for(opening, 10) as store:
            assert (await store.info()).schema_version == len(PG_MIGRATIONS)
            await store.set_meta("k", "v")
    finally:
        await other.close()
