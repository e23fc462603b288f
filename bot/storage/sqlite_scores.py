"""SQLite: finished games, ratings, leaderboards, chips and users, with their SQL.

Each function runs on a connection that ``SQLiteStorage`` holds in a transaction
for it, so the backend decides the transactions and this module only the
queries. What a finished game changes is decided in ``results.py``, and rows become
dataclasses in ``values.py``, as for PostgreSQL.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import aiosqlite

import bot.storage.rivals_sqlite as rivals
import bot.storage.sqlite_seasons as seasons
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
    board_row,
    history_filter,
    results_of,
    scope_key,
    stats_row,
    summaries,
    text_time,
    time_text,
)

UPSERT_USER = """
    INSERT INTO users (user_id, name, updated_at) VALUES (?, ?, ?)
    ON CONFLICT (user_id) DO UPDATE SET name = excluded.name, updated_at = excluded.updated_at
"""

_UPSERT_RATING = """
    INSERT INTO ratings (scope, game, user_id, mu, sigma, ordinal, games, wins, points,
                         rated_games)
    VALUES (?, ?, ?, ?, ?, ?, 1, ?, ?, 1)
    ON CONFLICT (scope, game, user_id) DO UPDATE SET
        mu = excluded.mu, sigma = excluded.sigma, ordinal = excluded.ordinal,
        games = ratings.games + 1, wins = ratings.wins + excluded.wins,
        points = ratings.points + excluded.points, rated_games = ratings.rated_games + 1
"""

# A counted, unrated game (AI seats): the counts move, the rating stays (or starts at
# the default, given as parameters).
_UPSERT_COUNTS = """
    INSERT INTO ratings (scope, game, user_id, mu, sigma, ordinal, games, wins, points,
                         rated_games)
    VALUES (?, ?, ?, ?, ?, ?, 1, ?, ?, 0)
    ON CONFLICT (scope, game, user_id) DO UPDATE SET
        games = ratings.games + 1, wins = ratings.wins + excluded.wins,
        points = ratings.points + excluded.points
"""

_ADD_CHIPS = """
    INSERT INTO chips (guild_id, user_id, balance) VALUES (?, ?, ?)
    ON CONFLICT (guild_id, user_id) DO UPDATE SET balance = chips.balance + ?
"""

# A scope's boards (one per game) and the chips boards: their order is board_sql's.
_BOARD = f"SELECT {BOARD_COLUMNS} FROM {BOARD_FROM} WHERE r.scope = ? AND r.game = ?"
_CHIPS = f"SELECT {CHIPS_COLUMNS} FROM {CHIPS_FROM} WHERE c.guild_id = ?"

_RESULTS_OF = results_of("IN ({marks})")  # (its marks: one ? per game)


# ================================================================ finished games


async def insert_game(conn: aiosqlite.Connection, finished: FinishedGame, record: str,
                      now: str) -> tuple[int, bool]:
    """Write a checked game (``results.check_seats``), its seats and all it changes; its
    game id and True. A game of a table that has one already writes nothing: the first
    one's id and False (``games.table_id`` is unique; the write lock the transaction
    holds keeps any other from recording it in between)."""
    seats = sorted(finished.seats, key=lambda s: s.seat)
    rated, chips_move = is_rated(finished), moves_chips(finished)
    humans = humans_of(finished)
    if finished.table_id is not None:
        rows = list(await conn.execute_fetchall(
            "SELECT game_id FROM games WHERE table_id = ?", (finished.table_id,)))
        if rows:
            return int(rows[0]["game_id"]), False
    await conn.executemany(UPSERT_USER, [(h.user_id, h.name, now) for h in humans])
    cursor = await conn.execute(
        "INSERT INTO games (table_id, guild_id, channel_id, game, started_at, ended_at,"
        " completed, rated, chips_applied, record) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
        (finished.table_id, finished.guild_id, finished.channel_id, finished.game,
         time_text(finished.started_at), time_text(finished.ended_at), int(finished.completed),
         int(rated), int(chips_move), record))
    game_id = cursor.lastrowid
    assert game_id is not None
    await conn.executemany(
        "INSERT INTO results (game_id, seat, user_id, name, points, place, won, chips)"
        " VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
        [(game_id, s.seat, s.user_id, s.name, s.points, s.place, int(s.won), s.chips)
         for s in seats])
    if is_counted(finished):
        for scope in scopes(finished):
            if rated:
                await _rate(conn, scope, finished.game, humans, game_id)
            else:
                await _count(conn, scope, finished.game, humans)
        if in_season(finished):  # after the all-time ratings (the lock order)
            await seasons.rate_season(conn, finished, humans)
    if chips_move:
        await conn.executemany(_ADD_CHIPS, [
            (finished.guild_id, s.user_id, STARTING_CHIPS + s.chips, s.chips) for s in seats])
    return game_id, True


async def _rate(conn: aiosqlite.Connection, scope: int, game: str,
                humans: list[SeatResult], game_id: int) -> None:
    """Rate the human seats of one game in one scope (``results.new_ratings``)."""
    marks = ", ".join("?" * len(humans))
    rows = await conn.execute_fetchall(
        f"SELECT user_id, mu, sigma FROM ratings WHERE scope = ? AND game = ?"
        f" AND user_id IN ({marks})", (scope, game, *(h.user_id for h in humans)))
    known = {row["user_id"]: Rating(row["mu"], row["sigma"]) for row in rows}
    after = new_ratings(known, humans)
    await conn.executemany(_UPSERT_RATING, [
        (scope, game, h.user_id, new.mu, new.sigma, new.ordinal, int(h.won), h.points)
        for h, new in zip(humans, after, strict=True)])
    # The line /stats draws: each rating after this game, in the same transaction.
    await rivals.write_history(conn, scope, game, game_id, humans, after)


async def _count(conn: aiosqlite.Connection, scope: int, game: str,
                 humans: list[SeatResult]) -> None:
    """Count a game for the human seats without touching their ratings."""
    start = default_rating()
    await conn.executemany(_UPSERT_COUNTS, [
        (scope, game, h.user_id, start.mu, start.sigma, start.ordinal, int(h.won), h.points)
        for h in humans])


async def history(conn: aiosqlite.Connection, guild_id: int | None, channel_id: int | None,
                  user_id: int | None, game: str | None, limit: int,
                  before: int | None) -> list[GameSummary]:
    where, params = history_filter(guild_id, channel_id, user_id, game, before,
                                   lambda n: "?")
    games = list(await conn.execute_fetchall(
        "SELECT game_id, game, guild_id, channel_id, started_at, ended_at, completed,"
        f" rated FROM games AS g WHERE {where} ORDER BY game_id DESC LIMIT ?",
        (*params, limit)))
    results = list(await conn.execute_fetchall(
        _RESULTS_OF.format(marks=", ".join("?" * len(games))),
        [g["game_id"] for g in games])) if games else []
    return summaries(games, results, text_time)


async def game_record_json(conn: aiosqlite.Connection, game_id: int) -> str | None:
    rows = list(await conn.execute_fetchall("SELECT record FROM games WHERE game_id = ?",
                                            (game_id,)))
    return rows[0]["record"] if rows else None


async def game_of_table(conn: aiosqlite.Connection, table_id: str) -> int | None:
    rows = list(await conn.execute_fetchall("SELECT game_id FROM games WHERE table_id = ?",
                                            (table_id,)))
    return int(rows[0]["game_id"]) if rows else None


# ================================================================ ratings


async def leaderboard(conn: aiosqlite.Connection, game: str, guild_id: int | None,
                      offset: int, limit: int) -> list[LeaderboardRow]:
    rows = await conn.execute_fetchall(f"{_BOARD} ORDER BY {BOARD_ORDER} LIMIT ? OFFSET ?",
                                       (scope_key(guild_id), game, limit, offset))
    return [board_row(row, offset + n) for n, row in enumerate(rows, 1)]


async def leaderboard_size(conn: aiosqlite.Connection, game: str, guild_id: int | None) -> int:
    rows = list(await conn.execute_fetchall(
        "SELECT COUNT(*) AS n FROM ratings WHERE scope = ? AND game = ?",
        (scope_key(guild_id), game)))
    return int(rows[0]["n"])


async def rank_of(conn: aiosqlite.Connection, game: str, guild_id: int | None,
                  user_id: int) -> LeaderboardRow | None:
    rows = list(await conn.execute_fetchall(
        f"SELECT {BOARD_COLUMNS}, {BOARD_RANK} AS rank FROM {BOARD_FROM}"
        " WHERE r.scope = ? AND r.game = ? AND r.user_id = ?",
        (scope_key(guild_id), game, user_id)))
    return board_row(rows[0], rows[0]["rank"]) if rows else None


async def stats(conn: aiosqlite.Connection, user_id: int, guild_id: int | None,
                game: str | None) -> list[GameStats]:
    sql = (f"SELECT {BOARD_COLUMNS}, {BOARD_RANK} AS rank, {BOARD_SIZE} AS ranked"
           f" FROM {BOARD_FROM} WHERE r.scope = ? AND r.user_id = ?")
    params: list[Any] = [scope_key(guild_id), user_id]
    if game is not None:
        sql += " AND r.game = ?"
        params.append(game)
    rows = await conn.execute_fetchall(sql + " ORDER BY r.game", params)
    return [stats_row(row) for row in rows]


# ================================================================ chips


async def chips(conn: aiosqlite.Connection, guild_id: int, user_id: int) -> int:
    rows = list(await conn.execute_fetchall(
        "SELECT balance FROM chips WHERE guild_id = ? AND user_id = ?", (guild_id, user_id)))
    return int(rows[0]["balance"]) if rows else STARTING_CHIPS


async def balances_below(conn: aiosqlite.Connection, guild_id: int, wanted: Sequence[int],
                         stake: int) -> list[ChipBalance]:
    """The users of ``wanted`` (unique, not empty) whose balance is below ``stake``."""
    rows = await conn.execute_fetchall(
        f"SELECT user_id, balance FROM chips WHERE guild_id = ?"
        f" AND user_id IN ({', '.join('?' * len(wanted))})", (guild_id, *wanted))
    return below_stake(wanted, {row["user_id"]: row["balance"] for row in rows}, stake)


async def chips_leaderboard(conn: aiosqlite.Connection, guild_id: int, offset: int,
                            limit: int) -> list[ChipsRow]:
    rows = await conn.execute_fetchall(f"{_CHIPS} ORDER BY {CHIPS_ORDER} LIMIT ? OFFSET ?",
                                       (guild_id, limit, offset))
    return [ChipsRow(offset + n, row["user_id"], row["name"], row["balance"])
            for n, row in enumerate(rows, 1)]


async def chips_board_size(conn: aiosqlite.Connection, guild_id: int) -> int:
    rows = list(await conn.execute_fetchall(
        "SELECT COUNT(*) AS n FROM chips WHERE guild_id = ?", (guild_id,)))
    return int(rows[0]["n"])


async def chips_rank_of(conn: aiosqlite.Connection, guild_id: int,
                        user_id: int) -> ChipsRow | None:
    rows = list(await conn.execute_fetchall(
        f"SELECT {CHIPS_COLUMNS}, {CHIPS_RANK} AS rank FROM {CHIPS_FROM}"
        " WHERE c.guild_id = ? AND c.user_id = ?", (guild_id, user_id)))
    return (ChipsRow(int(rows[0]["rank"]), rows[0]["user_id"], rows[0]["name"],
                     rows[0]["balance"]) if rows else None)
