"""Play in Discord: the table as an Activity, launched from the lobby and the table, and
its sign-in through the bot's own web table (the fake's OAuth2 and instance endpoints)."""

from __future__ import annotations

import dataclasses
import time

import aiohttp
import pytest

import locales
from bot.config.web_settings import WebSettings
from engine.text import T
from testkit.clock import ManualClock
from testkit.fakediscord import FakeChannel, FakeDiscord
from testkit.games.jazz import JAZZ_ONLY
from testkit.harness import MakeBot, idle, table_message
from testkit.tables import live, start_jazz
from testkit.webtable import WEB_EXTENSION, Page, web_settings
from web.tokens import Signer

LOCALES = ("en-US", "sv-SE", "da", "ru")


def label(locale: str) -> str:
    """The button's label as the catalogues say it (tests/locales: none is missing)."""
    return locales.say(T("Play in Discord"), locales.language_of(locale))


def activity_settings(fake: FakeDiscord) -> WebSettings:
    return dataclasses.replace(
        web_settings(), activity=True, client_id=str(fake.world.application_id),
        client_secret=fake.client_secret, discord_api=fake.api_url)


@pytest.mark.parametrize("locale", LOCALES)
async def test_play_in_discord_launches_the_activity_in_every_language(
        fake: FakeDiscord, general: FakeChannel, run_bot: MakeBot, clock: ManualClock,
        locale: str) -> None:
    fake.enable_activities()
    fake.world.guild.preferred_locale = locale
    users = [fake.add_user(name, locale=locale) for name in ("ann", "bo", "cy")]
    bot = await run_bot(extensions={**JAZZ_ONLY, **WEB_EXTENSION}, clock=clock,
                        web=activity_settings(fake))
    await (await fake.slash(users[0], general, "jazz start")).wait_answered()
    lobby = fake.find_message(general, custom_id_prefix="ct:lobby:")
    assert lobby is not None and label(locale) in lobby.text(), lobby and lobby.text()
    play = next(c["custom_id"] for c in lobby.leaf_components()
                if str(c.get("custom_id", "")).endswith(":play"))
    launched = await (await fake.click(users[1], lobby, play)).wait_answered()
    assert launched.response is not None and launched.response.type == 12
    assert launched.age < 3.0
    assert fake.activities.in_channel(general) is not None  # Discord opened it there
    await idle(bot)


async def test_an_activity_participant_signs_in_and_plays_and_a_stranger_only_watches(
        fake: FakeDiscord, general: FakeChannel, users: list, run_bot: MakeBot,
        clock: ManualClock) -> None:
    fake.enable_activities()
    settings = activity_settings(fake)
    outsider = fake.add_user("dora")
    bot = await run_bot(extensions={**JAZZ_ONLY, **WEB_EXTENSION}, clock=clock, web=settings)
    await start_jazz(fake, general, users)
    await idle(bot)
    table = live(bot, general)
    assert table is not None and table.to_act is not None
    message = table_message(fake, general)
    assert message is not None and "Play in Discord" in message.text()
    mover = next(u for u in users if table.seat_of(u.id) == table.to_act)
    instance = fake.start_activity(general, [mover, outsider])
    async with aiohttp.ClientSession() as http:
        async def sign_in(user, **extra):
            body = {"code": fake.authorize(user), "instance_id": instance, **extra}
            async with http.post(f"{settings.public_url}/api/token", json=body) as r:
                return r.status, await r.json()

        status, body = await sign_in(mover)
        assert status == 200 and body["role"] == "seat" and body["table"] == table.table_id
        grant = Signer(settings.secret).read_session(body["session"], time.time())
        assert grant.user == mover.id
        # The Activity's page reaches the socket from Discord's proxy, not PUBLIC_URL.
        page = Page(settings.public_url, http, session=body["session"])
        first = await page.connect(origin=f"https://{settings.client_id}.discordsays.com")
        legal = next(a for a in first["hand"]["actions"] if a["legal"])
        await page.send(type="move", step=first["hand"]["step"], code=legal["code"])
        assert (await page.snapshot(first["version"] + 1))["version"] > first["version"]
        status, body = await sign_in(outsider, user_id=str(mover.id))  # a forged id: ignored
        assert status == 200 and body["role"] == "watch"
        watcher = Page(settings.public_url, http, session=body["session"])
        seen = await watcher.connect(origin=f"https://{settings.client_id}.discordsays.com")
        assert seen["hand"] is None and seen["seat"] is None
        async with http.get(f"{settings.public_url}/table") as r:
            csp = r.headers["Content-Security-Policy"]
        assert "default-src 'self'" in csp and "https://*.discordsays.com" in csp
        await page.close()
        await watcher.close()
