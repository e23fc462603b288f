"""SQLite: head-to-head, streaks and rating history (``rivals.py`` says what each is).

Each function runs on a connection that ``SQLiteStorage`` holds in a transaction for it,
as ``sqlite_scores``'s do; ``write_history`` in the transaction of the game it rates.
"""

from __future__ import annotations

from collections.abc import Sequence

import aiosqlite

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
from bot.storage.values import results_of, scope_key, summaries, text_time


def _mark(_: int) -> str:
    return "?"


_RESULTS_OF = results_of("IN ({marks})")  # (its marks: one ? per game)


async def write_history(conn: aiosqlite.Connection, scope: int, game: str, game_id: int,
                        humans: Sequence[SeatResult], after: Sequence[Rating]) -> None:
    """Each rated seat's rating after game ``game_id`` (beside its update in ``ratings``)."""
    await conn.executemany(
        "INSERT INTO rating_history (scope, game, user_id, game_id, mu, sigma, ordinal)"
        " VALUES (?, ?, ?, ?, ?, ?, ?)",
        [(scope, game, h.user_id, game_id, new.mu, new.sigma, new.ordinal)
         for h, new in zip(humans, after, strict=True)])


async def head_to_head(conn: aiosqlite.Connection, user_id: int, other_id: int,
                       guild_id: int | None, game: str | None) -> list[HeadToHead]:
    sql, params = head_to_head_sql(_mark, user_id, other_id, guild_id, game)
    return [head_to_head_row(row) for row in await conn.execute_fetchall(sql, params)]


async def games_together(conn: aiosqlite.Connection, user_id: int, other_id: int,
                         guild_id: int | None, game: str | None, limit: int,
                         before: int | None) -> list[GameSummary]:
    sql, params = games_together_sql(_mark, user_id, other_id, guild_id, game, limit, before)
    games = list(await conn.execute_fetchall(sql, params))
    results = list(await conn.execute_fetchall(
        _RESULTS_OF.format(marks=", ".join("?" * len(games))),
        [g["game_id"] for g in games])) if games else []
    return summaries(games, results, text_time)


async def streaks(conn: aiosqlite.Connection, user_id: int, guild_id: int | None,
                  game: str | None) -> list[Streak]:
    sql, params = wins_sql(_mark, user_id, guild_id, game)
    return longest_streaks(await conn.execute_fetchall(sql, params))


async def rating_history(conn: aiosqlite.Connection, user_id: int, game: str,
                         guild_id: int | None, limit: int) -> list[RatingPoint]:
    sql, params = rating_history_sql(_mark, scope_key(guild_id), game, user_id, limit)
    return rating_points(await conn.execute_fetchall(sql, params), text_time)
