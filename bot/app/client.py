"""The bot process: ``CardTableBot``, an ``AutoShardedBot`` without privileged intents.

``setup_hook`` (before the gateway connects): open storage, load the extensions
(each game's cog as the registry declares it, when its engine is present),
register the persistent components, restore the live tables, and sync the
slash commands only when the command tree changed since the last sync (its
hash is kept in storage's meta).
"""

from __future__ import annotations

import asyncio
import logging
import math
from collections import Counter
from typing import Any

import discord
from discord import app_commands
from discord.ext import commands

import locales
from bot.app import commandsync, components, departures
from bot.app.croupier import Croupier
from bot.app.health import HealthServer, Metrics
from bot.app.readiness import Readiness
from bot.config.settings import Settings, Timing
from bot.images.painter import Painter
from bot.storage import Store, open_storage
from bot.table.ai_runner import AIRunner
from bot.table.timers import Clock, SystemClock
from bot.ui import answer_guard, replies
from bot.ui.command_text import CatalogueTranslator
from bot.ui.game_ui import GameUI
from bot.ui.languages import Readers
from engine.registry import available_games, specs

log = logging.getLogger(__name__)

# The extensions every bot loads, beside each game's cog.
SHARED_EXTENSIONS = ("cogs.help", "cogs.leaderboard", "cogs.stats", "cogs.history",
                     "cogs.settings", "cogs.web_table", "cogs.tournament")


def default_extensions() -> dict[str, str | None]:
    """Extension → the game whose engine it needs (None: always loaded)."""
    games: dict[str, str | None] = {s.cog: s.id for s in specs() if s.cog is not None}
    return {SHARED_EXTENSIONS[0]: None, **games,
            **{name: None for name in SHARED_EXTENSIONS[1:]}}


# How long closing waits for steps in flight (a move being saved, a table edit).
DRAIN_TIMEOUT = 20.0


class CardTableTree(app_commands.CommandTree[Any]):
    """Refuses commands while the bot shuts down; a failing command is answered."""

    async def interaction_check(self, interaction: discord.Interaction) -> bool:
        answer_guard.speak_to(interaction)  # the command's task speaks its user's language
        if answer_guard.shutting_down(interaction):
            await replies.reply(interaction, locales.say(answer_guard.SHUTTING_DOWN))
            return False
        return True

    async def on_error(self, interaction: discord.Interaction,
                       error: app_commands.AppCommandError) -> None:
        cause = error.original if isinstance(error, app_commands.CommandInvokeError) else error
        await answer_guard.failed(interaction, cause)


class CardTableBot(commands.AutoShardedBot):
    def __init__(self, settings: Settings, *, store: Store | None = None,
                 clock: Clock | None = None, timing: Timing | None = None,
                 extensions: dict[str, str | None] | None = None, seed: int | None = None,
                 ai: AIRunner | None = None, painter: Painter | None = None,
                 **options: Any):
        # Only the guilds' own events (a server left, a channel deleted: its tables stop).
        # The bot lives on interactions: every chat message, reaction or typing event in
        # its servers would otherwise be sent, parsed and cached for nothing.
        intents = discord.Intents.none()
        intents.guilds = True
        shards = settings.shards
        if shards.count is not None:  # this process runs some shards (SHARD_COUNT, SHARD_IDS)
            options.setdefault("shard_count", shards.count)
            if shards.ids is not None:
                options.setdefault("shard_ids", list(shards.ids))
        # Nothing the bot writes pings anyone unless the call says whom (replies.PINGS: the
        # players it tells): a name that slipped through unescaped still pings nobody.
        options.setdefault("allowed_mentions", discord.AllowedMentions.none())
        # No message cache: an interaction carries its message and edits go through partial
        # messages, so the 1,000 messages discord.py keeps by default (with their embeds,
        # components and authors: megabytes at a thousand tables) are never read.
        options.setdefault("max_messages", None)
        super().__init__(command_prefix=commands.when_mentioned, intents=intents,
                         help_command=None, tree_cls=CardTableTree, **options)
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
        self.painter = painter  # benchmarks: another painter; None = PICTURE_WORKERS'
        self.synced = False  # whether this start-up pushed the command tree to Discord
        self.closing = False  # shutting down: clicks and commands are refused politely
        self.metrics = Metrics()
        self.started = False  # the tables are restored (their resumption may still run)
        self.readiness = Readiness(lambda: self.started, lambda: self.shards.keys(),
                                   lambda: self.store.info())
        self.health: HealthServer | None = None
        self.components = answer_guard.ComponentPatterns()
        self.readers = Readers()  # each user's language, for the DMs to them
        self._watchdogs: set[asyncio.Task[None]] = set()
        self._shutdown_task: asyncio.Task[None] | None = None  # (discord.py has _closing_task)

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

    def busy(self) -> bool:
        """Whether the bot is at work: its tables not restored yet, or a step, a bot move,
        a table edit, a save or a picture under way (``/metrics`` ``cardtable_busy``; the
        fake Discord's ``settle`` asks it)."""
        return not self.started or self._croupier is None or self._croupier.busy()

    async def setup_hook(self) -> None:
        if self._store is None:
            self._store = await open_storage(self.settings.database_path,
                                             url=self.settings.database_url)
        await self.readers.load(self._store)
        await self.tree.set_translator(CatalogueTranslator())
        self._croupier = Croupier(self, self._store, self.game_uis, self.timing, self.clock,
                                  seed=self.seed, ai=self.ai, metrics=self.metrics,
                                  shards=self.settings.shards,
                                  ai_workers=self.settings.ai_workers,
                                  limits=self.settings.limits, painter=self.painter,
                                  picture_workers=self.settings.picture_workers)
        departures.listen(self, self._croupier)  # a server left, a channel deleted
        manager = self._croupier.manager
        self.metrics.watch(
            live_tables=lambda: Counter(t.status for t in manager.all()),
            gateway_latency=lambda: self.latency if self.shards else math.nan,
            busy=self.busy)
        if self.settings.health_port is not None:
            self.health = HealthServer(self.metrics, self.readiness.ready,
                                       self.settings.health_host, self.settings.health_port)
            await self.health.start()
        self.add_dynamic_items(*components.DYNAMIC_ITEMS)
        present = set(available_games())
        for extension, game in self.extensions_wanted.items():
            if game is not None and game not in present:
                log.warning("%s is not loaded: the %s engine is missing", extension, game)
                continue
            await self.load_extension(extension)
        tables = await self.croupier.start()
        self.started = True
        log.info("restored %d table(s)", len(tables))
        await self.sync_commands_if_changed()

    async def sync_commands_if_changed(self) -> bool:
        self.synced = await commandsync.sync_if_changed(self.tree, self.store,
                                                        self.settings.dev_guild_id) or self.synced
        return self.synced

    def add_dynamic_items(self, *items: type[discord.ui.DynamicItem[Any]]) -> None:
        super().add_dynamic_items(*items)
        self.components.add(items)

    def remove_dynamic_items(self, *items: type[discord.ui.DynamicItem[Any]]) -> None:
        super().remove_dynamic_items(*items)
        self.components.remove(items)

    # The gateway connection of each shard, for /healthz (bot.app.readiness).
    async def on_shard_connect(self, shard_id: int) -> None:
        self.readiness.shard_connected(shard_id)

    async def on_shard_resumed(self, shard_id: int) -> None:
        self.readiness.shard_connected(shard_id)

    async def on_shard_ready(self, shard_id: int) -> None:
        self.readiness.shard_connected(shard_id)

    async def on_shard_disconnect(self, shard_id: int) -> None:
        self.readiness.shard_disconnected(shard_id)

    async def on_interaction(self, interaction: discord.Interaction) -> None:
        """Every interaction: counted, watched until answered, refused if no component
        of ours takes it."""
        self.metrics.count_interaction()
        answer_guard.speak_to(interaction)
        if await answer_guard.unknown_component(interaction, self.components):
            return
        task = asyncio.create_task(answer_guard.watch(interaction))
        self._watchdogs.add(task)
        task.add_done_callback(self._watchdogs.discard)

    async def close(self) -> None:
        """Stop taking clicks, let the steps in flight finish and save, then close.

        Once: a second call (a second signal, discord.py's own close after a failed
        connection) waits for the first."""
        if self._shutdown_task is None:
            self._shutdown_task = asyncio.create_task(self._close())
        elif self._shutdown_task is asyncio.current_task():
            return  # discord.py's own close, called from inside ours
        await asyncio.shield(self._shutdown_task)

    async def _close(self) -> None:
        self.closing = True
        if self.health is not None:
            await self.health.close()
        if self._croupier is not None:
            await self._croupier.drain(DRAIN_TIMEOUT)
            await self._croupier.close()
        for task in list(self._watchdogs):
            task.cancel()
        await self.readers.close()
        await super().close()
        if self._store is not None and self._owns_store:
            await self._store.close()
