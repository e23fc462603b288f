"""bot.storage: live tables, finished games, ratings, leaderboards and chips, on every
backend: a test that takes ``store`` or ``database`` runs on SQLite and on PostgreSQL
(``tests/bot/conftest.py``); the few about SQLite's file take ``db_path``.

Every test opens its own database (a file under ``tmp_path``, or a fresh PostgreSQL
database). A few tests damage or pre-fill it from another connection
(``Database.raw``): that is what an outside problem (a bad disk, an older bot) looks
like, and the store must cope with it.
"""

from __future__ import annotations

import asyncio
import json
import random
import sqlite3
from collections.abc import Sequence
from datetime import UTC, datetime, timedelta, timezone
from pathlib import Path
from typing import Any

import pytest

from bot.storage import (
    GLOBAL_SCOPE,
    MIGRATIONS,
    STARTING_CHIPS,
    ChannelBusy,
    ChipBalance,
    ChipsNotConserved,
    CorruptTable,
    FinishedGame,
    InvalidResult,
    MigrationFailed,
    SchemaTooNew,
    SeatResult,
    SQLiteStorage,
    Storage,
    Store,
    TableExists,
    TableRow,
    VersionConflict,
    ratings,
    results,
    split_statements,
)
from tests.bot.conftest import Database

GUILD, OTHER_GUILD = 1111, 2222
CHANNEL, OTHER_CHANNEL = 51, 52
T0 = datetime(2025, 3, 1, 12, 0, tzinfo=UTC)


def raw(path: Path, sql: str, params: Sequence[Any] = ()) -> list[tuple]:
    """Touch the file behind the store's back (an outside problem, an older bot)."""
    conn = sqlite3.connect(path, timeout=5, isolation_level=None)
    try:
        return conn.execute(sql, params).fetchall()
    finally:
        conn.close()


# ---------------------------------------------------------------- builders


def record_of(game: str, players: int) -> dict[str, Any]:
    return {
        "format": "cardtable-record/1",
        "game": game,
        "players": players,
        "options": {},
        "first_dealer": 0,
        "deals": [{"hands": [["AS", "KD"]] * players, "stock": [], "first": None,
                   "actions": [[0, "AS"], [1, "pass"]]}],
    }


def seats_of(points: Sequence[tuple[int | None, int]], chips: Sequence[int] | None = None,
             names: dict[int, str] | None = None) -> list[SeatResult]:
    """Seats from (user id or None for AI, points); places as ``Game.ranking()`` gives."""
    totals = [p for _, p in points]
    seats = []
    for seat, (user_id, mine) in enumerate(points):
        place = sum(1 for other in totals if other > mine)
        name = (names or {}).get(user_id, f"user{user_id}") if user_id else f"AI {seat}"
        seats.append(SeatResult(seat, user_id, name, mine, place, place == 0,
                                chips[seat] if chips else 0))
    return seats


def finished(points: Sequence[tuple[int | None, int]], *, game: str = "jazz",
             guild: int = GUILD, channel: int = CHANNEL, completed: bool = True,
             chips: Sequence[int] | None = None, names: dict[int, str] | None = None,
             ended: datetime = T0, stakes: bool = False) -> FinishedGame:
    seats = seats_of(points, chips, names)
    return FinishedGame(guild, channel, game, ended - timedelta(minutes=20), ended, completed,
                        record_of(game, len(seats)), seats, stakes=stakes)


# AttackJack as the bot records it: its registry entry declares chips, so stakes=True.
STAKES: dict[str, Any] = {"game": "attackjack", "stakes": True}


async def play(store: Store, winner: int, loser: int, **kw: Any) -> int:
    return await store.record_game(finished([(winner, 10), (loser, 3)], **kw))


# ================================================================ opening and migrations


async def test_open_creates_the_folder_and_sets_up_the_connection(db_path: Path) -> None:
    assert not db_path.parent.exists()
    async with await Storage.open(db_path) as store:
        info = await store.info()
    assert db_path.is_file()
    assert info.schema_version == len(MIGRATIONS) == 12
    assert info.journal_mode == "wal"
    assert info.foreign_keys is True
    assert info.busy_timeout_ms == 5000
    # WAL is a property of the file: another connection sees it too.
    assert raw(db_path, "PRAGMA journal_mode") == [("wal",)]
    assert raw(db_path, "PRAGMA user_version") == [(12,)]


async def test_storage_is_the_sqlite_backend_of_the_store_interface() -> None:
    assert Storage is SQLiteStorage and issubclass(SQLiteStorage, Store)
    # A backend that forgets part of the interface cannot even be built.
    incomplete = type("Incomplete", (Store,), {"close": SQLiteStorage.close})
    with pytest.raises(TypeError):
        incomplete()


async def test_reopening_keeps_data_and_applies_nothing_twice(database: Database) -> None:
    async with await database.open() as store:
        await store.set_meta("tree_hash", "abc")
    async with await database.open() as store:
        assert await store.get_meta("tree_hash") == "abc"
        assert (await store.info()).schema_version == len(database.migrations) == 12


async def test_a_v1_database_upgrades_in_place_keeping_its_data(database: Database) -> None:
    # The database as the first version of the bot left it.
    async with await database.open(migrations=database.migrations[:1]) as old:
        assert (await old.info()).schema_version == 1
        await old.create_table(TableRow("t-old", GUILD, CHANNEL, "jazz", data={"seats": [7, 8]}))
        assert await old.save_table("t-old", "playing", {"seats": [7, 8], "turn": 1}, 0) == 1
        await old.set_meta("tree_hash", "v1-hash")
        await old.remember_user(7, "Ann")
        await old.remember_user(8, "Bob")
    # Its first game (id 1 on either backend), written as that bot did.
    await database.raw(
        "INSERT INTO games (guild_id, channel_id, game, started_at, ended_at, completed,"
        " rated, record) VALUES (?, ?, 'jazz', ?, ?, TRUE, TRUE, ?)",
        (GUILD, CHANNEL, T0, T0, json.dumps(record_of("jazz", 2))))
    for seat, user, points, won in ((0, 7, 12, True), (1, 8, 4, False)):
        await database.raw(
            "INSERT INTO results (game_id, seat, user_id, name, points, place, won)"
            " VALUES (1, ?, ?, ?, ?, ?, ?)", (seat, user, f"name{user}", points, 1 - won, won))
    v1_rating = ratings.rate([ratings.default_rating()] * 2, [0, 1])
    for user, rating, wins, points in ((7, v1_rating[0], 1, 12), (8, v1_rating[1], 0, 4)):
        await database.raw("INSERT INTO ratings VALUES (?, 'jazz', ?, ?, ?, ?, 1, ?, ?)",
                           (GUILD, user, rating.mu, rating.sigma, rating.ordinal, wins, points))

    async with await database.open() as store:
        assert (await store.info()).schema_version == len(database.migrations)
        [table] = await store.load_active_tables()
        assert isinstance(table, TableRow)
        assert (table.status, table.version, table.data) == ("playing", 1, {"seats": [7, 8],
                                                                               "turn": 1})
        assert await store.save_table("t-old", "playing", {"turn": 2}, 1) == 2
        assert await store.get_meta("tree_hash") == "v1-hash"
        [old_game] = await store.history(GUILD)
        assert [(p.name, p.points, p.chips) for p in old_game.players] == [("Ann", 12, 0),
                                                                          ("Bob", 4, 0)]
        assert await store.game_record(1) == record_of("jazz", 2)
        ann = await store.rank_of("jazz", GUILD, 7)
        assert ann is not None and (ann.rank, ann.games, ann.mu) == (1, 1, v1_rating[0].mu)
        # What the second migration added works on the upgraded file.
        await store.record_game(finished([(7, 1), (8, 0)], **STAKES, chips=[5, -5]))
        assert await store.chips(GUILD, 7) == STARTING_CHIPS + 5
        await play(store, 8, 7)
        ann = await store.rank_of("jazz", GUILD, 7)
        assert ann is not None and ann.games == 2 and ann.mu < v1_rating[0].mu


async def test_a_failing_migration_is_rolled_back_whole(database: Database) -> None:
    migrations = database.migrations
    broken = "CREATE TABLE extra (x INTEGER); INSERT INTO no_such_table VALUES (1);"
    with pytest.raises(MigrationFailed) as caught:
        await database.open(migrations=(*migrations, broken))
    assert caught.value.number == len(migrations) + 1
    async with await database.open() as store:  # the earlier migrations were kept
        assert (await store.info()).schema_version == len(migrations)
        await store.set_meta("still", "usable")
    # The migration's first statement was undone with the rest: "extra" can be created.
    extra = (*migrations, "CREATE TABLE extra (x INTEGER);")
    async with await database.open(migrations=extra) as store:
        assert (await store.info()).schema_version == len(migrations) + 1
        assert await store.get_meta("still") == "usable"
    assert await database.raw("SELECT COUNT(*) FROM extra") == [(0,)]


async def test_a_database_from_a_newer_bot_is_refused(database: Database) -> None:
    newer = (*database.migrations, "CREATE TABLE later (x INTEGER);")
    async with await database.open(migrations=newer):
        pass
    with pytest.raises(SchemaTooNew):
        await database.open()
    with pytest.raises(SchemaTooNew):
        await database.open(migrations=database.migrations[:2])  # an older bot alike


async def test_two_processes_opening_a_new_database_at_once_migrate_it_once(
        database: Database) -> None:
    opened = await asyncio.gather(*(database.open() for _ in range(4)))
    first, second = opened[:2]
    try:
        assert {(await s.info()).schema_version for s in opened} == {len(database.migrations)}
        await first.set_meta("k", "from first")
        assert await second.get_meta("k") == "from first"
    finally:
        for store in opened:
            await store.close()


def test_split_statements_keeps_triggers_and_comments_whole() -> None:
    script = """
    -- a comment; with a semicolon
    CREATE TABLE a (x TEXT DEFAULT 'semi;colon');
    CREATE TRIGGER t AFTER INSERT ON a BEGIN
        UPDATE a SET x = 'y';
        DELETE FROM a WHERE x = 'z';
    END;
    """
    statements = split_statements(script)
    assert len(statements) == 2
    assert statements[0].endswith("DEFAULT 'semi;colon');")
    assert statements[1].startswith("CREATE TRIGGER") and statements[1].endswith("END;")
    with pytest.raises(ValueError):
        split_statements("CREATE TRIGGER t AFTER INSERT ON a BEGIN UPDATE a SET x = 1;")


def test_every_shipped_migration_splits_into_statements() -> None:
    for script in MIGRATIONS:
        statements = split_statements(script)
        assert statements and all(sqlite3.complete_statement(s) for s in statements)


# ================================================================ live tables


async def test_a_table_round_trips_with_its_snapshot_and_timestamps(store: Store) -> None:
    data = {"seats": [{"user": 7, "name": "Zoë 🂡"}], "rng": [3, [1, 2, 3], None], "n": 1.5}
    created = await store.create_table(TableRow("t1", GUILD, CHANNEL, "jazz", data=data))
    assert created.created_at == created.updated_at and created.created_at is not None
    assert await store.save_table("t1", "playing", {**data, "turn": 2}, 0) == 1
    [row] = await store.load_active_tables()
    assert isinstance(row, TableRow)
    assert (row.table_id, row.guild_id, row.channel_id, row.game) == ("t1", GUILD, CHANNEL,
                                                                       "jazz")
    assert (row.status, row.version, row.data) == ("playing", 1, {**data, "turn": 2})
    assert row.created_at == created.created_at
    assert row.updated_at is not None and row.updated_at > created.created_at
    assert await store.active_table_in_channel(CHANNEL) == row
    assert await store.active_table_in_channel(OTHER_CHANNEL) is None


async def test_save_with_a_stale_version_is_refused_and_writes_nothing(
        store: Store) -> None:
    await store.create_table(TableRow("t1", GUILD, CHANNEL, "jazz", data={"move": 0}))
    assert await store.save_table("t1", "playing", {"move": 1}, 0) == 1
    assert await store.save_table("t1", "playing", {"move": 2}, 1) == 2
    with pytest.raises(VersionConflict) as caught:
        await store.save_table("t1", "playing", {"move": "stale"}, 1)
    assert (caught.value.table_id, caught.value.expected, caught.value.actual) == ("t1", 1, 2)
    row = await store.active_table_in_channel(CHANNEL)
    assert isinstance(row, TableRow) and (row.version, row.data) == (2, {"move": 2})


async def test_saving_an_unknown_table_is_a_conflict_with_no_version(
        store: Store) -> None:
    with pytest.raises(VersionConflict) as caught:
        await store.save_table("ghost", "playing", {}, 0)
    assert caught.value.actual is None


@pytest.mark.parametrize("bad", [{"cards": {1, 2}}, {"x": float("nan")}, {"x": object()}])
async def test_a_snapshot_that_is_not_json_is_refused_before_writing(
        store: Store, bad: dict[str, Any]) -> None:
    await store.create_table(TableRow("t1", GUILD, CHANNEL, "jazz", data={"ok": True}))
    with pytest.raises((TypeError, ValueError)):
        await store.save_table("t1", "playing", bad, 0)
    row = await store.active_table_in_channel(CHANNEL)
    assert isinstance(row, TableRow) and (row.version, row.data) == (0, {"ok": True})


async def test_statuses_are_checked(store: Store) -> None:
    with pytest.raises(ValueError):
        await store.create_table(TableRow("t1", GUILD, CHANNEL, "jazz", status="paused"))
    await store.create_table(TableRow("t1", GUILD, CHANNEL, "jazz"))
    with pytest.raises(ValueError):
        await store.save_table("t1", "over", {}, 0)
    with pytest.raises(ValueError):
        await store.close_table("t1", "playing")  # closing means finished or stopped


async def test_one_active_table_per_channel(store: Store) -> None:
    await store.create_table(TableRow("t1", GUILD, CHANNEL, "jazz"))
    with pytest.raises(ChannelBusy) as caught:
        await store.create_table(TableRow("t2", GUILD, CHANNEL, "jacko"))
    assert caught.value.table_id == "t1"
    with pytest.raises(TableExists):
        await store.create_table(TableRow("t1", GUILD, OTHER_CHANNEL, "jazz"))
    await store.create_table(TableRow("t3", GUILD, OTHER_CHANNEL, "jacko"))  # another channel
    assert await store.close_table("t1", "finished") == 1
    await store.create_table(TableRow("t2", GUILD, CHANNEL, "jacko"))
    row = await store.active_table_in_channel(CHANNEL)
    assert isinstance(row, TableRow) and row.table_id == "t2"
    # A finished table cannot come back to life over the new one.
    with pytest.raises(ChannelBusy):
        await store.save_table("t1", "playing", {}, 1)


async def test_closing_a_table_retires_it_and_outdates_every_save(store: Store) -> None:
    await store.create_table(TableRow("t1", GUILD, CHANNEL, "jazz"))
    await store.create_table(TableRow("t2", GUILD, OTHER_CHANNEL, "jazz"))
    assert await store.save_table("t1", "playing", {"a": 1}, 0) == 1
    assert await store.close_table("t1", "stopped") == 2
    with pytest.raises(VersionConflict):
        await store.save_table("t1", "playing", {"a": 2}, 1)
    assert [r.table_id for r in await store.load_active_tables()] == ["t2"]
    assert await store.active_table_keys() == [("t2", GUILD)]
    assert await store.active_table_in_channel(CHANNEL) is None
    assert await store.close_table("ghost", "finished") is None


async def test_concurrent_saves_detect_each_conflict_exactly_once(store: Store) -> None:
    tables = 30
    for t in range(tables):
        await store.create_table(TableRow(f"t{t}", GUILD, 1000 + t, "jazz", data={"by": None}))
    for round_ in range(2):
        racers = {f"t{t}": 2 + t % 4 for t in range(tables)}  # 2 to 5 clicks per table
        jobs = [(table_id, who) for table_id, n in racers.items() for who in range(n)]
        random.Random(round_).shuffle(jobs)
        outcomes = await asyncio.gather(
            *(store.save_table(t, "playing", {"by": who}, round_) for t, who in jobs),
            return_exceptions=True)
        for table_id, n in racers.items():
            mine = [(who, out) for (t, who), out in zip(jobs, outcomes, strict=True)
                    if t == table_id]
            wins = [who for who, out in mine if out == round_ + 1]
            conflicts = [out for _, out in mine if isinstance(out, VersionConflict)]
            assert len(wins) == 1 and len(conflicts) == n - 1, (table_id, mine)
            assert all(c.actual == round_ + 1 for c in conflicts)
            row = await store.active_table_in_channel(1000 + int(table_id[1:]))
            assert isinstance(row, TableRow) and row.data == {"by": wins[0]}


async def test_two_connections_racing_on_one_database_conflict_once_per_race(
        database: Database) -> None:
    """What a restart that overlaps the old process looks like (or, on PostgreSQL, two
    processes): two writers, one database."""
    async with await database.open() as a, await database.open() as b:
        for t in range(20):
            await a.create_table(TableRow(f"t{t}", GUILD, 1000 + t, "jazz"))
        outcomes = await asyncio.gather(
            *(s.save_table(f"t{t}", "playing", {"by": name}, 0)
              for t in range(20) for s, name in ((a, "a"), (b, "b"))),
            return_exceptions=True)
        for t in range(20):
            pair = outcomes[2 * t: 2 * t + 2]
            assert sorted(map(type, pair), key=str) == sorted([int, VersionConflict], key=str)
        assert {r.version for r in await b.load_active_tables()} == {1}


async def test_a_corrupt_row_is_reported_next_to_the_good_ones(
        store: Store, database: Database) -> None:
    for t in range(5):
        await store.create_table(TableRow(f"t{t}", GUILD + t, 100 + t, "jazz", data={"t": t}))
    await database.raw("UPDATE live_tables SET data = '{\"broken' WHERE table_id = 't1'")
    if database.backend == "sqlite":  # invalid UTF-8 (PostgreSQL's TEXT cannot hold it)
        await database.raw("UPDATE live_tables SET data = CAST(X'7B22FF227D' AS TEXT)"
                           " WHERE table_id = 't2'")
        t2_error = "UnicodeDecodeError"
    else:  # JSON, but not a snapshot
        await database.raw("UPDATE live_tables SET data = 'null' WHERE table_id = 't2'")
        t2_error = "NoneType"
    await database.raw("UPDATE live_tables SET data = '[1, 2]' WHERE table_id = 't3'")
    loaded = {row.table_id: row for row in await store.load_active_tables()}
    assert sorted(loaded) == ["t0", "t1", "t2", "t3", "t4"]
    # Their keys, oldest first, without reading a snapshot (the corrupt ones too).
    assert await store.active_table_keys() == [(f"t{t}", GUILD + t) for t in range(5)]
    for t in (0, 4):
        assert isinstance(loaded[f"t{t}"], TableRow) and loaded[f"t{t}"].data == {"t": t}
    for t, error in ((1, "JSONDecodeError"), (2, t2_error), (3, "list")):
        bad = loaded[f"t{t}"]
        assert isinstance(bad, CorruptTable)
        assert (bad.guild_id, bad.channel_id, bad.version) == (GUILD + t, 100 + t, 0)
        assert error in bad.error
    assert isinstance(await store.active_table_in_channel(101), CorruptTable)
    assert isinstance(await store.load_table("t3"), CorruptTable)
    # A corrupt table can still be closed, which frees its channel.
    await store.close_table("t1", "stopped")
    await store.create_table(TableRow("t9", GUILD, 101, "jazz"))


# ================================================================ meta and names


async def test_meta_keeps_the_last_value(store: Store) -> None:
    assert await store.get_meta("tree_hash") is None
    await store.set_meta("tree_hash", "one")
    await store.set_meta("tree_hash", "two")
    await store.set_meta("other", "x")
    assert (await store.get_meta("tree_hash"), await store.get_meta("other")) == ("two", "x")


async def test_the_latest_name_is_shown_everywhere_but_ai_keep_theirs(
        store: Store) -> None:
    await store.remember_user(7, "Old Ann")
    await store.record_game(finished([(7, 9), (8, 2), (None, 5)], names={7: "Ann", 8: "Bob"}))
    assert [r.name for r in await store.leaderboard("jazz", GUILD)] == ["Ann", "Bob"]
    await store.remember_user(7, "Annie")
    [game] = await store.history(GUILD)
    assert [p.name for p in game.players] == ["Annie", "Bob", "AI 2"]
    assert [r.name for r in await store.leaderboard("jazz", None)] == ["Annie", "Bob"]


# ================================================================ finished games


async def test_a_record_given_as_text_is_stored_byte_identical(store: Store) -> None:
    text = ('{ "format":"cardtable-record/1",\n  "game": "jacko", "players": 2,'
            ' "options": {"target": 101}, "first_dealer": 1, "note": "Zoë ♥",\n'
            ' "deals": [{"hands": [["10h", "AS"], ["2c", "KD"]], "actions": [[1, "KD"]]}]}\n')
    game = finished([(7, 3), (8, 1)], game="jacko")
    game.record = text
    game_id = await store.record_game(game)
    assert await store.game_record_json(game_id) == text
    assert await store.game_record(game_id) == json.loads(text)


async def test_a_record_given_as_a_dict_reads_back_equal_in_key_order(
        store: Store) -> None:
    game = finished([(7, 3), (8, 1), (None, 0)])
    record = {**record_of("jazz", 3), "options": {"sevens_bonus": 80, "z": [1, "é"]}}
    game.record = record
    game_id = await store.record_game(game)
    back = await store.game_record(game_id)
    assert back == record and list(back) == list(record)
    assert list(back["options"]) == ["sevens_bonus", "z"]
    text = await store.game_record_json(game_id)
    assert text is not None and json.loads(text) == record
    assert await store.game_record(game_id + 1) is None


@pytest.mark.parametrize(("change", "why"), [
    ({"format": "cardtable-record/2"}, "format"),
    ({"game": "jacko"}, "jacko"),
    ({"players": 3}, "player count"),
])
async def test_a_record_that_does_not_match_the_game_is_refused(
        store: Store, change: dict[str, Any], why: str) -> None:
    game = finished([(7, 3), (8, 1)])
    game.record = {**record_of("jazz", 2), **change}
    with pytest.raises(InvalidResult, match=why):
        await store.record_game(game)
    game.record = "{not json"
    with pytest.raises(InvalidResult):
        await store.record_game(game)
    assert await store.history(GUILD) == []


@pytest.mark.parametrize("seats", [
    [SeatResult(0, 7, "a", 1, 0, True), SeatResult(2, 8, "b", 0, 1, False)],  # seat gap
    [SeatResult(0, 7, "a", 1, 0, True), SeatResult(1, 7, "a", 0, 1, False)],  # one user twice
    [SeatResult(0, 7, "a", 1, 0, True), SeatResult(1, 8, "b", 0, -1, False)],  # bad place
    [SeatResult(0, 7, "a", 1, 0, True, 5), SeatResult(1, 8, "b", 0, 1, False, -5)],  # jazz chips
])
async def test_seats_that_do_not_add_up_are_refused(
        store: Store, seats: list[SeatResult]) -> None:
    game = finished([(7, 1), (8, 0)])
    game.seats = seats
    with pytest.raises(InvalidResult):
        await store.record_game(game)
    assert await store.history(GUILD) == [] and await store.leaderboard_size("jazz", GUILD) == 0


async def test_chips_that_do_not_sum_to_zero_are_refused_and_move_nothing(
        store: Store) -> None:
    with pytest.raises(ChipsNotConserved):
        await store.record_game(finished([(7, 10), (8, -5)], **STAKES, chips=[10, -5]))
    assert await store.chips(GUILD, 7) == STARTING_CHIPS
    assert await store.chips_leaderboard(GUILD) == []
    assert await store.history(GUILD) == []


async def test_a_stopped_game_is_kept_but_counts_for_nothing(store: Store) -> None:
    jazz = await store.record_game(finished([(7, 9), (8, 2), (9, 5)], completed=False))
    aj = await store.record_game(finished([(7, 10), (8, -10)], **STAKES,
                                          chips=[10, -10], completed=False))
    games = await store.history(GUILD)
    assert [(g.game_id, g.completed, g.rated) for g in games] == [(aj, False, False),
                                                                  (jazz, False, False)]
    assert await store.game_record(jazz) == record_of("jazz", 3)
    for game in ("jazz", "attackjack"):
        for scope in (GUILD, None):
            assert await store.leaderboard_size(game, scope) == 0
    assert await store.stats(7, None) == []
    assert await store.chips(GUILD, 7) == await store.chips(GUILD, 8) == STARTING_CHIPS
    assert await store.chips_leaderboard(GUILD) == []


async def test_a_game_with_one_human_counts_for_them_but_is_not_rated(
        store: Store) -> None:
    # Decision (issue 8): games with AI seats count for the humans' stats, not ratings.
    await store.record_game(finished([(7, 9), (None, 2), (None, 5)]))
    [game] = await store.history(GUILD)
    assert game.completed and not game.rated
    for scope in (GUILD, None):
        [row] = await store.leaderboard("jazz", scope)
        assert (row.user_id, row.games, row.wins, row.points) == (7, 1, 1, 9)
        start = ratings.default_rating()
        assert (row.mu, row.sigma) == (pytest.approx(start.mu), pytest.approx(start.sigma))
        assert row.provisional


async def test_ai_seats_leave_ratings_alone_but_count_games(store: Store) -> None:
    # A rated game first, then one with an AI seat: only the counts move.
    await store.record_game(finished([(7, 20), (8, 1)]))
    before = {r.user_id: (r.mu, r.sigma) for r in await store.leaderboard("jazz", GUILD)}
    await store.record_game(finished([(8, 1), (None, 30), (7, 20)]))
    board = await store.leaderboard("jazz", GUILD)
    assert {r.user_id: (r.mu, r.sigma) for r in board} == before
    assert {(r.user_id, r.games, r.wins, r.points) for r in board} == {(7, 2, 1, 40),
                                                                       (8, 2, 0, 2)}
    [ai_game, rated_game] = await store.history(GUILD)
    assert rated_game.rated and not ai_game.rated
    [stats] = await store.stats(7, GUILD)
    assert stats.games == 2  # the AI game shows in the player's own stats too


async def test_provisional_counts_rated_games_only(store: Store) -> None:
    for _ in range(ratings.PROVISIONAL_GAMES):
        await store.record_game(finished([(7, 20), (None, 1)]))
    [row] = await store.leaderboard("jazz", GUILD)
    assert row.games == ratings.PROVISIONAL_GAMES and row.provisional


async def test_record_game_is_one_transaction(store: Store,
                                              monkeypatch: pytest.MonkeyPatch) -> None:
    real_rate, calls = ratings.rate, []

    def failing_second_scope(before, places):  # the server scope works, the global one fails
        calls.append(1)
        if len(calls) == 2:
            raise RuntimeError("disk full")
        return real_rate(before, places)

    monkeypatch.setattr(results, "rate", failing_second_scope)  # where it is called
    with pytest.raises(RuntimeError):
        await play(store, 7, 8, names={7: "Ann"})
    assert len(calls) == 2
    assert await store.history(None) == []
    assert await store.leaderboard_size("jazz", GUILD) == 0
    monkeypatch.setattr(results, "rate", real_rate)
    await play(store, 7, 8)  # the store is usable afterwards, and starts from scratch
    assert [r.games for r in await store.leaderboard("jazz", GUILD)] == [1, 1]


async def test_history_filters_pages_and_names_the_winners(store: Store) -> None:
    ids = []
    for n in range(6):
        channel = CHANNEL if n % 2 == 0 else OTHER_CHANNEL
        game = "jazz" if n < 4 else "jacko"
        ids.append(await store.record_game(finished(
            [(7, n), (8, 3), (None, 1)] if n != 5 else [(9, 1), (8, 0)],
            game=game, channel=channel, ended=T0 + timedelta(hours=n))))
    await store.record_game(finished([(7, 1), (8, 0)], guild=OTHER_GUILD))
    latest = await store.history(GUILD, limit=3)
    assert [g.game_id for g in latest] == ids[:2:-1]
    assert latest[0].when == T0 + timedelta(hours=5)
    assert [w.user_id for w in latest[0].winners] == [9]
    assert [w.name for w in latest[1].winners] == ["user7"]  # n = 4: 7 has 4 points against 3
    older = await store.history(GUILD, limit=3, before=latest[-1].game_id)
    assert [g.game_id for g in older] == ids[2::-1]
    assert await store.history(GUILD, before=ids[0]) == []
    assert [g.game_id for g in await store.history(GUILD, channel_id=CHANNEL)] == ids[4::-2]
    assert [g.game_id for g in await store.history(GUILD, user_id=9)] == [ids[5]]
    assert [g.game_id for g in await store.history(GUILD, game="jacko")] == ids[:3:-1]
    assert [g.game_id for g in await store.history(GUILD, user_id=7, game="jazz",
                                                   channel_id=OTHER_CHANNEL)] == [ids[3], ids[1]]
    assert len(await store.history(None, limit=50)) == 7
    two = (await store.history(GUILD, limit=6))[-1]
    assert [(p.seat, p.user_id, p.points, p.place) for p in two.players] == [
        (0, 7, 0, 2), (1, 8, 3, 0), (2, None, 1, 1)]


async def test_timestamps_are_utc_and_naive_ones_count_as_utc(store: Store) -> None:
    game = finished([(7, 1), (8, 0)])
    game.started_at = datetime(2025, 1, 2, 3, 4, 5)
    game.ended_at = datetime(2025, 1, 1, 23, 4, 5, tzinfo=timezone(timedelta(hours=-5)))
    await store.record_game(game)
    [summary] = await store.history(GUILD)
    assert summary.started_at == datetime(2025, 1, 2, 3, 4, 5, tzinfo=UTC)
    assert summary.ended_at == datetime(2025, 1, 2, 4, 4, 5, tzinfo=UTC)
    assert summary.ended_at.utcoffset() == timedelta(0)


# ================================================================ ratings and leaderboards


async def test_ratings_are_kept_per_server_and_globally(store: Store) -> None:
    await play(store, 7, 8, guild=GUILD)
    await play(store, 7, 8, guild=OTHER_GUILD)
    await play(store, 8, 7, guild=OTHER_GUILD, game="jacko")
    new = ratings.default_rating()
    once = ratings.rate([new, new], [0, 1])
    twice = ratings.rate(once, [0, 1])
    for guild in (GUILD, OTHER_GUILD):
        board = await store.leaderboard("jazz", guild)
        assert [(r.user_id, r.games, r.wins) for r in board] == [(7, 1, 1), (8, 1, 0)]
        assert board[0].mu == pytest.approx(once[0].mu)
    world = await store.leaderboard("jazz", None)
    assert [(r.user_id, r.games, r.wins, r.points) for r in world] == [(7, 2, 2, 20),
                                                                       (8, 2, 0, 6)]
    assert world[0].mu == pytest.approx(twice[0].mu)
    assert world[1].sigma == pytest.approx(twice[1].sigma)
    assert world[0].ordinal == pytest.approx(twice[0].ordinal)
    # Games are rated apart: jacko is its own leaderboard, in that one server only.
    assert [r.user_id for r in await store.leaderboard("jacko", None)] == [8, 7]
    assert await store.leaderboard_size("jacko", GUILD) == 0


async def test_leaderboard_pages_ranks_and_rank_of(store: Store) -> None:
    rng = random.Random(5)
    for _ in range(40):
        players = rng.sample(range(1, 13), rng.randint(2, 5))
        await store.record_game(finished([(u, rng.randint(0, 30)) for u in players]))
    assert await store.leaderboard_size("jazz", GUILD) == 12
    full = await store.leaderboard("jazz", GUILD, limit=100)
    assert [r.rank for r in full] == list(range(1, 13))
    keys = [(-r.ordinal, -r.games, r.user_id) for r in full]
    assert keys == sorted(keys)
    for r in full:
        assert r.ordinal == pytest.approx(r.mu - 3 * r.sigma)
        assert r.win_rate == pytest.approx(r.wins / r.games)
    pages = [await store.leaderboard("jazz", GUILD, offset=o, limit=5) for o in (0, 5, 10, 15)]
    assert [len(p) for p in pages] == [5, 5, 2, 0]
    assert [r for page in pages for r in page] == full
    for r in full:
        assert await store.rank_of("jazz", GUILD, r.user_id) == r
    assert await store.rank_of("jazz", GUILD, 999) is None
    assert await store.leaderboard("jacko", GUILD) == []
    with pytest.raises(ValueError):
        await store.leaderboard("jazz", GUILD, offset=-1)


async def test_equal_ratings_rank_by_games_then_user_id(store: Store,
                                                        monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(results, "rate", lambda before, places: list(before))  # nobody moves
    await play(store, 30, 20)
    await play(store, 30, 10)
    await play(store, 40, 20)
    board = await store.leaderboard("jazz", GUILD)
    assert len({r.ordinal for r in board}) == 1
    assert [(r.rank, r.user_id, r.games) for r in board] == [(1, 20, 2), (2, 30, 2),
                                                             (3, 10, 1), (4, 40, 1)]


async def test_players_are_provisional_until_five_rated_games(store: Store) -> None:
    for n in range(5):
        await play(store, 7, 8)
        await play(store, 9, 7, completed=False)  # stopped: never counts
        expected_provisional = n + 1 < 5
        for user in (7, 8):
            row = await store.rank_of("jazz", GUILD, user)
            assert row is not None and row.games == n + 1
            assert row.provisional is expected_provisional
    assert await store.rank_of("jazz", GUILD, 9) is None


async def test_stats_per_game_and_scope(store: Store) -> None:
    await play(store, 7, 8, guild=GUILD)
    await play(store, 8, 7, guild=GUILD)
    await play(store, 9, 7, guild=GUILD)
    await play(store, 7, 9, guild=OTHER_GUILD, game="jacko")
    [here] = await store.stats(7, GUILD)
    assert (here.game, here.games, here.wins, here.points) == ("jazz", 3, 1, 16)
    assert here.win_rate == pytest.approx(1 / 3) and here.provisional
    assert here.ranked_players == 3
    row = await store.rank_of("jazz", GUILD, 7)
    assert row is not None and (here.rank, here.ordinal) == (row.rank, row.ordinal)
    everywhere = await store.stats(7, None)
    assert [(s.game, s.games, s.wins) for s in everywhere] == [("jacko", 1, 1), ("jazz", 3, 1)]
    assert [s.rank for s in everywhere] == [1, row.rank]  # nobody else in the global jazz
    assert [s.game for s in await store.stats(7, None, game="jacko")] == ["jacko"]
    assert await store.stats(7, OTHER_GUILD, game="jazz") == []
    assert await store.stats(404, None) == []


# ================================================================ chips


def attackjack_nets(players: int, stake: int, winners: list[int]) -> list[int]:
    """Net chips as AttackJack's rules settle the bank (rule 6): split evenly, the
    remainder to the sharer who acted first (seat order here); nobody wins: all back."""
    if not winners:
        return [0] * players
    share, remainder = divmod(stake * players, len(winners))
    nets = [-stake] * players
    for i, seat in enumerate(sorted(winners)):
        nets[seat] += share + (remainder if i == 0 else 0)
    return nets


def test_the_chip_settlement_helper_follows_the_rules_examples() -> None:
    assert attackjack_nets(3, 10, [0, 1]) == [5, 5, -10]  # example 9
    assert attackjack_nets(3, 5, [0, 1]) == [3, 2, -5]
    assert attackjack_nets(3, 5, []) == [0, 0, 0]  # example 10


async def test_chips_start_at_1000_in_every_server(store: Store) -> None:
    assert await store.chips(GUILD, 7) == STARTING_CHIPS == 1000
    await store.record_game(finished([(7, 20), (8, -20)], **STAKES, chips=[20, -20]))
    assert (await store.chips(GUILD, 7), await store.chips(GUILD, 8)) == (1020, 980)
    assert await store.chips(OTHER_GUILD, 7) == 1000


async def test_chips_are_conserved_over_many_random_games(store: Store) -> None:
    rng = random.Random(2024)
    expected: dict[int, dict[int, int]] = {GUILD: {}, OTHER_GUILD: {}}
    for _ in range(150):
        guild = rng.choice((GUILD, OTHER_GUILD))
        users = rng.sample(range(1, 11), rng.randint(2, 6))
        seated: list[int | None] = [*users]
        if rng.random() < 0.15:
            seated.insert(rng.randrange(len(seated) + 1), None)  # an AI seat: no chips move
        stake = rng.choice((0, 1, 5, 10, 25, 100))
        alive = [s for s in range(len(seated)) if rng.random() < 0.6]
        winners = rng.sample(alive, min(len(alive), rng.choice((1, 1, 1, 2, 3))))
        nets = attackjack_nets(len(seated), stake, winners)
        completed = rng.random() < 0.85
        points = [(u, n) for u, n in zip(seated, nets, strict=True)]
        await store.record_game(finished(points, **STAKES, guild=guild,
                                         chips=nets, completed=completed))
        if completed and None not in seated:
            for user, net in zip(users, nets, strict=True):
                expected[guild][user] = expected[guild].get(user, STARTING_CHIPS) + net
        for g in (GUILD, OTHER_GUILD):
            board = await store.chips_leaderboard(g, limit=100)
            assert sum(r.balance for r in board) == STARTING_CHIPS * len(board)
            assert {r.user_id: r.balance for r in board} == expected[g]
    assert len(expected[GUILD]) >= 5 and len(expected[OTHER_GUILD]) >= 5
    assert any(b != STARTING_CHIPS for b in expected[GUILD].values())


async def test_chips_move_only_when_every_seat_is_human(store: Store) -> None:
    await store.record_game(finished([(7, -10), (8, -10), (None, 20)], **STAKES,
                                     chips=[-10, -10, 20]))
    assert await store.chips(GUILD, 7) == await store.chips(GUILD, 8) == STARTING_CHIPS
    assert await store.chips_leaderboard(GUILD) == []
    [game] = await store.history(GUILD)
    assert not game.rated  # an AI seat: no ratings either (issue 8)
    assert [p.chips for p in game.players] == [-10, -10, 20]


async def test_a_balance_may_go_below_zero_when_tables_overlap(store: Store) -> None:
    # Stakes are checked at each table's start; two tables settling later can overdraw.
    await store.record_game(finished([(7, -990), (8, 990)], **STAKES,
                                     chips=[-990, 990]))
    await store.record_game(finished([(7, -50), (9, 50)], **STAKES, chips=[-50, 50]))
    assert await store.chips(GUILD, 7) == -40
    board = await store.chips_leaderboard(GUILD)
    assert sum(r.balance for r in board) == STARTING_CHIPS * 3


async def test_stakes_above_a_balance_are_reported(store: Store) -> None:
    await store.record_game(finished([(7, -10), (8, 10)], **STAKES, chips=[-10, 10]))
    assert await store.check_stake(GUILD, [7, 8, 9], 990) == []  # exactly enough is enough
    assert await store.check_stake(GUILD, [8, 7, 9, 7], 995) == [ChipBalance(7, 990)]
    assert await store.check_stake(GUILD, [9, 8], 1005) == [ChipBalance(9, 1000)]
    assert await store.check_stake(OTHER_GUILD, [7], 995) == []  # another server's purse
    assert await store.check_stake(GUILD, [], 5000) == []
    with pytest.raises(ValueError):
        await store.check_stake(GUILD, [7], -1)


async def test_chips_leaderboard_pages_by_balance_then_user_id(store: Store) -> None:
    await store.record_game(finished([(3, 1), (4, 0), (5, 0)], **STAKES,
                                     chips=[20, -10, -10]))
    await store.record_game(finished([(6, 1), (2, 0)], **STAKES, chips=[20, -20]))
    page = await store.chips_leaderboard(GUILD, limit=3)
    assert [(r.rank, r.user_id, r.balance) for r in page] == [(1, 3, 1020), (2, 6, 1020),
                                                              (3, 4, 990)]
    rest = await store.chips_leaderboard(GUILD, offset=3, limit=3)
    assert [(r.rank, r.user_id, r.balance, r.name) for r in rest] == [
        (4, 5, 990, "user5"), (5, 2, 980, "user2")]


async def test_global_scope_is_not_a_server(store: Store) -> None:
    # The global scope's key can never collide with a real server's (snowflakes are > 0).
    assert GLOBAL_SCOPE == 0
    await play(store, 7, 8, guild=GUILD)
    assert await store.history(GLOBAL_SCOPE) == []
    assert len(await store.leaderboard("jazz", None)) == 2


async def test_a_game_outside_any_server_is_rated_once(store: Store) -> None:
    # The table code stores a guild-less channel as guild 0, the global scope's own key.
    await play(store, 7, 8, guild=0)
    world = await store.leaderboard("jazz", None)
    assert [(r.user_id, r.games) for r in world] == [(7, 1), (8, 1)]
    once = ratings.rate([ratings.default_rating()] * 2, [0, 1])
    assert world[0].mu == pytest.approx(once[0].mu)


async def test_a_users_language_is_remembered_and_the_latest_wins(database: Database) -> None:
    async with await database.open() as store:
        assert await store.user_languages() == {}
        await store.remember_language(7, "sv")
        await store.remember_language(8, "ru")
        await store.remember_language(7, "da")
    async with await database.open() as store:
        assert await store.user_languages() == {7: "da", 8: "ru"}


async def test_a_web_link_is_spent_once_and_forgotten_after_it_expires(store: Store) -> None:
    assert await store.spend_link("n1", expires=100.0, now=10.0)
    assert not await store.spend_link("n1", expires=100.0, now=20.0)  # a second redeem
    assert await store.spend_link("n2", expires=100.0, now=20.0)  # another link: its own
    # Once expired the row goes (the token itself is refused for its age by then).
    assert await store.spend_link("n3", expires=300.0, now=200.0)
    assert await store.spend_link("n1", expires=400.0, now=200.0)
