"""PostgreSQL: head-to-head, streaks and rating history (``rivals.py`` says what each is).

As ``rivals_sqlite`` for SQLite. ``write_history`` runs in the transaction of the game it
rates, after ``postgres_scores._rate`` locked and updated the players' ratings: a game's
points are written in the order its ratings were applied.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import asyncpg  # type: ignore[import-untyped]  # asyncpg ships no type information

from bot.storage.ratings import Rating
from bot.storage.rivals import (
    HeadToHead,
    RatingPoint,
    Streak,
    games_together_sql,
    head_to_head_row,
    head_to_head_sql,
    longest_streaks,
    rating_history_sql,
    rating_points,
    wins_sql,
)
from bot.storage.rows import GameSummary, SeatResult
from bot.storage.values import results_of, scope_key, summaries


def _mark(n: int) -> str:
    return f"${n}"


def _same(value: Any) -> Any:
    return value


_RESULTS_OF = results_of("= ANY($1::bigint[])")

_WRITE_HISTORY = """
    INSERT INTO rating_history (scope, game, user_id, game_id, mu, sigma, ordinal)
    SELECT $1, $2, u, $3, m, s, o
    FROM unnest($4::bigint[], $5::float8[], $6::float8[], $7::float8[]) AS t (u, m, s, o)
"""


async def write_history(conn: asyncpg.Connection, scope: int, game: str, game_id: int,
                        humans: Sequence[SeatResult], after: Sequence[Rating]) -> None:
    """Each rated seat's rating after game ``game_id`` (beside its update in ``ratings``)."""
    await conn.execute(_WRITE_HISTORY, scope, game, game_id, [h.user_id for h in humans],
                       [r.mu for r in after], [r.sigma for r in after],
                       [r.ordinal for r in after])


async def head_to_head(conn: asyncpg.Connection, user_id: int, other_id: int,
                       guild_id: int | None, game: str | None) -> list[HeadToHead]:
    sql, params = head_to_head_sql(_mark, user_id, other_id, guild_id, game)
    return [head_to_head_row(row) for row in await conn.fetch(sql, *params)]


async def games_together(conn: asyncpg.Connection, user_id: int, other_id: int,
                         guild_id: int | None, game: str | None, limit: int,
                         before: int | None) -> list[GameSummary]:
    sql, params = games_together_sql(_mark, user_id, other_id, guild_id, game, limit, before)
    games = await conn.fetch(sql, *params)
    results = await conn.fetch(_RESULTS_OF, [g["game_id"] for g in games]) if games else []
    return summaries(games, results, _same)


async def streaks(conn: asyncpg.Connection, user_id: int, guild_id: int | None,
                  game: str | None) -> list[Streak]:
    sql, params = wins_sql(_mark, user_id, guild_id, game)
    return longest_streaks(await conn.fetch(sql, *params))


async def rating_history(conn: asyncpg.Connection, user_id: int, game: str,
                         guild_id: int | None, limit: int) -> list[RatingPoint]:
    sql, params = rating_history_sql(_mark, scope_key(guild_id), game, user_id, limit)
    return rating_points(await conn.fetch(sql, *params), _same)
