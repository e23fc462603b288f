"""PostgreSQL: season ratings, the boards of seasons and of rolling windows, the seasons
whose end was posted and the reward roles the bot gave (``season_sql.py`` holds the SQL).

As ``postgres_scores.py``. ``rate_season`` runs inside ``insert_game``'s transaction,
after the all-time ratings (the server's, then the global ones): a season's rows are the
last locks of the order ``postgres_scores`` keeps, taken by user id after creating the
missing ones, so two games never deadlock and each rating is computed from the latest
committed one.
"""

from __future__ import annotations

from datetime import datetime

import asyncpg  # type: ignore[import-untyped]  # asyncpg ships no type information

import bot.storage.season_sql as sql
from bot.storage.ratings import Rating, default_rating
from bot.storage.results import new_ratings
from bot.storage.rows import FinishedGame, LeaderboardRow, SeatResult, WindowRow
from bot.storage.values import as_utc, board_row, window_row

_ENSURE = """
    INSERT INTO season_ratings (guild_id, season, game, user_id, mu, sigma, ordinal, games,
                                wins, points, rated_games)
    SELECT $1, $2, $3, u, $5, $6, $7, 0, 0, 0, 0 FROM unnest($4::bigint[]) AS s (u)
    ORDER BY u
    ON CONFLICT (guild_id, season, game, user_id) DO NOTHING
"""
_LOCK = """
    SELECT user_id, mu, sigma FROM season_ratings
    WHERE guild_id = $1 AND season = $2 AND game = $3 AND user_id = ANY($4::bigint[])
    ORDER BY user_id FOR UPDATE
"""
_RATE = """
    UPDATE season_ratings AS r SET mu = s.mu, sigma = s.sigma, ordinal = s.ordinal,
        games = r.games + 1, wins = r.wins + s.wins, points = r.points + s.points,
        rated_games = r.rated_games + 1
    FROM unnest($4::bigint[], $5::float8[], $6::float8[], $7::float8[], $8::bigint[],
                $9::bigint[]) AS s (user_id, mu, sigma, ordinal, wins, points)
    WHERE r.guild_id = $1 AND r.season = $2 AND r.game = $3 AND r.user_id = s.user_id
"""


async def rate_season(conn: asyncpg.Connection, finished: FinishedGame,
                      humans: list[SeatResult]) -> None:
    """Rate a rated game's human seats in its server's season (``finished.season``)."""
    key = (finished.guild_id, finished.season, finished.game)
    users = [h.user_id for h in humans]
    start = default_rating()
    await conn.execute(_ENSURE, *key, users, start.mu, start.sigma, start.ordinal)
    rows = await conn.fetch(_LOCK, *key, users)
    known = {row["user_id"]: Rating(row["mu"], row["sigma"]) for row in rows}
    after = new_ratings(known, humans)
    await conn.execute(_RATE, *key, users, [r.mu for r in after], [r.sigma for r in after],
                       [r.ordinal for r in after], [int(h.won) for h in humans],
                       [h.points for h in humans])


# ================================================================ rolling windows


async def window_board(conn: asyncpg.Connection, game: str, guild_id: int, since: datetime,
                       offset: int, limit: int) -> list[WindowRow]:
    rows = await conn.fetch(sql.WINDOW_PAGE, guild_id, game, as_utc(since), limit, offset)
    return [window_row(row) for row in rows]


async def window_board_size(conn: asyncpg.Connection, game: str, guild_id: int,
                            since: datetime) -> int:
    return int(await conn.fetchval(sql.WINDOW_SIZE, guild_id, game, as_utc(since)))


async def window_rank_of(conn: asyncpg.Connection, game: str, guild_id: int,
                         since: datetime, user_id: int) -> WindowRow | None:
    row = await conn.fetchrow(sql.WINDOW_RANK, guild_id, game, as_utc(since), user_id)
    return None if row is None else window_row(row)


# ================================================================ seasons


async def season_board(conn: asyncpg.Connection, game: str, guild_id: int, season: int,
                       offset: int, limit: int) -> list[LeaderboardRow]:
    rows = await conn.fetch(sql.SEASON_PAGE, guild_id, season, game, limit, offset)
    return [board_row(row, offset + n) for n, row in enumerate(rows, 1)]


async def season_board_size(conn: asyncpg.Connection, game: str, guild_id: int,
                            season: int) -> int:
    return int(await conn.fetchval(sql.SEASON_SIZE, guild_id, season, game))


async def season_rank_of(conn: asyncpg.Connection, game: str, guild_id: int, season: int,
                         user_id: int) -> LeaderboardRow | None:
    row = await conn.fetchrow(sql.SEASON_RANK, guild_id, season, game, user_id)
    return None if row is None else board_row(row, row["rank"])


async def season_games(conn: asyncpg.Connection, guild_id: int, season: int) -> list[str]:
    return [row["game"] for row in await conn.fetch(sql.SEASON_GAMES, guild_id, season)]


async def unposted_seasons(conn: asyncpg.Connection, guild_id: int, before: int) -> list[int]:
    return [int(row["season"]) for row in await conn.fetch(sql.UNPOSTED, guild_id, before)]


async def last_season(conn: asyncpg.Connection, guild_id: int) -> int | None:
    found = await conn.fetchval(sql.LAST_SEASON, guild_id)
    return int(found) if found is not None else None


async def mark_season_posted(conn: asyncpg.Connection, guild_id: int, season: int,
                             now: datetime) -> None:
    await conn.execute(sql.MARK_POSTED, guild_id, season, as_utc(now))


# ================================================================ reward roles


async def role_holders(conn: asyncpg.Connection, guild_id: int, role_id: int) -> list[int]:
    return [int(row["user_id"]) for row in await conn.fetch(sql.HOLDERS, guild_id, role_id)]


async def hold_role(conn: asyncpg.Connection, guild_id: int, role_id: int, user_id: int,
                    held: bool) -> None:
    await conn.execute(sql.HOLD if held else sql.UNHOLD, guild_id, role_id, user_id)
