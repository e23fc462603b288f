"""The SQLite backend of ``Store``: one database file over aiosqlite.

This module owns the connection (opening, WAL, migrations, transactions) and
the live tables; the queries of finished games, ratings and chips are in
``sqlite_scores.py``, run here inside this module's transactions.

Concurrency: one connection per ``SQLiteStorage``, with an ``asyncio.Lock`` so
that the statements of one transaction never interleave with another
coroutine's; WAL and a busy timeout let a second process (a restart that
overlaps the old one) wait instead of failing. Timestamps are aware UTC
``datetime`` objects (a naive one is taken as UTC).
"""

from __future__ import annotations

import asyncio
import logging
import sqlite3
from collections.abc import AsyncIterator, Awaitable, Callable, Sequence
from contextlib import asynccontextmanager
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any, Concatenate, Final, ParamSpec, Self, TypeVar

import aiosqlite

import bot.storage.rivals_sqlite as rivals
import bot.storage.sqlite_scores as scores
import bot.storage.sqlite_seasons as seasons
from bot.storage.migrate import MIGRATIONS, migrate_sqlite
from bot.storage.results import check_seats, of_table, record_text, recorded_already
from bot.storage.rows import (
    ACTIVE_STATUSES,
    CLOSED_STATUSES,
    STATUSES,
    ChannelBusy,
    CorruptTable,
    FinishedGame,
    GameSummary,
    StorageBusy,
    StorageError,
    StoreInfo,
    TableExists,
    TableRow,
    VersionConflict,
)
from bot.storage.score_reads import ScoreReads
from bot.storage.season_reads import SeasonReads
from bot.storage.tournaments import SQLiteTournaments
from bot.storage.values import (
    check_owed,
    check_page,
    check_status,
    parse_object,
    table_from_row,
    text_time,
    time_text,
    to_json,
)

DEFAULT_DATABASE_PATH: Final = "data/cardtable.db"

log = logging.getLogger(__name__)

Clock = Callable[[], datetime]
P = ParamSpec("P")
T = TypeVar("T")

_TABLE_COLUMNS = """
    table_id, guild_id, channel_id, game, status, version,
    CAST(data AS BLOB) AS data, created_at, updated_at, CAST(posts AS BLOB) AS posts, owed
"""


# A step's save in one statement (autocommit: a transaction of its own, one trip to
# aiosqlite's thread instead of four): the versioned write, unless the table is reopened
# into a channel that has another open table. No row back: ``_save_refused`` says why.
_SAVE_TABLE = """
    UPDATE live_tables SET status = ?1, data = ?2, version = version + 1, updated_at = ?3
    WHERE table_id = ?4 AND version = ?5
      AND (?1 NOT IN ('lobby', 'playing') OR NOT EXISTS (
          SELECT 1 FROM live_tables AS other
          WHERE other.channel_id = live_tables.channel_id AND other.table_id <> ?4
            AND other.status IN ('lobby', 'playing')))
    RETURNING version
"""

# An id is taken by a table, or by the game of a table whose row was pruned.
_ID_TAKEN = ("SELECT 1 FROM live_tables WHERE table_id = ?"
             " UNION ALL SELECT 1 FROM games WHERE table_id = ?")
# A batch of closed tables to delete; created_at too, so that the (status, created_at)
# index finds them (a table closed before the cut was created before it).
_PRUNE = ("DELETE FROM live_tables WHERE table_id IN (SELECT table_id FROM live_tables"
          " WHERE status IN ('finished', 'stopped') AND created_at < ? AND updated_at < ?"
          " LIMIT ?)")
PRUNE_BATCH: Final = 200  # rows deleted per transaction (a short hold of the write lock)


def utc_now() -> datetime:
    return datetime.now(UTC)


def _table_from_row(row: sqlite3.Row) -> TableRow | CorruptTable:
    return table_from_row(row, text_time)


async def _use_wal(conn: aiosqlite.Connection, timeout_s: float) -> None:
    """``PRAGMA journal_mode = WAL``, waiting out another connection switching at once.

    On a new file the switch writes the header: from a read lock up to a write lock.
    SQLite does not wait (busy_timeout) for a lock upgrade, since two waiting readers
    would deadlock, so two processes opening a new file together could fail with
    "database is locked" at once. The loser retries here; by then the file is WAL.
    """
    loop = asyncio.get_running_loop()
    deadline, pause = loop.time() + timeout_s, 0.002
    while True:
        try:
            await conn.execute("PRAGMA journal_mode = WAL")
            return
        except sqlite3.OperationalError as error:
            busy = error.sqlite_errorcode & 0xFF == sqlite3.SQLITE_BUSY
            if not busy or loop.time() >= deadline:
                raise
        await asyncio.sleep(pause)
        pause = min(pause * 2, 0.05)


class SQLiteStorage(SQLiteTournaments, SeasonReads, ScoreReads):
    """The SQLite backend: ``await SQLiteStorage.open(path)``."""

    _scores = scores  # its query functions (ScoreReads)
    _seasons = seasons  # seasons, rolling windows, reward roles (SeasonReads)
    _rivals = rivals  # head-to-head, streaks, rating history (ScoreReads)

    def __init__(self, conn: aiosqlite.Connection, location: str, clock: Clock,
                 wait_s: float = 5.0):
        self._conn = conn
        self._location = location
        self._clock = clock
        self._lock = asyncio.Lock()
        self._closed = False
        # The longest a transaction waits for its turn on the connection, and again for
        # SQLite's lock (busy_timeout): a bounded wait, then StorageBusy, never a hang.
        self._wait_s = wait_s

    @classmethod
    async def open(cls, path: str | Path = DEFAULT_DATABASE_PATH, *,
                   migrations: Sequence[str] = MIGRATIONS, clock: Clock = utc_now,
                   busy_timeout_ms: int = 5000) -> Self:
        """Open (creating the file and its folder if needed) and bring the schema up to date.

        ``migrations`` is for tests of the upgrade path: a prefix of ``MIGRATIONS``
        opens the database as an older bot would have left it.
        """
        location = str(path)
        if location != ":memory:":
            Path(location).parent.mkdir(parents=True, exist_ok=True)
        # isolation_level=None: no implicit transactions; every one is explicit below.
        conn = await aiosqlite.connect(location, isolation_level=None,
                                       timeout=busy_timeout_ms / 1000)
        try:
            conn.row_factory = sqlite3.Row
            await conn.execute(f"PRAGMA busy_timeout = {int(busy_timeout_ms):d}")
            await conn.execute("PRAGMA foreign_keys = ON")
            await _use_wal(conn, busy_timeout_ms / 1000)
            # NORMAL is safe with WAL (a power cut may lose the last commits, never corrupt).
            await conn.execute("PRAGMA synchronous = NORMAL")
            await migrate_sqlite(conn, migrations)
        except BaseException:
            await conn.close()
            raise
        return cls(conn, location, clock, wait_s=busy_timeout_ms / 1000)

    async def close(self) -> None:
        async with self._lock:
            if not self._closed:
                self._closed = True
                await self._conn.close()

    @asynccontextmanager
    async def _turn(self) -> AsyncIterator[aiosqlite.Connection]:
        """The connection, alone: waited for boundedly (then ``StorageBusy``)."""
        try:
            await asyncio.wait_for(self._lock.acquire(), self._wait_s)
        except TimeoutError:
            log.warning("storage: waited %.1f s for the connection; giving up", self._wait_s)
            raise StorageBusy(f"The database stayed busy for {self._wait_s:.1f} s.") from None
        try:
            if self._closed:
                raise StorageError("The storage is closed.")
            yield self._conn
        finally:
            self._lock.release()

    def _locked(self, error: sqlite3.OperationalError) -> StorageBusy:
        """SQLite's lock stayed taken (another process?) past busy_timeout: re-raises
        ``error`` if it is not that."""
        if error.sqlite_errorcode & 0xFF != sqlite3.SQLITE_BUSY:
            raise error
        log.warning("storage: the database stayed locked for %.1f s (another process?); "
                    "giving up", self._wait_s)
        return StorageBusy(f"The database stayed locked for {self._wait_s:.1f} s.")

    @asynccontextmanager
    async def _transaction(self, write: bool = True) -> AsyncIterator[aiosqlite.Connection]:
        """One transaction, alone on the connection. IMMEDIATE takes the write lock up front,
        so a writer never fails half-way on another process's lock."""
        async with self._turn() as conn:
            try:
                await conn.execute("BEGIN IMMEDIATE" if write else "BEGIN")
            except sqlite3.OperationalError as error:
                raise self._locked(error) from error
            try:
                yield conn
                await conn.execute("COMMIT")
            except BaseException:
                if conn.in_transaction:
                    await conn.execute("ROLLBACK")
                raise

    async def _statement(self, sql: str, params: Sequence[Any] = ()) -> list[sqlite3.Row]:
        """One statement alone on the connection, outside any transaction (autocommit: it
        is one, atomic), its rows fetched: one trip to aiosqlite's thread where a
        transaction takes three or more, each waiting for the event loop."""
        async with self._turn() as conn:
            try:
                return list(await conn.execute_fetchall(sql, params))
            except sqlite3.OperationalError as error:
                raise self._locked(error) from error

    async def _read(self, query: Callable[Concatenate[aiosqlite.Connection, P], Awaitable[T]],
                    *args: P.args, **kwargs: P.kwargs) -> T:
        """Run one query function of ``sqlite_scores`` in a read transaction."""
        async with self._transaction(write=False) as conn:
            return await query(conn, *args, **kwargs)

    async def _write(self, query: Callable[Concatenate[aiosqlite.Connection, P], Awaitable[T]],
                     *args: P.args, **kwargs: P.kwargs) -> T:
        """Run one query function (``sqlite_seasons``) in a write transaction."""
        async with self._transaction() as conn:
            return await query(conn, *args, **kwargs)

    async def _fetch(self, sql: str, params: Sequence[Any] = ()) -> list[sqlite3.Row]:
        return await self._statement(sql, params)  # one SELECT: consistent by itself

    async def info(self) -> StoreInfo:
        async with self._transaction(write=False) as conn:
            values = {}
            for pragma in ("user_version", "journal_mode", "foreign_keys", "busy_timeout"):
                rows = await conn.execute_fetchall(f"PRAGMA {pragma}")
                values[pragma] = next(iter(rows))[0]
        return StoreInfo("sqlite", self._location, int(values["user_version"]),
                         str(values["journal_mode"]), bool(values["foreign_keys"]),
                         int(values["busy_timeout"]))

    # -- live tables ------------------------------------------------------

    async def create_table(self, row: TableRow) -> TableRow:
        check_status(row.status, STATUSES)
        now = time_text(self._clock())
        values: dict[str, Any] = {
            "table_id": row.table_id, "guild_id": row.guild_id, "channel_id": row.channel_id,
            "game": row.game, "status": row.status, "version": row.version,
            "data": to_json(row.data), "created_at": now, "updated_at": now}
        if row.posts is not None:  # only when given: an older schema (the upgrade tests'
            values["posts"] = to_json(row.posts)  # ``migrations``) has no such column
        async with self._transaction() as conn:
            if await conn.execute_fetchall(_ID_TAKEN, (row.table_id, row.table_id)):
                raise TableExists(f"A table with id {row.table_id!r} already exists.")
            if row.status in ACTIVE_STATUSES:
                await self._check_channel_free(conn, row.channel_id)
            await conn.execute(f"INSERT INTO live_tables ({', '.join(values)})"
                               f" VALUES ({', '.join('?' * len(values))})", tuple(values.values()))
        return TableRow(row.table_id, row.guild_id, row.channel_id, row.game, row.status,
                        row.version, row.data, text_time(now), text_time(now), row.posts)

    @staticmethod
    async def _check_channel_free(conn: aiosqlite.Connection, channel_id: int | None,
                                  except_table: str | None = None) -> None:
        rows = await conn.execute_fetchall(
            "SELECT table_id FROM live_tables WHERE channel_id = ?"
            " AND status IN ('lobby', 'playing') AND table_id IS NOT ?",
            (channel_id, except_table))
        if rows:
            raise ChannelBusy(channel_id or 0, next(iter(rows))["table_id"])

    @staticmethod
    async def _channel_of(conn: aiosqlite.Connection, table_id: str) -> int | None:
        rows = await conn.execute_fetchall(
            "SELECT channel_id FROM live_tables WHERE table_id = ?", (table_id,))
        return next(iter(rows))["channel_id"] if rows else None

    async def save_table(self, table_id: str, status: str, data: dict[str, Any],
                         expected_version: int) -> int:
        check_status(status, STATUSES)
        text = to_json(data)  # refuse unserialisable data before touching the database
        now = time_text(self._clock())
        if await self._statement(_SAVE_TABLE, (status, text, now, table_id, expected_version)):
            return expected_version + 1
        raise await self._save_refused(table_id, status, expected_version)

    async def _save_refused(self, table_id: str, status: str, expected_version: int
                            ) -> StorageError:
        """Why ``_SAVE_TABLE`` wrote nothing: the channel has another open table (a closed
        table reopened: ``ChannelBusy``), or the version differs (``VersionConflict``)."""
        async with self._transaction(write=False) as conn:
            if status in ACTIVE_STATUSES:
                try:
                    await self._check_channel_free(conn, await self._channel_of(conn, table_id),
                                                   except_table=table_id)
                except ChannelBusy as busy:
                    return busy
            rows = await conn.execute_fetchall(
                "SELECT version FROM live_tables WHERE table_id = ?", (table_id,))
        actual = next(iter(rows))["version"] if rows else None
        return VersionConflict(table_id, expected_version, actual)

    async def save_posts(self, table_id: str, posts: dict[str, Any]) -> None:
        if not isinstance(posts, dict):
            raise TypeError(f"Posts are a dict, not {type(posts).__name__}.")
        text = to_json(posts)
        # No version, no updated_at: posts are bookkeeping, not a step of the table.
        await self._statement("UPDATE live_tables SET posts = ? WHERE table_id = ?",
                              (text, table_id))

    async def close_table(self, table_id: str, status: str) -> int | None:
        check_status(status, CLOSED_STATUSES)
        now = time_text(self._clock())
        async with self._transaction() as conn:
            await conn.execute(
                "UPDATE live_tables SET status = ?, version = version + 1, updated_at = ?"
                " WHERE table_id = ?", (status, now, table_id))
            rows = await conn.execute_fetchall(
                "SELECT version FROM live_tables WHERE table_id = ?", (table_id,))
        return next(iter(rows))["version"] if rows else None

    async def finish_table(self, table_id: str, status: str, data: dict[str, Any],
                           expected_version: int, game: FinishedGame | None = None,
                           owed: str | None = None) -> int:
        check_status(status, CLOSED_STATUSES)
        check_owed(owed)
        text = to_json(data)  # everything refused before touching the database
        checked: tuple[FinishedGame, str] | None = None
        if game is not None:
            game = of_table(game, table_id)
            check_seats(game)
            checked = game, record_text(game)
        now = time_text(self._clock())
        recorded: tuple[int, bool] | None = None
        async with self._transaction() as conn:
            cursor = await conn.execute(
                "UPDATE live_tables SET status = ?, data = ?, version = version + 1,"
                " updated_at = ?, owed = ? WHERE table_id = ? AND version = ?",
                (status, text, now, owed, table_id, expected_version))
            if cursor.rowcount == 0:
                rows = await conn.execute_fetchall(
                    "SELECT version FROM live_tables WHERE table_id = ?", (table_id,))
                actual = next(iter(rows))["version"] if rows else None
                raise VersionConflict(table_id, expected_version, actual)
            if checked is not None:
                recorded = await scores.insert_game(conn, checked[0], checked[1], now)
        if recorded is not None and not recorded[1]:
            recorded_already(table_id, recorded[0])
        return expected_version + 1

    async def load_active_tables(self) -> list[TableRow | CorruptTable]:
        rows = await self._fetch(
            f"SELECT {_TABLE_COLUMNS} FROM live_tables WHERE status IN ('lobby', 'playing')"
            " ORDER BY created_at, table_id")
        return [_table_from_row(row) for row in rows]

    async def active_table_keys(self) -> list[tuple[str, int]]:
        rows = await self._fetch(
            "SELECT table_id, guild_id FROM live_tables WHERE status IN ('lobby', 'playing')"
            " ORDER BY created_at, table_id")
        return [(row["table_id"], row["guild_id"]) for row in rows]

    async def owed_table_keys(self) -> list[tuple[str, int]]:
        rows = await self._fetch(
            "SELECT table_id, guild_id FROM live_tables WHERE owed IS NOT NULL"
            " ORDER BY created_at, table_id")
        return [(row["table_id"], row["guild_id"]) for row in rows]

    async def settle_owed(self, table_id: str) -> None:
        await self._statement("UPDATE live_tables SET owed = NULL WHERE table_id = ?",
                              (table_id,))

    async def active_table_in_channel(self, channel_id: int) -> TableRow | CorruptTable | None:
        rows = await self._fetch(
            f"SELECT {_TABLE_COLUMNS} FROM live_tables"
            " WHERE channel_id = ? AND status IN ('lobby', 'playing')", (channel_id,))
        return _table_from_row(rows[0]) if rows else None

    async def load_table(self, table_id: str) -> TableRow | CorruptTable | None:
        rows = await self._fetch(f"SELECT {_TABLE_COLUMNS} FROM live_tables WHERE table_id = ?",
                                 (table_id,))
        return _table_from_row(rows[0]) if rows else None

    async def prune_closed_tables(self, older_than: timedelta) -> int:
        cut = time_text(self._clock() - older_than)
        pruned = 0
        while True:  # a batch a transaction: the write lock is never held for long
            async with self._transaction() as conn:
                cursor = await conn.execute(_PRUNE, (cut, cut, PRUNE_BATCH))
                deleted = cursor.rowcount
            pruned += deleted
            if deleted < PRUNE_BATCH:
                return pruned

    # -- meta and users ---------------------------------------------------

    async def get_meta(self, key: str) -> str | None:
        rows = await self._fetch("SELECT value FROM meta WHERE key = ?", (key,))
        return rows[0]["value"] if rows else None

    async def set_meta(self, key: str, value: str) -> None:
        async with self._transaction() as conn:
            await conn.execute(
                "INSERT INTO meta (key, value) VALUES (?, ?)"
                " ON CONFLICT (key) DO UPDATE SET value = excluded.value", (key, value))

    async def spend_link(self, nonce: str, expires: float, now: float) -> bool:
        async with self._transaction() as conn:
            await conn.execute("DELETE FROM web_links WHERE expires < ?", (now,))
            cursor = await conn.execute(
                "INSERT INTO web_links (nonce, expires) VALUES (?, ?)"
                " ON CONFLICT (nonce) DO NOTHING", (nonce, expires))
            return cursor.rowcount == 1

    async def remember_user(self, user_id: int, name: str) -> None:
        async with self._transaction() as conn:
            await conn.execute(scores.UPSERT_USER, (user_id, name, time_text(self._clock())))

    async def remember_language(self, user_id: int, language: str) -> None:
        async with self._transaction() as conn:
            await conn.execute(
                "INSERT INTO user_languages (user_id, language) VALUES (?, ?)"
                " ON CONFLICT (user_id) DO UPDATE SET language = excluded.language",
                (user_id, language))

    async def user_languages(self) -> dict[int, str]:
        rows = await self._fetch("SELECT user_id, language FROM user_languages")
        return {row["user_id"]: row["language"] for row in rows}

    async def server_settings(self, guild_id: int) -> dict[str, Any] | None:
        rows = await self._fetch("SELECT CAST(data AS BLOB) AS data FROM server_settings"
                                 " WHERE guild_id = ?", (guild_id,))
        return parse_object(rows[0]["data"]) if rows else None

    async def save_server_settings(self, guild_id: int, data: dict[str, Any]) -> None:
        async with self._transaction() as conn:
            await conn.execute(
                "INSERT INTO server_settings (guild_id, data) VALUES (?, ?)"
                " ON CONFLICT (guild_id) DO UPDATE SET data = excluded.data",
                (guild_id, to_json(data)))

    # -- finished games ---------------------------------------------------

    async def record_game(self, finished: FinishedGame) -> int:
        check_seats(finished)
        record = record_text(finished)
        now = time_text(self._clock())
        async with self._transaction() as conn:
            game_id, recorded = await scores.insert_game(conn, finished, record, now)
        if not recorded:
            recorded_already(finished.table_id, game_id)
        return game_id

    async def history(self, guild_id: int | None, channel_id: int | None = None,
                      user_id: int | None = None, game: str | None = None, limit: int = 10,
                      before: int | None = None) -> list[GameSummary]:
        check_page(0, limit)
        return await self._read(scores.history, guild_id, channel_id, user_id, game, limit,
                                before)
