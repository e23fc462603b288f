"""Checks and conversions (JSON, timestamps, rows) every backend applies alike.

Kept out of the backends so that SQLite and PostgreSQL refuse the same inputs, read
the same stored text alike and build the same rows from what their queries return
(any row that can be read by column name: ``sqlite3.Row``, ``asyncpg.Record``).
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable, Sequence
from datetime import UTC, datetime
from typing import Any, Protocol

from bot.storage.ratings import PROVISIONAL_GAMES
from bot.storage.rows import (
    GLOBAL_SCOPE,
    OWED_KINDS,
    CorruptTable,
    GameStats,
    GameSummary,
    LeaderboardRow,
    SeatResult,
    TableRow,
    WindowRow,
)


class Row(Protocol):
    """A database row read by column name."""

    def __getitem__(self, key: str, /) -> Any: ...


def to_json(value: Any) -> str:
    """The one JSON form stored (compact, UTF-8 as is)."""
    # allow_nan=False: NaN is not JSON, and another backend's JSON type would refuse it.
    return json.dumps(value, ensure_ascii=False, separators=(",", ":"), allow_nan=False)


def parse_object(raw: bytes | str) -> dict[str, Any]:
    """A stored JSON object; ValueError (or UnicodeDecodeError) for anything else."""
    # Read as bytes so that even invalid UTF-8 in one row is that row's problem only.
    data = json.loads(raw.decode("utf-8") if isinstance(raw, bytes) else raw)
    if not isinstance(data, dict):
        raise ValueError(f"the snapshot is a JSON {type(data).__name__}, not an object")
    return data


def parse_posts(raw: bytes | str | None) -> dict[str, Any] | None:
    """Stored posts, or None: they are only hints, so unreadable ones are simply absent."""
    if raw is None:
        return None
    try:
        return parse_object(raw)
    except (ValueError, TypeError):  # JSONDecodeError and UnicodeDecodeError are ValueErrors
        return None


def scope_key(guild_id: int | None) -> int:
    """The ratings scope of a server, or the global one for None."""
    return GLOBAL_SCOPE if guild_id is None else guild_id


def check_status(status: str, allowed: Sequence[str]) -> None:
    if status not in allowed:
        raise ValueError(f"Status must be one of {', '.join(allowed)}, not {status!r}.")


def check_owed(owed: str | None) -> None:
    if owed is not None and owed not in OWED_KINDS:
        raise ValueError(f"What a table owes is one of {', '.join(OWED_KINDS)}, not {owed!r}.")


def check_page(offset: int, limit: int) -> None:
    if offset < 0 or limit < 1:
        raise ValueError("A page needs offset >= 0 and limit >= 1.")


def win_rate(wins: int, games: int) -> float:
    return wins / games if games else 0.0


def as_utc(when: datetime) -> datetime:
    """The same moment as an aware UTC ``datetime``; a naive one is taken as UTC."""
    if when.tzinfo is None:
        return when.replace(tzinfo=UTC)
    return when.astimezone(UTC)


def time_text(when: datetime) -> str:
    """A timestamp as text (where a column has no time type): ISO 8601 in UTC, fixed
    width, so text order is time order. A naive ``datetime`` is taken as UTC."""
    return as_utc(when).isoformat(timespec="microseconds")


def text_time(text: str) -> datetime:
    return datetime.fromisoformat(text)


# ================================================================ rows


def table_from_row(row: Row, read_time: Callable[[Any], datetime]) -> TableRow | CorruptTable:
    """A live table from its row (``data`` and ``posts`` as stored text); an unreadable
    snapshot gives a ``CorruptTable``, unreadable posts only None."""
    posts = parse_posts(row["posts"])
    try:
        data = parse_object(row["data"])
        created, updated = read_time(row["created_at"]), read_time(row["updated_at"])
    except (ValueError, TypeError) as error:  # JSONDecodeError, UnicodeDecodeError are both
        return CorruptTable(row["table_id"], row["guild_id"], row["channel_id"], row["game"],
                            row["status"], row["version"], f"{type(error).__name__}: {error}",
                            posts)
    return TableRow(row["table_id"], row["guild_id"], row["channel_id"], row["game"],
                    row["status"], row["version"], data, created, updated, posts, row["owed"])


def history_filter(guild_id: int | None, channel_id: int | None, user_id: int | None,
                   game: str | None, before: int | None,
                   mark: Callable[[int], str]) -> tuple[str, list[Any]]:
    """The WHERE clause of ``history`` over ``games AS g`` and its parameters;
    ``mark(n)`` writes the n-th parameter (from 1) in the backend's dialect."""
    clauses, params = ["1 = 1"], []

    def add(clause: str, value: Any) -> None:
        params.append(value)
        clauses.append(clause.format(mark(len(params))))

    for column, value in (("guild_id", guild_id), ("channel_id", channel_id), ("game", game)):
        if value is not None:
            add(f"g.{column} = {{}}", value)
    if before is not None:
        add("g.game_id < {}", before)
    if user_id is not None:
        add("EXISTS (SELECT 1 FROM results AS r WHERE r.game_id = g.game_id"
            " AND r.user_id = {})", user_id)
    return " AND ".join(clauses), params


def results_of(games: str) -> str:
    """The seats of some games, in ``summaries``' order; ``games`` is the dialect's test of
    ``r.game_id`` (``IN (?, ?)``, ``= ANY($1::bigint[])``)."""
    return ("SELECT r.game_id, r.seat, r.user_id, COALESCE(u.name, r.name) AS name,"
            " r.points, r.place, r.won, r.chips"
            " FROM results AS r LEFT JOIN users AS u ON u.user_id = r.user_id"
            f" WHERE r.game_id {games} ORDER BY r.game_id, r.seat")


def summaries(games: Iterable[Row], results: Iterable[Row],
              read_time: Callable[[Any], datetime]) -> list[GameSummary]:
    """``history``'s answer from its games (newest first) and their seats' rows."""
    games = list(games)
    players: dict[int, list[SeatResult]] = {g["game_id"]: [] for g in games}
    for r in results:
        players[r["game_id"]].append(SeatResult(r["seat"], r["user_id"], r["name"],
                                                r["points"], r["place"], bool(r["won"]),
                                                r["chips"]))
    return [GameSummary(g["game_id"], g["game"], g["guild_id"], g["channel_id"],
                        read_time(g["started_at"]), read_time(g["ended_at"]),
                        bool(g["completed"]), bool(g["rated"]), tuple(players[g["game_id"]]))
            for g in games]


def board_row(row: Row, rank: int) -> LeaderboardRow:
    """A leaderboard row from the board query's columns (board_sql's) and its rank."""
    return LeaderboardRow(
        rank=int(rank), user_id=row["user_id"], name=row["name"], games=row["games"],
        wins=row["wins"], win_rate=win_rate(row["wins"], row["games"]),
        points=row["points"], mu=row["mu"], sigma=row["sigma"], ordinal=row["ordinal"],
        provisional=row["rated_games"] < PROVISIONAL_GAMES,
        rated_games=int(row["rated_games"]))


def window_row(row: Row) -> WindowRow:
    """A row of a window's board (``season_sql.WINDOW_PAGE``'s columns, with its rank)."""
    return WindowRow(rank=int(row["rank"]), user_id=row["user_id"], name=row["name"],
                     games=int(row["games"]), wins=int(row["wins"]),
                     win_rate=win_rate(int(row["wins"]), int(row["games"])),
                     points=int(row["points"]))


def stats_row(row: Row) -> GameStats:
    """One game's stats from the board query's columns, with ``rank`` and ``ranked``."""
    return GameStats(
        game=row["game"], games=row["games"], wins=row["wins"],
        win_rate=win_rate(row["wins"], row["games"]), points=row["points"], mu=row["mu"],
        sigma=row["sigma"], ordinal=row["ordinal"],
        provisional=row["rated_games"] < PROVISIONAL_GAMES, rank=int(row["rank"]),
        ranked_players=int(row["ranked"]), rated_games=int(row["rated_games"]))
