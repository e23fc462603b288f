"""bot.storage: a table's posts, the bookkeeping kept outside its versioned snapshot.

Posts (where the table's messages and DMs are) are written on their own, without
a version, so that a move is one versioned save and a re-post never makes a
move's save stale. They are only hints: unreadable ones read as None. Every test runs
on SQLite and on PostgreSQL (``store``, ``database``), but one about SQLite's bytes.
"""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import pytest

from bot.storage import CorruptTable, SQLiteStorage, Store, TableRow
from tests.bot.conftest import Database
from tests.bot.test_storage import CHANNEL, GUILD, OTHER_CHANNEL, raw

POSTS: dict[str, Any] = {"message_id": 901, "dm_channels": {"7": 555},
                         "hand_messages": {"7": 902}, "dm_closed": []}


async def row_in(store: Store, channel: int = CHANNEL) -> TableRow:
    row = await store.active_table_in_channel(channel)
    assert isinstance(row, TableRow)
    return row


async def test_a_new_table_has_no_posts_unless_given(store: Store) -> None:
    plain = await store.create_table(TableRow("t1", GUILD, CHANNEL, "jazz"))
    given = await store.create_table(TableRow("t2", GUILD, OTHER_CHANNEL, "jazz", posts=POSTS))
    assert plain.posts is None and given.posts == POSTS
    assert (await row_in(store)).posts is None
    assert (await row_in(store, OTHER_CHANNEL)).posts == POSTS


async def test_save_posts_keeps_the_version_so_the_next_move_still_saves(
        store: Store) -> None:
    await store.create_table(TableRow("t1", GUILD, CHANNEL, "jazz", data={"move": 0}))
    assert await store.save_table("t1", "playing", {"move": 1}, 0) == 1
    before = await row_in(store)
    await store.save_posts("t1", POSTS)
    after = await row_in(store)
    assert (after.version, after.status, after.data) == (1, "playing", {"move": 1})
    assert after.updated_at == before.updated_at  # bookkeeping, not a step of the table
    assert after.posts == POSTS
    # The move that was computed against version 1 is not stale.
    assert await store.save_table("t1", "playing", {"move": 2}, 1) == 2
    assert (await row_in(store)).posts == POSTS


async def test_save_posts_racing_saves_never_makes_one_stale(store: Store) -> None:
    await store.create_table(TableRow("t1", GUILD, CHANNEL, "jazz"))
    for version in range(10):
        saved, _ = await asyncio.gather(
            store.save_table("t1", "playing", {"move": version + 1}, version),
            store.save_posts("t1", {**POSTS, "message_id": version}))
        assert saved == version + 1
    row = await row_in(store)
    assert (row.version, row.data, row.posts) == (10, {"move": 10}, {**POSTS, "message_id": 9})


async def test_save_table_and_close_table_leave_posts_alone(store: Store,
                                                            database: Database) -> None:
    await store.create_table(TableRow("t1", GUILD, CHANNEL, "jazz", posts={"message_id": 1}))
    await store.save_posts("t1", POSTS)
    assert await store.save_table("t1", "playing", {"turn": 1, "posts": "not these"}, 0) == 1
    assert (await row_in(store)).posts == POSTS
    assert await store.close_table("t1", "finished") == 2
    assert await store.save_table("t1", "finished", {}, 2) == 3
    assert await database.raw("SELECT posts FROM live_tables") == [(
        '{"message_id":901,"dm_channels":{"7":555},"hand_messages":{"7":902},"dm_closed":[]}',)]


async def test_posts_survive_close_and_reopen(database: Database) -> None:
    async with await database.open() as store:
        await store.create_table(TableRow("t1", GUILD, CHANNEL, "jazz", data={"a": 1}))
        await store.save_posts("t1", POSTS)
    async with await database.open() as store:
        [loaded] = await store.load_active_tables()
        assert isinstance(loaded, TableRow) and loaded.posts == POSTS
        assert (loaded.version, loaded.data) == (0, {"a": 1})
        assert (await row_in(store)).posts == POSTS


async def test_posts_of_an_unknown_table_are_a_no_op(store: Store,
                                                    database: Database) -> None:
    await store.save_posts("ghost", POSTS)
    assert await database.raw("SELECT COUNT(*) FROM live_tables") == [(0,)]
    assert await store.load_active_tables() == []


@pytest.mark.parametrize("bad", [{"x": float("nan")}, {"x": {1, 2}}])
async def test_posts_that_are_not_json_are_refused_before_writing(
        store: Store, bad: dict[str, Any]) -> None:
    await store.create_table(TableRow("t1", GUILD, CHANNEL, "jazz", posts=POSTS))
    with pytest.raises((TypeError, ValueError)):
        await store.save_posts("t1", bad)
    with pytest.raises(TypeError):
        await store.save_posts("t1", [1, 2])  # type: ignore[arg-type]  # refused at run time
    assert (await row_in(store)).posts == POSTS


@pytest.mark.parametrize("stored", ["'{\"broken'", "'[1, 2]'", "'null'", "'\"text\"'"])
async def test_unreadable_posts_read_as_none_not_as_a_corrupt_table(
        store: Store, database: Database, stored: str) -> None:
    await store.create_table(TableRow("t1", GUILD, CHANNEL, "jazz", data={"ok": 1}, posts=POSTS))
    await database.raw(f"UPDATE live_tables SET posts = {stored}")
    [loaded] = await store.load_active_tables()
    assert isinstance(loaded, TableRow)
    assert (loaded.data, loaded.posts) == ({"ok": 1}, None)
    assert (await row_in(store)).posts is None
    loaded = await store.load_table("t1")
    assert isinstance(loaded, TableRow) and loaded.posts is None


async def test_posts_that_are_not_utf8_read_as_none_on_sqlite(
        sqlite_store: SQLiteStorage, db_path: Path) -> None:
    # Only SQLite can hold such bytes in a TEXT column; PostgreSQL refuses them on write.
    await sqlite_store.create_table(TableRow("t1", GUILD, CHANNEL, "jazz", data={"ok": 1},
                                             posts=POSTS))
    raw(db_path, "UPDATE live_tables SET posts = CAST(X'7B22FF227D' AS TEXT)")
    [loaded] = await sqlite_store.load_active_tables()
    assert isinstance(loaded, TableRow) and (loaded.data, loaded.posts) == ({"ok": 1}, None)


async def test_a_corrupt_table_still_tells_its_posts(store: Store,
                                                     database: Database) -> None:
    await store.create_table(TableRow("t1", GUILD, CHANNEL, "jazz", posts=POSTS))
    await database.raw("UPDATE live_tables SET data = '{\"broken'")
    [loaded] = await store.load_active_tables()
    assert isinstance(loaded, CorruptTable) and loaded.posts == POSTS


async def test_posts_from_another_connection_do_not_conflict_with_a_save(
        database: Database) -> None:
    """A restart that overlaps the old process (or another process, on PostgreSQL): one
    writes posts, the other moves."""
    async with await database.open() as a, await database.open() as b:
        await a.create_table(TableRow("t1", GUILD, CHANNEL, "jazz"))
        outcomes = await asyncio.gather(*(
            job for n in range(10) for job in (a.save_table("t1", "playing", {"n": n}, n),
                                               b.save_posts("t1", {"message_id": n}))))
        assert outcomes[::2] == list(range(1, 11))
        row = await row_in(b)
        assert (row.version, row.data, row.posts) == (10, {"n": 9}, {"message_id": 9})
