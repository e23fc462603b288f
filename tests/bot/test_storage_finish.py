"""bot.storage: a table's end is one transaction, and a table records one game.

``finish_table`` writes the table's final snapshot at its version with its closed status,
and records its game (seats, counts, ratings, chips, as ``record_game`` does), together
or not at all; ``record_game`` records a table's game once (``games.table_id`` is unique,
migration 0007, which first removes the twins an older bot could record and takes back
what they moved). Every test that takes ``store`` or ``database`` runs on SQLite and on
PostgreSQL.
"""

from __future__ import annotations

import asyncio
import dataclasses
import logging
from pathlib import Path
from typing import Any

import asyncpg
import pytest

from bot.storage import (
    STARTING_CHIPS,
    FinishedGame,
    InvalidResult,
    PostgresStorage,
    Store,
    TableRow,
    VersionConflict,
    ratings,
    results,
)
from tests.bot.conftest import Database
from tests.bot.test_storage import CHANNEL, GUILD, OTHER_CHANNEL, OTHER_GUILD, STAKES, finished

SNAPSHOT = {"step": 40, "game": "over"}


def of_table(game: FinishedGame, table_id: str | None) -> FinishedGame:
    return dataclasses.replace(game, table_id=table_id)


async def playing_table(store: Store, table_id: str = "t1", channel: int = CHANNEL,
                        saves: int = 3) -> int:
    """A table in play, saved ``saves`` times: its version."""
    await store.create_table(TableRow(table_id, GUILD, channel, "jazz", data={"step": 0}))
    version = 0
    for step in range(1, saves + 1):
        version = await store.save_table(table_id, "playing", {"step": step}, version)
    return version


async def counts(database: Database) -> dict[str, int]:
    """How many rows each table of finished games holds."""
    found = {}
    for table in ("games", "results", "ratings", "chips", "users"):
        [(n,)] = await database.raw(f"SELECT COUNT(*) FROM {table}")
        found[table] = int(n)
    return found


async def board(store: Store, game: str = "jazz", guild: int | None = GUILD
                ) -> list[tuple[int, int, int, int, float, float]]:
    return [(r.user_id, r.games, r.wins, r.points, r.mu, r.sigma)
            for r in await store.leaderboard(game, guild, limit=50)]


# ================================================================ finish_table


async def test_finish_table_closes_the_table_and_records_its_game_at_once(
        store: Store, database: Database) -> None:
    version = await playing_table(store)
    game = of_table(finished([(7, 10), (8, 3)]), "t1")
    assert await store.finish_table("t1", "finished", SNAPSHOT, version, game) == version + 1
    row = await store.load_table("t1")
    assert isinstance(row, TableRow)
    assert (row.status, row.version, row.data) == ("finished", version + 1, SNAPSHOT)
    assert await store.active_table_in_channel(CHANNEL) is None
    [summary] = await store.history(GUILD)
    assert [(p.user_id, p.points, p.won) for p in summary.players] == [(7, 10, True),
                                                                      (8, 3, False)]
    assert await database.raw("SELECT table_id FROM games") == [("t1",)]
    for scope in (GUILD, None):  # rated in the server and globally
        assert [(u, g, w, p) for u, g, w, p, *_ in await board(store, guild=scope)] == [
            (7, 1, 1, 10), (8, 1, 0, 3)]
    # A step saved from before the end is stale; the channel is free for a new table.
    with pytest.raises(VersionConflict):
        await store.save_table("t1", "finished", {}, version)
    await store.create_table(TableRow("t2", GUILD, CHANNEL, "jazz"))


async def test_what_an_end_owes_its_channel_is_stored_with_it_until_settled(
        store: Store) -> None:
    versions = {table_id: await playing_table(store, table_id, channel)
                for table_id, channel in (("t1", CHANNEL), ("t2", OTHER_CHANNEL))}
    with pytest.raises(ValueError):  # only the kinds the bot shows
        await store.finish_table("t1", "finished", SNAPSHOT, versions["t1"], owed="song")
    assert await store.owed_table_keys() == []  # (nothing written by that)
    await store.finish_table("t1", "finished", SNAPSHOT, versions["t1"],
                             finished([(7, 1), (8, 0)]), owed="result")
    await store.finish_table("t2", "stopped", SNAPSHOT, versions["t2"], owed="board")
    assert await store.owed_table_keys() == [("t1", GUILD), ("t2", GUILD)]
    row = await store.load_table("t1")
    assert isinstance(row, TableRow) and (row.status, row.owed) == ("finished", "result")
    await store.settle_owed("t1")
    await store.settle_owed("unknown")  # no such table: nothing
    assert await store.owed_table_keys() == [("t2", GUILD)]
    row = await store.load_table("t1")
    assert isinstance(row, TableRow) and row.owed is None and row.version == versions["t1"] + 1
    # A failed end stores nothing owed: the table stays open, to be ended again.
    version = await playing_table(store, "t3", CHANNEL + 5)
    with pytest.raises(VersionConflict):
        await store.finish_table("t3", "finished", SNAPSHOT, version - 1, owed="result")
    assert await store.owed_table_keys() == [("t2", GUILD)]


async def test_a_game_without_a_table_id_is_given_the_tables_and_another_is_refused(
        store: Store, database: Database) -> None:
    version = await playing_table(store)
    with pytest.raises(InvalidResult, match="t9"):
        await store.finish_table("t1", "finished", SNAPSHOT, version,
                                 of_table(finished([(7, 1), (8, 0)]), "t9"))
    with pytest.raises(InvalidResult):  # a game that does not add up: nothing written
        await store.finish_table("t1", "finished", SNAPSHOT, version,
                                 finished([(7, 1), (8, 0)], **STAKES, chips=[5, 5]))
    with pytest.raises(ValueError):  # a table ends finished or stopped
        await store.finish_table("t1", "playing", SNAPSHOT, version)
    row = await store.load_table("t1")
    assert isinstance(row, TableRow) and (row.status, row.version) == ("playing", version)
    await store.finish_table("t1", "finished", SNAPSHOT, version, finished([(7, 1), (8, 0)]))
    assert await database.raw("SELECT table_id FROM games") == [("t1",)]


async def test_a_stopped_game_and_a_closed_lobby_end_the_same_way(
        store: Store, database: Database) -> None:
    version = await playing_table(store)
    stopped = of_table(finished([(7, 4), (8, 9)], completed=False), "t1")
    assert await store.finish_table("t1", "stopped", SNAPSHOT, version, stopped) == version + 1
    [summary] = await store.history(GUILD)
    assert not summary.completed and not summary.rated
    assert await store.leaderboard_size("jazz", GUILD) == 0  # a stopped game counts nothing
    await store.create_table(TableRow("lobby", GUILD, OTHER_CHANNEL, "jazz"))
    assert await store.finish_table("lobby", "stopped", {"closed": True}, 0) == 1  # no game
    row = await store.load_table("lobby")
    assert isinstance(row, TableRow) and (row.status, row.data) == ("stopped", {"closed": True})
    assert len(await store.history(GUILD)) == 1


async def test_finish_table_refuses_a_stale_version_and_writes_nothing(
        store: Store, database: Database) -> None:
    version = await playing_table(store)
    game = of_table(finished([(7, 10), (8, 3)]), "t1")
    with pytest.raises(VersionConflict) as caught:
        await store.finish_table("t1", "finished", SNAPSHOT, version - 1, game)
    assert (caught.value.expected, caught.value.actual) == (version - 1, version)
    with pytest.raises(VersionConflict) as caught:
        await store.finish_table("ghost", "finished", SNAPSHOT, 0, of_table(game, "ghost"))
    assert caught.value.actual is None
    assert (await counts(database))["games"] == 0
    row = await store.load_table("t1")
    assert isinstance(row, TableRow) and (row.status, row.version) == ("playing", version)


@pytest.mark.parametrize("fails", ["rating", "chips"])
async def test_finish_is_atomic_a_failure_in_the_middle_leaves_nothing(
        store: Store, database: Database, monkeypatch: pytest.MonkeyPatch, fails: str) -> None:
    """A failure after the table's row was written and the game's rows begun (the rating
    of the global scope, or the chips at the very end): the table is still open at its old
    version with its old snapshot, and nothing of the game stays; a retry then ends it."""
    version = await playing_table(store)
    game = of_table(finished([(7, 10), (8, 3)], **STAKES, chips=[20, -20]), "t1")
    real_rate, calls = ratings.rate, []

    def failing_second_scope(before: Any, places: Any) -> Any:
        calls.append(1)
        if len(calls) == 2:  # the server's scope was rated; the global one fails
            raise RuntimeError("the rating broke")
        return real_rate(before, places)

    if fails == "rating":
        monkeypatch.setattr(results, "rate", failing_second_scope)  # where it is called
    else:  # the chips' statement (the last one) fails at the database
        await database.raw("ALTER TABLE chips ADD CONSTRAINT no_chips CHECK (balance < 0)"
                           if database.backend == "postgres" else
                           "CREATE TRIGGER no_chips BEFORE INSERT ON chips"
                           " BEGIN SELECT RAISE(ABORT, 'no chips today'); END")
    before = await counts(database)
    with pytest.raises(Exception, match=r"rating broke|no_chips|no chips today"):
        await store.finish_table("t1", "finished", SNAPSHOT, version, game)
    row = await store.load_table("t1")
    assert isinstance(row, TableRow)
    assert (row.status, row.version, row.data) == ("playing", version, {"step": 3})
    assert await store.active_table_in_channel(CHANNEL) is not None
    assert await counts(database) == before == {
        "games": 0, "results": 0, "ratings": 0, "chips": 0, "users": 0}

    # Fixed, the retry finishes the table once, from the same version.
    monkeypatch.setattr(results, "rate", real_rate)
    if fails == "chips":
        await database.raw("ALTER TABLE chips DROP CONSTRAINT no_chips"
                           if database.backend == "postgres" else "DROP TRIGGER no_chips")
    assert await store.finish_table("t1", "finished", SNAPSHOT, version, game) == version + 1
    assert (await counts(database))["games"] == 1
    assert await store.chips(GUILD, 7) == STARTING_CHIPS + 20
    assert [g for _, g, *_ in await board(store, "attackjack")] == [1, 1]


# ================================================================ one game per table


async def test_record_game_twice_for_one_table_records_it_once(
        store: Store, database: Database, caplog: pytest.LogCaptureFixture) -> None:
    game = of_table(finished([(7, 10), (8, -10)], **STAKES, chips=[10, -10]), "t1")
    first = await store.record_game(game)
    rated = await board(store, "attackjack")
    with caplog.at_level(logging.WARNING, logger="bot.storage"):
        again = await store.record_game(game)
        later = await store.record_game(dataclasses.replace(game, completed=False))
    assert first == again == later  # the first game's id: nothing recorded again
    assert sum("recorded already" in r.getMessage() and "t1" in r.getMessage()
               for r in caplog.records) == 2
    assert [g.game_id for g in await store.history(None)] == [first]
    assert await board(store, "attackjack") == rated  # counts and ratings moved once
    assert [await store.chips(GUILD, u) for u in (7, 8)] == [STARTING_CHIPS + 10,
                                                             STARTING_CHIPS - 10]
    # Games of no table (NULL) are each recorded; another table's game too.
    plain = finished([(7, 1), (8, 0)])
    ids = {await store.record_game(plain), await store.record_game(plain),
           await store.record_game(of_table(plain, "t2"))}
    assert len(ids) == 3 and first not in ids


async def test_finishing_a_table_whose_game_was_recorded_closes_it_and_records_nothing(
        store: Store, database: Database) -> None:
    """An older bot recorded the game, then failed to close the table: the restored table
    finishes again, and its game is not recorded a second time."""
    version = await playing_table(store)
    game = of_table(finished([(7, 10), (8, 3)]), "t1")
    first = await store.record_game(game)
    rated = await board(store)
    assert await store.finish_table("t1", "finished", SNAPSHOT, version, game) == version + 1
    row = await store.load_table("t1")
    assert isinstance(row, TableRow) and row.status == "finished"
    assert [g.game_id for g in await store.history(None)] == [first]
    assert await board(store) == rated


async def test_one_game_per_table_even_from_processes_racing(postgres_url: str) -> None:
    """Several processes record one table's game at once (record_game, finish_table):
    exactly one is stored, each returns its id, the counts moved once."""
    stores = [await PostgresStorage.open(postgres_url) for _ in range(4)]
    try:
        version = await playing_table(stores[0])
        game = of_table(finished([(7, 10), (8, 3), (9, 1)]), "t1")
        ids = await asyncio.gather(*(s.record_game(game) for s in stores[1:]))
        assert len(set(ids)) == 1
        await asyncio.gather(stores[0].finish_table("t1", "finished", SNAPSHOT, version, game),
                             *(s.record_game(game) for s in stores[1:]))
        assert [g.game_id for g in await stores[0].history(None)] == [ids[0]]
        assert [g for _, g, *_ in await board(stores[0])] == [1, 1, 1]
    finally:
        for store in stores:
            await store.close()


HOLD_KEY = 4343  # an advisory lock key (the tables' keys are 64-bit hashes)


async def test_a_game_recorded_meanwhile_by_another_process_is_found_not_doubled(
        postgres_url: str) -> None:
    """The race itself, made certain: process A's game of table t1 waits to commit (a
    trigger holds its commit) when process B looks for t1's game (none committed), then
    waits for A's players' rows; A commits, B's insert meets the unique table id, and B
    runs again: it finds A's game and records nothing."""
    async with (await PostgresStorage.open(postgres_url, busy_timeout_ms=30_000) as a,
                await PostgresStorage.open(postgres_url, busy_timeout_ms=30_000) as b):
        conn = await asyncpg.connect(postgres_url)
        try:
            await conn.execute(f"""
                CREATE FUNCTION hold() RETURNS trigger LANGUAGE plpgsql AS $$
                BEGIN
                    PERFORM pg_advisory_xact_lock_shared({HOLD_KEY});
                    RETURN NULL;
                END $$;
                CREATE CONSTRAINT TRIGGER hold AFTER INSERT ON games
                    DEFERRABLE INITIALLY DEFERRED FOR EACH ROW EXECUTE FUNCTION hold();
            """)
            await conn.execute("SELECT pg_advisory_lock($1)", HOLD_KEY)
            game = of_table(finished([(7, 10), (8, 3)]), "t1")
            first = asyncio.ensure_future(a.record_game(game))
            await waiting_for_lock(conn, "advisory")  # A, committing
            runs = []
            real_write = b._db.write

            async def write(work: Any) -> Any:
                runs.append(work)
                return await real_write(work)

            b._db.write = write  # type: ignore[method-assign]
            second = asyncio.ensure_future(b.record_game(game))
            await waiting_for_lock(conn, "transactionid")  # B, behind A's players' rows
            await conn.execute("SELECT pg_advisory_unlock($1)", HOLD_KEY)
            ids = await asyncio.gather(first, second)
        finally:
            await conn.close()
        assert ids[0] == ids[1] and len(runs) == 2  # B ran again, and found A's game
        assert [g.game_id for g in await a.history(None)] == [ids[0]]
        assert [g for _, g, *_ in await board(a)] == [1, 1]


async def waiting_for_lock(conn: asyncpg.Connection, kind: str) -> None:
    """Until a transaction waits for a lock of ``kind`` (the guard only stops a broken
    test hanging)."""
    async with asyncio.timeout(10):
        while not await conn.fetchval("SELECT count(*) FROM pg_locks WHERE locktype = $1"
                                      " AND NOT granted", kind):
            await asyncio.sleep(0.01)


# ================================================================ migration 0007


TWINS = "t-twice"


def history_of_twins() -> list[tuple[FinishedGame, bool]]:
    """What an older bot recorded, in order, with whether each game is a twin (a second
    or third record of a table already recorded): every kind of game a twin can be."""
    rated = of_table(finished([(7, 10), (8, 3)]), TWINS)
    staked = of_table(finished([(7, 1), (9, 0)], **STAKES, chips=[30, -30]), "t-chips")
    with_ai = of_table(finished([(8, 5), (None, 9), (9, 2)]), "t-ai")
    stopped = of_table(finished([(7, 2), (8, 4)], completed=False), "t-stopped")
    serverless = of_table(finished([(7, 6), (9, 1)], guild=0), "t-dm")
    other = of_table(finished([(7, 3), (9, 8)], guild=OTHER_GUILD), "t-other")
    untabled = finished([(8, 1), (9, 0)])  # an old game: no table id, recorded twice
    after = of_table(finished([(8, 7), (7, 1)]), "t-after")
    return [(rated, False), (staked, False), (rated, True), (with_ai, False), (rated, True),
            (staked, True), (stopped, False), (with_ai, True), (stopped, True),
            (serverless, False), (serverless, True), (other, False), (other, True),
            (untabled, False), (untabled, False), (after, False)]


async def record_as_before(old: Store, database: Database, game: FinishedGame) -> int:
    """Record ``game`` as a bot before migration 0007 did: whatever its table had."""
    game_id = await old.record_game(of_table(game, None))
    if game.table_id is not None:
        await database.raw("UPDATE games SET table_id = ? WHERE game_id = ?",
                           (game.table_id, game_id))
    return game_id


async def count_rows(database: Database) -> list[tuple[int, ...]]:
    """Every ratings row's counts: (scope, game, user, games, wins, points, rated games)."""
    rows = await database.raw("SELECT scope, game, user_id, games, wins, points, rated_games"
                              " FROM ratings ORDER BY scope, game, user_id")
    return [tuple(row) for row in rows]


async def rating_rows(database: Database) -> dict[tuple[int, str, int], tuple[float, ...]]:
    rows = await database.raw("SELECT scope, game, user_id, mu, sigma, ordinal FROM ratings")
    return {(scope, game, user): (mu, sigma, ordinal)
            for scope, game, user, mu, sigma, ordinal in rows}


async def chips_rows(database: Database) -> list[tuple[int, ...]]:
    rows = await database.raw("SELECT guild_id, user_id, balance FROM chips"
                              " ORDER BY guild_id, user_id")
    return [tuple(row) for row in rows]


@pytest.mark.usefixtures("before_rating_history")
async def test_the_migration_removes_twins_and_takes_back_what_they_moved(
        database: Database, tmp_path: Path) -> None:
    """A database of schema 6 where tables were recorded twice (and thrice): after the
    migration, the first game of each table stays with its seats, the twins are gone,
    and counts and chips are those of the first games alone (a database that recorded
    each table once is the reference); ratings stay as the twins left them, NULL table
    ids stay, and a table's game cannot be recorded twice any more."""
    games = history_of_twins()
    reference = Database("sqlite", path=tmp_path / "reference.db")
    async with await reference.open() as once:
        for game, twin in games:
            if not twin:
                await once.record_game(game)
    previous = database.migrations[:6]
    async with await database.open(migrations=previous) as old:
        ids = [await record_as_before(old, database, game) for game, _ in games]
    assert len(set(ids)) == len(games)
    assert await count_rows(database) != await count_rows(reference)
    twice = await rating_rows(database)
    kept = [game_id for game_id, (_, twin) in zip(ids, games, strict=True) if not twin]

    async with await database.open() as store:
        assert (await store.info()).schema_version == len(database.migrations)
        assert sorted(g.game_id for g in await store.history(None, limit=50)) == kept
        [(seats,)] = await database.raw("SELECT COUNT(*) FROM results")
        assert seats == sum(len(game.seats) for game, twin in games if not twin)
        # Counts and chips as if each table was recorded once...
        assert await count_rows(database) == await count_rows(reference)
        assert await chips_rows(database) == await chips_rows(reference)
        assert await store.chips(GUILD, 7) == STARTING_CHIPS + 30
        # ...and every rating as the twins left it.
        assert await rating_rows(database) == twice

        # From now on a table records one game; games of no table are still each recorded.
        assert await store.record_game(games[0][0]) == ids[0]
        untabled = await store.record_game(games[-3][0])
        assert untabled not in ids
        assert sorted(g.game_id for g in await store.history(None, limit=50)) == [
            *kept, untabled]


@pytest.mark.usefixtures("before_rating_history")
async def test_a_player_counted_only_by_a_twin_leaves_the_board(database: Database) -> None:
    """A table's first record a stopped game (counted for nobody), its twin completed:
    the twin goes, and with it its players' only counts."""
    first = of_table(finished([(7, 2), (8, 4)], completed=False), "t1")
    async with await database.open(migrations=database.migrations[:6]) as old:
        await record_as_before(old, database, first)
        await record_as_before(old, database, dataclasses.replace(first, completed=True))
        await old.record_game(finished([(8, 1), (9, 0)]))  # 8 also played another game
        assert await old.leaderboard_size("jazz", GUILD) == 3
    async with await database.open() as store:
        assert sorted((r.user_id, r.games) for r in await store.leaderboard("jazz", GUILD)
                      ) == [(8, 1), (9, 1)]
        assert await store.rank_of("jazz", GUILD, 7) is None
        assert [g.completed for g in await store.history(None)] == [True, False]
