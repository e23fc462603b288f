"""``python -m web``: the web table as a process of its own, over the bot's PostgreSQL.

As many as needed, behind a reverse proxy (no sticky sessions: a link is spent in the
shared store, a session is signed). Such a process drives no table: a move from a page
is saved at the table's version through the step kernel and announced
(``Store.announce``); the process that drives the table shows it in Discord. It hears
every saved step of every process (the store's notices) and pushes it to its viewers.

Settings from the environment or ``.env``: ``WEB_PORT``, ``PUBLIC_URL``, ``WEB_SECRET``
(the bot's), ``DATABASE_URL`` (and ``DATABASE_PASSWORD_FILE``, as the bot reads them);
``WEB_HOST`` optional. No Discord token, no discord.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
import signal
import sys
import time

from aiohttp import web
from dotenv import find_dotenv, load_dotenv

from bot.config.settings import database_url, with_password_file
from bot.config.settings_errors import SettingsError
from bot.config.web_settings import WebSettings, web_settings
from bot.storage import CHANGE_KINDS, TableChange, open_storage
from bot.table.manager import TableManager
from bot.table.state import Table
from bot.table.step import Steps
from bot.table.timers import SystemClock
from bot.views import views
from engine.core import Game
from engine.registry import game_class, game_ids
from web.activity import ActivityAuth, ActivityTokens
from web.hub import Hub
from web.play import WebPlay, announcer
from web.server import WebTable
from web.tokens import Signer

log = logging.getLogger("web")


def engine_of(game_id: str) -> type[Game] | None:
    return game_class(game_id) if game_id in game_ids() else None


async def serve(settings: WebSettings, url: str, stop: asyncio.Event,
                bot_token: str = "") -> None:
    """Serve until ``stop`` is set."""
    store = await open_storage(url=url)
    try:
        manager = TableManager(store, engine_of)
        steps = Steps(manager, SystemClock(), patience=2.0)
        game_views = views()
        play = WebPlay(manager, steps, announcer(store))
        signer = Signer(settings.secret)
        hub = Hub(play.read, game_views,
                  reissue=lambda grant: signer.session(grant, time.time()))

        def heard(change: TableChange) -> None:
            hub.changed(change.table_id)
            if change.kind == "opened":  # a rematch, a series' next deal: viewers follow
                hub.opened(change.table_id)

        # Every saved step of every process, this one's own too (its moves).
        await store.listen(heard, own=True, kinds=CHANGE_KINDS)
        activity = None
        if settings.activity:  # the Activity's sign-in checks instances with the bot's token

            async def table_in_channel(channel_id: int) -> Table | None:
                row = await store.active_table_in_channel(channel_id)
                return await manager.read(row.table_id) if row is not None else None

            activity = ActivityTokens(ActivityAuth.from_settings(settings, bot_token), signer,
                                      table_in_channel)
        table = WebTable(signer=signer, store=store, play=play, hub=hub, views=game_views,
                         origin=settings.origin, activity=activity, client_id=settings.client_id)
        runner = web.AppRunner(table.app(), access_log=None, shutdown_timeout=2.0)
        await runner.setup()
        try:
            await web.TCPSite(runner, settings.host, settings.port).start()
            log.info("the web table is served on %s:%d for %s", settings.host, settings.port,
                     settings.public_url)
            await stop.wait()
        finally:
            await runner.cleanup()
    finally:
        await store.close()


def main() -> int:
    load_dotenv(find_dotenv(usecwd=True), override=False)
    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(levelname)s %(name)s: "
                        "%(message)s")
    try:
        settings = web_settings(os.environ, standalone=True)
        url = with_password_file(database_url(os.environ.get("DATABASE_URL", "")),
                                 os.environ.get("DATABASE_PASSWORD_FILE", ""))
        if url is None:
            raise SettingsError("python -m web needs DATABASE_URL: the bot's PostgreSQL "
                                "(postgresql://…), whose tables it shows.")
        token = os.environ.get("DISCORD_TOKEN", "").strip()
        if settings is not None and settings.activity and not token:
            raise SettingsError("With ACTIVITY=on, python -m web needs DISCORD_TOKEN: it "
                                "checks who is in an Activity with the bot's token.")
    except SettingsError as error:
        print(error.code, file=sys.stderr)
        return 2
    assert settings is not None

    async def run() -> None:
        stop = asyncio.Event()
        loop = asyncio.get_running_loop()
        for sig in (signal.SIGTERM, signal.SIGINT):
            with contextlib.suppress(NotImplementedError):
                loop.add_signal_handler(sig, stop.set)
        await serve(settings, url, stop, token)

    asyncio.run(run())
    return 0


if __name__ == "__main__":
    sys.exit(main())
