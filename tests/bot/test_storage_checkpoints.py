"""bot.storage.sqlite_checkpoints: the WAL is checkpointed by a connection of its own, so
the one that saves the tables never stops for a checkpoint (its fsync)."""

from __future__ import annotations

import asyncio
from pathlib import Path

from bot.storage import SQLiteStorage, TableRow
from bot.storage.sqlite import WAL_KEPT_BYTES
from bot.storage.sqlite_checkpoints import Checkpointer
from tests.bot.test_storage import raw


async def saved_often(store: SQLiteStorage, saves: int) -> None:
    await store.create_table(TableRow("t1", 1, 2, "jazz", status="playing", data={"step": 0}))
    version = 0
    for step in range(1, saves + 1):
        version = await store.save_table("t1", "playing", {"step": step, "pad": "x" * 3000},
                                         version)


async def test_the_saving_connection_leaves_checkpoints_to_the_checkpointer(
        tmp_path: Path) -> None:
    path = tmp_path / "db.sqlite"
    async with await SQLiteStorage.open(path) as store:
        [row] = await store._fetch("PRAGMA wal_autocheckpoint")
        assert tuple(row) == (0,)  # never itself
        checkpointer = store.checkpointer
        assert checkpointer is not None
        await saved_often(store, 200)
        await checkpointer.checkpoint()
        assert checkpointer.stats.last is not None
        busy, frames, copied = checkpointer.stats.last
        assert busy == 0 and frames > 0 and copied == frames  # everything back in the file
        assert raw(path, "SELECT json_extract(data, '$.step') FROM live_tables") == [(200,)]
    # Closed: the store's checkpoint connection is closed too (no thread left behind).
    assert checkpointer._conn is None and checkpointer._task is None


async def test_the_checkpointer_runs_by_itself_until_closed(tmp_path: Path) -> None:
    path = tmp_path / "db.sqlite"
    async with await SQLiteStorage.open(path) as store:
        await saved_often(store, 20)
        own = Checkpointer(str(path), every_s=0.01)
        await own.start()
        try:
            async with asyncio.timeout(10):
                while own.stats.runs < 3:
                    await asyncio.sleep(0.01)
        finally:
            await own.close()
        assert own.stats.last is not None and own.stats.last[1] == own.stats.last[2]
        runs = own.stats.runs
        await asyncio.sleep(0.05)
        assert own.stats.runs == runs  # stopped


async def test_the_wal_file_starts_over_and_stays_bounded_while_saves_go_on(
        tmp_path: Path) -> None:
    path = tmp_path / "db.sqlite"
    wal = path.parent / f"{path.name}-wal"
    async with await SQLiteStorage.open(path) as store:
        checkpointer = store.checkpointer
        assert checkpointer is not None
        await store.create_table(TableRow("t1", 1, 2, "jazz", status="playing"))
        saving = True

        saves = 0

        async def save_on() -> None:  # saves that go on during the checkpoints
            nonlocal saves
            version = 0
            while saving:
                saves += 1
                version = await store.save_table("t1", "playing",
                                                 {"step": saves, "pad": "x" * 12000}, version)

        saver = asyncio.create_task(save_on())
        biggest = 0
        try:
            for _ in range(40):  # about 40 MB of WAL frames in all
                await asyncio.sleep(0.02)
                await checkpointer.checkpoint()
                biggest = max(biggest, wal.stat().st_size)
        finally:
            saving = False
            await saver
        assert checkpointer.stats.runs >= 40  # (and its own, once a second)
        # It started over again and again (it would hold every save: 12 KB and more each)...
        assert 0 < biggest < saves * 12000 / 4
        # ...and is cut back to its limit when it does.
        await checkpointer.checkpoint()
        await store.save_table("t1", "playing", {"step": 0}, saves)
        assert wal.stat().st_size <= WAL_KEPT_BYTES
