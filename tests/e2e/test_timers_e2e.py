"""Turn timers, away players and lobby expiry on the fake Discord, with a hand-moved clock."""

from __future__ import annotations

import random

import pytest

from testkit.harness import choose, idle, live_menu, table_message
from testkit.tables import actions_played, player_to_act, start_jazz

TURN = 300  # the default turn timer, seconds


async def test_reminder_at_half_time_then_the_bot_plays_and_says_so(
        fake, users, general, jazz_game, clock):
    bot = jazz_game
    await idle(bot)
    slow = player_to_act(fake, bot, general, users)
    before = actions_played(bot, general)
    dms = len(fake.messages(slow))
    clock.advance(TURN / 2 - 1)
    await idle(bot)
    assert len(fake.messages(slow)) == dms  # not yet
    clock.advance(1)
    await idle(bot)
    reminder = fake.messages(slow)[-1]
    assert "still your turn" in reminder.content and "<t:" in reminder.content
    assert actions_played(bot, general) == before
    clock.advance(TURN / 2)
    await idle(bot)
    assert actions_played(bot, general) == before + 1
    table = bot.croupier.manager.in_channel(general.id)
    assert "ran out of time" in table_message(fake, general).text()
    assert table.seats[[u.id for u in users].index(slow.id)].expiries == 1
    assert player_to_act(fake, bot, general, users) != slow


async def test_three_expiries_make_a_player_away_until_they_come_back(
        fake, users, general, jazz_game, clock):
    bot = jazz_game
    await idle(bot)
    table = bot.croupier.manager.in_channel(general.id)
    slow = users[0]
    seat = table.seats[table.seat_of(slow.id)]
    rng = random.Random(5)

    def played_for_away() -> bool:
        return any("is away: I played" in text
                   for text in table_message(fake, general).all_texts())

    for _ in range(40):  # the others play at once; alice lets her timer run out
        if played_for_away():
            break
        if player_to_act(fake, bot, general, users) == slow:
            assert not seat.away  # an away player is never waited for
            clock.advance(TURN)
        else:
            user = player_to_act(fake, bot, general, users)
            message, _ = live_menu(fake, user)
            await (await choose(fake, user, message, rng)).wait_answered()
        await idle(bot)
    assert seat.away and seat.expiries == 3 and played_for_away()
    ix = await fake.click(slow, table_message(fake, general), label="My hand")
    await ix.wait_answered()
    await idle(bot)
    assert "Welcome back" in ix.response.content
    assert not seat.away and seat.expiries == 0


@pytest.mark.slow
async def test_everybody_away_stops_the_table(fake, users, general, jazz_game, clock):
    bot = jazz_game
    await idle(bot)
    for _ in range(12):
        clock.advance(TURN)
        await idle(bot)
        if bot.croupier.manager.in_channel(general.id) is None:
            break
    assert bot.croupier.manager.in_channel(general.id) is None
    assert "every player is away" in general.messages[-1].text() or any(
        "every player is away" in m.text() for m in general.messages)
    history = await bot.store.history(fake.world.guild.id)
    assert len(history) == 1 and not history[0].completed


async def test_idle_lobby_expires_after_15_minutes(fake, alice, bob, general, jazz_bot, clock):
    bot = jazz_bot
    await (await fake.slash(alice, general, "jazz start")).wait_answered()
    lobby = fake.find_message(general, label="Join")
    clock.advance(10 * 60)
    await idle(bot)
    await (await fake.click(bob, lobby, label="Join")).wait_answered()  # activity
    clock.advance(10 * 60)
    await idle(bot)
    assert bot.croupier.manager.in_channel(general.id) is not None
    clock.advance(5 * 60)
    await idle(bot)
    assert bot.croupier.manager.in_channel(general.id) is None
    assert lobby.buttons() == [] and "15 minutes" in lobby.text()
    assert await bot.store.active_table_in_channel(general.id) is None


@pytest.mark.slow
async def test_an_old_table_message_is_replaced_by_a_fresh_one(
        fake, users, general, jazz_bot, clock):
    bot = jazz_bot
    await start_jazz(fake, general, users, turn_timer="60")
    await idle(bot)
    old = table_message(fake, general)
    clock.advance(49 * 60)
    user = player_to_act(fake, bot, general, users)
    await (await choose(fake, user, live_menu(fake, user)[0], random.Random(1))
           ).wait_answered()
    await idle(bot)
    assert table_message(fake, general) is old  # still young enough: edited in place
    clock.advance(2 * 60)
    user = player_to_act(fake, bot, general, users)
    await (await choose(fake, user, live_menu(fake, user)[0], random.Random(1))
           ).wait_answered()
    await idle(bot)
    new = table_message(fake, general)
    assert new.id != old.id
    assert old.buttons() == [] and "moved on" in old.content
    assert bot.croupier.manager.in_channel(general.id).posts.message_id == new.id
