"""PostgreSQL's migrations: the numbered files of ``migrations_pg/``, applied at open.

The same numbered changes as SQLite's ``migrations/`` (``migrate.py`` says what each
one does), in PostgreSQL's dialect, loaded by the same ``load_migrations``. The schema
version is the one row of ``schema_version`` (SQLite keeps it in ``PRAGMA
user_version``); each migration runs in its own transaction with the version bump.

Several processes may start at once on one database: every transaction here first
takes a transaction-level advisory lock on a fixed key, so one process migrates and
the others, once it committed, find the work done.
"""

from __future__ import annotations

import logging
from collections.abc import Sequence
from typing import Final

import asyncpg  # type: ignore[import-untyped]  # asyncpg ships no type information

from bot.storage.migrate import load_migrations
from bot.storage.rows import MigrationFailed, SchemaTooNew, StorageBusy

log = logging.getLogger(__name__)

POSTGRES_FOLDER: Final = "migrations_pg"
PG_MIGRATIONS: Final[tuple[str, ...]] = load_migrations(POSTGRES_FOLDER)
"""PostgreSQL's migrations, in order: ``len(PG_MIGRATIONS)`` is the current version."""

MIGRATION_LOCK: Final = 0x63617264_6D696772  # "cardmigr": the advisory lock of migrating

_VERSION_TABLE = """
    CREATE TABLE IF NOT EXISTS schema_version (
        only_row BOOLEAN PRIMARY KEY DEFAULT TRUE CHECK (only_row),
        version  INTEGER NOT NULL
    );
    INSERT INTO schema_version (only_row, version) VALUES (TRUE, 0) ON CONFLICT DO NOTHING;
"""


async def schema_version(conn: asyncpg.Connection) -> int:
    """The number of migrations applied (0: a new database)."""
    exists = await conn.fetchval("SELECT to_regclass('schema_version') IS NOT NULL")
    if not exists:
        return 0
    return int(await conn.fetchval("SELECT version FROM schema_version") or 0)


async def migrate_postgres(conn: asyncpg.Connection, migrations: Sequence[str],
                           wait_s: float) -> None:
    """Apply the migrations the database lacks, each in its own transaction.

    ``SchemaTooNew`` when it has more than we know; ``MigrationFailed`` (that migration
    rolled back, the earlier ones kept) when one fails; ``StorageBusy`` when another
    process held the migration lock longer than ``wait_s``.
    """
    target = len(migrations)
    async with conn.transaction():
        await _lock(conn, wait_s)
        await conn.execute(_VERSION_TABLE)
        current = await schema_version(conn)
    if current > target:
        raise SchemaTooNew(f"The database is at schema version {current}, but this bot "
                           f"knows only {target}: it was written by a newer version.")
    for number in range(current + 1, target + 1):
        try:
            async with conn.transaction():
                await _lock(conn, wait_s)
                # Another process may have migrated while we waited for the lock.
                if await schema_version(conn) < number:
                    await conn.execute(migrations[number - 1])
                    await conn.execute("UPDATE schema_version SET version = $1", number)
                    log.info("storage: PostgreSQL schema migrated to version %d", number)
        except StorageBusy:
            raise
        except Exception as error:
            raise MigrationFailed(number, error) from error


async def _lock(conn: asyncpg.Connection, wait_s: float) -> None:
    """The migration lock, for this transaction; waits at most ``wait_s``."""
    await conn.execute(f"SET LOCAL lock_timeout = {max(1, int(wait_s * 1000)):d}")
    await conn.execute("SET LOCAL statement_timeout = 0")  # a migration may take its time
    try:
        await conn.execute("SELECT pg_advisory_xact_lock($1)", MIGRATION_LOCK)
    except asyncpg.exceptions.LockNotAvailableError:
        raise StorageBusy(f"Another process kept migrating the database for over "
                          f"{wait_s:.1f} s.") from None
