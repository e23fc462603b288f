"""bot.ui.languages.Readers: the language of each user's DMs, kept in memory for at most
``size`` users (the least recently used forgotten first), read back from storage for a
user it no longer holds."""

from __future__ import annotations

import asyncio
import contextvars
from types import SimpleNamespace
from typing import Any, cast

import discord
import pytest

import locales
from bot.storage import Store
from bot.ui.languages import SIZE, Readers


class Languages:
    """A store's user_languages table (what ``Readers`` asks of storage)."""

    def __init__(self, rows: dict[int, str] | None = None, broken: bool = False) -> None:
        self.rows = dict(rows or {})
        self.broken = broken
        self.reads = 0

    async def user_languages(self) -> dict[int, str]:
        self.reads += 1
        if self.broken:
            raise RuntimeError("database is locked")
        return dict(self.rows)

    async def remember_language(self, user_id: int, language: str) -> None:
        self.rows[user_id] = language


def interaction(user_id: int, locale: str) -> discord.Interaction:
    return cast(discord.Interaction, SimpleNamespace(
        locale=discord.Locale(locale), user=SimpleNamespace(id=user_id)))


def heard(readers: Readers, user_id: int, locale: str) -> str:
    # (heard sets the language of the task that handles the interaction: kept in a copy)
    return contextvars.copy_context().run(readers.heard, interaction(user_id, locale))


async def settled(readers: Readers) -> None:
    """Until the reads back and saves in flight are done."""
    for _ in range(20):
        await asyncio.sleep(0)


def store_of(languages: Languages) -> Store:
    return cast(Store, languages)


def test_the_default_bound_is_sensible() -> None:
    assert 10_000 <= SIZE <= 1_000_000
    with pytest.raises(ValueError):
        Readers(size=0)


async def test_memory_keeps_at_most_size_users_the_least_recently_used_go_first() -> None:
    readers = Readers(size=3)  # no store: nothing to read back
    for user in (1, 2, 3):
        heard(readers, user, "sv-SE")
    assert readers.of(1) == "sv"  # 1 is now the most recently used: 2 is the oldest
    heard(readers, 4, "da")
    assert len(readers) == 3
    assert readers.of(2) == locales.ENGLISH  # forgotten
    assert (readers.of(1), readers.of(3), readers.of(4)) == ("sv", "sv", "da")
    for user in range(100, 1100):  # a thousand more users: still three
        heard(readers, user, "ru")
    assert len(readers) == 3
    assert [readers.of(u) for u in (1097, 1098, 1099)] == ["ru", "ru", "ru"]


async def test_a_forgotten_user_is_read_back_from_storage_for_the_next_message() -> None:
    languages = Languages()
    readers = Readers(store_of(languages), size=2, recall_pause=0)
    heard(readers, 1, "sv-SE")
    heard(readers, 2, "da")
    heard(readers, 3, "ru")  # 1 is forgotten from memory, not from storage
    await settled(readers)
    assert languages.rows == {1: "sv", 2: "da", 3: "ru"}
    reads = languages.reads
    assert readers.of(1) == locales.ENGLISH  # the message at hand: English
    await settled(readers)
    assert languages.reads == reads + 1
    assert readers.of(1) == "sv" and len(readers) == 2  # back, and 2 forgotten for it
    # A user storage does not know stays English.
    assert readers.of(99) == locales.ENGLISH
    await settled(readers)
    assert readers.of(99) == locales.ENGLISH
    await readers.close()


async def test_start_up_keeps_at_most_size_users_and_reads_the_others_back() -> None:
    stored = {user: "sv" for user in range(10)} | {10: "xx"}  # (xx: no such catalogue)
    languages = Languages(stored)
    readers = Readers(size=4, recall_pause=0)
    await readers.load(store_of(languages))
    assert len(readers) == 4
    misses = [u for u in range(10) if readers.of(u) == locales.ENGLISH]
    assert len(misses) == 6
    await settled(readers)
    assert languages.reads == 2  # every miss gathered into one read back
    assert readers.of(misses[-1]) == "sv" and len(readers) == 4
    assert readers.of(10) == locales.ENGLISH
    await readers.close()


async def test_what_a_user_says_wins_over_an_older_language_read_back() -> None:
    languages = Languages({1: "sv"})
    readers = Readers(store_of(languages), size=2, recall_pause=0)
    assert readers.of(1) == locales.ENGLISH  # a read back starts
    heard(readers, 1, "da")  # meanwhile they click, in Danish
    await settled(readers)
    assert readers.of(1) == "da" and languages.rows[1] == "da"
    await readers.close()


async def test_storage_that_fails_leaves_english_and_a_warning(caplog: Any) -> None:
    readers = Readers(store_of(Languages(broken=True)), size=2, recall_pause=0)
    assert readers.of(5) == locales.ENGLISH
    await settled(readers)
    assert readers.of(5) == locales.ENGLISH
    assert "cannot read back the language of" in caplog.text
    await readers.close()


async def test_misses_read_storage_at_most_once_per_pause() -> None:
    languages = Languages({user: "ru" for user in range(5)})
    readers = Readers(store_of(languages), size=10, recall_pause=3600)
    readers.of(0)
    await settled(readers)
    assert languages.reads == 1 and readers.of(0) == "ru"
    readers.of(1)  # a miss after the first batch waits for the pause
    readers.of(2)
    await settled(readers)
    assert languages.reads == 1 and readers.of(1) == locales.ENGLISH
    await readers.close()  # (a read back still waiting is dropped at shutdown)
