"""The health and metrics endpoint of a running bot, filled by real clicks."""

from __future__ import annotations

import dataclasses
import random
import re

import aiohttp

from testkit.games.jazz import JAZZ_ONLY
from testkit.harness import GameDriver, idle
from testkit.tables import start_jazz


def metric(text: str, name: str) -> float:
    found = re.search(rf"^{re.escape(name)} (\S+)$", text, re.MULTILINE)
    assert found, f"{name} missing from /metrics"
    return float(found.group(1))


async def test_metrics_count_moves_clicks_answers_and_tables(fake, users, general, new_bot):
    bot = await new_bot(extensions=JAZZ_ONLY)
    bot.settings = dataclasses.replace(bot.settings, health_port=0)  # any free port
    async with fake.running(bot), aiohttp.ClientSession() as http:
        assert bot.health is not None
        async with http.get(bot.health.url + "/healthz") as response:
            assert response.status == 200
        await start_jazz(fake, general, users)  # a slash command and three clicks
        driver = GameDriver(fake, bot, general, users, random.Random(1))
        for _ in range(5):
            assert await driver.play_one()
        await idle(bot)
        async with http.get(bot.health.url + "/metrics") as response:
            text = await response.text()
        url = bot.health.url
    assert metric(text, "cardtable_moves_total") == 5
    assert metric(text, "cardtable_interactions_total") == 4 + len(driver.answered)
    assert metric(text, 'cardtable_live_tables{status="playing"}') == 1
    assert metric(text, "cardtable_interaction_answer_seconds_count") == 4 + len(driver.answered)
    assert metric(text, 'cardtable_interaction_answer_seconds_bucket{le="3.0"}') \
        == metric(text, "cardtable_interaction_answer_seconds_count")  # all within 3 s
    assert metric(text, "cardtable_interaction_errors_total") == 0
    async with aiohttp.ClientSession() as http:  # closed with the bot
        try:
            async with http.get(url + "/healthz"):
                raise AssertionError("the endpoint outlived the bot")
        except aiohttp.ClientConnectionError:
            pass
