"""Storage waits are bounded: a database held by another process, or a connection
queued behind a slow transaction, gives ``StorageBusy`` in bounded time and writes
nothing — never a hang."""

from __future__ import annotations

import asyncio
import sqlite3
from pathlib import Path

import pytest

from bot.storage import Storage, StorageBusy


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
