"""Tournaments in storage: each one's state with a version, and its sign-ups.

The ``Store`` methods of tournaments (``interface.py`` names them), written once per
backend as a mixin the backend inherits (``SQLiteTournaments``, ``PostgresTournaments``).
The schema is migration 0012 (``tournaments``, ``tournament_signups``).

A tournament's state (``bot.table.tournament.Tournament.to_data``) is one JSON object,
saved only at the version the saver read (``VersionConflict`` otherwise), as a live
table's snapshot; the database keeps at most one tournament signing up or running per
channel (``ChannelBusy``). Sign-ups are rows of their own: a click on Sign up is one
insert, which never conflicts with a save of the state.
"""

from __future__ import annotations

import logging
from abc import abstractmethod
from collections.abc import Callable
from contextlib import AbstractAsyncContextManager
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from bot.storage.rows import ChannelBusy, TableExists, VersionConflict
from bot.storage.values import as_utc, parse_object, text_time, time_text, to_json

log = logging.getLogger(__name__)

TOURNAMENT_STATUSES = ("signup", "running", "finished", "cancelled")
ACTIVE_TOURNAMENT = ("signup", "running")
_COLUMNS = ("tournament_id, guild_id, channel_id, status, version, data, created_at,"
            " updated_at")


@dataclass
class TournamentRow:
    tournament_id: str
    guild_id: int
    channel_id: int
    status: str = "signup"
    version: int = 0
    data: dict[str, Any] = field(default_factory=dict)
    created_at: datetime | None = None  # set by the store
    updated_at: datetime | None = None


def _check(status: str) -> None:
    if status not in TOURNAMENT_STATUSES:
        raise ValueError(f"unknown tournament status {status!r}")


def _row(row: Any, read_time: Callable[[Any], datetime]) -> TournamentRow | None:
    """A tournament from its row; None (logged) if its state cannot be read."""
    try:
        data = parse_object(row["data"])
    except (ValueError, TypeError) as error:
        log.error("tournament %s cannot be read: %s", row["tournament_id"], error)
        return None
    return TournamentRow(row["tournament_id"], row["guild_id"], row["channel_id"],
                         row["status"], row["version"], data, read_time(row["created_at"]),
                         read_time(row["updated_at"]))


def _statuses() -> str:
    return ", ".join(f"'{s}'" for s in ACTIVE_TOURNAMENT)


class SQLiteTournaments:
    """``Store``'s tournament methods on SQLite (``SQLiteStorage`` inherits them)."""

    _clock: Callable[[], datetime]

    @abstractmethod
    def _transaction(self, write: bool = True) -> AbstractAsyncContextManager[Any]: ...

    async def create_tournament(self, row: TournamentRow) -> None:
        _check(row.status)
        now = time_text(self._clock())
        async with self._transaction() as conn:
            taken = await conn.execute_fetchall(
                "SELECT 1 FROM tournaments WHERE tournament_id = ?", (row.tournament_id,))
            if taken:
                raise TableExists(f"Tournament {row.tournament_id!r} exists already.")
            busy = await conn.execute_fetchall(
                "SELECT tournament_id FROM tournaments WHERE channel_id = ?"
                f" AND status IN ({_statuses()})", (row.channel_id,))
            if busy and row.status in ACTIVE_TOURNAMENT:
                raise ChannelBusy(row.channel_id, next(iter(busy))[0])
            await conn.execute(
                f"INSERT INTO tournaments ({_COLUMNS}) VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
                (row.tournament_id, row.guild_id, row.channel_id, row.status, row.version,
                 to_json(row.data), now, now))

    async def save_tournament(self, tournament_id: str, status: str, data: dict[str, Any],
                              expected_version: int) -> int:
        _check(status)
        text = to_json(data)
        async with self._transaction() as conn:
            rows = await conn.execute_fetchall(
                "UPDATE tournaments SET status = ?, data = ?, version = version + 1,"
                " updated_at = ? WHERE tournament_id = ? AND version = ? RETURNING version",
                (status, text, time_text(self._clock()), tournament_id, expected_version))
            if rows:
                return int(next(iter(rows))[0])
            found = await conn.execute_fetchall(
                "SELECT version FROM tournaments WHERE tournament_id = ?", (tournament_id,))
        raise VersionConflict(tournament_id, expected_version,
                              int(next(iter(found))[0]) if found else None)

    async def load_tournament(self, tournament_id: str) -> TournamentRow | None:
        async with self._transaction(write=False) as conn:
            rows = list(await conn.execute_fetchall(
                f"SELECT {_COLUMNS} FROM tournaments WHERE tournament_id = ?",
                (tournament_id,)))
        return _row(rows[0], text_time) if rows else None

    async def active_tournaments(self) -> list[TournamentRow]:
        async with self._transaction(write=False) as conn:
            rows = await conn.execute_fetchall(
                f"SELECT {_COLUMNS} FROM tournaments WHERE status IN ({_statuses()})"
                " ORDER BY created_at, tournament_id")
        return [t for t in (_row(r, text_time) for r in rows) if t is not None]

    async def sign_up(self, tournament_id: str, user_id: int, name: str) -> bool:
        async with self._transaction() as conn:
            cursor = await conn.execute(
                "INSERT INTO tournament_signups (tournament_id, user_id, name, signed_at)"
                " SELECT ?, ?, ?, ? WHERE EXISTS (SELECT 1 FROM tournaments"
                " WHERE tournament_id = ?) ON CONFLICT (tournament_id, user_id) DO NOTHING",
                (tournament_id, user_id, name, time_text(self._clock()), tournament_id))
            return bool(cursor.rowcount == 1)

    async def withdraw(self, tournament_id: str, user_id: int) -> bool:
        async with self._transaction() as conn:
            cursor = await conn.execute(
                "DELETE FROM tournament_signups WHERE tournament_id = ? AND user_id = ?",
                (tournament_id, user_id))
            return bool(cursor.rowcount == 1)

    async def signups(self, tournament_id: str) -> list[tuple[int, str]]:
        async with self._transaction(write=False) as conn:
            rows = await conn.execute_fetchall(
                "SELECT user_id, name FROM tournament_signups WHERE tournament_id = ?"
                " ORDER BY seq", (tournament_id,))
        return [(int(r[0]), str(r[1])) for r in rows]


class PostgresTournaments:
    """``Store``'s tournament methods on PostgreSQL (``PostgresStorage`` inherits them)."""

    _db: Any  # postgres_pool.Connections
    _clock: Callable[[], datetime]

    async def create_tournament(self, row: TournamentRow) -> None:
        import asyncpg  # type: ignore[import-untyped]  # (only with PostgreSQL)

        _check(row.status)
        now = as_utc(self._clock())
        async with self._db.connection() as conn:
            try:
                await conn.execute(
                    f"INSERT INTO tournaments ({_COLUMNS}) VALUES ($1, $2, $3, $4, $5, $6,"
                    " $7, $7)", row.tournament_id, row.guild_id, row.channel_id, row.status,
                    row.version, to_json(row.data), now)
            except asyncpg.UniqueViolationError as error:
                if "tournaments_active_channel" in str(error.constraint_name or ""):
                    busy = await conn.fetchval(
                        "SELECT tournament_id FROM tournaments WHERE channel_id = $1"
                        f" AND status IN ({_statuses()})", row.channel_id)
                    raise ChannelBusy(row.channel_id, busy) from None
                raise TableExists(f"Tournament {row.tournament_id!r} exists already."
                                  ) from None

    async def save_tournament(self, tournament_id: str, status: str, data: dict[str, Any],
                              expected_version: int) -> int:
        _check(status)
        text = to_json(data)
        async with self._db.turn(("tournament", tournament_id)), \
                self._db.connection() as conn:
            version = await conn.fetchval(
                "UPDATE tournaments SET status = $1, data = $2, version = version + 1,"
                " updated_at = $3 WHERE tournament_id = $4 AND version = $5 RETURNING version",
                status, text, as_utc(self._clock()), tournament_id, expected_version)
            if version is not None:
                return int(version)
            actual = await conn.fetchval(
                "SELECT version FROM tournaments WHERE tournament_id = $1", tournament_id)
        raise VersionConflict(tournament_id, expected_version,
                              int(actual) if actual is not None else None)

    async def load_tournament(self, tournament_id: str) -> TournamentRow | None:
        rows = await self._db.fetch(f"SELECT {_COLUMNS} FROM tournaments"
                                    " WHERE tournament_id = $1", tournament_id)
        return _row(rows[0], as_utc) if rows else None

    async def active_tournaments(self) -> list[TournamentRow]:
        rows = await self._db.fetch(f"SELECT {_COLUMNS} FROM tournaments"
                                    f" WHERE status IN ({_statuses()})"
                                    " ORDER BY created_at, tournament_id")
        return [t for t in (_row(r, as_utc) for r in rows) if t is not None]

    async def sign_up(self, tournament_id: str, user_id: int, name: str) -> bool:
        async with self._db.connection() as conn:
            status = await conn.execute(
                "INSERT INTO tournament_signups (tournament_id, user_id, name, signed_at)"
                " SELECT $1, $2, $3, $4 WHERE EXISTS (SELECT 1 FROM tournaments"
                " WHERE tournament_id = $1) ON CONFLICT (tournament_id, user_id) DO NOTHING",
                tournament_id, user_id, name, as_utc(self._clock()))
        return bool(status == "INSERT 0 1")

    async def withdraw(self, tournament_id: str, user_id: int) -> bool:
        async with self._db.connection() as conn:
            status = await conn.execute(
                "DELETE FROM tournament_signups WHERE tournament_id = $1 AND user_id = $2",
                tournament_id, user_id)
        return bool(status == "DELETE 1")

    async def signups(self, tournament_id: str) -> list[tuple[int, str]]:
        rows = await self._db.fetch("SELECT user_id, name FROM tournament_signups"
                                    " WHERE tournament_id = $1 ORDER BY seq", tournament_id)
        return [(int(r["user_id"]), str(r["name"])) for r in rows]

