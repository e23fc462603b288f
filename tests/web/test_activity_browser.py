"""The table as a Discord Activity, in headless Chromium: the page's own sign-in.

A bot serves the web table with the Activity on (the fake's OAuth2 and instance
endpoints behind ``POST /api/token``); the page is the test build of ``web/frontend``,
whose only difference is the Embedded App SDK's ``DiscordSDKMock`` in place of Discord's
client (``testkit.activity_page``). What the page does in Discord is read on the fake,
as people would see it.
"""

from __future__ import annotations

import time
from collections.abc import AsyncIterator
from pathlib import Path

import aiohttp
import pytest

import web.server
from bot.app.client import CardTableBot
from bot.config.web_settings import WebSettings
from locales import say
from testkit.activity_page import (
    ActivityBrowser,
    CannotBuild,
    activity_browser,
    activity_url,
    build_mock_page,
    missing,
)
from testkit.clock import ManualClock
from testkit.fakediscord import FakeChannel, FakeDiscord, FakeUser
from testkit.games.jazz import JAZZ_ONLY
from testkit.harness import MakeBot, idle, live_menu, table_message
from testkit.tables import live, player_to_act, start_jazz
from testkit.webtable import WEB_EXTENSION
from web.activity import NO_TABLE, NOT_CONFIRMED, NOT_IN_ACTIVITY
from web.tokens import Signer

from .test_activity_launch import activity_settings

pytestmark = [pytest.mark.slow,
              pytest.mark.skipif(missing() is not None, reason=missing() or "")]


@pytest.fixture(scope="session")
def mock_page(tmp_path_factory: pytest.TempPathFactory) -> Path:
    try:
        return build_mock_page(tmp_path_factory.mktemp("activity-page"))
    except CannotBuild as why:
        pytest.skip(str(why))


@pytest.fixture
def settings(fake: FakeDiscord, mock_page: Path, monkeypatch: pytest.MonkeyPatch) -> WebSettings:
    """The Activity on, and the server's page the test build (from PUBLIC_URL, so the
    WebSocket's Origin check is the real one)."""
    fake.enable_activities()
    monkeypatch.setattr(web.server, "STATIC", mock_page)
    return activity_settings(fake)


@pytest.fixture
async def bot(run_bot: MakeBot, clock: ManualClock, settings: WebSettings) -> CardTableBot:
    return await run_bot(extensions={**JAZZ_ONLY, **WEB_EXTENSION}, clock=clock, web=settings)


@pytest.fixture
async def browser() -> AsyncIterator[ActivityBrowser]:
    async with activity_browser() as opened:
        yield opened


async def test_a_seated_participant_signs_in_sees_their_hand_and_plays_and_discord_follows(
        fake: FakeDiscord, general: FakeChannel, users: list[FakeUser], bot: CardTableBot,
        settings: WebSettings, browser: ActivityBrowser) -> None:
    await start_jazz(fake, general, users)
    await idle(bot)
    table = live(bot, general)
    assert table is not None and table.game is not None
    mover = player_to_act(fake, bot, general, users)
    seat = table.seat_of(mover.id)
    assert seat is not None
    instance = fake.start_activity(general, [mover])
    code = fake.authorize(mover)

    tab = await browser.open(activity_url(settings.public_url, instance, code,
                                          channel_id=general.id, guild_id=general.guild_id))
    page = tab.page
    await page.locator("#hand button.m-legal").first.wait_for()
    # The handshake as Discord's client saw it: authorize(identify), then authenticate
    # with the access token the fake's OAuth2 gave the server for this user's code.
    calls = await tab.discord_calls()
    assert [c["command"] for c in calls] == ["authorize", "authenticate"], calls
    assert calls[0]["args"] == {"client_id": settings.client_id, "response_type": "code",
                                "state": "", "prompt": "none", "scope": ["identify"]}
    access_token = calls[1]["args"]["access_token"]
    assert fake.activities.bearer_user(f"Bearer {access_token}") is mover
    # The page said only the code and the instance: never who it is.
    assert tab.token_posts == [{"code": code, "instance_id": instance}]

    # Their own hand, exactly; the header is a player's, not a watcher's.
    held = list(table.game.seat_view(seat)["hand"])
    assert sorted(await tab.hand_codes()) == sorted(held)
    assert await page.locator("#status.watch").count() == 0

    table_before = table_message(fake, general)
    assert table_before is not None
    shown_before = table_before.text()
    version = table.version
    button = page.locator("#hand button.m-legal").first
    card = await button.get_attribute("data-code")
    assert card in held
    await button.click()
    await page.locator(f'#hand button[data-code="{card}"]').wait_for(state="detached")
    await idle(bot)
    table = live(bot, general)
    assert table is not None and table.game is not None and table.version > version
    assert card not in table.game.seat_view(seat)["hand"]
    # Discord follows: the table message shows the move, the next player has a menu.
    after = table_message(fake, general)
    assert after is not None and after.text() != shown_before
    nxt = player_to_act(fake, bot, general, users)
    assert nxt is not mover and live_menu(fake, nxt) is not None
    assert not tab.errors, tab.errors


async def test_a_participant_without_a_seat_sees_only_the_public_table(
        fake: FakeDiscord, general: FakeChannel, users: list[FakeUser], bot: CardTableBot,
        settings: WebSettings, browser: ActivityBrowser) -> None:
    await start_jazz(fake, general, users)
    await idle(bot)
    dora = fake.add_user("dora")
    instance = fake.start_activity(general, [users[0], dora])
    tab = await browser.open(activity_url(settings.public_url, instance, fake.authorize(dora)))
    page = tab.page
    await page.locator("#status.watch").wait_for()
    await page.locator("#zones .card, #seats-top li, #seats-left li, #seats-right li"
                       ).first.wait_for()
    assert await page.locator("#hand").is_hidden()
    assert await tab.hand_codes() == []
    assert await page.locator("#hand button").count() == 0
    assert tab.token_posts and all(set(body) == {"code", "instance_id"}
                                   for body in tab.token_posts)
    assert not tab.errors, tab.errors


async def test_another_channels_participant_a_forged_code_and_a_sent_user_id_are_refused(
        fake: FakeDiscord, general: FakeChannel, users: list[FakeUser], bot: CardTableBot,
        settings: WebSettings, browser: ActivityBrowser) -> None:
    await start_jazz(fake, general, users)
    await idle(bot)
    table = live(bot, general)
    assert table is not None
    seated = next(u for u in users if table.seat_of(u.id) is not None)
    eve = fake.add_user("eve")
    here = fake.start_activity(general, [seated])
    elsewhere = fake.start_activity(fake.channel("games"), [eve])
    sentence = {key: say(key, "en") for key in (NOT_IN_ACTIVITY, NOT_CONFIRMED, NO_TABLE)}

    # In another channel's instance: not in this one, whatever instance id the page says.
    tab = await browser.open(activity_url(settings.public_url, here, fake.authorize(eve)))
    assert await tab.alert() == sentence[NOT_IN_ACTIVITY]
    # In her own instance: its channel has no table.
    tab = await browser.open(activity_url(settings.public_url, elsewhere, fake.authorize(eve)))
    assert await tab.alert() == sentence[NO_TABLE]
    # A code Discord never gave.
    tab = await browser.open(activity_url(settings.public_url, here, "forged-code-0123456789"))
    assert await tab.alert() == sentence[NOT_CONFIRMED]
    assert await tab.page.locator("#hand, #status").count() == 0
    # A spent code: the seated player's, taken once already.
    code = fake.authorize(seated)
    tab = await browser.open(activity_url(settings.public_url, here, code))
    await tab.page.locator("#hand button[data-code]").first.wait_for()
    tab = await browser.open(activity_url(settings.public_url, here, code))
    assert await tab.alert() == sentence[NOT_CONFIRMED]

    # The page never sends a user id (above); one sent anyway counts for nothing.
    fake.join_activity(here, eve)
    async with aiohttp.ClientSession() as http:
        body = {"code": fake.authorize(eve), "instance_id": here, "user_id": str(seated.id)}
        async with http.post(f"{settings.public_url}/api/token", json=body) as answer:
            assert answer.status == 200
            got = await answer.json()
    assert got["role"] == "watch"
    assert Signer(settings.secret).read_session(got["session"], time.time()).user == eve.id
