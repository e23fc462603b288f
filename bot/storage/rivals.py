"""Head-to-head, winning streaks and rating history: their rows, the SQL both backends
read alike, and what is worked out from it.

* ``head_to_head``: two players' completed games together, per game: how many, each
  one's wins (``results.won``) and points, and who placed higher how often.
* ``games_together``: those games themselves, newest first, as ``history`` lists games
  (``GameSummary``), to page through and to show the ones the asker may see.
* ``streaks``: a player's current and longest run of completed games won, per game, in
  the order the games ended (``longest_streaks``, pure).
* ``rating_history``: a player's rating after each rated game of a game, oldest first:
  the rows of ``rating_history`` (migration 0011), written by the backends' ``_rate`` in
  the very transaction that changes the rating, so the line and the leaderboard never
  disagree. Games rated before that migration have no row.

Stopped games count for nothing here, as everywhere (``results.is_counted``). Each
backend runs the SQL with its own parameter marks (``rivals_sqlite``,
``rivals_postgres``); ``mark(n)`` writes the n-th parameter (from 1), and the marks
appear in the text in their order (SQLite's ``?`` are numbered by where they stand).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from bot.storage.values import Row

HISTORY_LIMIT = 1000
"""At most this many points of a rating history are read (the latest): a line of more
than one per pixel of the picture shows nothing more."""

Mark = Callable[[int], str]


@dataclass(frozen=True)
class HeadToHead:
    """Two players' completed games of one game together (``Store.head_to_head``):
    the first numbers are the player's, ``other_…`` the opponent's."""

    game: str
    games: int
    wins: int
    other_wins: int
    points: int
    other_points: int
    ahead: int  # games the player placed higher than the opponent
    behind: int  # games the opponent placed higher

    @property
    def level(self) -> int:
        """Games they shared a place in."""
        return self.games - self.ahead - self.behind


@dataclass(frozen=True)
class Streak:
    """A player's runs of completed games won, in one game (``Store.streaks``)."""

    game: str
    current: int  # the games won since their last game not won (0: they lost the last)
    longest: int


@dataclass(frozen=True)
class RatingPoint:
    """A player's rating right after one rated game (``Store.rating_history``)."""

    game_id: int
    ended_at: datetime
    mu: float
    sigma: float
    ordinal: float  # what the leaderboard shows and sorts by


def _filters(mark: Mark, first: int, guild_id: int | None, game: str | None
             ) -> tuple[str, list[Any]]:
    """`` AND …`` for a server and a game over ``games AS g``, and their parameters (from
    parameter ``first``)."""
    sql, params = "", []
    for column, value in (("guild_id", guild_id), ("game", game)):
        if value is not None:
            params.append(value)
            sql += f" AND g.{column} = {mark(first + len(params) - 1)}"
    return sql, params


def head_to_head_sql(mark: Mark, user_id: int, other_id: int, guild_id: int | None,
                     game: str | None) -> tuple[str, list[Any]]:
    # CASE, not SUM(won): SQLite keeps booleans as 0/1, PostgreSQL as BOOLEAN.
    where, params = _filters(mark, 3, guild_id, game)
    return (f"""
        SELECT g.game AS game, COUNT(*) AS games,
               SUM(CASE WHEN a.won THEN 1 ELSE 0 END) AS wins,
               SUM(CASE WHEN b.won THEN 1 ELSE 0 END) AS other_wins,
               SUM(a.points) AS points, SUM(b.points) AS other_points,
               SUM(CASE WHEN a.place < b.place THEN 1 ELSE 0 END) AS ahead,
               SUM(CASE WHEN a.place > b.place THEN 1 ELSE 0 END) AS behind
        FROM results AS a
        JOIN results AS b ON b.game_id = a.game_id
        JOIN games AS g ON g.game_id = a.game_id
        WHERE a.user_id = {mark(1)} AND b.user_id = {mark(2)} AND g.completed{where}
        GROUP BY g.game ORDER BY g.game""", [user_id, other_id, *params])


def games_together_sql(mark: Mark, user_id: int, other_id: int, guild_id: int | None,
                       game: str | None, limit: int, before: int | None
                       ) -> tuple[str, list[Any]]:
    """The games (newest first, ``history``'s columns) both played, read along the first
    player's ``results_user`` index."""
    where, params = _filters(mark, 3, guild_id, game)
    if before is not None:
        params.append(before)
        where += f" AND a.game_id < {mark(2 + len(params))}"
    params.append(limit)
    return (f"""
        SELECT g.game_id, g.game, g.guild_id, g.channel_id, g.started_at, g.ended_at,
               g.completed, g.rated
        FROM results AS a
        JOIN results AS b ON b.game_id = a.game_id
        JOIN games AS g ON g.game_id = a.game_id
        WHERE a.user_id = {mark(1)} AND b.user_id = {mark(2)} AND g.completed{where}
        ORDER BY a.game_id DESC LIMIT {mark(2 + len(params))}""",
            [user_id, other_id, *params])


def wins_sql(mark: Mark, user_id: int, guild_id: int | None, game: str | None
             ) -> tuple[str, list[Any]]:
    """Whether the player won each of their completed games, per game in the order the
    games ended (ties on the end time by game id)."""
    where, params = _filters(mark, 2, guild_id, game)
    return (f"""
        SELECT g.game AS game, r.won AS won
        FROM results AS r JOIN games AS g ON g.game_id = r.game_id
        WHERE r.user_id = {mark(1)} AND g.completed{where}
        ORDER BY g.game, g.ended_at, g.game_id""", [user_id, *params])


def rating_history_sql(mark: Mark, scope: int, game: str, user_id: int, limit: int
                       ) -> tuple[str, list[Any]]:
    """The latest ``limit`` points, newest first (along the table's primary key)."""
    return (f"""
        SELECT h.game_id, g.ended_at, h.mu, h.sigma, h.ordinal
        FROM rating_history AS h JOIN games AS g ON g.game_id = h.game_id
        WHERE h.scope = {mark(1)} AND h.game = {mark(2)} AND h.user_id = {mark(3)}
        ORDER BY h.game_id DESC LIMIT {mark(4)}""", [scope, game, user_id, limit])


def head_to_head_row(row: Row) -> HeadToHead:
    # int(): PostgreSQL's SUM of a BIGINT is a NUMERIC (a Decimal in Python).
    return HeadToHead(row["game"], int(row["games"]), int(row["wins"]),
                      int(row["other_wins"]), int(row["points"]), int(row["other_points"]),
                      int(row["ahead"]), int(row["behind"]))


def longest_streaks(rows: Iterable[Row]) -> list[Streak]:
    """Each game's current and longest winning streak from ``wins_sql``'s rows (a game's
    rows together, in the order its games ended)."""
    runs: dict[str, tuple[int, int]] = {}  # game -> (current, longest)
    for row in rows:
        current, longest = runs.get(row["game"], (0, 0))
        current = current + 1 if row["won"] else 0
        runs[row["game"]] = (current, max(longest, current))
    return [Streak(game, current, longest) for game, (current, longest) in runs.items()]


def rating_points(rows: Iterable[Row], read_time: Callable[[Any], datetime]
                  ) -> list[RatingPoint]:
    """``rating_history_sql``'s rows (newest first) as points, oldest first."""
    return [RatingPoint(int(r["game_id"]), read_time(r["ended_at"]), float(r["mu"]),
                        float(r["sigma"]), float(r["ordinal"])) for r in reversed(list(rows))]
