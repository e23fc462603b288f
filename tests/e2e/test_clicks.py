"""Closed DMs, stale and foreign clicks, and 50 simultaneous clicks on one move."""

from __future__ import annotations

import asyncio
import dataclasses
import random

import pytest

from testkit.games.jazz import JAZZ_ONLY
from testkit.harness import (
    FAST,
    GameDriver,
    idle,
    live_menu,
    table_message,
)
from testkit.tables import actions_played, dm_menu, player_to_act, start_jazz


@pytest.mark.slow
async def test_closed_dms_use_my_hand_and_are_announced_once(fake, general, run_bot):
    alice, cy = fake.add_user("alice"), fake.add_user("cy")
    bob = fake.add_user("bob", dms_closed=True)
    bot = await run_bot(extensions=JAZZ_ONLY)
    await start_jazz(fake, general, [alice, bob, cy])
    driver = GameDriver(fake, bot, general, [alice, bob, cy], random.Random(4))
    for _ in range(60):  # a good part of two deals: bob's turn comes many times
        assert await driver.play_one()
    await idle(bot)
    notices = [m for m in general.messages if "cannot send you DMs" in m.content]
    assert len(notices) == 1 and f"<@{bob.id}>" in notices[0].content
    assert fake.messages(bob) == []  # nothing reached bob's closed DMs
    assert fake.ephemerals(bob)  # his hands came under My hand
    assert fake.messages(alice) and fake.messages(cy)
    assert any(c.code == 50007 for c in fake.errors)
    assert bob.id in bot.croupier.manager.in_channel(general.id).posts.dm_closed


async def test_stale_menu_is_refused_politely_with_a_fresh_hand(fake, users, general, jazz_game):
    bot = jazz_game
    await idle(bot)
    user = player_to_act(fake, bot, general, users)
    # The player opens My hand (an ephemeral menu) and then plays from the DM instead.
    await (await fake.click(user, table_message(fake, general), label="My hand")
           ).wait_answered()
    ephemeral = max(fake.ephemerals(user), key=lambda m: m.id)
    dm, select = dm_menu(fake, user)
    played = select["options"][0]["value"]
    await (await fake.select(user, dm, select["custom_id"], [played])).wait_answered()
    await idle(bot)
    before = actions_played(bot, general)
    old = next(c for c in ephemeral.selects())
    value = next(o["value"] for o in old["options"] if o["value"] != played)
    ix = await fake.select(user, ephemeral, old["custom_id"], [value])
    await ix.wait_answered()
    await idle(bot)
    assert ix.response.ephemeral and "out of date" in ix.response.content
    assert ix.response.embeds and "Your hand" in ix.response.embeds[0]["title"]
    assert actions_played(bot, general) == before  # nothing changed


async def test_foreign_clicks_change_nothing(fake, general, run_bot):
    alice, bob, cy, eve = (fake.add_user(n) for n in ("alice", "bob", "cy", "eve"))
    bot = await run_bot(extensions=JAZZ_ONLY)
    ix = await fake.slash(alice, general, "jazz start")
    await ix.wait_answered()
    lobby = fake.find_message(general, label="Join")
    await (await fake.click(bob, lobby, label="Join")).wait_answered()
    twice = await fake.click(bob, lobby, label="Join")
    await twice.wait_answered()
    assert "already seated" in twice.response.content and twice.response.ephemeral
    await (await fake.click(cy, lobby, label="Join")).wait_answered()
    not_host = await fake.click(bob, lobby, label="Start")
    await not_host.wait_answered()
    assert "Only the host" in not_host.response.content
    await (await fake.click(alice, lobby, label="Start")).wait_answered()
    await idle(bot)
    table = bot.croupier.manager.in_channel(general.id)
    step = table.step
    stranger = await fake.click(eve, table_message(fake, general), label="My hand")
    await stranger.wait_answered()
    assert stranger.response.ephemeral
    assert "not seated" in stranger.response.content
    assert not stranger.response.embeds  # a stranger never sees anybody's hand
    late = await fake.slash(eve, general, "jazz join")
    await late.wait_answered()
    assert "already started" in late.response.content
    second = await fake.slash(eve, general, "jazz start")
    await second.wait_answered()
    assert "already a table of Jazz in this channel" in second.response.content
    assert table.step == step
    assert [s.user_id for s in table.seats] == [alice.id, bob.id, cy.id]


async def test_fifty_simultaneous_clicks_apply_one_move(fake, users, general, jazz_game):
    bot = jazz_game
    await idle(bot)
    user = player_to_act(fake, bot, general, users)
    message, select = live_menu(fake, user)
    values = [o["value"] for o in select["options"]]
    before = actions_played(bot, general)
    clicks = await asyncio.gather(*(
        fake.select(user, message, select["custom_id"], [values[i % len(values)]])
        for i in range(50)))
    await asyncio.gather(*(ix.wait_answered() for ix in clicks))
    await idle(bot)
    assert actions_played(bot, general) == before + 1
    applied = [ix for ix in clicks if ix.response.type == 7]
    refused = [ix for ix in clicks if ix.response.type == 4]
    assert len(applied) == 1 and len(refused) == 49
    assert all(ix.response.ephemeral and "out of date" in ix.response.content
               for ix in refused)


async def test_a_click_waiting_on_a_busy_table_is_deferred_within_discords_3_seconds(
        fake, users, general, run_bot):
    timing = dataclasses.replace(FAST, lock_patience=0.2)
    bot = await run_bot(extensions=JAZZ_ONLY, timing=timing)
    await start_jazz(fake, general, users)
    await idle(bot)
    table = bot.croupier.manager.in_channel(general.id)
    user = player_to_act(fake, bot, general, users)
    lock = bot.croupier.manager.lock(table)
    await lock.acquire()  # a long step in progress
    try:
        ix = await fake.click(user, table_message(fake, general), label="My hand")
        await ix.wait_answered(timeout=1)
        assert ix.response.type == 5 and ix.response.ephemeral  # "thinking", in time
    finally:
        lock.release()
    await ix.wait_done()
    assert "Your hand" in ix.text()
