"""A fifth game declared from the tests folder alone plays end to end on the fake Discord.

``tests/toy`` holds its engine, its AI and its cog; ``registry.register`` adds its
``GameSpec`` for this test only. Nothing outside tests/toy knows the game.
"""

from __future__ import annotations

import random
from collections.abc import Iterator

import pytest

from engine import registry
from engine.records import replay
from testkit.harness import GameDriver, idle, make_bot
from tests.toy import SPEC


@pytest.fixture
def toy() -> Iterator[registry.GameSpec]:
    registry.register(SPEC)
    yield SPEC
    registry.unregister(SPEC.id)


async def test_a_game_declared_in_the_tests_plays_to_its_end(
        fake, alice, bob, general, tmp_path, toy):
    bot = await make_bot(tmp_path / "db.sqlite",
                         extensions={"cogs.help": None, toy.cog: toy.id, "cogs.history": None})
    async with fake.running(bot):
        help_ix = await (await fake.slash(alice, general, "help")).wait_answered()
        assert "/toy" in help_ix.message.text()
        await (await fake.slash(alice, general, "toy start", deals=2)).wait_answered()
        lobby = fake.find_message(general, label="Join")
        await (await fake.click(bob, lobby, label="Join")).wait_answered()
        await (await fake.click(alice, lobby, label="Add AI: Easy")).wait_answered()
        await (await fake.click(alice, lobby, label="Start")).wait_answered()
        driver = GameDriver(fake, bot, general, [alice, bob], random.Random(2))
        await driver.play_to_end()
        await idle(bot)
        final = fake.find_message(general, text="final result")
        assert final is not None and "High Card" in final.text()
        [game] = await bot.store.history(fake.world.guild.id)
        assert game.game == "toy" and len(game.players) == 3
        result = replay(await bot.store.game_record(game.game_id), summary=True)
        assert result["complete"] and len(result["deals"]) == 2
        assert result["totals"] == [p.points for p in game.players]
        assert sum(result["totals"]) == 2 * 3  # three tricks a deal, a point each
        assert driver.moves == 2 * 3 * 2  # each person played their three cards a deal
