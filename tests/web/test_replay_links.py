"""/history's Replay link: a finished game stepped through in the browser, for the asker."""

from __future__ import annotations

from datetime import timedelta

import aiohttp

from bot.storage import FinishedGame, SeatResult
from engine.registry import game_class
from testkit.clock import ManualClock
from testkit.fakediscord import FakeChannel, FakeDiscord, FakeUser
from testkit.harness import MakeBot
from testkit.results import T0
from testkit.webtable import WEB_EXTENSION, Page, token_of, web_settings
from tests.engine.playout import random_game


async def test_history_gives_a_replay_link_whose_frames_step_through_the_game(
        fake: FakeDiscord, general: FakeChannel, alice: FakeUser, run_bot: MakeBot,
        clock: ManualClock) -> None:
    settings = web_settings()
    bot = await run_bot(extensions={"cogs.history": None, **WEB_EXTENSION}, clock=clock,
                        web=settings)
    game = random_game(game_class("jacko"), 2, None, seed=3)
    totals = game.totals
    game_id = await bot.store.record_game(FinishedGame(
        fake.world.guild.id, general.id, "jacko", T0, T0 + timedelta(minutes=5), True,
        game.to_record(), [SeatResult(i, 700 + i, f"Seat {i}", totals[i], i, False, 0)
                           for i in range(2)], stakes=False))
    listing = await (await fake.slash(alice, general, "history")).wait_answered()
    got = await (await fake.select(alice, listing.message, "ct:rec",
                                   [str(game_id)])).wait_answered()
    assert got.message is not None
    (link,) = [c["url"] for c in got.message.buttons() if c.get("url")]
    assert link.startswith(f"{settings.public_url}/replay#")
    async with aiohttp.ClientSession() as http:
        page = Page(settings.public_url, http)
        status, body = await page.redeem(token_of(link))
        assert status == 200 and body["role"] == "replay" and body["table"] == str(game_id)
        headers = {"Authorization": f"Bearer {page.session}"}
        async with http.get(f"{settings.public_url}/api/replay", headers=headers) as r:
            assert r.status == 200
            replay = await r.json()
        frames = replay["frames"]
        actions = sum(len(d["actions"]) for d in game.to_record()["deals"])
        assert replay["game"] == "jacko" and len(frames) > actions
        assert replay["players"] == ["Seat 0", "Seat 1"]  # the names /history shows
        assert replay["deals"][0] == 0 and all(len(f["hands"]) == 2 for f in frames)
        # A replay session opens no live table, and nothing else opens a replay.
        frame = await page.connect()
        assert frame["type"] == "error" and frame["fatal"]
        async with http.get(f"{settings.public_url}/api/replay",
                            headers={"Authorization": "Bearer forged.token"}) as r:
            assert r.status == 403 and "ended" in (await r.json())["error"]
