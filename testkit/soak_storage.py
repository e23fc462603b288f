"""What the bot's storage holds, read behind its back (SQLite file or PostgreSQL), for the
kill soak: the whole of it at the end (``read``), and one channel's open or newest table
while the soak runs (``live_in``, ``newest_in``)."""

from __future__ import annotations

import asyncio
import sqlite3
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import asyncpg  # type: ignore[import-untyped]  # asyncpg ships no type information

from testkit.soak_judge import GameRow, Stored, TableRow, loads

TABLES = "SELECT table_id, channel_id, status, data FROM live_tables"
GAMES = ("SELECT game_id, table_id, channel_id, game, completed, chips_applied, record "
         "FROM games ORDER BY game_id")
RESULTS = "SELECT game_id, seat, user_id, chips FROM results ORDER BY game_id, seat"
RATINGS = "SELECT scope, game, user_id, games FROM ratings"
CHIPS = "SELECT guild_id, user_id, balance FROM chips"


@dataclass(frozen=True)
class Where:
    """A bot's database: its SQLite file, or its PostgreSQL DSN."""

    path: Path
    url: str | None = None

    async def rows(self, sql: str, *params: Any) -> list[dict[str, Any]]:
        if self.url is None:  # in a thread: a locked file must not stall the fake Discord
            return await asyncio.to_thread(_sqlite_rows, self.path, sql.replace("$1", "?"),
                                           params)
        conn = await asyncpg.connect(self.url, timeout=10)
        try:
            return [dict(r) for r in await conn.fetch(sql, *params, timeout=10)]
        finally:
            await conn.close()


def _sqlite_rows(path: Path, sql: str, params: tuple[Any, ...]) -> list[dict[str, Any]]:
    conn = sqlite3.connect(f"file:{path}?mode=ro", uri=True, timeout=10)
    conn.row_factory = sqlite3.Row
    try:
        return [dict(r) for r in conn.execute(sql, params).fetchall()]
    finally:
        conn.close()


async def read(where: Where) -> Stored:
    stored = Stored()
    for row in await where.rows(TABLES):
        stored.tables[row["table_id"]] = TableRow(row["table_id"], int(row["channel_id"]),
                                                  row["status"], loads(row["data"]))
    seats: dict[int, list[tuple[int | None, int]]] = {}
    for row in await where.rows(RESULTS):
        seats.setdefault(row["game_id"], []).append((row["user_id"], int(row["chips"])))
    for row in await where.rows(GAMES):
        sat = seats.get(row["game_id"], [])
        stored.games.append(GameRow(
            row["game_id"], row["table_id"], int(row["channel_id"]), row["game"],
            bool(row["completed"]), bool(row["chips_applied"]), loads(row["record"]),
            tuple(user for user, _ in sat), tuple(chips for _, chips in sat)))
    for row in await where.rows(RATINGS):
        stored.ratings[(int(row["scope"]), row["game"], int(row["user_id"]))] = int(row["games"])
    for row in await where.rows(CHIPS):
        stored.chips[(int(row["guild_id"]), int(row["user_id"]))] = int(row["balance"])
    return stored


async def live_in(where: Where, channel_id: int) -> TableRow | None:
    """The channel's open table (lobby or playing) as stored now, if any."""
    rows = await where.rows(TABLES + " WHERE channel_id = $1 AND status IN ('lobby', 'playing')",
                            channel_id)
    if not rows:
        return None
    row = rows[0]
    return TableRow(row["table_id"], int(row["channel_id"]), row["status"], loads(row["data"]))


async def newest_in(where: Where, channel_id: int) -> TableRow | None:
    """The channel's newest table as stored now (open or closed), if any."""
    rows = await where.rows(TABLES + " WHERE channel_id = $1"
                                     " ORDER BY created_at DESC, version DESC", channel_id)
    if not rows:
        return None
    row = rows[0]
    return TableRow(row["table_id"], int(row["channel_id"]), row["status"], loads(row["data"]))

