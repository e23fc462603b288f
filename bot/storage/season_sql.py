"""The SQL of seasons, time windows and reward roles, written once for both backends.

Each statement is written with PostgreSQL's ``$n`` parameters; SQLite reads the same
text with its numbered ``?n`` (``sqlite_marks``). Booleans are read by truth (SQLite's
0/1, PostgreSQL's BOOLEAN), and sums are cast to BIGINT (PostgreSQL's SUM of a BIGINT is
a NUMERIC).

A **window's board** (``/leaderboard period: week|month``) is counted from the games
themselves: a server's completed games of one game that ended since a moment, per human
seat. It has no rating (a rating belongs to a player's whole history, not to a week of
it), so it ranks by what a window does measure: **wins** first (a window is a race, and a
win is what every game of it hands out), then **points** (how well the games went, which
separates equal wins), then **games** (at equal wins and points, whoever played more
stands ahead: being at the table is what a weekly board rewards), then the user id. The
rows are numbered with ``ROW_NUMBER`` over the window's aggregate: a window holds the
games of days, not of the server's whole history, and the index ``games_window`` finds
them.

A **season's board** is ``season_ratings``, ordered as the all-time boards
(``board_sql``): rating, then games, then user id, along ``season_ratings_board``.
"""

from __future__ import annotations

import re

from bot.storage.board_sql import BOARD_COLUMNS, BOARD_ORDER


def sqlite_marks(sql: str) -> str:
    """``$n`` parameters as SQLite's numbered ``?n``."""
    return re.sub(r"\$(\d+)", r"?\1", sql)


# ------------------------------------------------------------------ rolling windows

_WINDOW_GAMES = """
    FROM games AS g JOIN results AS r ON r.game_id = g.game_id
    WHERE g.guild_id = $1 AND g.game = $2 AND g.ended_at >= $3 AND g.completed
      AND r.user_id IS NOT NULL
"""
_WINDOW = f"""
    WITH w AS (
        SELECT r.user_id, COUNT(*) AS games,
               CAST(SUM(CASE WHEN r.won THEN 1 ELSE 0 END) AS BIGINT) AS wins,
               CAST(SUM(r.points) AS BIGINT) AS points
        {_WINDOW_GAMES}
        GROUP BY r.user_id),
    ranked AS (
        SELECT w.user_id, w.games, w.wins, w.points,
               ROW_NUMBER() OVER (ORDER BY w.wins DESC, w.points DESC, w.games DESC,
                                           w.user_id) AS rank
        FROM w)
    SELECT ranked.user_id, ranked.games, ranked.wins, ranked.points, ranked.rank,
           COALESCE(u.name, '') AS name
    FROM ranked LEFT JOIN users AS u ON u.user_id = ranked.user_id
"""
WINDOW_PAGE = _WINDOW + " ORDER BY ranked.rank LIMIT $4 OFFSET $5"
WINDOW_RANK = _WINDOW + " WHERE ranked.user_id = $4"
WINDOW_SIZE = f"SELECT COUNT(DISTINCT r.user_id) AS n {_WINDOW_GAMES}"

# ------------------------------------------------------------------ seasons' boards

_SEASON_FROM = "season_ratings AS r LEFT JOIN users AS u ON u.user_id = r.user_id"
_SEASON_BOARD = "r.guild_id = $1 AND r.season = $2 AND r.game = $3"
_SAME = "a.guild_id = r.guild_id AND a.season = r.season AND a.game = r.game"
_SEASON_RANK = f"""(
    (SELECT COUNT(*) FROM season_ratings AS a WHERE {_SAME} AND a.ordinal > r.ordinal)
  + (SELECT COUNT(*) FROM season_ratings AS a WHERE {_SAME} AND a.ordinal = r.ordinal
       AND a.games > r.games)
  + (SELECT COUNT(*) FROM season_ratings AS a WHERE {_SAME} AND a.ordinal = r.ordinal
       AND a.games = r.games AND a.user_id < r.user_id)
  + 1)"""

SEASON_PAGE = (f"SELECT {BOARD_COLUMNS} FROM {_SEASON_FROM} WHERE {_SEASON_BOARD}"
               f" ORDER BY {BOARD_ORDER} LIMIT $4 OFFSET $5")
SEASON_SIZE = ("SELECT COUNT(*) AS n FROM season_ratings"
               " WHERE guild_id = $1 AND season = $2 AND game = $3")
SEASON_RANK = (f"SELECT {BOARD_COLUMNS}, {_SEASON_RANK} AS rank FROM {_SEASON_FROM}"
               f" WHERE {_SEASON_BOARD} AND r.user_id = $4")
SEASON_GAMES = ("SELECT DISTINCT game FROM season_ratings WHERE guild_id = $1 AND season = $2"
                " ORDER BY game")
SEASON_LATEST = "SELECT MAX(season) AS season FROM season_ratings WHERE guild_id = $1"
# The last season number a server used, in its ratings or its posts (a new schedule's
# first season takes the next: competition.next_first).
LAST_SEASON = """
    SELECT MAX(season) AS season FROM (
        SELECT season FROM season_ratings WHERE guild_id = $1
        UNION ALL SELECT season FROM season_posts WHERE guild_id = $1) AS used
"""

# ------------------------------------------------------------------ seasons' ends

UNPOSTED = """
    SELECT DISTINCT s.season FROM season_ratings AS s
    WHERE s.guild_id = $1 AND s.season < $2 AND NOT EXISTS (
        SELECT 1 FROM season_posts AS p WHERE p.guild_id = s.guild_id AND p.season = s.season)
    ORDER BY s.season
"""
MARK_POSTED = """
    INSERT INTO season_posts (guild_id, season, posted_at) VALUES ($1, $2, $3)
    ON CONFLICT (guild_id, season) DO NOTHING
"""

# ------------------------------------------------------------------ reward roles

HOLDERS = "SELECT user_id FROM role_holders WHERE guild_id = $1 AND role_id = $2 ORDER BY user_id"
HOLD = """
    INSERT INTO role_holders (guild_id, role_id, user_id) VALUES ($1, $2, $3)
    ON CONFLICT (guild_id, role_id, user_id) DO NOTHING
"""
UNHOLD = "DELETE FROM role_holders WHERE guild_id = $1 AND role_id = $2 AND user_id = $3"
