"""Numbered schema migrations: found in a folder of ``.sql`` files, applied in order.

A folder (``migrations/`` holds SQLite's) has one file per schema change,
``NNNN_what.sql``, numbered from 0001 without gaps; file N brings a database from
version N - 1 to N. Another backend keeps its own dialect of the same numbered
changes in a folder of its own and loads it with ``load_migrations``. Never edit a
file that has shipped (a database it migrated must stay identical): add one.
SQLite's so far: 0001 the first schema; 0002 chips (balances per server, each
seat's net chips, whether a game moved any); 0003 ``ratings.rated_games`` (games
with AI seats count but are not rated); 0004 ``live_tables.posts``; 0005
``user_languages`` (what a DM to each user is written in); 0006 ``server_settings``
(each server's ``/settings``, a JSON object); 0007 one game per table (``games.table_id``
unique, after removing the twins a table recorded twice and taking back the counts and
chips they moved); 0010 seasons (``season_ratings`` per server and season, the seasons
whose end was posted, the reward roles the bot gave, the index of the rolling windows);
0011 ``rating_history`` (each player's rating after each rated game, per scope).

On SQLite the database's ``PRAGMA user_version`` is the number of migrations
applied, so an old file upgrades in place, each migration in its own transaction.
"""

from __future__ import annotations

import re
import sqlite3
from collections.abc import Sequence
from importlib import resources
from importlib.resources.abc import Traversable
from typing import Final

import aiosqlite

from bot.storage.rows import MigrationFailed, SchemaTooNew

SQLITE_FOLDER: Final = "migrations"
_FILE_NAME = re.compile(r"(\d{4})_[a-z0-9_]+\.sql")


def _folder(folder: str | Traversable) -> Traversable:
    return resources.files(__package__).joinpath(folder) if isinstance(folder, str) else folder


def migration_files(folder: str | Traversable = SQLITE_FOLDER) -> list[str]:
    """The migration file names of a folder, in order: a name is a folder of this
    package, or give the folder itself.

    ValueError unless they are numbered 1, 2, … N with no gap nor repeat.
    """
    names = sorted(entry.name for entry in _folder(folder).iterdir()
                   if entry.name.endswith(".sql"))
    for expected, name in enumerate(names, start=1):
        match = _FILE_NAME.fullmatch(name)
        if match is None or int(match.group(1)) != expected:
            raise ValueError(f"Migration {name!r} in {folder} should be numbered "
                             f"{expected:04d} (NNNN_what.sql, from 0001, no gaps).")
    if not names:
        raise ValueError(f"No migrations in {folder}.")
    return names


def load_migrations(folder: str | Traversable = SQLITE_FOLDER) -> tuple[str, ...]:
    """The texts of a folder's migrations, entry i bringing version i to i + 1."""
    base = _folder(folder)
    return tuple(base.joinpath(name).read_text(encoding="utf-8")
                 for name in migration_files(folder))


MIGRATIONS: Final[tuple[str, ...]] = load_migrations()
"""SQLite's migrations, in order: ``len(MIGRATIONS)`` is the current schema version."""


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


async def sqlite_user_version(conn: aiosqlite.Connection) -> int:
    rows = await conn.execute_fetchall("PRAGMA user_version")
    return int(next(iter(rows))[0])


async def migrate_sqlite(conn: aiosqlite.Connection, migrations: Sequence[str]) -> None:
    """Apply the migrations a SQLite database lacks, each in its own transaction.

    ``SchemaTooNew`` when the file has more than we know; ``MigrationFailed`` (that
    migration rolled back, the earlier ones kept) when one fails.
    """
    target = len(migrations)
    current = await sqlite_user_version(conn)
    if current > target:
        raise SchemaTooNew(f"The database is at schema version {current}, but this bot "
                           f"knows only {target}: it was written by a newer version.")
    for number in range(current + 1, target + 1):
        await conn.execute("BEGIN IMMEDIATE")
        try:
            # Another process may have migrated while we waited for the write lock.
            if await sqlite_user_version(conn) < number:
                for statement in split_statements(migrations[number - 1]):
                    await conn.execute(statement)
                await conn.execute(f"PRAGMA user_version = {number:d}")
            await conn.execute("COMMIT")
        except Exception as error:
            await conn.execute("ROLLBACK")
            raise MigrationFailed(number, error) from error
