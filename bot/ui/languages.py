"""Who reads which language: an interaction's user, a table's channel, a DM's recipient.

``Readers`` remembers the language of each user's Discord client, as their
latest interaction said (``interaction.locale``), in memory and in storage, so
a DM to them (their hand, their turn) is written in it even after a restart.
``heard`` is called as each interaction arrives: from then on, the task that
handles it speaks its user's language (``locales.use``).
"""

from __future__ import annotations

import asyncio
import logging

import discord

import locales
from bot.storage import Store

log = logging.getLogger(__name__)


class Readers:
    def __init__(self, store: Store | None = None):
        self._store = store
        self._known: dict[int, str] = {}
        self._saving: set[asyncio.Task[None]] = set()

    async def load(self, store: Store) -> None:
        self._store = store
        self._known = {user: language for user, language in
                       (await store.user_languages()).items() if language in locales.LANGUAGES}

    def of(self, user_id: int) -> str:
        """The language a message to ``user_id`` is written in (English until they spoke)."""
        return self._known.get(user_id, locales.ENGLISH)

    def heard(self, interaction: discord.Interaction) -> str:
        """The interaction's language, spoken by its task from now on and remembered."""
        language = locales.language_of(interaction.locale)
        locales.use(language)
        user = interaction.user.id
        if self._known.get(user) != language:
            self._known[user] = language
            if self._store is not None:  # saved beside the answer, never delaying it
                task = asyncio.create_task(self._save(user, language))
                self._saving.add(task)
                task.add_done_callback(self._saving.discard)
        return language

    async def _save(self, user_id: int, language: str) -> None:
        assert self._store is not None
        try:
            await self._store.remember_language(user_id, language)
        except Exception as error:  # a DM in the old language until next time: no harm
            log.warning("cannot remember the language of user %s: %s", user_id, error)

    async def close(self) -> None:
        """Let the saves in flight finish (at shutdown, before storage closes)."""
        if self._saving:
            await asyncio.wait(set(self._saving), timeout=5)


def table_language(interaction: discord.Interaction, chosen: str | None = None) -> str:
    """A new table's language: the one chosen at start, else the server's preferred
    locale (Community servers set it), else the opener's own."""
    if chosen in locales.LANGUAGES:
        return str(chosen)
    if interaction.guild_id is not None and interaction.guild_locale is not None:
        return locales.language_of(interaction.guild_locale)
    return locales.language_of(interaction.locale)
