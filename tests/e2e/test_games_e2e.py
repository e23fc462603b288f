"""A full game of every other landed game, from /<game> start to the final result."""

from __future__ import annotations

import random

import pytest

from engine.registry import available_games, game_class
from testkit.harness import GameDriver, HiddenLog, watch_engine
from testkit.tables import recorded_actions

CASES = [
    ("jacko", "jacko", 2, {}),
    ("california_jack", "californiajack", 2, {}),
    ("attackjack", "attackjack", 3, {}),
    ("attackjack", "attackjack", 4, {"choice": True, "blind": True, "stake": 10}),
]


@pytest.mark.slow
@pytest.mark.parametrize(("game_id", "command", "players", "options"), CASES)
async def test_full_game(run_bot, fake_discord, monkeypatch, game_id, command, players, options):
    if game_id not in available_games():
        pytest.fail(f"the {game_id} engine has not landed")
    fake = fake_discord
    users = [fake.add_user(n) for n in ("alice", "bob", "cy", "dee")[:players]]
    general = fake.channel("general")
    log = HiddenLog(fake, [general])
    watch_engine(monkeypatch, game_class(game_id), log)
    bot = await run_bot(extensions={f"cogs.{game_id}": game_id})
    ix = await fake.slash(users[0], general, f"{command} start", **options)
    await ix.wait_answered()
    lobby = fake.find_message(general, label="Join")
    for user in users[1:]:
        await (await fake.click(user, lobby, label="Join")).wait_answered()
    await (await fake.click(users[0], lobby, label="Start")).wait_answered()
    mark = fake.mark()
    driver = GameDriver(fake, bot, general, users, random.Random(2))
    await driver.play_to_end(limit=5000)
    await fake.settle()
    calls = len(fake.calls_since(mark))
    actions = await recorded_actions(bot, fake)
    print(f"\n{game_id} {options}: {driver.moves} clicks, {actions} recorded actions, "
          f"{calls} API calls")
    assert fake.find_message(general, text="final result") or \
        fake.find_message(general, text="showdown")
    live = bot.croupier.manager.in_channel(general.id)
    # The game is over; AttackJack is a series (bot.features.series): only its next deal waits.
    assert live is None or (game_id == "attackjack" and live.game is None
                            and live.series_start_at is not None)
    assert log.leaks() == []
