"""PostgreSQL: finished games, ratings, leaderboards, chips and users, with their SQL.

Like ``sqlite_scores.py`` for SQLite: each function runs on a connection that
``PostgresStorage`` holds (in a transaction where it writes), what a finished game
changes is decided in ``results.py``, and rows become dataclasses in ``values.py``.

Several processes may finish games at once that touch the same players. A game's
transaction takes its row locks in one global order — its live table's row
(``finish_table``), then users by id, then the ratings of its server, then the global
ones, then its server's season ones (``postgres_seasons``; each by user id), then chips
by user id — so two games never deadlock, and it
reads the ratings it rates ``FOR UPDATE`` (after creating the missing rows, so that a
newcomer's row is locked too): every rating is computed from the latest committed one
and applied once. Counts and chips are atomic increments (``balance = balance +
delta``), whatever the order of commits. A table records one game (``insert_game``).
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime
from typing import Any

import asyncpg  # type: ignore[import-untyped]  # asyncpg ships no type information

import bot.storage.postgres_seasons as seasons
import bot.storage.rivals_postgres as rivals
from bot.storage.board_sql import (
    BOARD_COLUMNS,
    BOARD_FROM,
    BOARD_ORDER,
    BOARD_RANK,
    BOARD_SIZE,
    CHIPS_COLUMNS,
    CHIPS_FROM,
    CHIPS_ORDER,
    CHIPS_RANK,
)
from bot.storage.ratings import Rating, default_rating
from bot.storage.results import (
    below_stake,
    humans_of,
    in_season,
    is_counted,
    is_rated,
    moves_chips,
    new_ratings,
    scopes,
)
from bot.storage.rows import (
    STARTING_CHIPS,
    ChipBalance,
    ChipsRow,
    FinishedGame,
    GameStats,
    GameSummary,
    LeaderboardRow,
    SeatResult,
)
from bot.storage.values import (
    as_utc,
    board_row,
    history_filter,
    results_of,
    scope_key,
    stats_row,
    summaries,
)

GAME_OF_TABLE = "games_table"
"""The unique index of ``games.table_id`` (migration 0007): a table records one game."""

UPSERT_USER = """
    INSERT INTO users (user_id, name, updated_at) VALUES ($1, $2, $3)
    ON CONFLICT (user_id) DO UPDATE SET name = excluded.name, updated_at = excluded.updated_at
"""

_UPSERT_USERS = """
    INSERT INTO users (user_id, name, updated_at)
    SELECT u, n, $3 FROM unnest($1::bigint[], $2::text[]) AS s (u, n) ORDER BY u
    ON CONFLICT (user_id) DO UPDATE SET name = excluded.name, updated_at = excluded.updated_at
"""

# The rows a rated game changes exist before they are locked: a newcomer's starts at the
# default rating with nothing counted, and the update below counts the game.
_ENSURE_RATINGS = """
    INSERT INTO ratings (scope, game, user_id, mu, sigma, ordinal, games, wins, points,
                         rated_games)
    SELECT $1, $2, u, $4, $5, $6, 0, 0, 0, 0 FROM unnest($3::bigint[]) AS s (u) ORDER BY u
    ON CONFLICT (scope, game, user_id) DO NOTHING
"""
_LOCK_RATINGS = """
    SELECT user_id, mu, sigma FROM ratings
    WHERE scope = $1 AND game = $2 AND user_id = ANY($3::bigint[])
    ORDER BY user_id FOR UPDATE
"""
_RATE = """
    UPDATE ratings AS r SET mu = s.mu, sigma = s.sigma, ordinal = s.ordinal,
        games = r.games + 1, wins = r.wins + s.wins, points = r.points + s.points,
        rated_games = r.rated_games + 1
    FROM unnest($3::bigint[], $4::float8[], $5::float8[], $6::float8[], $7::bigint[],
                $8::bigint[]) AS s (user_id, mu, sigma, ordinal, wins, points)
    WHERE r.scope = $1 AND r.game = $2 AND r.user_id = s.user_id
"""

# A counted, unrated game (AI seats): the counts move, the rating stays (or starts at
# the default, given as parameters).
_COUNT = """
    INSERT INTO ratings (scope, game, user_id, mu, sigma, ordinal, games, wins, points,
                         rated_games)
    SELECT $1, $2, u, $6, $7, $8, 1, w, p, 0
    FROM unnest($3::bigint[], $4::bigint[], $5::bigint[]) AS s (u, w, p) ORDER BY u
    ON CONFLICT (scope, game, user_id) DO UPDATE SET
        games = ratings.games + 1, wins = ratings.wins + excluded.wins,
        points = ratings.points + excluded.points
"""

_ADD_CHIPS = f"""
    INSERT INTO chips (guild_id, user_id, balance)
    SELECT $1, u, {STARTING_CHIPS:d} + d FROM unnest($2::bigint[], $3::bigint[]) AS s (u, d)
    ORDER BY u
    ON CONFLICT (guild_id, user_id)
    DO UPDATE SET balance = chips.balance + (excluded.balance - {STARTING_CHIPS:d})
"""

# A scope's boards (one per game) and the chips boards: their order is board_sql's.
_BOARD = f"SELECT {BOARD_COLUMNS} FROM {BOARD_FROM} WHERE r.scope = $1 AND r.game = $2"
_CHIPS = f"SELECT {CHIPS_COLUMNS} FROM {CHIPS_FROM} WHERE c.guild_id = $1"

_RESULTS_OF = results_of("= ANY($1::bigint[])")


def _same(value: Any) -> Any:
    return value


# ================================================================ finished games


async def insert_game(conn: asyncpg.Connection, finished: FinishedGame, record: str,
                      now: datetime) -> tuple[int, bool]:
    """Write a checked game (``results.check_seats``), its seats and all it changes, in
    the caller's transaction; its game id and True. A game of a table that has one
    already writes nothing: the first one's id and False. (Another transaction recording
    the same table at the same moment makes this one's insert fail on the unique
    ``games.table_id``, ``GAME_OF_TABLE``: the caller runs it all again, and then finds
    that game.)

    The game's row comes after its players' locks: a game's id is taken only once the
    games sharing a player with it committed, so game ids follow the order in which
    their ratings were applied."""
    seats = sorted(finished.seats, key=lambda s: s.seat)
    rated, chips_move = is_rated(finished), moves_chips(finished)
    humans = humans_of(finished)
    if finished.table_id is not None:
        recorded = await conn.fetchval("SELECT game_id FROM games WHERE table_id = $1",
                                       finished.table_id)
        if recorded is not None:
            return int(recorded), False
    if humans:
        await conn.execute(_UPSERT_USERS, [h.user_id for h in humans],
                           [h.name for h in humans], now)
    game_id = int(await conn.fetchval(
        "INSERT INTO games (table_id, guild_id, channel_id, game, started_at, ended_at,"
        " completed, rated, chips_applied, record)"
        " VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10) RETURNING game_id",
        finished.table_id, finished.guild_id, finished.channel_id, finished.game,
        as_utc(finished.started_at), as_utc(finished.ended_at), finished.completed, rated,
        chips_move, record))
    await conn.execute(
        "INSERT INTO results (game_id, seat, user_id, name, points, place, won, chips)"
        " SELECT $1, * FROM unnest($2::int[], $3::bigint[], $4::text[], $5::bigint[],"
        " $6::int[], $7::bool[], $8::bigint[])",
        game_id, [s.seat for s in seats], [s.user_id for s in seats],
        [s.name for s in seats], [s.points for s in seats], [s.place for s in seats],
        [s.won for s in seats], [s.chips for s in seats])
    if is_counted(finished):
        for scope in scopes(finished):  # the server's, then the global one: the lock order
            if rated:
                await _rate(conn, scope, finished.game, humans, game_id)
            else:
                await _count(conn, scope, finished.game, humans)
        if in_season(finished):  # after the all-time ratings (the lock order)
            await seasons.rate_season(conn, finished, humans)
    if chips_move:
        await conn.execute(_ADD_CHIPS, finished.guild_id, [s.user_id for s in seats],
                           [s.chips for s in seats])
    return game_id, True


async def _rate(conn: asyncpg.Connection, scope: int, game: str,
                humans: list[SeatResult], game_id: int) -> None:
    """Rate the human seats of one game in one scope, from their ratings locked."""
    users = [h.user_id for h in humans]
    start = default_rating()
    await conn.execute(_ENSURE_RATINGS, scope, game, users, start.mu, start.sigma,
                       start.ordinal)
    rows = await conn.fetch(_LOCK_RATINGS, scope, game, users)
    known = {row["user_id"]: Rating(row["mu"], row["sigma"]) for row in rows}
    after = new_ratings(known, humans)
    await conn.execute(_RATE, scope, game, users, [r.mu for r in after],
                       [r.sigma for r in after], [r.ordinal for r in after],
                       [int(h.won) for h in humans], [h.points for h in humans])
    # The line /stats draws: each rating after this game, in the same transaction.
    await rivals.write_history(conn, scope, game, game_id, humans, after)


async def _count(conn: asyncpg.Connection, scope: int, game: str,
                 humans: list[SeatResult]) -> None:
    """Count a game for the human seats without touching their ratings."""
    start = default_rating()
    await conn.execute(_COUNT, scope, game, [h.user_id for h in humans],
                       [int(h.won) for h in humans], [h.points for h in humans],
                       start.mu, start.sigma, start.ordinal)


async def history(conn: asyncpg.Connection, guild_id: int | None, channel_id: int | None,
                  user_id: int | None, game: str | None, limit: int,
                  before: int | None) -> list[GameSummary]:
    where, params = history_filter(guild_id, channel_id, user_id, game, before,
                                   lambda n: f"${n}")
    games = await conn.fetch(
        "SELECT game_id, game, guild_id, channel_id, started_at, ended_at, completed,"
        f" rated FROM games AS g WHERE {where} ORDER BY game_id DESC LIMIT ${len(params) + 1}",
        *params, limit)
    results = await conn.fetch(_RESULTS_OF, [g["game_id"] for g in games]) if games else []
    return summaries(games, results, _same)


async def game_record_json(conn: asyncpg.Connection, game_id: int) -> str | None:
    text: str | None = await conn.fetchval("SELECT record FROM games WHERE game_id = $1",
                                           game_id)
    return text


async def game_of_table(conn: asyncpg.Connection, table_id: str) -> int | None:
    found = await conn.fetchval("SELECT game_id FROM games WHERE table_id = $1", table_id)
    return None if found is None else int(found)


# ================================================================ ratings


async def leaderboard(conn: asyncpg.Connection, game: str, guild_id: int | None,
                      offset: int, limit: int) -> list[LeaderboardRow]:
    rows = await conn.fetch(f"{_BOARD} ORDER BY {BOARD_ORDER} LIMIT $3 OFFSET $4",
                            scope_key(guild_id), game, limit, offset)
    return [board_row(row, offset + n) for n, row in enumerate(rows, 1)]


async def leaderboard_size(conn: asyncpg.Connection, game: str, guild_id: int | None) -> int:
    return int(await conn.fetchval("SELECT COUNT(*) FROM ratings WHERE scope = $1"
                                   " AND game = $2", scope_key(guild_id), game))


async def rank_of(conn: asyncpg.Connection, game: str, guild_id: int | None,
                  user_id: int) -> LeaderboardRow | None:
    row = await conn.fetchrow(f"SELECT {BOARD_COLUMNS}, {BOARD_RANK} AS rank"
                              f" FROM {BOARD_FROM}"
                              " WHERE r.scope = $1 AND r.game = $2 AND r.user_id = $3",
                              scope_key(guild_id), game, user_id)
    return None if row is None else board_row(row, row["rank"])


async def stats(conn: asyncpg.Connection, user_id: int, guild_id: int | None,
                game: str | None) -> list[GameStats]:
    sql = (f"SELECT {BOARD_COLUMNS}, {BOARD_RANK} AS rank, {BOARD_SIZE} AS ranked"
           f" FROM {BOARD_FROM} WHERE r.scope = $1 AND r.user_id = $2")
    params: list[Any] = [scope_key(guild_id), user_id]
    if game is not None:
        sql += " AND r.game = $3"
        params.append(game)
    rows = await conn.fetch(sql + " ORDER BY r.game", *params)
    return [stats_row(row) for row in rows]


# ================================================================ chips


async def chips(conn: asyncpg.Connection, guild_id: int, user_id: int) -> int:
    balance = await conn.fetchval("SELECT balance FROM chips WHERE guild_id = $1"
                                  " AND user_id = $2", guild_id, user_id)
    return STARTING_CHIPS if balance is None else int(balance)


async def balances_below(conn: asyncpg.Connection, guild_id: int, wanted: Sequence[int],
                         stake: int) -> list[ChipBalance]:
    """The users of ``wanted`` (unique, not empty) whose balance is below ``stake``."""
    rows = await conn.fetch("SELECT user_id, balance FROM chips WHERE guild_id = $1"
                            " AND user_id = ANY($2::bigint[])", guild_id, list(wanted))
    return below_stake(wanted, {row["user_id"]: row["balance"] for row in rows}, stake)


async def chips_leaderboard(conn: asyncpg.Connection, guild_id: int, offset: int,
                            limit: int) -> list[ChipsRow]:
    rows = await conn.fetch(f"{_CHIPS} ORDER BY {CHIPS_ORDER} LIMIT $2 OFFSET $3",
                            guild_id, limit, offset)
    return [ChipsRow(offset + n, row["user_id"], row["name"], row["balance"])
            for n, row in enumerate(rows, 1)]


async def chips_board_size(conn: asyncpg.Connection, guild_id: int) -> int:
    return int(await conn.fetchval("SELECT COUNT(*) FROM chips WHERE guild_id = $1",
                                   guild_id))


async def chips_rank_of(conn: asyncpg.Connection, guild_id: int,
                        user_id: int) -> ChipsRow | None:
    row = await conn.fetchrow(f"SELECT {CHIPS_COLUMNS}, {CHIPS_RANK} AS rank"
                              f" FROM {CHIPS_FROM} WHERE c.guild_id = $1 AND c.user_id = $2",
                              guild_id, user_id)
    return (None if row is None
            else ChipsRow(int(row["rank"]), row["user_id"], row["name"], row["balance"]))
