"""Everything the bot keeps across a restart, behind one interface.

The rest of the bot depends only on ``Store`` (``interface.py``) and the plain rows
of ``rows.py``; ``SQLiteStorage`` (also exported as ``Storage``, ``sqlite.py``) is the
default backend, ``PostgresStorage`` (``postgres.py``) the one several processes share,
and ``open_storage`` the one place that picks a backend. What a finished game changes
(counts, ratings, chips) is ``results.py``; the schema is the numbered SQL files of
``migrations/`` (PostgreSQL's dialect: ``migrations_pg/``), applied at open.

What is kept:

* **live tables**: one row per table session (``TableRow``): its status
  (lobby → playing → finished / stopped), a version number for optimistic
  concurrency, the session's snapshot as JSON (``save_table`` writes only at the
  version the caller last saw), and its posts (where its messages are), written
  apart without a version (``save_posts``). At most one active table per channel.
* **finished games**: ``record_game`` stores a game's record (``records.md``) and
  one result per seat, and updates counts, ratings and chips as ``results.py`` says;
  at most one game per table. ``finish_table`` ends a table and records its game in
  one transaction: the table's final snapshot, its closing and the game are stored
  together or not at all.
* **leaderboards, stats, history, chips** read from those tables.
* **users** (the latest display name seen) and a small key/value **meta** store.
"""

from __future__ import annotations

from pathlib import Path

from bot.storage.interface import Store
from bot.storage.migrate import MIGRATIONS, load_migrations, migration_files, split_statements
from bot.storage.postgres import PostgresStorage
from bot.storage.postgres_migrate import PG_MIGRATIONS
from bot.storage.results import is_counted, is_rated, moves_chips
from bot.storage.rivals import HeadToHead, RatingPoint, Streak
from bot.storage.rows import (
    ACTIVE_STATUSES,
    CHANGE_KINDS,
    CLOSED_STATUSES,
    GLOBAL_SCOPE,
    OWED_KINDS,
    STARTING_CHIPS,
    STATUSES,
    ChannelBusy,
    ChipBalance,
    ChipsNotConserved,
    ChipsRow,
    CorruptTable,
    FinishedGame,
    GameStats,
    GameSummary,
    InvalidResult,
    LeaderboardRow,
    MigrationFailed,
    SchemaTooNew,
    SeatResult,
    StorageBusy,
    StorageError,
    StoreInfo,
    TableChange,
    TableExists,
    TableRow,
    VersionConflict,
)
from bot.storage.sqlite import DEFAULT_DATABASE_PATH, Clock, SQLiteStorage, utc_now
from bot.storage.tournaments import ACTIVE_TOURNAMENT, TournamentRow

Storage = SQLiteStorage
"""The default backend."""


async def open_storage(path: str | Path = DEFAULT_DATABASE_PATH, *,
                       url: str | None = None) -> Store:
    """The store the bot uses: the one place that picks a backend. ``url``
    (``DATABASE_URL``, postgresql://…) opens PostgreSQL; else SQLite at ``path``
    (``DATABASE_PATH``)."""
    if url:
        return await PostgresStorage.open(url)
    return await SQLiteStorage.open(path)


__all__ = [
    "ACTIVE_STATUSES", "ACTIVE_TOURNAMENT", "CHANGE_KINDS", "CLOSED_STATUSES",
    "DEFAULT_DATABASE_PATH",
    "GLOBAL_SCOPE", "MIGRATIONS", "OWED_KINDS", "PG_MIGRATIONS", "STARTING_CHIPS", "STATUSES",
    "ChannelBusy",
    "ChipBalance", "ChipsNotConserved", "ChipsRow", "Clock", "CorruptTable", "FinishedGame",
    "GameStats", "GameSummary", "HeadToHead", "InvalidResult", "LeaderboardRow",
    "MigrationFailed", "PostgresStorage", "RatingPoint", "SQLiteStorage", "SchemaTooNew",
    "SeatResult", "Storage", "StorageBusy", "StorageError", "Store", "StoreInfo", "Streak",
    "TableChange", "TableExists", "TableRow", "TournamentRow", "VersionConflict", "is_counted",
    "is_rated",
    "load_migrations", "migration_files", "moves_chips", "open_storage", "split_statements",
    "utc_now",
]
