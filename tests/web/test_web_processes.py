"""``python -m web`` as a real process beside the bot, over one PostgreSQL.

The bot (in this process, on the fake Discord, as the shard tests' in-process bots
are) owns the tables and serves its own web table; a standalone web server
(``python -m web``, a subprocess with the bot's ``WEB_SECRET`` and ``DATABASE_URL``)
serves pages of the same tables, as a second web process behind a proxy would. A
move made on a page of the standalone server is saved there through the step kernel
and announced; the bot shows it in Discord (the table message, the next player's DM,
a finished deal's result, once). A move made in Discord reaches the standalone
server's pages through the store's notices.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import random
import signal
import sys
import time
from collections.abc import AsyncIterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import aiohttp
import pytest

from bot.app.client import CardTableBot
from bot.config.settings import Settings
from bot.config.web_settings import WebSettings
from bot.storage import open_storage
from bot.table.state import Table
from engine.core import parse_action
from engine.events import DealEnded
from testkit.clock import ManualClock
from testkit.fakediscord import FakeChannel, FakeDiscord, FakeMessage, FakeUser
from testkit.games import extensions
from testkit.harness import (
    FAST,
    cheap_ai,
    choose,
    idle,
    live_menu,
    table_message,
    whose_turn,
)
from testkit.tables import live, open_and_start, player_to_act, start_jazz
from testkit.webtable import (
    SECRET,
    WEB_EXTENSION,
    Page,
    free_port,
    link_from,
    token_of,
    web_settings,
)
from web.tokens import Role, Signer

pytestmark = pytest.mark.slow  # a PostgreSQL server and a second process

ROOT = Path(__file__).resolve().parents[2]
START_TIMEOUT = 30.0


# ------------------------------------------------------------------ the processes


@dataclass
class WebServer:
    """``python -m web`` on a free port of loopback."""

    settings: WebSettings
    proc: asyncio.subprocess.Process
    log: Path

    @property
    def base(self) -> str:
        return self.settings.public_url

    def output(self) -> str:
        return self.log.read_text(errors="replace")[-4000:]

    def check_running(self) -> None:
        if self.proc.returncode is not None:
            raise AssertionError(f"python -m web exited ({self.proc.returncode}):\n"
                                 f"{self.output()}")

    async def stop(self) -> None:
        if self.proc.returncode is None:
            self.proc.send_signal(signal.SIGTERM)  # it stops serving and closes its store
            try:
                await asyncio.wait_for(self.proc.wait(), 10)
            except TimeoutError:
                self.proc.kill()
                await self.proc.wait()


async def start_web(url: str, tmp_path: Path, tries: int = 3) -> WebServer:
    """``python -m web`` with the bot's secret and database; returns once it answers."""
    settings = web_settings(free_port())
    log = tmp_path / "web.log"
    env = {k: v for k, v in os.environ.items()
           if not k.startswith(("WEB_", "DATABASE_", "PUBLIC_URL"))}
    env |= {"WEB_PORT": str(settings.port), "WEB_HOST": settings.host,
            "PUBLIC_URL": settings.public_url, "WEB_SECRET": SECRET.decode(),
            "DATABASE_URL": url, "PYTHONPATH": str(ROOT)}
    with log.open("a") as out:  # run from tmp_path: no .env of the checkout is read
        proc = await asyncio.create_subprocess_exec(
            sys.executable, "-m", "web", cwd=tmp_path, env=env, stdout=out, stderr=out)
    server = WebServer(settings, proc, log)
    loop = asyncio.get_running_loop()
    deadline = loop.time() + START_TIMEOUT
    async with aiohttp.ClientSession() as http:
        while True:
            if proc.returncode is not None and tries > 1 \
                    and "address already in use" in server.output().lower():
                return await start_web(url, tmp_path, tries - 1)  # the port was taken
            server.check_running()
            with contextlib.suppress(aiohttp.ClientError):
                async with http.get(f"{server.base}/table") as response:
                    if response.status in (200, 503):  # the page, or "not built"
                        return server
            assert loop.time() < deadline, f"python -m web did not answer:\n{server.output()}"
            await asyncio.sleep(0.1)


@pytest.fixture
async def standalone(postgres_url: str, tmp_path: Path) -> AsyncIterator[WebServer]:
    server = await start_web(postgres_url, tmp_path)
    try:
        yield server
    finally:
        await server.stop()


@pytest.fixture
async def pg_bot(fake: FakeDiscord, postgres_url: str, tmp_path: Path
                 ) -> AsyncIterator[CardTableBot]:
    """The bot in this process over the PostgreSQL, serving its own web table with the
    same secret as the standalone server; Jazz and AttackJack."""
    store = await open_storage(tmp_path / "unused.db", url=postgres_url)
    settings = Settings(token="fake-token", database_path=tmp_path / "unused.db",
                        dev_guild_id=None, log_level=20, timing=FAST, web=web_settings())
    bot = CardTableBot(settings, store=store, clock=ManualClock(), timing=FAST,
                       extensions={**extensions(["jazz", "attackjack"]), **WEB_EXTENSION},
                       seed=7, ai=cheap_ai())
    bot._owns_store = True
    await fake.start_bot(bot)
    try:
        yield bot
    finally:
        await fake.stop_bot(bot)
        await store.close()


@pytest.fixture
async def http() -> AsyncIterator[aiohttp.ClientSession]:
    async with aiohttp.ClientSession() as session:
        yield session


# ------------------------------------------------------------------ pages and players


async def page_for(server: WebServer, http: aiohttp.ClientSession, user: FakeUser,
                   table: Table, role: Role = "seat", token: str | None = None) -> Page:
    """A page of the standalone server for ``user``, connected: from ``token`` (a link
    the bot gave in Discord) or a link made with the bot's secret."""
    page = Page(server.base, http)
    token = token or Signer(SECRET).link(user.id, table.table_id, role, time.time())
    status, body = await page.redeem(token)
    assert status == 200 and body["role"] == role, body
    first = await page.connect()
    assert first["type"] == "snapshot" and first["table"] == table.table_id, first
    return page


async def snapshot_at(page: Page, version: int, timeout: float = 10.0) -> dict[str, Any]:
    """The page's first snapshot at ``version`` or newer (frames already read count)."""
    for frame in page.frames:
        if frame["type"] == "snapshot" and frame["version"] >= version:
            return frame
    return await page.snapshot(version, timeout)


def newest(page: Page) -> dict[str, Any]:
    return [f for f in page.frames if f["type"] == "snapshot"][-1]


def table_text(fake: FakeDiscord, channel: FakeChannel) -> str:
    message = table_message(fake, channel)
    return message.text() if message is not None else ""


def deal_posts(fake: FakeDiscord, channel: FakeChannel, deal: int) -> list[FakeMessage]:
    return [m for m in fake.messages(channel) if f"deal {deal} is over" in m.text()]


def dm_menu_at(fake: FakeDiscord, user: FakeUser, step: int) -> bool:
    """The user's DMs show a live move menu drawn at ``step``."""
    menu = live_menu(fake, user)
    return menu is not None and not menu[0].ephemeral and f":{step}:" in str(
        menu[1].get("custom_id"))


async def dm_move(fake: FakeDiscord, bot: CardTableBot, user: FakeUser,
                  rng: random.Random) -> None:
    table = next(t for t in bot.croupier.manager.all() if t.seat_of(user.id) is not None)
    step = table.step
    await fake.wait_for(lambda: dm_menu_at(fake, user, step), timeout=10)
    menu = live_menu(fake, user)
    assert menu is not None
    await (await choose(fake, user, menu[0], rng)).wait_answered()
    await fake.wait_for(lambda: table.step > step, timeout=10)
    await idle(bot)


def ends_the_deal(table: Table, code: str) -> bool:
    game = table.game
    assert game is not None and table.to_act is not None
    events = game.copy().apply(table.to_act, parse_action(code))
    return any(isinstance(e, DealEnded) for e in events)


async def web_move(page: Page, table: Table, rng: random.Random
                   ) -> tuple[dict[str, Any], dict[str, Any]]:
    """The player of ``page`` plays a legal card from the page's hand at the table's
    version; the action and the snapshot of the next version (from the server)."""
    shown = await snapshot_at(page, table.version)
    hand = shown["hand"]
    assert shown["version"] == table.version and hand["your_turn"], shown
    action = rng.choice([a for a in hand["actions"] if a["legal"]])
    await page.send(type="move", step=hand["step"], code=action["code"])
    while True:
        frame = await page.next(10)
        assert frame["type"] != "refused", frame
        if frame["type"] == "snapshot" and frame["version"] > shown["version"]:
            return action, frame


# ------------------------------------------------------------------ the tests


async def test_a_move_at_the_standalone_web_server_is_shown_in_discord_by_the_owner(
        fake: FakeDiscord, general: FakeChannel, users: list[FakeUser], pg_bot: CardTableBot,
        standalone: WebServer, http: aiohttp.ClientSession) -> None:
    bot = pg_bot
    rng = random.Random(3)
    await start_jazz(fake, general, users)
    await idle(bot)
    table = live(bot, general)
    assert table is not None and table.game is not None
    mover = player_to_act(fake, bot, general, users)
    # The mover's Open table link from Discord opens at the other web process (one
    # secret); the others' links are made with it too.
    message = table_message(fake, general)
    assert message is not None
    token = token_of(await link_from(fake, mover, message, "Open table"))
    pages = {mover.id: await page_for(standalone, http, mover, table, token=token)}
    for user in users:
        if user is not mover:
            pages[user.id] = await page_for(standalone, http, user, table)

    # (a) A move at the standalone server: the owner draws it in Discord.
    version, shown_before = table.version, message.text()
    action, after = await web_move(pages[mover.id], table, rng)
    assert action["card"] not in {a["card"] for a in after["hand"]["actions"]}
    await fake.wait_for(lambda: table.version >= after["version"], timeout=10)
    seat = table.seat_of(mover.id)
    assert seat is not None and table.game is not None
    assert action["card"] not in table.game.seat_view(seat)["hand"]  # the owner has it
    await fake.wait_for(lambda: table_text(fake, general) != shown_before, timeout=10)
    nxt = player_to_act(fake, bot, general, users)
    assert nxt is not mover and table.version > version
    await fake.wait_for(lambda: whose_turn(fake, general, users) is nxt, timeout=10)
    await fake.wait_for(lambda: dm_menu_at(fake, nxt, table.step), timeout=10)

    # DM moves until the next card ends the first deal; that card is played at the
    # standalone server: the owner posts the deal's result, once.
    for _ in range(200):
        await idle(bot)
        user = player_to_act(fake, bot, general, users)
        shown = await snapshot_at(pages[user.id], table.version)
        hand = shown["hand"]
        if hand["your_turn"] and all(ends_the_deal(table, a["code"]) for a in hand["actions"]
                                     if a["legal"]):
            break
        await dm_move(fake, bot, user, rng)
    else:
        raise AssertionError("the first deal did not end")
    assert deal_posts(fake, general, 1) == []
    await web_move(pages[user.id], table, rng)
    await fake.wait_for(lambda: deal_posts(fake, general, 1), timeout=10)
    await fake.wait_for(lambda: table.to_act is not None and table.automation() is None,
                        timeout=10)  # the next deal dealt
    nxt = player_to_act(fake, bot, general, users)
    await fake.wait_for(lambda: dm_menu_at(fake, nxt, table.step), timeout=10)
    await idle(bot)
    await fake.settle()
    await asyncio.sleep(1.5)  # past the notice grace: a catch-up from storage posts nothing
    await idle(bot)
    assert len(deal_posts(fake, general, 1)) == 1
    standalone.check_running()
    for page in pages.values():
        await page.close()


async def test_a_dm_move_reaches_the_pages_of_the_standalone_web_server(
        fake: FakeDiscord, general: FakeChannel, users: list[FakeUser], pg_bot: CardTableBot,
        standalone: WebServer, http: aiohttp.ClientSession) -> None:
    bot = pg_bot
    outsider = fake.add_user("wes")
    await start_jazz(fake, general, users)
    await idle(bot)
    table = live(bot, general)
    assert table is not None and table.game is not None
    mover = player_to_act(fake, bot, general, users)
    seat = table.seat_of(mover.id)
    assert seat is not None
    mine = await page_for(standalone, http, mover, table)
    watching = await page_for(standalone, http, outsider, table, role="watch")
    for move in range(3):  # (b) each DM move: a new snapshot on both pages
        await idle(bot)
        user = player_to_act(fake, bot, general, users)
        version, lines = table.version, newest(watching)["lines"]
        await dm_move(fake, bot, user, random.Random(move))
        assert table.version > version
        for page in (mine, watching):
            frame = await snapshot_at(page, table.version)
            assert frame["version"] == table.version, (move, frame["version"])
        assert newest(watching)["hand"] is None and newest(watching)["lines"] != lines
        held = {a["card"] for a in newest(mine)["hand"]["actions"] if a["card"]}
        assert held == set(table.game.seat_view(seat)["hand"]), move
        assert newest(watching)["to_act"] == table.to_act
    standalone.check_running()
    await mine.close()
    await watching.close()


async def test_an_attackjack_table_at_the_standalone_web_server_is_as_the_owner_saved_it(
        fake: FakeDiscord, general: FakeChannel, users: list[FakeUser], pg_bot: CardTableBot,
        standalone: WebServer, http: aiohttp.ClientSession) -> None:
    bot = pg_bot
    await open_and_start(fake, general, users, "attackjack", choice=True)
    rng = random.Random(2)
    for _ in range(60):  # DM choices (deal after deal) until a forced turn came last
        await idle(bot)
        table = live(bot, general)
        assert table is not None
        if table.game is None:  # the series' next deal: its pause is over
            assert table.series_start_at is not None and isinstance(bot.clock, ManualClock)
            bot.clock.advance(table.series_start_at - bot.clock.now() + 1)
            continue
        last = table.game.public_view()["last_action"]
        if table.to_act is not None and last is not None and last["forced"]:
            break
        if table.to_act is not None:
            await dm_move(fake, bot, player_to_act(fake, bot, general, users), rng)
    else:
        raise AssertionError("no choice came right after a forced turn")
    assert table.game is not None
    chooser = player_to_act(fake, bot, general, users)
    page = await page_for(standalone, http, chooser, table)
    shown = await snapshot_at(page, table.version)
    # The page shows the table at the owner's version as the owner has it...
    assert (shown["version"], shown["to_act"]) == (table.version, table.to_act), shown
    seat = table.seat_of(chooser.id)
    assert seat is not None
    assert {a["card"] for a in shown["hand"]["actions"] if a["card"]} == set(
        table.game.seat_view(seat)["hand"])
    # ... and the chooser can choose there.
    await web_move(page, table, random.Random(1))
    await page.close()
