"""The web table's protocol on the fake Discord: links, sessions, moves and snapshots.

A bot serves the web table (``cogs.web_table``) on loopback; a page is aiohttp's
client speaking ``docs/web-protocol.md``. What a browser move does in Discord is read
on the fake, as people would see it.
"""

from __future__ import annotations

import time
from collections.abc import AsyncIterator

import aiohttp
import pytest

from bot.app.client import CardTableBot
from bot.config.web_settings import WebSettings
from testkit import games
from testkit.clock import ManualClock
from testkit.fakediscord import FakeChannel, FakeDiscord, FakeUser
from testkit.games.jazz import JAZZ_ONLY
from testkit.harness import MakeBot, idle, live_menu, table_message
from testkit.tables import live, open_and_start, play_out, player_to_act, start_jazz
from testkit.webtable import WEB_EXTENSION, Page, link_from, token_of, web_settings
from web.tokens import Signer


@pytest.fixture
def settings() -> WebSettings:
    return web_settings()


@pytest.fixture
async def web_bot(run_bot: MakeBot, clock: ManualClock, settings: WebSettings) -> CardTableBot:
    return await run_bot(extensions={**JAZZ_ONLY, **WEB_EXTENSION}, clock=clock, web=settings)


@pytest.fixture
async def http() -> AsyncIterator[aiohttp.ClientSession]:
    async with aiohttp.ClientSession() as session:
        yield session


async def opened(fake: FakeDiscord, user: FakeUser, channel: FakeChannel,
                 settings: WebSettings, http: aiohttp.ClientSession,
                 label: str = "Open table") -> Page:
    """``user`` clicks ``label`` on the table, redeems the link and connects."""
    message = fake.find_message(channel, custom_id_prefix="ct:web:")
    assert message is not None
    url = await link_from(fake, user, message, label)
    assert url.startswith(f"{settings.public_url}/table#")
    page = Page(settings.public_url, http)
    status, _ = await page.redeem(token_of(url))
    assert status == 200
    return page


async def test_a_player_opens_the_table_sees_their_hand_and_plays_and_discord_follows(
        fake: FakeDiscord, general: FakeChannel, users: list[FakeUser], web_bot: CardTableBot,
        settings: WebSettings, http: aiohttp.ClientSession) -> None:
    await start_jazz(fake, general, users)
    await idle(web_bot)
    table = live(web_bot, general)
    assert table is not None and table.game is not None
    mover = player_to_act(fake, web_bot, general, users)
    seat = table.seat_of(mover.id)
    page = await opened(fake, mover, general, settings, http)
    first = await page.connect()
    assert first["type"] == "snapshot" and first["role"] == "seat" and first["seat"] == seat
    hand = first["hand"]
    held = set(table.game.seat_view(seat)["hand"])
    assert {a["card"] for a in hand["actions"] if a["card"]} == held  # exactly their hand
    legal = [a for a in hand["actions"] if a["legal"]]
    assert hand["your_turn"] and legal
    assert {a["code"] for a in legal} == set(table.game.seat_view(seat)["legal"])
    version = first["version"]
    table_before = table_message(fake, general)
    assert table_before is not None
    shown_before = table_before.text()
    await page.send(type="move", step=hand["step"], code=legal[0]["code"])
    after = await page.snapshot(version + 1)
    await idle(web_bot)
    assert after["version"] > version and legal[0]["card"] not in {
        a["card"] for a in (after["hand"] or {"actions": []})["actions"]}
    # Discord follows: the table message shows the move, the next player has a menu.
    assert table_message(fake, general) is not None
    assert table_message(fake, general).text() != shown_before  # type: ignore[union-attr]
    nxt = player_to_act(fake, web_bot, general, users)
    if nxt is not mover:
        assert live_menu(fake, nxt) is not None
    await page.close()


async def test_a_link_opens_once_and_forged_or_expired_ones_are_refused_with_a_sentence(
        fake: FakeDiscord, general: FakeChannel, users: list[FakeUser], web_bot: CardTableBot,
        settings: WebSettings, http: aiohttp.ClientSession) -> None:
    await start_jazz(fake, general, users)
    await idle(web_bot)
    message = table_message(fake, general)
    assert message is not None
    url = await link_from(fake, users[1], message)
    page = Page(settings.public_url, http)
    assert (await page.redeem(token_of(url)))[0] == 200
    status, body = await Page(settings.public_url, http).redeem(token_of(url))
    assert status == 403 and "used already" in body["error"]
    payload, signature = token_of(url).split(".")
    forged = f"{payload[:-2]}xx.{signature}"
    status, body = await Page(settings.public_url, http).redeem(forged)
    assert status == 403 and "does not work" in body["error"]
    other_secret = Signer(b"another-secret-entirely-0123456789").link(
        users[1].id, live(web_bot, general).table_id, "seat", time.time())  # type: ignore
    assert (await Page(settings.public_url, http).redeem(other_secret))[0] == 403
    expired = Signer(settings.secret).link(users[1].id, "t", "seat", time.time() - 301)
    status, body = await Page(settings.public_url, http).redeem(expired)
    assert status == 403 and "does not work" in body["error"]
    # A session is not a link, nor the other way round.
    assert (await Page(settings.public_url, http).redeem(page.session))[0] == 403
    bad = Page(settings.public_url, http, session=token_of(url))
    frame = await bad.connect()
    assert frame["type"] == "error" and frame["fatal"]


async def test_only_the_seat_of_the_session_plays_and_stale_or_foreign_moves_change_nothing(
        fake: FakeDiscord, general: FakeChannel, users: list[FakeUser], web_bot: CardTableBot,
        settings: WebSettings, http: aiohttp.ClientSession) -> None:
    outsider = fake.add_user("dora")
    await start_jazz(fake, general, users)
    await idle(web_bot)
    table = live(web_bot, general)
    assert table is not None and table.game is not None
    mover = player_to_act(fake, web_bot, general, users)
    waiting = next(u for u in users if u is not mover)
    other = await opened(fake, waiting, general, settings, http)
    shown = await other.connect()
    version = table.version
    code = shown["hand"]["actions"][0]["code"]
    await other.send(type="move", step=shown["hand"]["step"], code=code)
    refused = await other.next()
    assert refused["type"] == "refused" and "not your turn" in refused["reason"]
    assert (await other.next())["type"] == "snapshot" and table.version == version
    # A spectator's session (Watch, by someone not seated) cannot play.
    watcher = await opened(fake, outsider, general, settings, http, label="Watch")
    seen = await watcher.connect()
    assert seen["role"] == "watch" and seen["hand"] is None and seen["seat"] is None
    await watcher.send(type="move", step=seen["step"], code=code)
    assert (await watcher.next())["type"] == "refused" and table.version == version
    # The mover's stale step: refused, then the fresh snapshot.
    page = await opened(fake, mover, general, settings, http)
    mine = await page.connect()
    legal = next(a for a in mine["hand"]["actions"] if a["legal"])
    await page.send(type="move", step=mine["hand"]["step"] - 1, code=legal["code"])
    stale = await page.next()
    assert stale["type"] == "refused" and "out of date" in stale["reason"]
    assert (await page.next())["version"] == version == table.version
    # A foreign origin cannot open the socket.
    with pytest.raises(aiohttp.WSServerHandshakeError):
        await Page(settings.public_url, http, session=page.session).connect(
            origin="https://evil.example")
    # Reconnecting re-syncs: a new socket gets the snapshot as it is now.
    await page.close()
    again = Page(settings.public_url, http, session=page.session)
    assert (await again.connect())["version"] == table.version


async def test_a_page_follows_the_table_to_a_series_next_deal_with_a_new_session(
        fake: FakeDiscord, general: FakeChannel, users: list[FakeUser], run_bot: MakeBot,
        clock: ManualClock, settings: WebSettings, http: aiohttp.ClientSession) -> None:
    players = users[:2]
    bot = await run_bot(extensions={**games.extensions(["attackjack"]), **WEB_EXTENSION},
                        clock=clock, web=settings)
    # With choices, so that its deal waits for people (without, it plays itself out).
    await open_and_start(fake, general, players, games.command("attackjack"), choice=True)
    await idle(bot)
    first = live(bot, general)
    assert first is not None
    page = await opened(fake, players[0], general, settings, http)
    assert (await page.connect())["table"] == first.table_id
    await play_out(fake, bot, general, players, seed=5)
    clock.advance(60)  # the series' pause before its next deal
    await idle(bot)
    moved = None
    while moved is None:
        frame = await page.next()
        if frame["type"] == "session":
            moved = frame
    following = live(bot, general)
    assert following is not None and following.follows == first.table_id
    assert moved["table"] == following.table_id and moved["role"] == "seat"
    assert (await page.snapshot())["table"] == following.table_id
    # The new session opens the new table after a reconnect too.
    again = Page(settings.public_url, http, session=moved["session"])
    assert (await again.connect())["table"] == following.table_id
    await page.close()
    await again.close()


async def test_the_host_starts_the_rematch_from_the_page_and_the_pages_follow(
        fake: FakeDiscord, general: FakeChannel, users: list[FakeUser], run_bot: MakeBot,
        clock: ManualClock, settings: WebSettings, http: aiohttp.ClientSession) -> None:
    host, guest = users[:2]
    bot = await run_bot(extensions={**games.extensions(["jacko"]), **WEB_EXTENSION},
                        clock=clock, web=settings)
    await open_and_start(fake, general, [host, guest], games.command("jacko"))
    await idle(bot)
    first = live(bot, general)
    assert first is not None
    pages = {}
    for user in (host, guest):
        pages[user] = await opened(fake, user, general, settings, http)
        await pages[user].connect()
    await play_out(fake, bot, general, [host, guest], seed=2)
    over = await pages[host].snapshot()
    while over["status"] != "closed":
        over = await pages[host].snapshot()
    assert over["host"] and over["result"]["final"] and over["ended"] == "finished"
    await pages[guest].send(type="rematch")  # only the host may
    while (refused := await pages[guest].next())["type"] != "refused":
        pass
    assert "Only the host" in refused["reason"] and live(bot, general) is None
    await pages[host].send(type="rematch")
    # (each page is moved to the rematch once it exists: wait for that, not for the bot
    # to look idle, which it may before the page's frame has even arrived)
    sessions = {}
    for user, page in pages.items():
        while (frame := await page.next())["type"] != "session":
            pass
        sessions[user] = frame
    rematch = live(bot, general)
    assert rematch is not None and rematch.follows == first.table_id
    assert rematch.status == "playing"  # started at once, as Discord's Rematch does
    for user, page in pages.items():
        frame = sessions[user]
        assert frame["table"] == rematch.table_id and frame["role"] == "seat"
        assert (await page.snapshot())["table"] == rematch.table_id
        await page.close()
