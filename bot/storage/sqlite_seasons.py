"""SQLite: season ratings, the boards of seasons and of rolling windows, the seasons whose
end was posted and the reward roles the bot gave (``season_sql.py`` holds the SQL).

As ``sqlite_scores.py``: each function runs on a connection ``SQLiteStorage`` holds in a
transaction for it. ``rate_season`` runs inside ``insert_game``'s transaction.
"""

from __future__ import annotations

from datetime import datetime

import aiosqlite

import bot.storage.season_sql as sql
from bot.storage.ratings import Rating
from bot.storage.results import new_ratings
from bot.storage.rows import FinishedGame, LeaderboardRow, SeatResult, WindowRow
from bot.storage.values import board_row, time_text, window_row

_UPSERT_SEASON = """
    INSERT INTO season_ratings (guild_id, season, game, user_id, mu, sigma, ordinal, games,
                                wins, points, rated_games)
    VALUES (?, ?, ?, ?, ?, ?, ?, 1, ?, ?, 1)
    ON CONFLICT (guild_id, season, game, user_id) DO UPDATE SET
        mu = excluded.mu, sigma = excluded.sigma, ordinal = excluded.ordinal,
        games = season_ratings.games + 1, wins = season_ratings.wins + excluded.wins,
        points = season_ratings.points + excluded.points,
        rated_games = season_ratings.rated_games + 1
"""


def _q(statement: str) -> str:
    return sql.sqlite_marks(statement)


async def rate_season(conn: aiosqlite.Connection, finished: FinishedGame,
                      humans: list[SeatResult]) -> None:
    """Rate a rated game's human seats in its server's season (``finished.season``)."""
    marks = ", ".join("?" * len(humans))
    rows = await conn.execute_fetchall(
        f"SELECT user_id, mu, sigma FROM season_ratings WHERE guild_id = ? AND season = ?"
        f" AND game = ? AND user_id IN ({marks})",
        (finished.guild_id, finished.season, finished.game, *(h.user_id for h in humans)))
    known = {row["user_id"]: Rating(row["mu"], row["sigma"]) for row in rows}
    after = new_ratings(known, humans)
    await conn.executemany(_UPSERT_SEASON, [
        (finished.guild_id, finished.season, finished.game, h.user_id, new.mu, new.sigma,
         new.ordinal, int(h.won), h.points) for h, new in zip(humans, after, strict=True)])


# ================================================================ rolling windows


async def window_board(conn: aiosqlite.Connection, game: str, guild_id: int, since: datetime,
                       offset: int, limit: int) -> list[WindowRow]:
    rows = await conn.execute_fetchall(_q(sql.WINDOW_PAGE),
                                       (guild_id, game, time_text(since), limit, offset))
    return [window_row(row) for row in rows]


async def window_board_size(conn: aiosqlite.Connection, game: str, guild_id: int,
                            since: datetime) -> int:
    rows = list(await conn.execute_fetchall(_q(sql.WINDOW_SIZE),
                                            (guild_id, game, time_text(since))))
    return int(rows[0]["n"])


async def window_rank_of(conn: aiosqlite.Connection, game: str, guild_id: int,
                         since: datetime, user_id: int) -> WindowRow | None:
    rows = list(await conn.execute_fetchall(_q(sql.WINDOW_RANK),
                                            (guild_id, game, time_text(since), user_id)))
    return window_row(rows[0]) if rows else None


# ================================================================ seasons


async def season_board(conn: aiosqlite.Connection, game: str, guild_id: int, season: int,
                       offset: int, limit: int) -> list[LeaderboardRow]:
    rows = await conn.execute_fetchall(_q(sql.SEASON_PAGE),
                                       (guild_id, season, game, limit, offset))
    return [board_row(row, offset + n) for n, row in enumerate(rows, 1)]


async def season_board_size(conn: aiosqlite.Connection, game: str, guild_id: int,
                            season: int) -> int:
    rows = list(await conn.execute_fetchall(_q(sql.SEASON_SIZE), (guild_id, season, game)))
    return int(rows[0]["n"])


async def season_rank_of(conn: aiosqlite.Connection, game: str, guild_id: int, season: int,
                         user_id: int) -> LeaderboardRow | None:
    rows = list(await conn.execute_fetchall(_q(sql.SEASON_RANK),
                                            (guild_id, season, game, user_id)))
    return board_row(rows[0], rows[0]["rank"]) if rows else None


async def season_games(conn: aiosqlite.Connection, guild_id: int, season: int) -> list[str]:
    rows = await conn.execute_fetchall(_q(sql.SEASON_GAMES), (guild_id, season))
    return [row["game"] for row in rows]


async def unposted_seasons(conn: aiosqlite.Connection, guild_id: int,
                           before: int) -> list[int]:
    rows = await conn.execute_fetchall(_q(sql.UNPOSTED), (guild_id, before))
    return [int(row["season"]) for row in rows]


async def last_season(conn: aiosqlite.Connection, guild_id: int) -> int | None:
    rows = list(await conn.execute_fetchall(_q(sql.LAST_SEASON), (guild_id,)))
    return int(rows[0]["season"]) if rows and rows[0]["season"] is not None else None


async def mark_season_posted(conn: aiosqlite.Connection, guild_id: int, season: int,
                             now: datetime) -> None:
    await conn.execute(_q(sql.MARK_POSTED), (guild_id, season, time_text(now)))


# ================================================================ reward roles


async def role_holders(conn: aiosqlite.Connection, guild_id: int, role_id: int) -> list[int]:
    rows = await conn.execute_fetchall(_q(sql.HOLDERS), (guild_id, role_id))
    return [int(row["user_id"]) for row in rows]


async def hold_role(conn: aiosqlite.Connection, guild_id: int, role_id: int, user_id: int,
                    held: bool) -> None:
    await conn.execute(_q(sql.HOLD if held else sql.UNHOLD), (guild_id, role_id, user_id))
