"""The PostgreSQL backend of ``Store``, over asyncpg: one database for several processes.

This module holds the live tables, meta and users, and opens the store; its connections
and their bounded waits are ``postgres_pool.py``, the queries of finished games,
ratings and chips ``postgres_scores.py``, which process owns which table
``postgres_ownership.py``, the notices between processes ``postgres_notices.py``, the
schema ``migrations_pg/`` (``postgres_migrate.py``).
It behaves as ``SQLiteStorage`` does for every method of ``Store``; the rules both
follow are in ``results.py`` and ``values.py``. Timestamps are TIMESTAMPTZ, read back
as aware UTC ``datetime`` objects.
"""

from __future__ import annotations

import asyncio
import dataclasses
import secrets
from collections.abc import Awaitable, Callable, Iterable, Sequence
from datetime import UTC, datetime, timedelta
from typing import Any, Concatenate, ParamSpec, Self, TypeVar

import asyncpg  # type: ignore[import-untyped]  # asyncpg ships no type information

import bot.storage.postgres_scores as scores
import bot.storage.postgres_seasons as seasons
import bot.storage.rivals_postgres as rivals
from bot.storage.postgres_lost import written_anyway
from bot.storage.postgres_migrate import PG_MIGRATIONS, migrate_postgres, schema_version
from bot.storage.postgres_notices import CHANNEL, Notices, change_payload
from bot.storage.postgres_ownership import LEASE_S, Owner
from bot.storage.postgres_pool import GONE, Connections
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
    TableChange,
    TableExists,
    TableRow,
    VersionConflict,
    check_kinds,
)
from bot.storage.score_reads import ScoreReads
from bot.storage.season_reads import SeasonReads
from bot.storage.tournaments import PostgresTournaments
from bot.storage.values import (
    as_utc,
    check_owed,
    check_page,
    check_status,
    parse_object,
    table_from_row,
    to_json,
)

Clock = Callable[[], datetime]
P = ParamSpec("P")
T = TypeVar("T")

_TABLE_COLUMNS = ("table_id, guild_id, channel_id, game, status, version, data, created_at,"
                  " updated_at, posts, owed")
_ACTIVE_IN_CHANNEL = ("SELECT table_id FROM live_tables WHERE channel_id = $1"
                      " AND status IN ('lobby', 'playing')")

# One statement, one round trip: the channel check, then the versioned write and its
# notice ($6: the payload of the new version, expected + 1): a statement is a transaction
# of its own, so the notice goes at its commit, and only if a row was written.
_SAVE_TABLE = f"""
    WITH busy AS (
        SELECT me.channel_id, other.table_id
        FROM live_tables AS me JOIN live_tables AS other
          ON other.channel_id = me.channel_id AND other.table_id <> me.table_id
        WHERE me.table_id = $1 AND $2::text IN ('lobby', 'playing')
          AND other.status IN ('lobby', 'playing')
        LIMIT 1),
    saved AS (
        UPDATE live_tables SET status = $2, data = $3, version = version + 1, updated_at = $4
        WHERE table_id = $1 AND version = $5 AND NOT EXISTS (SELECT 1 FROM busy)
        RETURNING version, pg_notify('{CHANNEL}', $6))
    SELECT (SELECT channel_id FROM busy) AS channel_id, (SELECT table_id FROM busy) AS busy,
           (SELECT version FROM saved) AS saved
"""

# A table's end: its final snapshot at the expected version and the "closed" notice ($6)
# in one statement; the game's record follows in the same transaction.
_FINISH_TABLE = f"""
    UPDATE live_tables SET status = $2, data = $3, version = version + 1, updated_at = $4,
                           owed = $7
    WHERE table_id = $1 AND version = $5
    RETURNING version, pg_notify('{CHANNEL}', $6)
"""


# An id is taken by a table, or by the game of a table whose row was pruned.
_ID_TAKEN = ("SELECT 1 FROM live_tables WHERE table_id = $1"
             " UNION ALL SELECT 1 FROM games WHERE table_id = $1 LIMIT 1")
# A batch of closed tables to delete (created_at too: the (status, created_at) index).
_PRUNE = """
    WITH gone AS (
        DELETE FROM live_tables WHERE table_id IN (
            SELECT table_id FROM live_tables
            WHERE status IN ('finished', 'stopped') AND created_at < $1 AND updated_at < $1
            LIMIT $2)
        RETURNING 1)
    SELECT COUNT(*) FROM gone
"""
PRUNE_BATCH = 200  # rows deleted per statement (each its own transaction)


def utc_now() -> datetime:
    return datetime.now(UTC)


def _on_table(row: Any) -> TableRow | CorruptTable:
    return table_from_row(row, as_utc)


class PostgresStorage(PostgresTournaments, SeasonReads, ScoreReads):
    """The PostgreSQL backend: ``await PostgresStorage.open(url)``."""

    _scores = scores  # its query functions (ScoreReads)
    _seasons = seasons  # seasons, rolling windows, reward roles (SeasonReads)
    _rivals = rivals  # head-to-head, streaks, rating history (ScoreReads)

    shared = True

    def __init__(self, db: Connections, clock: Clock, lease_s: float = LEASE_S) -> None:
        self._db = db
        self._clock = clock
        self.origin = secrets.token_hex(8)
        """This store's token: the ``origin`` of the changes it announces."""
        self._owner = Owner(self._dedicated, db.wait_s, lease_s)
        self._notices = Notices(self._dedicated, self.origin, db.wait_s)

    @classmethod
    async def open(cls, url: str, *, migrations: Sequence[str] = PG_MIGRATIONS,
                   clock: Clock = utc_now, busy_timeout_ms: int = 5000,
                   pool_size: int = 10, lease_s: float = LEASE_S) -> Self:
        """Connect and bring the schema up to date.

        ``migrations`` is for tests of the upgrade path: a prefix of ``PG_MIGRATIONS``
        opens the database as an older bot would have left it. ``busy_timeout_ms``
        bounds every wait, as SQLite's busy timeout does. ``lease_s``: how long the
        process may stand still before others take its tables (``postgres_ownership``).
        """
        db = await Connections.open(url, busy_timeout_ms / 1000, pool_size)
        try:
            async with db.connection() as conn:
                await migrate_postgres(conn, migrations, max(db.wait_s, 60.0))
        except BaseException:
            db.terminate()
            raise
        return cls(db, clock, lease_s)

    async def close(self) -> None:
        if self._db.closed:
            return
        await self._notices.close()
        await self._owner.close()
        await self._db.close()

    async def _dedicated(self, use: str) -> asyncpg.Connection:
        return await self._db.dedicated(f"{use}/{self.origin}")

    async def _read(self, query: Callable[Concatenate[asyncpg.Connection, P], Awaitable[T]],
                    *args: P.args, **kwargs: P.kwargs) -> T:
        """Run one query function of ``postgres_scores`` on a pooled connection."""
        async with self._db.connection() as conn:
            return await query(conn, *args, **kwargs)

    async def _write(self, query: Callable[Concatenate[asyncpg.Connection, P], Awaitable[T]],
                     *args: P.args, **kwargs: P.kwargs) -> T:
        """Run one query function (``postgres_seasons``) in a write transaction."""
        return await self._db.write(lambda conn: query(conn, *args, **kwargs))

    async def info(self) -> StoreInfo:
        async with self._db.connection() as conn:
            version = await schema_version(conn)
        return StoreInfo("postgresql", self._db.location, version, "postgresql", True,
                         round(self._db.wait_s * 1000))

    # -- several processes ----------------------------------------------------

    async def claim_table(self, table_id: str) -> bool:
        if self._db.closed:
            raise StorageError("The storage is closed.")
        return await self._owner.claim(table_id)

    async def release_table(self, table_id: str) -> None:
        await self._owner.release(table_id)

    def owns_table(self, table_id: str) -> bool:
        return self._owner.owns(table_id)

    async def announce(self, change: TableChange) -> None:
        await self._db.execute("SELECT pg_notify($1, $2)", CHANNEL, self._payload(change))

    async def listen(self, on_change: Callable[[TableChange], None], *, own: bool = False,
                     kinds: Iterable[str] = ("answered",)) -> None:
        if self._db.closed:
            raise StorageError("The storage is closed.")
        check_kinds(kinds)  # a mistake is a ValueError, not a busy database
        try:
            await asyncio.wait_for(self._notices.listen(on_change, own=own, kinds=kinds),
                                   self._db.wait_s)
        except (TimeoutError, *GONE) as error:
            raise StorageBusy(f"Cannot listen to table notices: {error}") from error

    def _payload(self, change: TableChange) -> str:
        """A change of this store as a notice's payload."""
        return change_payload(dataclasses.replace(change, origin=self.origin))

    # -- live tables ------------------------------------------------------
    # Each write of a version sends its notice in the write's transaction (pg_notify: sent at
    # commit, dropped on a rollback); postgres_notices.py says what is announced when.
    # finish_table writes one version, announced "closed" like close_table's.

    async def create_table(self, row: TableRow) -> TableRow:
        check_status(row.status, STATUSES)
        now = as_utc(self._clock())
        values: dict[str, Any] = {
            "table_id": row.table_id, "guild_id": row.guild_id, "channel_id": row.channel_id,
            "game": row.game, "status": row.status, "version": row.version,
            "data": to_json(row.data), "created_at": now, "updated_at": now}
        if row.posts is not None:  # only when given: an older schema (the upgrade tests'
            values["posts"] = to_json(row.posts)  # ``migrations``) has no such column
        marks = ", ".join(f"${n}" for n in range(1, len(values) + 1))
        notice = self._payload(TableChange(row.table_id, row.version, kind="opened",
                                           status=row.status))
        async with self._db.turn(("table", row.table_id)), self._db.connection() as conn:
            try:
                async with conn.transaction():
                    if await conn.fetchval(_ID_TAKEN, row.table_id):
                        raise TableExists(f"A table with id {row.table_id!r} already exists.")
                    if row.status in ACTIVE_STATUSES:
                        other = await conn.fetchval(_ACTIVE_IN_CHANNEL, row.channel_id)
                        if other is not None:
                            raise ChannelBusy(row.channel_id, other)
                    await conn.execute(f"INSERT INTO live_tables ({', '.join(values)})"
                                       f" VALUES ({marks})"
                                       f" RETURNING pg_notify('{CHANNEL}', ${len(values) + 1})",
                                       *values.values(), notice)
            except asyncpg.UniqueViolationError as error:  # another process, just now
                if error.constraint_name == "live_tables_pkey":
                    raise TableExists(f"A table with id {row.table_id!r} already exists."
                                      ) from None
                other = await conn.fetchval(_ACTIVE_IN_CHANNEL, row.channel_id)
                raise ChannelBusy(row.channel_id, other) from None
        return TableRow(row.table_id, row.guild_id, row.channel_id, row.game, row.status,
                        row.version, row.data, now, now, row.posts)

    async def save_table(self, table_id: str, status: str, data: dict[str, Any],
                         expected_version: int) -> int:
        check_status(status, STATUSES)
        text = to_json(data)  # refuse unserialisable data before touching the database
        now = as_utc(self._clock())
        notice = self._payload(TableChange(table_id, expected_version + 1, kind="saved",
                                           status=status))
        async with self._db.turn(("table", table_id)):
            try:
                async with self._db.connection() as conn:
                    try:
                        result = await conn.fetchrow(_SAVE_TABLE, table_id, status, text, now,
                                                     expected_version, notice)
                    except asyncpg.UniqueViolationError:  # another table became active now
                        channel = await conn.fetchval(
                            "SELECT channel_id FROM live_tables WHERE table_id = $1", table_id)
                        other = await conn.fetchval(_ACTIVE_IN_CHANNEL, channel)
                        raise ChannelBusy(channel or 0, other) from None
                    if result["busy"] is not None:
                        raise ChannelBusy(result["channel_id"], result["busy"])
                    if result["saved"] is None:
                        # A fresh statement: the version another transaction just committed.
                        actual = await conn.fetchval(
                            "SELECT version FROM live_tables WHERE table_id = $1", table_id)
                        raise VersionConflict(table_id, expected_version, actual)
            except StorageError as error:
                if await written_anyway(self._db, error, table_id, expected_version + 1, text):
                    return expected_version + 1
                raise
        return int(result["saved"])

    async def save_posts(self, table_id: str, posts: dict[str, Any]) -> None:
        if not isinstance(posts, dict):
            raise TypeError(f"Posts are a dict, not {type(posts).__name__}.")
        text = to_json(posts)
        # No version, no updated_at: posts are bookkeeping, not a step of the table.
        async with self._db.turn(("table", table_id)):
            await self._db.execute("UPDATE live_tables SET posts = $1 WHERE table_id = $2",
                                   text, table_id)

    async def close_table(self, table_id: str, status: str) -> int | None:
        check_status(status, CLOSED_STATUSES)
        now = as_utc(self._clock())
        async with (self._db.turn(("table", table_id)), self._db.connection() as conn,
                    conn.transaction()):
            version = await conn.fetchval(
                "UPDATE live_tables SET status = $1, version = version + 1, updated_at = $2"
                " WHERE table_id = $3 RETURNING version", status, now, table_id)
            if version is None:
                return None
            # Its version is known only now: the notice in a second statement, the same
            # transaction (a close is once per table; a save keeps its one round trip).
            await conn.execute("SELECT pg_notify($1, $2)", CHANNEL, self._payload(
                TableChange(table_id, int(version), kind="closed", status=status)))
        return int(version)

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
        now = as_utc(self._clock())
        notice = self._payload(TableChange(table_id, expected_version + 1, kind="closed",
                                           status=status))

        async def finish(conn: asyncpg.Connection) -> tuple[int, bool] | None:
            if await conn.fetchval(_FINISH_TABLE, table_id, status, text, now,
                                   expected_version, notice, owed) is None:
                actual = await conn.fetchval(
                    "SELECT version FROM live_tables WHERE table_id = $1", table_id)
                raise VersionConflict(table_id, expected_version, actual)
            if checked is None:
                return None
            return await scores.insert_game(conn, checked[0], checked[1], now)

        async with self._db.turn(("table", table_id)):
            try:
                recorded = await self._write_game(finish)
            except StorageError as error:
                # The record is in the same transaction as the row: both or neither.
                if await written_anyway(self._db, error, table_id, expected_version + 1, text):
                    return expected_version + 1
                raise
        if recorded is not None and not recorded[1]:
            recorded_already(table_id, recorded[0])
        return expected_version + 1

    async def load_active_tables(self) -> list[TableRow | CorruptTable]:
        rows = await self._db.fetch(
            f"SELECT {_TABLE_COLUMNS} FROM live_tables WHERE status IN ('lobby', 'playing')"
            " ORDER BY created_at, table_id")
        return [_on_table(row) for row in rows]

    async def active_table_keys(self) -> list[tuple[str, int]]:
        rows = await self._db.fetch(
            "SELECT table_id, guild_id FROM live_tables WHERE status IN ('lobby', 'playing')"
            " ORDER BY created_at, table_id")
        return [(row["table_id"], row["guild_id"]) for row in rows]

    async def owed_table_keys(self) -> list[tuple[str, int]]:
        rows = await self._db.fetch(
            "SELECT table_id, guild_id FROM live_tables WHERE owed IS NOT NULL"
            " ORDER BY created_at, table_id")
        return [(row["table_id"], row["guild_id"]) for row in rows]

    async def settle_owed(self, table_id: str) -> None:
        async with self._db.turn(("table", table_id)):
            await self._db.execute("UPDATE live_tables SET owed = NULL WHERE table_id = $1",
                                   table_id)

    async def active_table_in_channel(self, channel_id: int) -> TableRow | CorruptTable | None:
        rows = await self._db.fetch(
            f"SELECT {_TABLE_COLUMNS} FROM live_tables"
            " WHERE channel_id = $1 AND status IN ('lobby', 'playing')", channel_id)
        return _on_table(rows[0]) if rows else None

    async def load_table(self, table_id: str) -> TableRow | CorruptTable | None:
        rows = await self._db.fetch(f"SELECT {_TABLE_COLUMNS} FROM live_tables"
                                    " WHERE table_id = $1", table_id)
        return _on_table(rows[0]) if rows else None

    async def prune_closed_tables(self, older_than: timedelta) -> int:
        cut = as_utc(self._clock()) - older_than
        pruned = 0
        while True:  # a batch a statement: no lock is held for long
            rows = await self._db.fetch(_PRUNE, cut, PRUNE_BATCH)
            deleted = int(rows[0][0])
            pruned += deleted
            if deleted < PRUNE_BATCH:
                return pruned

    # -- meta and users ---------------------------------------------------

    async def get_meta(self, key: str) -> str | None:
        rows = await self._db.fetch("SELECT value FROM meta WHERE key = $1", key)
        return rows[0]["value"] if rows else None

    async def set_meta(self, key: str, value: str) -> None:
        async with self._db.turn(("meta", key)):
            await self._db.execute("INSERT INTO meta (key, value) VALUES ($1, $2)"
                                   " ON CONFLICT (key) DO UPDATE SET value = excluded.value",
                                   key, value)

    async def spend_link(self, nonce: str, expires: float, now: float) -> bool:
        async with self._db.connection() as conn:
            await conn.execute("DELETE FROM web_links WHERE expires < $1", now)
            status = await conn.execute(
                "INSERT INTO web_links (nonce, expires) VALUES ($1, $2)"
                " ON CONFLICT (nonce) DO NOTHING", nonce, expires)
            return bool(status == "INSERT 0 1")

    async def remember_user(self, user_id: int, name: str) -> None:
        async with self._db.turn(("user", user_id)):
            await self._db.execute(scores.UPSERT_USER, user_id, name, as_utc(self._clock()))

    async def remember_language(self, user_id: int, language: str) -> None:
        async with self._db.turn(("language", user_id)):
            await self._db.execute(
                "INSERT INTO user_languages (user_id, language) VALUES ($1, $2)"
                " ON CONFLICT (user_id) DO UPDATE SET language = excluded.language",
                user_id, language)

    async def user_languages(self) -> dict[int, str]:
        rows = await self._db.fetch("SELECT user_id, language FROM user_languages")
        return {row["user_id"]: row["language"] for row in rows}

    async def server_settings(self, guild_id: int) -> dict[str, Any] | None:
        rows = await self._db.fetch("SELECT data FROM server_settings WHERE guild_id = $1",
                                    guild_id)
        return parse_object(rows[0]["data"]) if rows else None

    async def save_server_settings(self, guild_id: int, data: dict[str, Any]) -> None:
        text = to_json(data)
        async with self._db.turn(("settings", guild_id)):
            await self._db.execute(
                "INSERT INTO server_settings (guild_id, data) VALUES ($1, $2)"
                " ON CONFLICT (guild_id) DO UPDATE SET data = excluded.data", guild_id, text)

    # -- finished games ---------------------------------------------------

    async def record_game(self, finished: FinishedGame) -> int:
        check_seats(finished)
        record = record_text(finished)
        now = as_utc(self._clock())
        game_id, recorded = await self._write_game(
            lambda conn: scores.insert_game(conn, finished, record, now))
        if not recorded:
            recorded_already(finished.table_id, game_id)
        return game_id

    async def _write_game(self, work: Callable[[asyncpg.Connection], Awaitable[T]]) -> T:
        """``work``, which records a game, in one transaction; run again once if another
        transaction recorded the same table's game at the same moment (the unique
        ``games.table_id`` refused ours, and all of it was rolled back): it then finds
        that game, and records nothing."""
        try:
            return await self._db.write(work)
        except asyncpg.UniqueViolationError as error:
            if error.constraint_name != scores.GAME_OF_TABLE:
                raise
        return await self._db.write(work)

    async def history(self, guild_id: int | None, channel_id: int | None = None,
                      user_id: int | None = None, game: str | None = None, limit: int = 10,
                      before: int | None = None) -> list[GameSummary]:
        check_page(0, limit)
        async with self._db.connection() as conn, conn.transaction(
                isolation="repeatable_read", readonly=True):  # one snapshot for both queries
            return await scores.history(conn, guild_id, channel_id, user_id, game, limit,
                                        before)
