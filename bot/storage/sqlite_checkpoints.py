"""SQLite's WAL checkpoints, moved off the connection that saves the tables.

In WAL mode every commit appends to the ``-wal`` file, and by default the commit that
takes it past 1,000 pages also copies it back into the database file and syncs it (an
automatic checkpoint): on this machine 100-300 ms during which that connection's
thread, the only one the bot saves through, does nothing else, so every move saved
meanwhile waits (``python -m benchmarks load --timed``: the save's p99 138 ms at 200
tables, its max 280 ms). So the bot's connection does no checkpoint
(``wal_autocheckpoint = 0``); a second connection, with a thread of its own, runs a
PASSIVE checkpoint every ``EVERY_S``: it copies what no reader still needs and never
waits for, nor blocks, a writer. Then the saving connection checkpoints the few frames
written meanwhile (``then``), which lets its next write start the WAL file over.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import sqlite3
from collections.abc import Awaitable, Callable
from dataclasses import dataclass

import aiosqlite

log = logging.getLogger(__name__)

EVERY_S = 1.0  # at 250 moves/s about a thousand pages of WAL between two checkpoints


@dataclass
class CheckpointStats:
    runs: int = 0
    last: tuple[int, int, int] | None = None  # (busy, WAL frames, of them checkpointed)


class Checkpointer:
    """PASSIVE checkpoints of one database file, from a connection of their own."""

    def __init__(self, location: str, every_s: float = EVERY_S,
                 then: Callable[[], Awaitable[object]] | None = None):
        self.location = location
        self.every_s = every_s
        # After each: the saving connection's own checkpoint of the few frames written
        # meanwhile, so that its next write starts the WAL over (SQLite restarts the log
        # only for a writer that finds every frame copied back; with writes in between
        # the file would grow without end).
        self.then = then
        self.stats = CheckpointStats()
        self._conn: aiosqlite.Connection | None = None
        self._task: asyncio.Task[None] | None = None

    async def start(self) -> None:
        self._conn = await aiosqlite.connect(self.location, isolation_level=None)
        self._task = asyncio.get_running_loop().create_task(self._run(), name="checkpoints")

    async def checkpoint(self) -> None:
        """One PASSIVE checkpoint now."""
        if self._conn is None:
            return
        try:
            rows = list(await self._conn.execute_fetchall("PRAGMA wal_checkpoint(PASSIVE)"))
        except sqlite3.OperationalError as error:  # another checkpoint runs: next time
            log.debug("checkpoint skipped: %s", error)
            return
        busy, frames, copied = (int(v) for v in rows[0])
        self.stats.runs += 1
        self.stats.last = (busy, frames, copied)
        if self.then is not None:
            await self.then()

    async def _run(self) -> None:
        while True:
            await asyncio.sleep(self.every_s)
            try:
                await self.checkpoint()
            except Exception:  # the database file went away, a disk error: log, go on
                log.exception("cannot checkpoint %s", self.location)

    async def close(self) -> None:
        if self._task is not None:
            self._task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._task
            self._task = None
        if self._conn is not None:
            with contextlib.suppress(Exception):
                await self.checkpoint()  # what the last moves wrote, back in the file
            await self._conn.close()
            self._conn = None
