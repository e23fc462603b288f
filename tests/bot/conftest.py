"""Fixtures the storage tests share.

``database`` is one test's empty database on each backend in turn (ids ``sqlite`` and
``postgres``): a SQLite file in a folder not made yet, or a fresh PostgreSQL database
of the session's throw-away server. ``store`` is a store open on it with a clock that
ticks a second at every read, so every test that takes ``store`` runs on both backends.
SQLite-only tests take ``db_path`` (and ``sqlite_store``) instead.
"""

from __future__ import annotations

import re
import sqlite3
from collections.abc import AsyncIterator, Sequence
from datetime import datetime
from pathlib import Path
from typing import Any

import asyncpg
import pytest

from bot.storage import (
    MIGRATIONS,
    PG_MIGRATIONS,
    PostgresStorage,
    SQLiteStorage,
    Storage,
    Store,
    rivals_postgres,
    rivals_sqlite,
)
from bot.storage.values import time_text
from testkit.clock import FakeClock

BACKENDS = ("sqlite", "postgres")


class Database:
    """One test's database on one backend: open stores on it, and touch it from outside
    (what an outside problem or an older bot looks like) in SQL both backends read alike:
    ``?`` for parameters, TRUE/FALSE for booleans, datetimes for times."""

    def __init__(self, backend: str, path: Path | None = None, url: str | None = None):
        self.backend = backend
        self.path = path
        self.url = url

    @property
    def migrations(self) -> tuple[str, ...]:
        """This backend's migrations, in order."""
        return MIGRATIONS if self.backend == "sqlite" else PG_MIGRATIONS

    async def open(self, **options: Any) -> Store:
        if self.backend == "sqlite":
            assert self.path is not None
            return await SQLiteStorage.open(self.path, **options)
        assert self.url is not None
        return await PostgresStorage.open(self.url, **options)

    async def raw(self, sql: str, params: Sequence[Any] = ()) -> list[tuple[Any, ...]]:
        """Run one statement on another connection; its rows as tuples."""
        if self.backend == "sqlite":
            assert self.path is not None
            values = [time_text(p) if isinstance(p, datetime) else p for p in params]
            conn = sqlite3.connect(self.path, timeout=5, isolation_level=None)
            try:
                return conn.execute(sql, values).fetchall()
            finally:
                conn.close()
        numbers = iter(range(1, len(params) + 1))
        sql = re.sub(r"\?", lambda _: f"${next(numbers)}", sql)
        conn = await asyncpg.connect(self.url)
        try:
            return [tuple(row) for row in await conn.fetch(sql, *params)]
        finally:
            await conn.close()


@pytest.fixture
def db_path(tmp_path: Path) -> Path:
    return tmp_path / "data" / "cardtable.db"


@pytest.fixture(params=BACKENDS)
def database(request: pytest.FixtureRequest, db_path: Path) -> Database:
    """An empty database on each backend (PostgreSQL's server starts only when asked)."""
    if request.param == "sqlite":
        return Database("sqlite", path=db_path)
    return Database("postgres", url=request.getfixturevalue("postgres_url"))


@pytest.fixture
async def store(database: Database) -> AsyncIterator[Store]:
    async with await database.open(clock=FakeClock()) as opened:
        yield opened


@pytest.fixture
def before_rating_history(monkeypatch: pytest.MonkeyPatch) -> None:
    """Games are recorded as a bot before migration 0011 recorded them: without the rating
    after each game (for a test that records games on an older schema, ``migrations=`` a
    prefix, which has no table for it)."""
    async def nothing(*args: Any) -> None:
        pass

    for backend in (rivals_sqlite, rivals_postgres):
        monkeypatch.setattr(backend, "write_history", nothing)


@pytest.fixture
async def sqlite_store(db_path: Path) -> AsyncIterator[SQLiteStorage]:
    """A store of the SQLite backend only (tests of what is SQLite's own)."""
    async with await Storage.open(db_path, clock=FakeClock()) as opened:
        yield opened
