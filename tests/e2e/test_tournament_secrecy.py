"""A duplicate round's deals stay secret while the round is under way: a finished
table's Replay (and its record, and the web replay, which read the same check) is
refused while another table of its round still plays the same cards; once the round is
over, it opens."""

from __future__ import annotations

import random

import pytest

from bot.table.tournament_secrecy import deals_secret
from testkit.bots import Bots
from testkit.fakediscord import FakeChannel, FakeDiscord
from testkit.harness import GameDriver, idle
from tests.e2e.test_tournaments import WITH_GAMES, join, live, setting_up, sign_up


@pytest.fixture
def bot_extensions() -> dict[str, str | None]:
    return WITH_GAMES


async def test_a_finished_tables_replay_waits_for_its_duplicate_round(
        fake: FakeDiscord, general: FakeChannel, bots: Bots):
    _clock, players, bot = await setting_up(fake, general, bots, 4)
    owner = fake.user("owner")
    create = await fake.slash(owner, general, "tournament create", game="jacko", rounds=1,
                              seats=2, duplicate=True, options={"options": "target=31"})
    await create.wait_answered()
    await sign_up(fake, general, players)
    await (await fake.slash(owner, general, "tournament start")).wait_answered()
    await idle(bot)
    await fake.settle()
    rnd = live(bot, general).current
    assert rnd is not None and len(rnd.tables) == 2
    await join(fake, bot, rnd)
    first, second = rnd.tables
    assert first.channel_id is not None and second.channel_id is not None
    users = fake.world.users

    async def play_table(players_: list[int], seed: int) -> None:
        driver = GameDriver(fake, bot, general, [users[u] for u in players_],
                            random.Random(seed))
        await driver.play_to_end(limit=10_000)
        await idle(bot)
        await fake.settle()

    await play_table(first.players, 1)
    thread = fake.world.channels[first.channel_id]
    result = fake.find_message(thread, label="Replay")
    assert result is not None
    game_id = await bot.store.game_of_table(first.table_id)
    assert game_id is not None and await deals_secret(bot.store, game_id)
    asker = users[first.players[0]]
    refused = await fake.click(asker, result, label="Replay")
    await refused.wait_answered()
    assert "still being played at other tables" in refused.text()
    assert "Deal 1 of" not in str(refused.response)

    await play_table(second.players, 2)  # the round (and the tournament) is over
    assert not await deals_secret(bot.store, game_id)
    shown = await fake.click(asker, result, label="Replay")
    await shown.wait_answered()
    assert "still being played" not in shown.text()
    assert "Replay of game" in str(shown.response)
