"""Who reads which language: an interaction's user, a table's channel, a DM's recipient.

``Readers`` remembers the language of each user's Discord client, as their
latest interaction said (``interaction.locale``), in memory and in storage, so
a DM to them (their hand, their turn) is written in it even after a restart.
``heard`` is called as each interaction arrives: from then on, the task that
handles it speaks its user's language (``locales.use``).

Memory holds the languages of at most ``size`` users, the least recently used
forgotten first (every user who ever clicked would otherwise stay for the life of the
process); storage keeps them all. A user who is not in memory (forgotten, or beyond
``size`` at start) gets the message at hand in English, and their language is read
back from storage in the background for the next one. Storage has no query for one
user, so misses are gathered and each batch reads the table once, at most once per
``recall_pause`` seconds.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections import OrderedDict

import discord

import locales
from bot.storage import Store

log = logging.getLogger(__name__)


# Users whose language is kept in memory: about 100 bytes each (5 MB), far more than the
# players of all the live tables of one process, so a forgotten one is rare.
SIZE = 50_000
RECALL_PAUSE = 30.0  # seconds between two reads of every language (misses, batched)


class Readers:
    def __init__(self, store: Store | None = None, size: int = SIZE,
                 recall_pause: float = RECALL_PAUSE):
        if size < 1:
            raise ValueError("Readers keep at least one user")
        self._store = store
        self.size = size
        self.recall_pause = recall_pause
        self._known: OrderedDict[int, str] = OrderedDict()  # least recently used first
        self._saving: set[asyncio.Task[None]] = set()
        self._missed: set[int] = set()  # told in English for want of their language
        self._recalling: asyncio.Task[None] | None = None
        self._last_read = -float("inf")  # when storage was last read for misses (loop time)

    def __len__(self) -> int:
        return len(self._known)

    async def load(self, store: Store) -> None:
        self._store = store
        self._known.clear()
        for user, language in (await store.user_languages()).items():
            if language in locales.LANGUAGES:
                self._remember(user, language)

    def of(self, user_id: int) -> str:
        """The language a message to ``user_id`` is written in (English until they spoke,
        and while their language is being read back from storage)."""
        language = self._known.get(user_id)
        if language is not None:
            self._known.move_to_end(user_id)
            return language
        self._recall(user_id)
        return locales.ENGLISH

    def heard(self, interaction: discord.Interaction) -> str:
        """The interaction's language, spoken by its task from now on and remembered."""
        language = locales.language_of(interaction.locale)
        locales.use(language)
        user = interaction.user.id
        self._missed.discard(user)  # (heard: nothing to read back)
        known = self._known.get(user)
        self._remember(user, language)
        if known != language and self._store is not None:
            # Saved beside the answer, never delaying it. (A user forgotten from memory
            # is saved again: the same row, and rare.)
            task = asyncio.create_task(self._save(user, language))
            self._saving.add(task)
            task.add_done_callback(self._saving.discard)
        return language

    def _remember(self, user_id: int, language: str) -> None:
        self._known[user_id] = language
        self._known.move_to_end(user_id)
        while len(self._known) > self.size:
            self._known.popitem(last=False)  # the least recently used

    def _recall(self, user_id: int) -> None:
        """Read ``user_id``'s language back from storage, in the background."""
        if self._store is None:
            return
        self._missed.add(user_id)
        if self._recalling is None or self._recalling.done():
            try:
                self._recalling = asyncio.get_running_loop().create_task(self._recall_missed())
            except RuntimeError:  # no loop (a drawing outside the bot): nothing to read
                self._missed.discard(user_id)

    async def _recall_missed(self) -> None:
        loop = asyncio.get_running_loop()
        while self._missed and self._store is not None:
            wait = self._last_read + self.recall_pause - loop.time()
            if wait > 0:
                await asyncio.sleep(wait)  # one read at most this often
            self._last_read = loop.time()
            wanted, self._missed = self._missed, set()
            try:
                stored = await self._store.user_languages()
            except Exception as error:  # English until they speak again: no harm
                log.warning("cannot read back the language of %d users: %s", len(wanted),
                            error)
            else:
                for user in wanted:
                    language = stored.get(user)
                    if language in locales.LANGUAGES and user not in self._known:
                        self._remember(user, str(language))

    async def _save(self, user_id: int, language: str) -> None:
        assert self._store is not None
        try:
            await self._store.remember_language(user_id, language)
        except Exception as error:  # a DM in the old language until next time: no harm
            log.warning("cannot remember the language of user %s: %s", user_id, error)

    async def close(self) -> None:
        """Let the saves in flight finish (at shutdown, before storage closes); a read
        back still waiting is dropped."""
        if self._recalling is not None and not self._recalling.done():
            self._recalling.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._recalling
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
