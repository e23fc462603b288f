"""Fixtures the storage tests share: a database file in a folder not made yet, and a
store open on it with a clock that ticks a second at every read."""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from bot.storage import SQLiteStorage, Storage
from tests.bot.clock import FakeClock


@pytest.fixture
def db_path(tmp_path: Path) -> Path:
    return tmp_path / "data" / "cardtable.db"


@pytest.fixture
async def store(db_path: Path) -> AsyncIterator[SQLiteStorage]:
    async with await Storage.open(db_path, clock=FakeClock()) as opened:
        yield opened
