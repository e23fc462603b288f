"""Storage waits are bounded: a database held by another process, or a connection
queued behind a slow transaction, gives ``StorageBusy`` in bounded time and writes
nothing — never a hang. SQLite's lock is the file's; PostgreSQL's are a table's or a
row's held by another session, a pool with no connection free, a statement too long."""

from __future__ import annotations

import asyncio
import sqlite3
from pathlib import Path

import asyncpg
import pytest

from bot.storage import PostgresStorage, Storage, StorageBusy
from tests.bot.test_storage import GUILD, STAKES, finished


async def test_a_write_lock_held_by_another_process_gives_storage_busy(db_path: Path):
    async with await Storage.open(db_path, busy_timeout_ms=300) as store:
        other = sqlite3.connect(db_path, isolation_level=None)
        other.execute("BEGIN IMMEDIATE")  # another process is writing, and keeps on
        try:
            loop = asyncio.get_running_loop()
            started = loop.time()
            with pytest.raises(StorageBusy):
                await store.set_meta("k", "v")
            assert 0.25 <= loop.time() - started < 2.0  # waited its bound, then gave up
        finally:
            other.execute("ROLLBACK")
            other.close()
        assert await store.get_meta("k") is None  # nothing was written
        await store.set_meta("k", "v")  # and the store works again once it is free
        assert await store.get_meta("k") == "v"


async def test_a_transaction_queued_behind_a_stuck_one_gives_up_in_bounded_time(
        db_path: Path):
    async with await Storage.open(db_path, busy_timeout_ms=300) as store:
        release = asyncio.Event()

        async def stuck() -> None:
            async with store._transaction():
                await release.wait()

        holder = asyncio.create_task(stuck())
        await asyncio.sleep(0.01)
        try:
            with pytest.raises(StorageBusy):
                await asyncio.wait_for(store.get_meta("k"), timeout=2.0)
        finally:
            release.set()
            await holder
        assert await store.get_meta("k") is None  # the queue moves again


# ================================================================ PostgreSQL


async def test_a_table_locked_by_another_session_gives_storage_busy_on_postgres(
        postgres_url: str) -> None:
    async with await PostgresStorage.open(postgres_url, busy_timeout_ms=300) as store:
        other = await asyncpg.connect(postgres_url)
        try:
            transaction = other.transaction()
            await transaction.start()
            await other.execute("LOCK TABLE meta IN ACCESS EXCLUSIVE MODE")
            loop = asyncio.get_running_loop()
            started = loop.time()
            with pytest.raises(StorageBusy):
                await store.set_meta("k", "v")
            assert 0.25 <= loop.time() - started < 2.0  # waited its bound (lock_timeout)
            await transaction.rollback()
        finally:
            await other.close()
        assert await store.get_meta("k") is None  # nothing was written
        await store.set_meta("k", "v")  # and the store works again once it is free
        assert await store.get_meta("k") == "v"


async def test_a_finishing_game_blocked_on_a_locked_row_writes_nothing(
        postgres_url: str) -> None:
    """Another process holds a player's chips row: the whole game waits its bound, then
    gives up without a trace (no game, no ratings, no chips), and goes through later."""
    game = finished([(7, 10), (8, -10)], **STAKES, chips=[10, -10])
    async with await PostgresStorage.open(postgres_url, busy_timeout_ms=300) as store:
        await store.record_game(game)
        other = await asyncpg.connect(postgres_url)
        try:
            async with other.transaction():
                await other.execute("SELECT * FROM chips WHERE user_id = 8 FOR UPDATE")
                loop = asyncio.get_running_loop()
                started = loop.time()
                with pytest.raises(StorageBusy):
                    await store.record_game(game)
                assert 0.25 <= loop.time() - started < 2.0
        finally:
            await other.close()
        assert len(await store.history(GUILD)) == 1
        assert (await store.chips(GUILD, 7), await store.chips(GUILD, 8)) == (1010, 990)
        assert [r.games for r in await store.leaderboard("attackjack", GUILD)] == [1, 1]
        await store.record_game(game)
        assert (await store.chips(GUILD, 7), await store.chips(GUILD, 8)) == (1020, 980)


async def test_every_pooled_connection_taken_gives_storage_busy_in_bounded_time(
        postgres_url: str) -> None:
    async with await PostgresStorage.open(postgres_url, busy_timeout_ms=300,
                                          pool_size=1) as store:
        release = asyncio.Event()

        async def stuck() -> None:
            async with store._db.connection():
                await release.wait()

        holder = asyncio.create_task(stuck())
        await asyncio.sleep(0.01)
        try:
            with pytest.raises(StorageBusy):
                await asyncio.wait_for(store.get_meta("k"), timeout=2.0)
        finally:
            release.set()
            await holder
        assert await store.get_meta("k") is None  # the pool moves again


async def test_a_statement_that_runs_too_long_is_cut_off_as_storage_busy(
        postgres_url: str) -> None:
    # statement_timeout is three times the wait: 0.9 s here, never a hang.
    async with await PostgresStorage.open(postgres_url, busy_timeout_ms=300) as store:
        loop = asyncio.get_running_loop()
        started = loop.time()
        with pytest.raises(StorageBusy):
            async with store._db.connection() as conn:
                await conn.execute("SELECT pg_sleep(30)")
        assert 0.8 <= loop.time() - started < 3.0
        assert await store.get_meta("k") is None
