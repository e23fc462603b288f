"""Slow play on the fake Discord: turn timers from minutes to days, or none at all."""

from __future__ import annotations

from bot.table.timers import next_due
from testkit.games.jazz import JAZZ_ONLY
from testkit.harness import idle, table_message
from testkit.tables import actions_played, player_to_act, start_jazz

HOUR, DAY = 3600, 86400


def reminders(fake, user) -> int:
    return sum(1 for m in fake.messages(user) if "still your turn" in m.content)


async def test_the_timer_is_typed_in_words_and_shown_in_words(fake, alice, general, run_bot):
    bot = await run_bot(extensions=JAZZ_ONLY)
    await (await fake.slash(alice, general, "jazz start", turn_timer="2h")).wait_answered()
    lobby = fake.find_message(general, label="Join")
    assert "Turn timer: 2 hours" in lobby.text()
    assert bot.croupier.manager.in_channel(general.id).turn_timer == 2 * HOUR


async def test_a_timer_that_cannot_be_read_is_refused_and_opens_nothing(
        fake, alice, general, run_bot):
    bot = await run_bot(extensions=JAZZ_ONLY)
    ix = await fake.slash(alice, general, "jazz start", turn_timer="ten minutes please")
    await ix.wait_answered()
    assert ix.response.ephemeral
    assert "`off`, `90`, `30m`, `2h`, `1d`" in ix.response.content
    too_long = await fake.slash(alice, general, "jazz start", turn_timer="15d")
    await too_long.wait_answered()
    assert too_long.response.ephemeral
    assert "between 1 minute and 14 days" in too_long.response.content
    await fake.settle()
    assert bot.croupier.manager.in_channel(general.id) is None
    assert fake.messages(general) == []


async def test_a_day_long_turn_reminds_twice_and_runs_out_after_a_day_across_a_restart(
        fake, users, general, clock, jazz_bot, run_bot):
    first = jazz_bot
    await start_jazz(fake, general, users, turn_timer="1d")
    await idle(first)
    slow = player_to_act(fake, first, general, users)
    played = actions_played(first, general)
    seen: list[tuple[int, int, int]] = []  # (hour, reminders so far, actions played)
    bot = first
    for hour in range(1, 25):
        if hour == 18:  # the bot goes down and comes back: the timer goes on from storage
            await fake.kill(first)
            await first.croupier.close()
            bot = await run_bot(extensions=JAZZ_ONLY, clock=clock)
            await idle(bot)
        clock.advance(HOUR - (1 if hour == 24 else 0))
        await idle(bot)
        if hour == 24:  # a second before the day is over: still waiting
            assert actions_played(bot, general) == played
            clock.advance(1)
            await idle(bot)
        seen.append((hour, reminders(fake, slow), actions_played(bot, general)))
    expected = [(h, 0 if h < 12 else 1 if h < 23 else 2, played + (h == 24))
                for h in range(1, 25)]
    assert seen == expected
    assert "ran out of time" in table_message(fake, general).text()
    assert player_to_act(fake, bot, general, users) != slow


async def test_with_the_timer_off_nobody_is_reminded_or_played_for(
        fake, users, general, jazz_bot, clock):
    bot = jazz_bot
    lobby = await start_jazz(fake, general, users, turn_timer="off")
    assert any("Turn timer: off" in text for text in lobby.all_texts())
    await idle(bot)
    table = bot.croupier.manager.in_channel(general.id)
    assert table.turn_timer == 0
    assert table.turn_deadline is None and table.reminder_at is None
    slow = player_to_act(fake, bot, general, users)
    played, dms = actions_played(bot, general), len(fake.messages(slow))
    channel_messages = len(fake.messages(general))
    for _ in range(29):  # (after 30 days without a move the table stops: test_limits)
        clock.advance(DAY)
        await idle(bot)
    assert actions_played(bot, general) == played
    assert len(fake.messages(slow)) == dms and len(fake.messages(general)) == channel_messages
    assert next_due(table) == (table.last_activity + 30 * DAY, "idle")  # its only timer
    assert "time runs out" not in table_message(fake, general).text()
