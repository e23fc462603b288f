"""The Nudge button: the others remind a silent player, not too early and not too often."""

from __future__ import annotations

import random

from testkit.games.jazz import JAZZ_ONLY
from testkit.harness import idle, table_message
from testkit.tables import mentioned, move, notices, player_to_act, start_jazz

MINUTE, HOUR = 60, 3600


async def nudge(fake, bot, channel, user):
    ix = await fake.click(user, table_message(fake, channel), label="Nudge")
    await ix.wait_answered()
    await idle(bot)
    assert ix.response.ephemeral
    return ix.text()


async def fresh_turn(fake, bot, channel, users, rng):
    """Moves until someone other than the last mover is to act: (who, the others)."""
    mover = await move(fake, bot, channel, users, rng)
    while player_to_act(fake, bot, channel, users) is mover:
        mover = await move(fake, bot, channel, users, rng)
    slow = player_to_act(fake, bot, channel, users)
    return slow, [u for u in users if u is not slow]


async def test_nudges_are_refused_until_due_then_ping_in_the_channel_and_are_rate_limited(
        fake, users, general, jazz_bot, clock):
    outsider = fake.add_user("dora")
    bot = jazz_bot
    await start_jazz(fake, general, users, hands="channel", turn_timer="1h")
    slow, (other, third) = await fresh_turn(fake, bot, general, users, random.Random(1))
    table = bot.croupier.manager.in_channel(general.id)
    (notice,) = notices(fake, general)

    async def refused(user, words):
        version, step = table.version, table.step
        said = await nudge(fake, bot, general, user)
        assert words in said and notice_only()
        assert (table.version, table.step, table.nudged_at) == (version, step, None)

    def notice_only() -> bool:
        return notices(fake, general) == [notice] and not notice.deleted

    await refused(other, "has only just got the turn. You can nudge them <t:")
    await refused(slow, "It is your own turn")
    await refused(outsider, "You are not seated at this table.")
    clock.advance(15 * MINUTE - 1)  # a quarter of the hour, less a second
    await idle(bot)
    await refused(third, "has only just got the turn")
    clock.advance(1)
    await idle(bot)
    assert await nudge(fake, bot, general, other) == f"👋 I nudged {slow.display_name}."
    assert table.nudged_at == clock.now()
    (pinged,) = notices(fake, general)  # it replaced the turn notice
    assert notice.deleted and mentioned(pinged) == slow.id
    assert pinged.content == (f"👋 <@{slow.id}>, {other.display_name} nudged you: it is "
                              "your turn at Jazz. Your cards are under **My hand**.")
    clock.advance(10 * MINUTE - 1)
    await idle(bot)
    said = await nudge(fake, bot, general, third)
    assert "a short while ago" in said and notices(fake, general) == [pinged]
    clock.advance(1)  # ten minutes after the last one
    await idle(bot)
    assert "I nudged" in await nudge(fake, bot, general, third)
    (again,) = notices(fake, general)
    assert pinged.deleted and f"{third.display_name} nudged you" in again.content
    await move(fake, bot, general, users, random.Random(2))  # the slow one plays at last
    assert again.deleted and slow.id not in table.posts.turn_notices


async def test_a_nudge_reaches_an_open_dm_by_dm(fake, users, general, jazz_game, clock):
    bot = jazz_game
    slow, (other, _) = await fresh_turn(fake, bot, general, users, random.Random(4))
    table = bot.croupier.manager.in_channel(general.id)
    hand = table.posts.hand_messages[slow.id]
    in_channel = len(fake.messages(general))
    clock.advance(75)  # a quarter of the 5-minute timer
    await idle(bot)
    assert "I nudged" in await nudge(fake, bot, general, other)
    dm = fake.messages(slow)[-1]
    assert dm.content.startswith(f"👋 {other.display_name} nudged you: it is your turn")
    assert dm.content.endswith(f"/{hand}") and not dm.leaf_components()
    assert len(fake.messages(general)) == in_channel and notices(fake, general) == []


async def test_slow_tables_allow_a_nudge_an_hour_and_untimed_ones_after_five_minutes(
        fake, users, jazz_bot, clock):
    general, games = fake.channel("general"), fake.channel("games")
    bot = jazz_bot
    await start_jazz(fake, general, users, hands="channel", turn_timer="2d")
    await start_jazz(fake, games, users, hands="channel", turn_timer="off")
    slow_2d, (other_2d, _) = await fresh_turn(fake, bot, general, users, random.Random(5))
    slow_off, (other_off, _) = await fresh_turn(fake, bot, games, users, random.Random(6))
    clock.advance(5 * MINUTE - 1)
    await idle(bot)
    assert "only just got the turn" in await nudge(fake, bot, games, other_off)
    clock.advance(1)
    await idle(bot)
    assert "I nudged" in await nudge(fake, bot, games, other_off)
    clock.advance(12 * HOUR - 5 * MINUTE)  # a quarter of two days
    await idle(bot)
    assert "I nudged" in await nudge(fake, bot, general, other_2d)
    clock.advance(30 * MINUTE)
    await idle(bot)
    assert "a short while ago" in await nudge(fake, bot, general, other_2d)
    assert "I nudged" in await nudge(fake, bot, games, other_off)  # ten minutes there
    clock.advance(30 * MINUTE)  # an hour after the last nudge of the slow table
    await idle(bot)
    assert "I nudged" in await nudge(fake, bot, general, other_2d)
    assert player_to_act(fake, bot, general, users) is slow_2d
    assert player_to_act(fake, bot, games, users) is slow_off


async def test_the_button_is_there_only_while_a_person_is_to_act(fake, users, general, run_bot):
    bot = await run_bot(extensions=JAZZ_ONLY)
    ix = await fake.slash(users[0], general, "jazz start")
    await ix.wait_answered()
    lobby = fake.find_message(general, label="Join")
    assert not any(b.get("label") == "Nudge" for b in lobby.buttons())
    for user in users[1:]:
        await (await fake.click(user, lobby, label="Join")).wait_answered()
    await (await fake.click(users[0], lobby, label="Start")).wait_answered()
    await idle(bot)
    table = table_message(fake, general)
    labels = [b.get("label") for b in table.buttons()]
    assert labels[:2] == ["My hand", "Nudge"]
    assert next(b for b in table.buttons() if b.get("label") == "Nudge")[
        "custom_id"] == f"ct:nudge:{bot.croupier.manager.in_channel(general.id).table_id}"
    await (await fake.slash(users[0], general, "jazz stop")).wait_answered()
    await idle(bot)
    await fake.settle()
    assert not any(b.get("label") == "Nudge" for b in table.buttons())
