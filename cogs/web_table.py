"""The web table in the bot's own process: served on its event loop, opened from Discord.

On when ``WEB_PORT`` and ``PUBLIC_URL`` are set (``bot.config.web_settings``): the
cog starts the ``web`` application beside the bot, on the same tables (a move from
the page goes through the same step kernel and is shown in Discord by the croupier,
``Croupier.web_moved``), follows every saved step (the table bus, and on PostgreSQL
the other processes' notices) and answers the Open table and Watch buttons with a
link for the clicker alone. Off, it does nothing and the buttons are not offered.
"""

from __future__ import annotations

import logging
import time
from collections import ChainMap
from collections.abc import Callable

import discord
from aiohttp import web
from discord.ext import commands

from bot.app.client import CardTableBot
from bot.config.web_settings import WebSettings
from bot.storage import CHANGE_KINDS, TableChange
from bot.table.bus import Change, Saved
from bot.table.state import Table
from bot.ui import replies
from bot.ui.web_buttons import link_view
from bot.views import views
from locales import _, current
from web.activity import ActivityAuth, ActivityTokens
from web.hub import Hub
from web.play import WebPlay
from web.server import WebTable
from web.snapshots import Views
from web.tokens import Role, Signer

log = logging.getLogger(__name__)


class WebTableCog(commands.Cog):
    def __init__(self, bot: CardTableBot, settings: WebSettings):
        self.bot = bot
        self.settings = settings
        self.signer = Signer(settings.secret)
        self._runner: web.AppRunner | None = None
        self._unsubscribe: Callable[[], None] | None = None
        self.table: WebTable | None = None

    async def cog_load(self) -> None:
        croupier = self.bot.croupier
        store = self.bot.store
        play = WebPlay(croupier.manager, croupier.steps, croupier.web_moved,
                       rematch=croupier.web_rematch)
        # The loaded games' UIs (a test's toy game too), then every game's view (a replay
        # of a game whose cog this process does not load).
        game_views: Views = ChainMap(self.bot.game_uis, views())  # type: ignore[arg-type]
        hub = Hub(play.read, game_views, forget=play.forget, now=self.bot.clock.now,
                  reissue=lambda grant: self.signer.session(grant, time.time()))
        play.watched = lambda table_id: hub.viewers(table_id) > 0

        def saved(change: Saved) -> None:  # right after each write of this process
            play.saved(change.table_id)
            hub.changed(change.table_id)
            if change.change == Change.OPENED:
                hub.opened(change.table_id)

        def heard(change: TableChange) -> None:  # another process's write
            hub.changed(change.table_id)
            if change.kind == "opened":
                hub.opened(change.table_id)

        self._unsubscribe = croupier.manager.bus.subscribe(saved)
        if store.shared:  # the steps other processes save (a DM click, a web process)
            await store.listen(heard, kinds=CHANGE_KINDS)
        activity = ActivityTokens(
            ActivityAuth.from_settings(self.settings, self.bot.settings.token), self.signer,
            self.table_in_channel) if self.settings.activity else None
        self.table = WebTable(signer=self.signer, store=store, play=play, hub=hub,
                              views=game_views, origin=self.settings.origin,
                              activity=activity, client_id=self.settings.client_id)
        runner = web.AppRunner(self.table.app(), access_log=None, shutdown_timeout=2.0)
        await runner.setup()
        await web.TCPSite(runner, self.settings.host, self.settings.port).start()
        self._runner = runner
        croupier.offer_web(self, activity=self.settings.activity)
        log.info("the web table is served on %s:%d for %s", self.settings.host,
                 self.settings.port, self.settings.public_url)

    async def cog_unload(self) -> None:
        if self._unsubscribe is not None:
            self._unsubscribe()
        runner, self._runner = self._runner, None
        if runner is not None:
            await runner.cleanup()

    def link(self, user_id: int, target: str, role: Role, path: str = "table") -> str:
        """A single-use link for ``user_id`` (the token in the fragment: never sent to a
        server by a browser, so a chat link preview cannot spend it)."""
        token = self.signer.link(user_id, target, role, time.time(), current())
        return f"{self.settings.public_url}/{path}#{token}"

    async def table_in_channel(self, channel_id: int) -> Table | None:
        """The open table of a channel (an Activity's): this process's, or as stored."""
        manager = self.bot.croupier.manager
        table = manager.in_channel(channel_id)
        if table is not None:
            return table
        row = await self.bot.store.active_table_in_channel(channel_id)
        return await manager.read(row.table_id) if row is not None else None

    def replay_url(self, user_id: int, game_id: int) -> str:
        return self.link(user_id, str(game_id), "replay", path="replay")

    async def web_click(self, interaction: discord.Interaction, table_id: str,
                        kind: str) -> None:
        """Open table / Watch: the clicker's link, for them alone."""
        manager = self.bot.croupier.manager
        table = manager.get(table_id) or await manager.read(table_id)
        if table is None or (interaction.guild_id is not None
                             and interaction.channel_id != table.channel_id):
            await replies.closed(interaction)
            return
        if kind == "play":  # the Activity, launched in the channel by Discord itself
            await interaction.response.launch_activity()
            return
        seat = table.seat_of(interaction.user.id)
        if interaction.guild_id is None and seat is None:  # a DM hand: only its player's
            await replies.closed(interaction)
            return
        role: Role = "seat" if kind == "open" and seat is not None else "watch"
        url = self.link(interaction.user.id, table.table_id, role)
        if role == "seat":
            text = _("Your link to the {game} table: your hand and the whole table, live. "
                     "It opens once, within 5 minutes: keep it to yourself.", game=table.title)
            label = _("Open table")
        else:
            text = _("Your link to watch the {game} table live (no hidden cards). It opens "
                     "once, within 5 minutes.", game=table.title)
            label = _("Watch")
        await replies.reply(interaction, text, view=link_view(url, label))


async def setup(bot: CardTableBot) -> None:
    if bot.settings.web is None:
        return  # the web table is off: no cog, no buttons
    await bot.add_cog(WebTableCog(bot, bot.settings.web))
