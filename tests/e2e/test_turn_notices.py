"""Telling the right person it is their turn: a DM when DMs are open, else one mention in
the channel, deleted as soon as that turn is over."""

from __future__ import annotations

import random

import pytest

from testkit.fakediscord import FakeMessage, FakeUser
from testkit.games.jazz import JAZZ_ONLY
from testkit.harness import idle, table_message
from testkit.tables import mentioned, move, notices, player_to_act, start_jazz


def check_notices(fake, bot, channel, users, mover: FakeUser | None) -> FakeMessage | None:
    """At most one live notice, for the player to act, who did not just move; returned."""
    table = bot.croupier.manager.in_channel(channel.id)
    live = notices(fake, channel)
    assert len(live) <= 1, [m.content for m in live]
    to_act = player_to_act(fake, bot, channel, users) if table.to_act is not None else None
    if live:
        assert to_act is not None and mentioned(live[0]) == to_act.id
        assert table.posts.turn_notices == {to_act.id: live[0].id}
        return live[0]
    assert table.posts.turn_notices == {}
    return None


@pytest.mark.slow
async def test_hands_in_the_channel_one_mention_per_turn_deleted_when_they_act(
        fake, users, general, run_bot):
    bot = await run_bot(extensions=JAZZ_ONLY)
    await start_jazz(fake, general, users, hands="channel")
    await idle(bot)
    # The first to act is named (and pinged) by the message that starts the game.
    assert notices(fake, general) == []
    rng, told = random.Random(8), 0
    for _ in range(20):
        notice = check_notices(fake, bot, general, users, None)
        mover = await move(fake, bot, general, users, rng)
        if notice is not None:  # it went the moment its player acted
            assert mentioned(notice) == mover.id and notice.deleted
            told += 1
        after = check_notices(fake, bot, general, users, mover)
        to_act = player_to_act(fake, bot, general, users)
        if to_act is not mover:  # a new turn for someone else: told once
            assert after is not None and after.content == (
                f"<@{to_act.id}>, it is your turn at Jazz: press **My hand**.")
        else:  # their turn again: their answer shows the new menu, no mention
            assert after is None
    assert told >= 10
    for user in users:
        assert fake.messages(user) == []  # no DM in this mode


@pytest.mark.slow
async def test_closed_dms_get_a_mention_and_open_dms_get_none(fake, general, run_bot):
    alice, cy = fake.add_user("alice"), fake.add_user("cy")
    bob = fake.add_user("bob", dms_closed=True)
    users = [alice, bob, cy]
    bot = await run_bot(extensions=JAZZ_ONLY)
    await start_jazz(fake, general, users)
    rng, bob_told = random.Random(3), 0
    for _ in range(30):
        notice = check_notices(fake, bot, general, users, None)
        mover = await move(fake, bot, general, users, rng)
        if notice is not None:
            assert mentioned(notice) == bob.id == mover.id and notice.deleted
            bob_told += 1
        check_notices(fake, bot, general, users, mover)
    assert bob_told >= 3
    ever = notices(fake, general, deleted=True)
    assert {mentioned(m) for m in ever} == {bob.id}  # alice and cy: by DM only
    assert fake.messages(alice) and fake.messages(cy)


async def test_a_reminder_replaces_the_notice_and_a_time_out_deletes_it(
        fake, users, general, jazz_bot, clock):
    bot = jazz_bot
    await start_jazz(fake, general, users, hands="channel")
    rng = random.Random(2)
    mover = await move(fake, bot, general, users, rng)
    while player_to_act(fake, bot, general, users) is mover:
        mover = await move(fake, bot, general, users, rng)
    slow = player_to_act(fake, bot, general, users)
    (first,) = notices(fake, general)
    clock.advance(150)  # half of the 5 minutes: the reminder
    await idle(bot)
    (reminder,) = notices(fake, general)
    assert first.deleted and reminder is not first and mentioned(reminder) == slow.id
    assert reminder.content.startswith("⏳") and "time runs out" in reminder.content
    clock.advance(150)  # the time is out: the bot plays for them
    await idle(bot)
    assert reminder.deleted
    assert "ran out of time" in table_message(fake, general).text()
    check_notices(fake, bot, general, users, slow)


async def test_stopping_the_table_deletes_the_notice(fake, users, general, run_bot):
    bot = await run_bot(extensions=JAZZ_ONLY)
    await start_jazz(fake, general, users, hands="channel")
    rng = random.Random(5)
    mover = await move(fake, bot, general, users, rng)
    while player_to_act(fake, bot, general, users) is mover:
        mover = await move(fake, bot, general, users, rng)
    (notice,) = notices(fake, general)
    await (await fake.slash(users[0], general, "jazz stop")).wait_answered()
    await idle(bot)
    await fake.settle()
    assert notice.deleted and notices(fake, general) == []


async def test_a_notice_survives_a_restart_and_is_deleted_by_the_new_bot(
        fake, users, general, jazz_bot, run_bot):
    first = jazz_bot
    await start_jazz(fake, general, users, hands="channel")
    rng = random.Random(6)
    mover = await move(fake, first, general, users, rng)
    while player_to_act(fake, first, general, users) is mover:
        mover = await move(fake, first, general, users, rng)
    (notice,) = notices(fake, general)
    await fake.kill(first)
    await first.croupier.close()
    second = await run_bot(extensions=JAZZ_ONLY)
    await idle(second)
    await fake.settle()
    # The new bot found it in storage: no second ping for the same turn.
    assert notices(fake, general) == [notice]
    assert second.croupier.manager.in_channel(general.id).posts.turn_notices == {
        mentioned(notice): notice.id}
    await move(fake, second, general, users, rng)
    assert notice.deleted
