"""The bot process: ``CardTableBot``, an ``AutoShardedBot`` without privileged intents.

``setup_hook`` (before the gateway connects): open storage, load the extensions
(each game's cog as the registry declares it, when its engine is present),
register the persistent components, restore the live tables, and sync the
slash commands only when the command tree changed since the last sync (its
hash is kept in storage's meta).
"""

from __future__ import annotations

import hashlib
import json
import logging
from typing import Any

import discord
from discord.ext import commands

from bot import views
from bot.ai import AIRunner
from bot.croupier import Croupier
from bot.games import GameUI
from bot.settings import Settings, Timing
from bot.storage import Store, open_storage
from bot.timers import Clock, SystemClock
from engine.registry import available_games, specs

log = logging.getLogger(__name__)

# The extensions every bot loads, beside each game's cog.
SHARED_EXTENSIONS = ("cogs.help", "cogs.leaderboard", "cogs.stats", "cogs.history")


def default_extensions() -> dict[str, str | None]:
    """Extension → the game whose engine it needs (None: always loaded)."""
    games: dict[str, str | None] = {s.cog: s.id for s in specs() if s.cog is not None}
    return {SHARED_EXTENSIONS[0]: None, **games,
            **{name: None for name in SHARED_EXTENSIONS[1:]}}


TREE_HASH_KEY = "command_tree_hash"


class CardTableBot(commands.AutoShardedBot):
    def __init__(self, settings: Settings, *, store: Store | None = None,
                 clock: Clock | None = None, timing: Timing | None = None,
                 extensions: dict[str, str | None] | None = None, seed: int | None = None,
                 ai: AIRunner | None = None, **options: Any):
        intents = discord.Intents.default()  # no members, presences or message content
        super().__init__(command_prefix=commands.when_mentioned, intents=intents,
                         help_command=None, **options)
        self.settings = settings
        self.timing = timing or settings.timing
        self.clock = clock or SystemClock()
        self._store: Store | None = store
        self._owns_store = store is None  # a store handed in (tests) is closed by its owner
        self.game_uis: dict[str, GameUI] = {}
        self._croupier: Croupier | None = None
        self.extensions_wanted = dict(default_extensions() if extensions is None
                                      else extensions)
        self.seed = seed  # tests: reproducible shuffles
        self.ai = ai  # tests: a cheap AI runner; None = the default (a worker process)
        self.synced = False  # whether this start-up pushed the command tree to Discord

    @property
    def store(self) -> Store:
        if self._store is None:
            raise RuntimeError("the bot's storage opens in setup_hook")
        return self._store

    @property
    def croupier(self) -> Croupier:
        if self._croupier is None:
            raise RuntimeError("the croupier starts in setup_hook")
        return self._croupier

    @property
    def is_set_up(self) -> bool:
        return self._croupier is not None

    async def setup_hook(self) -> None:
        if self._store is None:
            self._store = await open_storage(self.settings.database_path)
        self._croupier = Croupier(self, self._store, self.game_uis, self.timing, self.clock,
                                  seed=self.seed, ai=self.ai)
        self.add_dynamic_items(*views.DYNAMIC_ITEMS)
        present = set(available_games())
        for extension, game in self.extensions_wanted.items():
            if game is not None and game not in present:
                log.warning("%s is not loaded: the %s engine is missing", extension, game)
                continue
            await self.load_extension(extension)
        tables = await self.croupier.restore()
        log.info("restored %d table(s)", len(tables))
        await self.sync_commands_if_changed()

    def tree_payload(self) -> list[dict[str, Any]]:
        guild = self._dev_guild()
        commands_ = self.tree.get_commands(guild=guild) if guild else self.tree.get_commands()
        return sorted((c.to_dict(self.tree) for c in commands_), key=lambda c: c["name"])

    def _dev_guild(self) -> discord.Object | None:
        gid = self.settings.dev_guild_id
        return discord.Object(gid) if gid else None

    async def sync_commands_if_changed(self) -> bool:
        """Sync only when the tree differs from the last synced one (Discord rate-limits syncs)."""
        guild = self._dev_guild()
        if guild is not None:
            self.tree.copy_global_to(guild=guild)
        digest = hashlib.sha256(json.dumps(self.tree_payload(), sort_keys=True,
                                           default=str).encode()).hexdigest()
        key = f"{TREE_HASH_KEY}:{guild.id if guild else 'global'}"
        if await self.store.get_meta(key) == digest:
            log.info("slash commands unchanged: not syncing")
            return False
        await self.tree.sync(guild=guild)
        await self.store.set_meta(key, digest)
        self.synced = True
        log.info("slash commands synced (%s)", f"guild {guild.id}" if guild else "global")
        return True

    async def close(self) -> None:
        if self._croupier is not None:
            await self._croupier.close()
        await super().close()
        if self._store is not None and self._owns_store:
            await self._store.close()
