"""A full game of Jazz on the fake Discord, played only through what users see."""

from __future__ import annotations

import random

import pytest

from engine.jazz import Jazz
from testkit.games.jazz import JAZZ_ONLY
from testkit.harness import GameDriver, HiddenLog, watch_engine
from testkit.tables import recorded_actions, start_jazz


@pytest.mark.slow
async def test_full_jazz_game_by_dm(fake, alice, bob, cy, general, run_bot, monkeypatch):
    log = HiddenLog(fake, [general])
    watch_engine(monkeypatch, Jazz, log)
    bot = await run_bot(extensions=JAZZ_ONLY)
    ix = await fake.slash(alice, general, "jazz start")
    await ix.wait_answered()
    lobby = fake.find_message(general, label="Join")
    for user in (bob, cy):
        await (await fake.click(user, lobby, label="Join")).wait_answered()
    await (await fake.click(alice, lobby, label="Start")).wait_answered()
    mark = fake.mark()
    driver = GameDriver(fake, bot, general, [alice, bob, cy], random.Random(1))
    await driver.play_to_end()
    await fake.settle()
    calls = len(fake.calls_since(mark))
    final = fake.find_message(general, text="final result")
    assert final is not None
    assert bot.croupier.manager.in_channel(general.id) is None
    assert log.leaks() == []
    actions = await recorded_actions(bot, fake)
    print(f"\nJazz by DM: {driver.moves} clicks, {actions} actions (with the bot's forced "
          f"passes), {calls} API calls: {calls / actions:.2f} per action, "
          f"{calls / driver.moves:.2f} per click; {dict(fake.call_counts(since=mark))}")
    # Per move: the answer (the DM updated), the table edit, the next player's DM.
    assert calls / actions <= 3.0


@pytest.mark.slow
async def test_full_jazz_game_with_hands_in_the_channel(fake, run_bot, monkeypatch):
    users = [fake.add_user(n) for n in ("alice", "bob", "cy", "dee")]
    thread = fake.channel("table-thread")
    log = HiddenLog(fake, [thread])
    watch_engine(monkeypatch, Jazz, log)
    bot = await run_bot(extensions=JAZZ_ONLY)
    await start_jazz(fake, thread, users, hands="channel")
    mark = fake.mark()
    driver = GameDriver(fake, bot, thread, users, random.Random(3))
    await driver.play_to_end()
    await fake.settle()
    calls, actions = len(fake.calls_since(mark)), await recorded_actions(bot, fake)
    print(f"\nJazz in a thread, hands in the channel: {actions} actions, {calls} API calls "
          f"({calls / actions:.2f} per action, the My hand clicks included)")
    assert fake.find_message(thread, text="final result") is not None
    for user in users:  # hands only ever came as ephemeral messages
        assert fake.messages(user) == []
        assert fake.ephemerals(user)
    assert log.leaks() == []
