"""Everything the bot keeps across a restart, and all of the project's SQL.

The rest of the bot depends only on ``Store`` (an abstract interface) and the
plain dataclasses below; ``SQLiteStorage`` (also exported as ``Storage``) is the
one backend today, over aiosqlite and one database file. A PostgreSQL backend
would be a second ``Store`` subclass with its own SQL, and nothing else changes.

What is kept:

* **live tables**: one row per table session (``TableRow``): its status
  (lobby → playing → finished / stopped), a version number for optimistic
  concurrency, and the session's whole snapshot as JSON. ``save_table`` writes
  only if the version is the one the caller last saw (``VersionConflict``
  otherwise); at most one table per channel is active (lobby or playing).
* **finished games**: ``record_game`` stores a game's record (``records.md``)
  and one result per seat; a completed game updates its human seats' counts
  (games, wins, points) in its server and in the global scope, and their
  ratings only when every seat is human (two or more); and (AttackJack, all
  seats human) the server's chips. AI seats are never counted nor rated.
* **leaderboards, stats, history, chips** read from those tables.
* **users** (the latest display name seen) and a small key/value **meta** store.

Schema changes are numbered migrations (``MIGRATIONS``), applied at ``open`` in
order, each in its own transaction; the database's ``PRAGMA user_version`` is
the number of migrations applied, so an old file upgrades in place.

Concurrency: one connection per ``SQLiteStorage``, with an ``asyncio.Lock`` so
that the statements of one transaction never interleave with another
coroutine's; WAL and a busy timeout let a second process (a restart that
overlaps the old one) wait instead of failing. Timestamps are aware UTC
``datetime`` objects (a naive one is taken as UTC).
"""

from __future__ import annotations

import asyncio
import json
import sqlite3
from abc import ABC, abstractmethod
from collections.abc import AsyncIterator, Callable, Iterable, Sequence
from contextlib import asynccontextmanager
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, Final, Self

import aiosqlite

from bot import ratings
from bot.ratings import Rating
from engine.core import RECORD_FORMAT

DEFAULT_DATABASE_PATH: Final = "data/cardtable.db"
STARTING_CHIPS: Final = 1000
"""AttackJack: every player's balance in a server before their first counted game."""
GLOBAL_SCOPE: Final = 0
"""The ratings scope of all servers together (a guild id is a snowflake, never 0)."""
ATTACKJACK: Final = "attackjack"

ACTIVE_STATUSES: Final = ("lobby", "playing")
CLOSED_STATUSES: Final = ("finished", "stopped")
STATUSES: Final = ACTIVE_STATUSES + CLOSED_STATUSES

Clock = Callable[[], datetime]


def utc_now() -> datetime:
    return datetime.now(UTC)


# ================================================================ errors


class StorageError(Exception):
    """Base of the errors this module raises on purpose."""


class VersionConflict(StorageError):
    """``save_table`` found another version than expected: someone saved in between.

    ``actual`` is the version in the database, or None when the table does not exist.
    """

    def __init__(self, table_id: str, expected: int, actual: int | None):
        where = "no such table" if actual is None else f"it is at version {actual}"
        super().__init__(f"Table {table_id!r}: expected version {expected}, but {where}.")
        self.table_id = table_id
        self.expected = expected
        self.actual = actual


class TableExists(StorageError):
    """``create_table`` with a table id that is already stored."""


class ChannelBusy(StorageError):
    """A channel already has an active table (lobby or playing): ``table_id``."""

    def __init__(self, channel_id: int, table_id: str | None):
        super().__init__(f"Channel {channel_id} already has an active table ({table_id}).")
        self.channel_id = channel_id
        self.table_id = table_id


class InvalidResult(StorageError, ValueError):
    """``record_game`` refused a game: nothing was written."""


class ChipsNotConserved(InvalidResult):
    """The net chips of a game's seats do not sum to 0."""


class SchemaTooNew(StorageError):
    """The database was written by a newer version of the bot (more migrations applied)."""


class MigrationFailed(StorageError):
    """A migration failed; it was rolled back and the database keeps its previous version."""

    def __init__(self, number: int, cause: Exception):
        super().__init__(f"Migration {number} failed and was rolled back: {cause}")
        self.number = number


# ================================================================ rows


@dataclass
class TableRow:
    """One live table. ``data`` is the session's snapshot (a JSON-safe dict)."""

    table_id: str
    guild_id: int
    channel_id: int
    game: str
    status: str = "lobby"
    version: int = 0
    data: dict[str, Any] = field(default_factory=dict)
    created_at: datetime | None = None  # set by the store
    updated_at: datetime | None = None  # set by the store


@dataclass(frozen=True)
class CorruptTable:
    """A stored table whose snapshot cannot be read; returned instead of raising."""

    table_id: str
    guild_id: int
    channel_id: int
    game: str
    status: str
    version: int
    error: str


@dataclass(frozen=True)
class SeatResult:
    """How one seat ended a game. ``user_id`` None = an AI seat (named by ``name``)."""

    seat: int
    user_id: int | None
    name: str
    points: int  # the seat's total (records.md ``totals``)
    place: int  # 0 = best, equal places shared (``Game.ranking()``)
    won: bool
    chips: int = 0  # AttackJack: net chips won (+) or lost (−); 0 elsewhere


@dataclass
class FinishedGame:
    """What ``record_game`` stores: a game that ended, completed or stopped.

    ``record`` is the game's record (``records.md``), as a dict or as JSON text
    (text is stored exactly as given).
    """

    guild_id: int
    channel_id: int
    game: str
    started_at: datetime
    ended_at: datetime
    completed: bool  # False: stopped early; stored, but counts for nothing
    record: dict[str, Any] | str
    seats: list[SeatResult]
    table_id: str | None = None


@dataclass(frozen=True)
class GameSummary:
    """A stored game as ``history`` lists it; ``players`` carry the latest names."""

    game_id: int
    game: str
    guild_id: int
    channel_id: int
    started_at: datetime
    ended_at: datetime
    completed: bool
    rated: bool
    players: tuple[SeatResult, ...]

    @property
    def when(self) -> datetime:
        return self.ended_at

    @property
    def winners(self) -> tuple[SeatResult, ...]:
        return tuple(p for p in self.players if p.won)


@dataclass(frozen=True)
class LeaderboardRow:
    """One player on a game's leaderboard (a server's or the global one)."""

    rank: int  # from 1; no two rows share a rank (ties broken by games, then user id)
    user_id: int
    name: str
    games: int
    wins: int
    win_rate: float
    points: int
    mu: float
    sigma: float
    ordinal: float
    provisional: bool  # fewer than ratings.PROVISIONAL_GAMES rated games


@dataclass(frozen=True)
class GameStats:
    """One player's numbers in one game and scope (``stats``)."""

    game: str
    games: int
    wins: int
    win_rate: float
    points: int
    mu: float
    sigma: float
    ordinal: float
    provisional: bool
    rank: int
    ranked_players: int  # how many players that leaderboard holds


@dataclass(frozen=True)
class ChipBalance:
    user_id: int
    balance: int


@dataclass(frozen=True)
class ChipsRow:
    rank: int
    user_id: int
    name: str
    balance: int


@dataclass(frozen=True)
class StoreInfo:
    """How the store is set up (for a start-up log line and for tests)."""

    backend: str
    location: str
    schema_version: int
    journal_mode: str
    foreign_keys: bool
    busy_timeout_ms: int


# ================================================================ the interface


class Store(ABC):
    """What the bot needs from storage; every backend implements all of it.

    Usable as an async context manager: ``async with await Storage.open(path) as s:``.
    """

    async def __aenter__(self) -> Self:
        return self

    async def __aexit__(self, *exc_info: object) -> None:
        await self.close()

    @abstractmethod
    async def close(self) -> None: ...

    @abstractmethod
    async def info(self) -> StoreInfo: ...

    # -- live tables ------------------------------------------------------

    @abstractmethod
    async def create_table(self, row: TableRow) -> TableRow:
        """Store a new table; the returned row has its timestamps.

        Raises ``TableExists`` for a known table id and ``ChannelBusy`` when the row
        is active and its channel already has an active table.
        """

    @abstractmethod
    async def save_table(self, table_id: str, status: str, data: dict[str, Any],
                         expected_version: int) -> int:
        """Write a table's status and snapshot if it is still at ``expected_version``.

        Returns the new version (``expected_version + 1``); raises ``VersionConflict``
        (nothing written) when the stored version differs or the table does not exist.
        """

    @abstractmethod
    async def close_table(self, table_id: str, status: str) -> int | None:
        """Mark a table ``finished`` or ``stopped`` whatever its version (an admin stop).

        Bumps the version so that a stale save fails; returns it (None: no such table).
        """

    @abstractmethod
    async def load_active_tables(self) -> list[TableRow | CorruptTable]:
        """Every table in lobby or playing, oldest first; unreadable ones as ``CorruptTable``."""

    @abstractmethod
    async def active_table_in_channel(self, channel_id: int) -> TableRow | CorruptTable | None:
        ...

    # -- meta and users ---------------------------------------------------

    @abstractmethod
    async def get_meta(self, key: str) -> str | None: ...

    @abstractmethod
    async def set_meta(self, key: str, value: str) -> None: ...

    @abstractmethod
    async def remember_user(self, user_id: int, name: str) -> None:
        """Keep ``name`` as the display name of ``user_id`` (the latest one wins)."""

    # -- finished games ---------------------------------------------------

    @abstractmethod
    async def record_game(self, finished: FinishedGame) -> int:
        """Store a finished game in one transaction and return its game id.

        Raises ``InvalidResult`` (``ChipsNotConserved``) without writing anything
        when the game does not add up.
        """

    @abstractmethod
    async def history(self, guild_id: int | None, channel_id: int | None = None,
                      user_id: int | None = None, game: str | None = None, limit: int = 10,
                      before: int | None = None) -> list[GameSummary]:
        """The latest games, newest first; ``before`` a game id to page back from.

        ``guild_id`` None: every server.
        """

    @abstractmethod
    async def game_record(self, game_id: int) -> dict[str, Any] | None: ...

    @abstractmethod
    async def game_record_json(self, game_id: int) -> str | None:
        """The record exactly as it was stored (byte for byte)."""

    # -- ratings ------------------------------------------------------------

    @abstractmethod
    async def leaderboard(self, game: str, guild_id: int | None, offset: int = 0,
                          limit: int = 10) -> list[LeaderboardRow]:
        """A page of a game's leaderboard; ``guild_id`` None = the global one."""

    @abstractmethod
    async def leaderboard_size(self, game: str, guild_id: int | None) -> int: ...

    @abstractmethod
    async def rank_of(self, game: str, guild_id: int | None,
                      user_id: int) -> LeaderboardRow | None: ...

    @abstractmethod
    async def stats(self, user_id: int, guild_id: int | None,
                    game: str | None = None) -> list[GameStats]:
        """A player's numbers per game they have a rating in (by game id)."""

    # -- chips ----------------------------------------------------------------

    @abstractmethod
    async def chips(self, guild_id: int, user_id: int) -> int: ...

    @abstractmethod
    async def check_stake(self, guild_id: int, user_ids: Iterable[int],
                          stake: int) -> list[ChipBalance]:
        """The users whose balance is below ``stake`` (in the order given)."""

    @abstractmethod
    async def chips_leaderboard(self, guild_id: int, offset: int = 0,
                                limit: int = 10) -> list[ChipsRow]: ...


# ================================================================ migrations

# Numbered schema migrations: entry i (from 0) brings the database from version i to
# i + 1. Never edit one that has shipped; append a new one.
MIGRATIONS: Final[tuple[str, ...]] = (
    # 1: the first schema.
    """
    CREATE TABLE meta (
        key   TEXT PRIMARY KEY,
        value TEXT NOT NULL
    );
    CREATE TABLE users (
        user_id    INTEGER PRIMARY KEY,
        name       TEXT NOT NULL,
        updated_at TEXT NOT NULL
    );
    CREATE TABLE live_tables (
        table_id   TEXT PRIMARY KEY,
        guild_id   INTEGER NOT NULL,
        channel_id INTEGER NOT NULL,
        game       TEXT NOT NULL,
        status     TEXT NOT NULL CHECK (status IN ('lobby', 'playing', 'finished', 'stopped')),
        version    INTEGER NOT NULL,
        data       TEXT NOT NULL,
        created_at TEXT NOT NULL,
        updated_at TEXT NOT NULL
    );
    -- One active table per channel, enforced by the database itself.
    CREATE UNIQUE INDEX live_tables_active_channel
        ON live_tables (channel_id) WHERE status IN ('lobby', 'playing');
    CREATE INDEX live_tables_status ON live_tables (status, created_at);
    CREATE TABLE games (
        game_id    INTEGER PRIMARY KEY AUTOINCREMENT,
        table_id   TEXT,
        guild_id   INTEGER NOT NULL,
        channel_id INTEGER NOT NULL,
        game       TEXT NOT NULL,
        started_at TEXT NOT NULL,
        ended_at   TEXT NOT NULL,
        completed  INTEGER NOT NULL CHECK (completed IN (0, 1)),
        rated      INTEGER NOT NULL CHECK (rated IN (0, 1)),
        record     TEXT NOT NULL
    );
    CREATE INDEX games_guild ON games (guild_id, game_id);
    CREATE INDEX games_channel ON games (channel_id, game_id);
    CREATE TABLE results (
        game_id INTEGER NOT NULL REFERENCES games (game_id) ON DELETE CASCADE,
        seat    INTEGER NOT NULL,
        user_id INTEGER REFERENCES users (user_id),
        name    TEXT NOT NULL,
        points  INTEGER NOT NULL,
        place   INTEGER NOT NULL,
        won     INTEGER NOT NULL CHECK (won IN (0, 1)),
        PRIMARY KEY (game_id, seat)
    );
    CREATE INDEX results_user ON results (user_id, game_id);
    CREATE TABLE ratings (
        scope   INTEGER NOT NULL,
        game    TEXT NOT NULL,
        user_id INTEGER NOT NULL REFERENCES users (user_id),
        mu      REAL NOT NULL,
        sigma   REAL NOT NULL,
        ordinal REAL NOT NULL,
        games   INTEGER NOT NULL,
        wins    INTEGER NOT NULL,
        points  INTEGER NOT NULL,
        PRIMARY KEY (scope, game, user_id)
    );
    CREATE INDEX ratings_board ON ratings (scope, game, ordinal DESC, games DESC, user_id);
    """,
    # 2: AttackJack chips: balances per server, each seat's net chips, and whether a
    # game moved chips (so that balances can be audited from the games).
    """
    CREATE TABLE chips (
        guild_id INTEGER NOT NULL,
        user_id  INTEGER NOT NULL REFERENCES users (user_id),
        balance  INTEGER NOT NULL,
        PRIMARY KEY (guild_id, user_id)
    );
    CREATE INDEX chips_board ON chips (guild_id, balance DESC, user_id);
    ALTER TABLE results ADD COLUMN chips INTEGER NOT NULL DEFAULT 0;
    ALTER TABLE games ADD COLUMN chips_applied INTEGER NOT NULL DEFAULT 0;
    """,
    # 3: games with AI seats count (games, wins, points) but are not rated, so
    # "provisional" needs the rated games apart; every game counted so far was rated.
    """
    ALTER TABLE ratings ADD COLUMN rated_games INTEGER NOT NULL DEFAULT 0;
    UPDATE ratings SET rated_games = games;
    """,
)


def split_statements(script: str) -> list[str]:
    """A migration script cut into statements (SQLite's own parser decides where one ends)."""
    statements: list[str] = []
    buffer = ""
    for piece in script.split(";"):
        buffer += piece + ";"
        if sqlite3.complete_statement(buffer):
            if _has_sql(buffer):
                statements.append(buffer.strip())
            buffer = ""
    if _has_sql(buffer.removesuffix(";")):
        raise ValueError(f"Incomplete SQL statement at the end of a migration: {buffer!r}")
    return statements


def _has_sql(text: str) -> bool:
    lines = (line.split("--", 1)[0] for line in text.splitlines())
    return any(line.strip(" \t;") for line in lines)


async def _user_version(conn: aiosqlite.Connection) -> int:
    rows = await conn.execute_fetchall("PRAGMA user_version")
    return int(next(iter(rows))[0])


async def _migrate(conn: aiosqlite.Connection, migrations: Sequence[str]) -> None:
    """Apply the migrations the database lacks, each in its own transaction."""
    target = len(migrations)
    current = await _user_version(conn)
    if current > target:
        raise SchemaTooNew(f"The database is at schema version {current}, but this bot "
                           f"knows only {target}: it was written by a newer version.")
    for number in range(current + 1, target + 1):
        await conn.execute("BEGIN IMMEDIATE")
        try:
            # Another process may have migrated while we waited for the write lock.
            if await _user_version(conn) < number:
                for statement in split_statements(migrations[number - 1]):
                    await conn.execute(statement)
                await conn.execute(f"PRAGMA user_version = {number:d}")
            await conn.execute("COMMIT")
        except Exception as error:
            await conn.execute("ROLLBACK")
            raise MigrationFailed(number, error) from error


# ================================================================ value helpers


def _ts(when: datetime) -> str:
    """A timestamp as stored: ISO 8601 in UTC, fixed width, so text order is time order."""
    if when.tzinfo is None:
        when = when.replace(tzinfo=UTC)
    return when.astimezone(UTC).isoformat(timespec="microseconds")


def _dt(text: str) -> datetime:
    return datetime.fromisoformat(text)


def _json(value: Any) -> str:
    # allow_nan=False: NaN is not JSON, and another backend's JSON type would refuse it.
    return json.dumps(value, ensure_ascii=False, separators=(",", ":"), allow_nan=False)


def _scope(guild_id: int | None) -> int:
    return GLOBAL_SCOPE if guild_id is None else guild_id


def _check_status(status: str, allowed: Sequence[str]) -> None:
    if status not in allowed:
        raise ValueError(f"Status must be one of {', '.join(allowed)}, not {status!r}.")


def _check_page(offset: int, limit: int) -> None:
    if offset < 0 or limit < 1:
        raise ValueError("A page needs offset >= 0 and limit >= 1.")


def _win_rate(wins: int, games: int) -> float:
    return wins / games if games else 0.0


def _parse_snapshot(raw: bytes) -> dict[str, Any]:
    # Read as bytes so that even invalid UTF-8 in one row is that row's problem only.
    data = json.loads(raw.decode("utf-8"))
    if not isinstance(data, dict):
        raise ValueError(f"the snapshot is a JSON {type(data).__name__}, not an object")
    return data


def _table_from_row(row: sqlite3.Row) -> TableRow | CorruptTable:
    try:
        data = _parse_snapshot(row["data"])
        created, updated = _dt(row["created_at"]), _dt(row["updated_at"])
    except (ValueError, TypeError) as error:  # JSONDecodeError, UnicodeDecodeError are both
        return CorruptTable(row["table_id"], row["guild_id"], row["channel_id"], row["game"],
                            row["status"], row["version"], f"{type(error).__name__}: {error}")
    return TableRow(row["table_id"], row["guild_id"], row["channel_id"], row["game"],
                    row["status"], row["version"], data, created, updated)


def _record_text(finished: FinishedGame) -> str:
    """The record's JSON text, checked against the game it claims to be."""
    record = finished.record
    if isinstance(record, str):
        text = record
        try:
            record = json.loads(text)
        except json.JSONDecodeError as error:
            raise InvalidResult(f"The record is not valid JSON: {error.msg}.") from None
    else:
        try:
            text = _json(record)
        except (TypeError, ValueError) as error:
            raise InvalidResult(f"The record is not JSON-safe: {error}.") from None
    if not isinstance(record, dict) or record.get("format") != RECORD_FORMAT:
        raise InvalidResult(f"The record's format must be {RECORD_FORMAT!r}.")
    if record.get("game") != finished.game:
        raise InvalidResult(f"The record is of {record.get('game')!r}, not {finished.game!r}.")
    if record.get("players") != len(finished.seats):
        raise InvalidResult("The record's player count differs from the number of seats.")
    return text


def _check_seats(finished: FinishedGame) -> None:
    seats = finished.seats
    if sorted(s.seat for s in seats) != list(range(len(seats))):
        raise InvalidResult("Seats must be numbered 0, 1, 2… once each.")
    humans = [s.user_id for s in seats if s.user_id is not None]
    if len(set(humans)) != len(humans):
        raise InvalidResult("A user cannot hold two seats of one game.")
    if any(s.place < 0 for s in seats):
        raise InvalidResult("A place cannot be negative.")
    if sum(s.chips for s in seats) != 0:
        raise ChipsNotConserved(
            f"The seats' net chips sum to {sum(s.chips for s in seats)}, not 0: "
            "chips are never created or lost.")
    if finished.game != ATTACKJACK and any(s.chips for s in seats):
        raise InvalidResult("Only AttackJack moves chips.")


def is_counted(finished: FinishedGame) -> bool:
    """The human seats' games, wins and points change for every completed game."""
    return finished.completed and any(s.user_id is not None for s in finished.seats)


def is_rated(finished: FinishedGame) -> bool:
    """Ratings change only for a completed game whose seats are all human (two or more):
    a game against AI seats says little about a person's skill against people."""
    humans = sum(1 for s in finished.seats if s.user_id is not None)
    return finished.completed and humans >= 2 and humans == len(finished.seats)


def moves_chips(finished: FinishedGame) -> bool:
    """Chips move only for a completed AttackJack game where every seat is human.

    AI seats hold no chips, so a game with one would create or destroy chips.
    """
    return (finished.completed and finished.game == ATTACKJACK
            and all(s.user_id is not None for s in finished.seats))


# ================================================================ SQL

_UPSERT_USER = """
    INSERT INTO users (user_id, name, updated_at) VALUES (?, ?, ?)
    ON CONFLICT (user_id) DO UPDATE SET name = excluded.name, updated_at = excluded.updated_at
"""

_TABLE_COLUMNS = """
    table_id, guild_id, channel_id, game, status, version,
    CAST(data AS BLOB) AS data, created_at, updated_at
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

# Every player of a scope with their rank in each game's leaderboard: the one ordering
# (ordinal, then more games, then the lower user id) is defined here only.
_BOARD = """
    SELECT r.game, r.user_id, COALESCE(u.name, '') AS name, r.games, r.wins, r.points,
           r.mu, r.sigma, r.ordinal, r.rated_games,
           ROW_NUMBER() OVER (PARTITION BY r.game
                              ORDER BY r.ordinal DESC, r.games DESC, r.user_id) AS rank,
           COUNT(*) OVER (PARTITION BY r.game) AS ranked
    FROM ratings AS r LEFT JOIN users AS u ON u.user_id = r.user_id
    WHERE r.scope = ?
"""
_BOARD_OF_GAME = f"SELECT * FROM ({_BOARD} AND r.game = ?)"

_CHIPS_BOARD = """
    SELECT c.user_id, COALESCE(u.name, '') AS name, c.balance,
           ROW_NUMBER() OVER (ORDER BY c.balance DESC, c.user_id) AS rank
    FROM chips AS c LEFT JOIN users AS u ON u.user_id = c.user_id
    WHERE c.guild_id = ?
"""

_RESULTS_OF = """
    SELECT r.game_id, r.seat, r.user_id, COALESCE(u.name, r.name) AS name,
           r.points, r.place, r.won, r.chips
    FROM results AS r LEFT JOIN users AS u ON u.user_id = r.user_id
    WHERE r.game_id IN ({marks})
    ORDER BY r.game_id, r.seat
"""


def _board_row(row: sqlite3.Row) -> LeaderboardRow:
    return LeaderboardRow(
        rank=row["rank"], user_id=row["user_id"], name=row["name"], games=row["games"],
        wins=row["wins"], win_rate=_win_rate(row["wins"], row["games"]),
        points=row["points"], mu=row["mu"], sigma=row["sigma"], ordinal=row["ordinal"],
        provisional=row["rated_games"] < ratings.PROVISIONAL_GAMES)


def _stats_row(row: sqlite3.Row) -> GameStats:
    return GameStats(
        game=row["game"], games=row["games"], wins=row["wins"],
        win_rate=_win_rate(row["wins"], row["games"]), points=row["points"], mu=row["mu"],
        sigma=row["sigma"], ordinal=row["ordinal"],
        provisional=row["rated_games"] < ratings.PROVISIONAL_GAMES, rank=row["rank"],
        ranked_players=row["ranked"])


# ================================================================ SQLite


class SQLiteStorage(Store):
    """The SQLite backend: ``await SQLiteStorage.open(path)``."""

    def __init__(self, conn: aiosqlite.Connection, location: str, clock: Clock):
        self._conn = conn
        self._location = location
        self._clock = clock
        self._lock = asyncio.Lock()
        self._closed = False

    @classmethod
    async def open(cls, path: str | Path = DEFAULT_DATABASE_PATH, *,
                   migrations: Sequence[str] = MIGRATIONS, clock: Clock = utc_now,
                   busy_timeout_ms: int = 5000) -> Self:
        """Open (creating the file and its folder if needed) and bring the schema up to date.

        ``migrations`` is for tests of the upgrade path: a prefix of ``MIGRATIONS``
        opens the database as an older bot would have left it.
        """
        location = str(path)
        if location != ":memory:":
            Path(location).parent.mkdir(parents=True, exist_ok=True)
        # isolation_level=None: no implicit transactions; every one is explicit below.
        conn = await aiosqlite.connect(location, isolation_level=None,
                                       timeout=busy_timeout_ms / 1000)
        try:
            conn.row_factory = sqlite3.Row
            await conn.execute(f"PRAGMA busy_timeout = {int(busy_timeout_ms):d}")
            await conn.execute("PRAGMA foreign_keys = ON")
            await conn.execute("PRAGMA journal_mode = WAL")
            # NORMAL is safe with WAL (a power cut may lose the last commits, never corrupt).
            await conn.execute("PRAGMA synchronous = NORMAL")
            await _migrate(conn, migrations)
        except BaseException:
            await conn.close()
            raise
        return cls(conn, location, clock)

    async def close(self) -> None:
        async with self._lock:
            if not self._closed:
                self._closed = True
                await self._conn.close()

    @asynccontextmanager
    async def _transaction(self, write: bool = True) -> AsyncIterator[aiosqlite.Connection]:
        """One transaction, alone on the connection. IMMEDIATE takes the write lock up front,
        so a writer never fails half-way on another process's lock."""
        async with self._lock:
            if self._closed:
                raise StorageError("The storage is closed.")
            conn = self._conn
            await conn.execute("BEGIN IMMEDIATE" if write else "BEGIN")
            try:
                yield conn
                await conn.execute("COMMIT")
            except BaseException:
                if conn.in_transaction:
                    await conn.execute("ROLLBACK")
                raise

    async def _fetch(self, sql: str, params: Sequence[Any] = ()) -> list[sqlite3.Row]:
        async with self._transaction(write=False) as conn:
            return list(await conn.execute_fetchall(sql, params))

    async def info(self) -> StoreInfo:
        async with self._transaction(write=False) as conn:
            values = {}
            for pragma in ("user_version", "journal_mode", "foreign_keys", "busy_timeout"):
                rows = await conn.execute_fetchall(f"PRAGMA {pragma}")
                values[pragma] = next(iter(rows))[0]
        return StoreInfo("sqlite", self._location, int(values["user_version"]),
                         str(values["journal_mode"]), bool(values["foreign_keys"]),
                         int(values["busy_timeout"]))

    # -- live tables ------------------------------------------------------

    async def create_table(self, row: TableRow) -> TableRow:
        _check_status(row.status, STATUSES)
        data = _json(row.data)
        now = _ts(self._clock())
        async with self._transaction() as conn:
            if await conn.execute_fetchall(
                    "SELECT 1 FROM live_tables WHERE table_id = ?", (row.table_id,)):
                raise TableExists(f"A table with id {row.table_id!r} already exists.")
            if row.status in ACTIVE_STATUSES:
                await self._check_channel_free(conn, row.channel_id)
            await conn.execute(
                "INSERT INTO live_tables (table_id, guild_id, channel_id, game, status, version,"
                " data, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
                (row.table_id, row.guild_id, row.channel_id, row.game, row.status, row.version,
                 data, now, now))
        return TableRow(row.table_id, row.guild_id, row.channel_id, row.game, row.status,
                        row.version, row.data, _dt(now), _dt(now))

    @staticmethod
    async def _check_channel_free(conn: aiosqlite.Connection, channel_id: int,
                                  except_table: str | None = None) -> None:
        rows = await conn.execute_fetchall(
            "SELECT table_id FROM live_tables WHERE channel_id = ?"
            " AND status IN ('lobby', 'playing') AND table_id IS NOT ?",
            (channel_id, except_table))
        if rows:
            raise ChannelBusy(channel_id, next(iter(rows))["table_id"])

    @staticmethod
    async def _channel_of(conn: aiosqlite.Connection, table_id: str) -> int | None:
        rows = await conn.execute_fetchall(
            "SELECT channel_id FROM live_tables WHERE table_id = ?", (table_id,))
        return next(iter(rows))["channel_id"] if rows else None

    async def save_table(self, table_id: str, status: str, data: dict[str, Any],
                         expected_version: int) -> int:
        _check_status(status, STATUSES)
        text = _json(data)  # refuse unserialisable data before touching the database
        now = _ts(self._clock())
        async with self._transaction() as conn:
            if status in ACTIVE_STATUSES:  # reopening a closed table must not double a channel
                await self._check_channel_free(conn, await self._channel_of(conn, table_id),
                                               except_table=table_id)
            cursor = await conn.execute(
                "UPDATE live_tables SET status = ?, data = ?, version = version + 1,"
                " updated_at = ? WHERE table_id = ? AND version = ?",
                (status, text, now, table_id, expected_version))
            if cursor.rowcount == 0:
                rows = await conn.execute_fetchall(
                    "SELECT version FROM live_tables WHERE table_id = ?", (table_id,))
                actual = next(iter(rows))["version"] if rows else None
                raise VersionConflict(table_id, expected_version, actual)
        return expected_version + 1

    async def close_table(self, table_id: str, status: str) -> int | None:
        _check_status(status, CLOSED_STATUSES)
        now = _ts(self._clock())
        async with self._transaction() as conn:
            await conn.execute(
                "UPDATE live_tables SET status = ?, version = version + 1, updated_at = ?"
                " WHERE table_id = ?", (status, now, table_id))
            rows = await conn.execute_fetchall(
                "SELECT version FROM live_tables WHERE table_id = ?", (table_id,))
        return next(iter(rows))["version"] if rows else None

    async def load_active_tables(self) -> list[TableRow | CorruptTable]:
        rows = await self._fetch(
            f"SELECT {_TABLE_COLUMNS} FROM live_tables WHERE status IN ('lobby', 'playing')"
            " ORDER BY created_at, table_id")
        return [_table_from_row(row) for row in rows]

    async def active_table_in_channel(self, channel_id: int) -> TableRow | CorruptTable | None:
        rows = await self._fetch(
            f"SELECT {_TABLE_COLUMNS} FROM live_tables"
            " WHERE channel_id = ? AND status IN ('lobby', 'playing')", (channel_id,))
        return _table_from_row(rows[0]) if rows else None

    # -- meta and users ---------------------------------------------------

    async def get_meta(self, key: str) -> str | None:
        rows = await self._fetch("SELECT value FROM meta WHERE key = ?", (key,))
        return rows[0]["value"] if rows else None

    async def set_meta(self, key: str, value: str) -> None:
        async with self._transaction() as conn:
            await conn.execute(
                "INSERT INTO meta (key, value) VALUES (?, ?)"
                " ON CONFLICT (key) DO UPDATE SET value = excluded.value", (key, value))

    async def remember_user(self, user_id: int, name: str) -> None:
        async with self._transaction() as conn:
            await conn.execute(_UPSERT_USER, (user_id, name, _ts(self._clock())))

    # -- finished games ---------------------------------------------------

    async def record_game(self, finished: FinishedGame) -> int:
        _check_seats(finished)
        record = _record_text(finished)
        seats = sorted(finished.seats, key=lambda s: s.seat)
        counted, rated = is_counted(finished), is_rated(finished)
        chips_move = moves_chips(finished)
        now = _ts(self._clock())
        async with self._transaction() as conn:
            for seat in seats:
                if seat.user_id is not None:
                    await conn.execute(_UPSERT_USER, (seat.user_id, seat.name, now))
            cursor = await conn.execute(
                "INSERT INTO games (table_id, guild_id, channel_id, game, started_at, ended_at,"
                " completed, rated, chips_applied, record) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                (finished.table_id, finished.guild_id, finished.channel_id, finished.game,
                 _ts(finished.started_at), _ts(finished.ended_at), int(finished.completed),
                 int(rated), int(chips_move), record))
            game_id = cursor.lastrowid
            assert game_id is not None
            await conn.executemany(
                "INSERT INTO results (game_id, seat, user_id, name, points, place, won, chips)"
                " VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
                [(game_id, s.seat, s.user_id, s.name, s.points, s.place, int(s.won), s.chips)
                 for s in seats])
            if counted:
                humans = [s for s in seats if s.user_id is not None]
                # dict.fromkeys: a game without a server (guild 0) is counted once, globally.
                for scope in dict.fromkeys((finished.guild_id, GLOBAL_SCOPE)):
                    if rated:
                        await self._rate(conn, scope, finished.game, humans)
                    else:
                        await self._count(conn, scope, finished.game, humans)
            if chips_move:
                await conn.executemany(_ADD_CHIPS, [
                    (finished.guild_id, s.user_id, STARTING_CHIPS + s.chips, s.chips)
                    for s in seats])
        return game_id

    @staticmethod
    async def _rate(conn: aiosqlite.Connection, scope: int, game: str,
                    humans: list[SeatResult]) -> None:
        """Rate the human seats of one game in one scope; AI seats are not rated, so the
        places are those among the humans."""
        marks = ", ".join("?" * len(humans))
        rows = await conn.execute_fetchall(
            f"SELECT user_id, mu, sigma FROM ratings WHERE scope = ? AND game = ?"
            f" AND user_id IN ({marks})", (scope, game, *(h.user_id for h in humans)))
        known = {row["user_id"]: Rating(row["mu"], row["sigma"]) for row in rows}
        before = [known.get(h.user_id) or ratings.default_rating() for h in humans]
        after = ratings.rate(before, [h.place for h in humans])
        await conn.executemany(_UPSERT_RATING, [
            (scope, game, h.user_id, new.mu, new.sigma, new.ordinal, int(h.won), h.points)
            for h, new in zip(humans, after, strict=True)])

    @staticmethod
    async def _count(conn: aiosqlite.Connection, scope: int, game: str,
                     humans: list[SeatResult]) -> None:
        """Count a game for the human seats without touching their ratings."""
        start = ratings.default_rating()
        await conn.executemany(_UPSERT_COUNTS, [
            (scope, game, h.user_id, start.mu, start.sigma, start.ordinal, int(h.won), h.points)
            for h in humans])

    async def history(self, guild_id: int | None, channel_id: int | None = None,
                      user_id: int | None = None, game: str | None = None, limit: int = 10,
                      before: int | None = None) -> list[GameSummary]:
        _check_page(0, limit)
        where, params = self._history_filter(guild_id, channel_id, user_id, game, before)
        async with self._transaction(write=False) as conn:
            games = list(await conn.execute_fetchall(
                "SELECT game_id, game, guild_id, channel_id, started_at, ended_at, completed,"
                f" rated FROM games AS g WHERE {where} ORDER BY game_id DESC LIMIT ?",
                (*params, limit)))
            results = list(await conn.execute_fetchall(
                _RESULTS_OF.format(marks=", ".join("?" * len(games))),
                [g["game_id"] for g in games])) if games else []
        players: dict[int, list[SeatResult]] = {g["game_id"]: [] for g in games}
        for r in results:
            players[r["game_id"]].append(SeatResult(r["seat"], r["user_id"], r["name"],
                                                    r["points"], r["place"], bool(r["won"]),
                                                    r["chips"]))
        return [GameSummary(g["game_id"], g["game"], g["guild_id"], g["channel_id"],
                            _dt(g["started_at"]), _dt(g["ended_at"]), bool(g["completed"]),
                            bool(g["rated"]), tuple(players[g["game_id"]])) for g in games]

    @staticmethod
    def _history_filter(guild_id: int | None, channel_id: int | None, user_id: int | None,
                        game: str | None, before: int | None) -> tuple[str, list[Any]]:
        clauses, params = ["1 = 1"], []
        for column, value in (("guild_id", guild_id), ("channel_id", channel_id),
                              ("game", game)):
            if value is not None:
                clauses.append(f"g.{column} = ?")
                params.append(value)
        if before is not None:
            clauses.append("g.game_id < ?")
            params.append(before)
        if user_id is not None:
            clauses.append("EXISTS (SELECT 1 FROM results AS r"
                           " WHERE r.game_id = g.game_id AND r.user_id = ?)")
            params.append(user_id)
        return " AND ".join(clauses), params

    async def game_record_json(self, game_id: int) -> str | None:
        rows = await self._fetch("SELECT record FROM games WHERE game_id = ?", (game_id,))
        return rows[0]["record"] if rows else None

    async def game_record(self, game_id: int) -> dict[str, Any] | None:
        text = await self.game_record_json(game_id)
        return None if text is None else json.loads(text)

    # -- ratings ------------------------------------------------------------

    async def leaderboard(self, game: str, guild_id: int | None, offset: int = 0,
                          limit: int = 10) -> list[LeaderboardRow]:
        _check_page(offset, limit)
        rows = await self._fetch(f"{_BOARD_OF_GAME} ORDER BY rank LIMIT ? OFFSET ?",
                                 (_scope(guild_id), game, limit, offset))
        return [_board_row(row) for row in rows]

    async def leaderboard_size(self, game: str, guild_id: int | None) -> int:
        rows = await self._fetch("SELECT COUNT(*) AS n FROM ratings WHERE scope = ? AND game = ?",
                                 (_scope(guild_id), game))
        return int(rows[0]["n"])

    async def rank_of(self, game: str, guild_id: int | None,
                      user_id: int) -> LeaderboardRow | None:
        rows = await self._fetch(f"{_BOARD_OF_GAME} WHERE user_id = ?",
                                 (_scope(guild_id), game, user_id))
        return _board_row(rows[0]) if rows else None

    async def stats(self, user_id: int, guild_id: int | None,
                    game: str | None = None) -> list[GameStats]:
        sql = f"SELECT * FROM ({_BOARD}) WHERE user_id = ?"
        params: list[Any] = [_scope(guild_id), user_id]
        if game is not None:
            sql += " AND game = ?"
            params.append(game)
        rows = await self._fetch(sql + " ORDER BY game", params)
        return [_stats_row(row) for row in rows]

    # -- chips ----------------------------------------------------------------

    async def chips(self, guild_id: int, user_id: int) -> int:
        rows = await self._fetch("SELECT balance FROM chips WHERE guild_id = ? AND user_id = ?",
                                 (guild_id, user_id))
        return int(rows[0]["balance"]) if rows else STARTING_CHIPS

    async def check_stake(self, guild_id: int, user_ids: Iterable[int],
                          stake: int) -> list[ChipBalance]:
        if stake < 0:
            raise ValueError("A stake cannot be negative.")
        wanted = list(dict.fromkeys(user_ids))  # unique, in the order given
        if not wanted:
            return []
        rows = await self._fetch(
            f"SELECT user_id, balance FROM chips WHERE guild_id = ?"
            f" AND user_id IN ({', '.join('?' * len(wanted))})", (guild_id, *wanted))
        balances = {row["user_id"]: row["balance"] for row in rows}
        return [ChipBalance(u, balances.get(u, STARTING_CHIPS)) for u in wanted
                if balances.get(u, STARTING_CHIPS) < stake]

    async def chips_leaderboard(self, guild_id: int, offset: int = 0,
                                limit: int = 10) -> list[ChipsRow]:
        _check_page(offset, limit)
        rows = await self._fetch(f"SELECT * FROM ({_CHIPS_BOARD}) ORDER BY rank LIMIT ? OFFSET ?",
                                 (guild_id, limit, offset))
        return [ChipsRow(row["rank"], row["user_id"], row["name"], row["balance"])
                for row in rows]


Storage = SQLiteStorage
"""The default backend."""


async def open_storage(path: str | Path = DEFAULT_DATABASE_PATH) -> Store:
    """The store the bot uses (``DATABASE_PATH``): the one place that picks a backend."""
    return await SQLiteStorage.open(path)
