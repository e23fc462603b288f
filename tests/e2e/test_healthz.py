"""/healthz answers 200 only while the bot serves: set up, every shard it runs connected
to the gateway (discord.py's is_ready() stays true across a dropped connection), and the
database answering; /metrics says whether the bot has work left (cardtable_busy)."""

from __future__ import annotations

import asyncio
import dataclasses
import re
from typing import Any

import aiohttp

from testkit.fakediscord.gateway import Gateway
from testkit.games.jazz import JAZZ_ONLY
from testkit.harness import idle
from testkit.tables import start_jazz


async def status(http: aiohttp.ClientSession, url: str) -> int:
    async with http.get(url + "/healthz") as response:
        return response.status


async def until_status(http: aiohttp.ClientSession, url: str, wanted: int) -> None:
    for _ in range(500):  # a bound for a failing run only: each check is an event
        if await status(http, url) == wanted:
            return
        await asyncio.sleep(0.01)
    raise AssertionError(f"/healthz never answered {wanted}")


def busy(text: str) -> int:
    found = re.search(r"^cardtable_busy (\d)$", text, re.MULTILINE)
    assert found, "cardtable_busy missing from /metrics"
    return int(found.group(1))


async def test_healthz_follows_the_gateway_and_the_database(fake, users, general, new_bot,
                                                            monkeypatch):
    bot = await new_bot(extensions=JAZZ_ONLY)
    bot.settings = dataclasses.replace(bot.settings, health_port=0)  # any free port
    held = asyncio.Event()
    resume = Gateway._resume

    async def held_resume(gateway: Gateway, conn: Any, data: dict[str, Any]) -> None:
        await held.wait()  # the gateway is down until the test lets it resume
        await resume(gateway, conn, data)

    async with fake.running(bot), aiohttp.ClientSession() as http:
        assert bot.health is not None
        url = bot.health.url
        await until_status(http, url, 200)
        await start_jazz(fake, general, users)
        await idle(bot)
        async with http.get(url + "/metrics") as response:
            assert busy(await response.text()) == 0

        # The gateway drops: 503 until the shard has resumed.
        monkeypatch.setattr(Gateway, "_resume", held_resume)
        await fake.drop_connections()
        await until_status(http, url, 503)
        assert bot.is_ready()  # what the endpoint answered before: still "ready"
        held.set()
        await fake.wait_for(lambda: fake.resumes, timeout=5)
        await until_status(http, url, 200)

        # The database stops answering: 503 until it answers again.
        store = bot.store
        real_info = store.info

        async def no_answer() -> Any:
            raise ConnectionRefusedError("the database is down")

        monkeypatch.setattr(store, "info", no_answer)
        assert await status(http, url) == 503
        monkeypatch.setattr(store, "info", real_info)
        assert await status(http, url) == 200
