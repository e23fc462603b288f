"""Quiet hours and Pause on the fake Discord: a day's timer held overnight, a game paused
and resumed by its players' votes, a pause that ends by itself, and one that outlives a
restart of the bot."""

from __future__ import annotations

import random
from typing import Any

import pytest

from bot.table.timers import next_due
from testkit.clock import ManualClock
from testkit.fakediscord import FakeChannel, FakeDiscord, FakeMessage, FakeUser
from testkit.harness import choose, idle, table_message
from testkit.tables import actions_played, dm_menu, live, player_to_act, start_jazz

MINUTE, HOUR, DAY = 60, 3600, 86400
TEN_PM = 1_699_999_200.0  # 2023-11-14 22:00 UTC
EXTENSIONS: dict[str, str | None] = {"cogs.jazz": "jazz", "cogs.settings": None}


@pytest.fixture
def clock() -> ManualClock:
    """The bots' clock, from ten at night (UTC)."""
    return ManualClock(TEN_PM)


def reminders(fake: FakeDiscord, user: FakeUser) -> int:
    return sum(1 for m in fake.messages(user) if "still your turn" in m.content)


async def set_up(fake: FakeDiscord, channel: FakeChannel, command: str, **options: Any) -> str:
    """``/settings ...`` by the server's owner; the answer."""
    ix = await fake.slash(fake.user("owner"), channel, command, options)
    await ix.wait_answered()
    assert ix.response.ephemeral
    return ix.text()


def pause_button(fake: FakeDiscord, channel: FakeChannel) -> dict[str, Any] | None:
    message = table_message(fake, channel)
    assert message is not None
    return next((c for c in message.leaf_components()
                 if str(c.get("custom_id", "")).startswith("ct:pause:")), None)


def label(fake: FakeDiscord, channel: FakeChannel) -> str | None:
    button = pause_button(fake, channel)
    return button["label"] if button is not None else None


async def press(fake: FakeDiscord, bot: Any, channel: FakeChannel, user: FakeUser) -> str:
    """``user`` presses Pause (or Resume) on the table message; the private answer."""
    button = pause_button(fake, channel)
    assert button is not None
    message = table_message(fake, channel)
    assert message is not None
    ix = await fake.click(user, message, button["custom_id"])
    await ix.wait_answered()
    await idle(bot)
    await fake.settle()
    assert ix.response.ephemeral
    return ix.text()


async def try_to_move(fake: FakeDiscord, bot: Any, user: FakeUser) -> str:
    menu, _ = dm_menu(fake, user)
    ix = await choose(fake, user, menu, random.Random(3))
    await ix.wait_answered()
    await idle(bot)
    return ix.text()


def shown(fake: FakeDiscord, channel: FakeChannel) -> str:
    message: FakeMessage | None = table_message(fake, channel)
    assert message is not None
    return message.text()


async def test_quiet_hours_hold_a_day_timer_overnight_and_no_reminder_goes_out_in_them(
        fake, users, general, clock, run_bot):
    bot = await run_bot(extensions=EXTENSIONS, clock=clock)
    said = await set_up(fake, general, "settings quiet", hours="23:00-08:00")
    assert "Quiet hours: 23:00–08:00 (UTC)" in said
    await start_jazz(fake, general, users, turn_timer="1d")
    await idle(bot)
    table = live(bot, general)
    assert table.quiet_hours == [23 * 60, 8 * 60] and table.quiet_zone == "UTC"
    slow = player_to_act(fake, bot, general, users)
    played = actions_played(bot, general)
    # A day of running time from 22:00: 1 h that evening, 15 h the next day, 8 h the day
    # after (two nights of 9 h held): the turn runs out at 16:00, 42 h on.
    assert table.turn_deadline == TEN_PM + 42 * HOUR
    assert f"time runs out <t:{int(TEN_PM) + 42 * HOUR}:R>" in shown(fake, general)
    seen = []
    for hour in range(1, 43):
        clock.advance(HOUR - (1 if hour == 42 else 0))
        await idle(bot)
        if hour == 42:  # a second before: still waiting
            assert actions_played(bot, general) == played
            clock.advance(1)
            await idle(bot)
        seen.append((hour, reminders(fake, slow), actions_played(bot, general) - played))
    # Reminders at 12 h and 23 h of running time: 19:00 the next day, 15:00 the day after
    # (without quiet hours: 10:00 and 21:00 the next day); none in either night.
    assert seen == [(h, 0 if h < 21 else 1 if h < 41 else 2, int(h == 42))
                    for h in range(1, 43)]
    assert "ran out of time" in shown(fake, general)
    assert player_to_act(fake, bot, general, users) != slow


async def test_the_players_pause_and_resume_by_vote_and_the_turn_keeps_its_time(
        fake, users, general, clock, run_bot):
    dora = fake.add_user("dora")
    bot = await run_bot(extensions=EXTENSIONS, clock=clock)
    await start_jazz(fake, general, users, turn_timer="10m")
    await idle(bot)
    table = live(bot, general)
    slow = player_to_act(fake, bot, general, users)
    first, second = [u for u in users if u is not slow]
    played = actions_played(bot, general)
    clock.advance(4 * MINUTE)
    await idle(bot)
    assert label(fake, general) == "Pause"
    assert "It pauses at 2 votes: 1 so far" in await press(fake, bot, general, first)
    assert label(fake, general) == "Pause (1/2)" and not table.paused
    assert "You withdrew your vote" in await press(fake, bot, general, first)
    assert label(fake, general) == "Pause"
    version = table.version
    assert "Only the players seated" in await press(fake, bot, general, dora)
    assert table.version == version and table.pause_votes == []
    await press(fake, bot, general, first)
    answer = await press(fake, bot, general, slow)
    assert "The game is paused" in answer
    assert table.paused and table.paused_until == clock.now() + DAY  # the bot's longest
    assert table.turn_deadline is None and table.turn_left == 6 * MINUTE
    assert next_due(table) == (clock.now() + DAY, "resume")
    text = shown(fake, general)
    assert f"**Paused** by {first.display_name} and {slow.display_name}" in text
    assert f"<t:{int(table.paused_until)}:R>" in text and "time runs out" not in text
    assert "voted to pause the game" in text
    assert label(fake, general) == "Resume"
    assert "Nudge" not in str(table_message(fake, general).leaf_components())
    # A move is refused, the timer stands still, the bot plays for nobody.
    refused = await try_to_move(fake, bot, slow)
    assert "The table is paused" in refused and "Nothing was changed" in refused
    clock.advance(2 * HOUR)
    await idle(bot)
    assert actions_played(bot, general) == played and table.paused
    # Resumed by two votes: the six minutes left of the turn run again.
    assert "It resumes at 2 votes: 1 so far" in await press(fake, bot, general, second)
    assert label(fake, general) == "Resume (1/2)"
    assert "The game resumes" in await press(fake, bot, general, slow)
    assert not table.paused and label(fake, general) == "Pause"
    assert table.turn_deadline == clock.now() + 6 * MINUTE
    assert "voted to resume the game" in shown(fake, general)
    clock.advance(6 * MINUTE - 1)
    await idle(bot)
    assert actions_played(bot, general) == played
    clock.advance(1)
    await idle(bot)
    assert actions_played(bot, general) == played + 1  # the timer played for them
    assert player_to_act(fake, bot, general, users) != slow


async def test_a_pause_ends_by_itself_after_the_servers_longest_pause(
        fake, users, general, clock, run_bot):
    bot = await run_bot(extensions=EXTENSIONS, clock=clock)
    said = await set_up(fake, general, "settings pause", max="30m")
    assert "for at most 30 minutes" in said
    await start_jazz(fake, general, users, turn_timer="10m")
    await idle(bot)
    table = live(bot, general)
    slow = player_to_act(fake, bot, general, users)
    played = actions_played(bot, general)
    clock.advance(2 * MINUTE)
    for user in users[:2]:
        await press(fake, bot, general, user)
    assert table.paused and table.paused_until == clock.now() + 30 * MINUTE
    hands = len(fake.messages(slow))
    clock.advance(30 * MINUTE - 1)
    await idle(bot)
    assert table.paused
    clock.advance(1)
    await idle(bot)
    await fake.settle()
    assert not table.paused and label(fake, general) == "Pause"
    assert "The pause ran out: the game resumes." in shown(fake, general)
    assert table.turn_deadline == clock.now() + 8 * MINUTE
    assert len(fake.messages(slow)) > hands  # told again that it is their turn
    clock.advance(8 * MINUTE)
    await idle(bot)
    assert actions_played(bot, general) == played + 1


async def test_a_pause_outlives_a_restart_of_the_bot(fake, users, general, clock, run_bot):
    first = await run_bot(extensions=EXTENSIONS, clock=clock)
    await start_jazz(fake, general, users, turn_timer="10m")
    await idle(first)
    slow = player_to_act(fake, first, general, users)
    played = actions_played(first, general)
    clock.advance(3 * MINUTE)
    for user in users[:2]:
        await press(fake, first, general, user)
    until = live(first, general).paused_until
    assert until == clock.now() + DAY
    await fake.kill(first)
    await first.croupier.close()
    bot = await run_bot(extensions=EXTENSIONS, clock=clock)
    await idle(bot)
    await fake.settle()
    table = live(bot, general)
    assert table.paused and table.paused_until == until and table.turn_left == 7 * MINUTE
    assert next_due(table) == (until, "resume") and bot.croupier.timers.pending(table.table_id)
    assert label(fake, general) == "Resume"
    assert "The table is paused" in await try_to_move(fake, bot, slow)
    # Its end comes back with it: a day on, the game resumes by itself.
    clock.advance(DAY - 1)
    await idle(bot)
    assert table.paused and actions_played(bot, general) == played
    clock.advance(1)
    await idle(bot)
    assert not table.paused and table.turn_deadline == clock.now() + 7 * MINUTE
    # A vote after the restart works too (a new pause, resumed by vote).
    for user in users[:2]:
        await press(fake, bot, general, user)
    assert table.paused
    for user in users[1:]:
        await press(fake, bot, general, user)
    assert not table.paused and table.turn_deadline == clock.now() + 7 * MINUTE


async def test_the_settings_of_quiet_hours_and_the_longest_pause(fake, general, run_bot):
    bot = await run_bot(extensions=EXTENSIONS)
    refused = await set_up(fake, general, "settings quiet", hours="**late**")
    assert "I cannot read '\\*\\*late\\*\\*' as quiet hours" in refused
    assert "same time" in await set_up(fake, general, "settings quiet", hours="8-8")
    await set_up(fake, general, "settings quiet", hours="22:30-7")
    await set_up(fake, general, "settings pause", max="2d")
    shown_settings = await fake.slash(fake.user("owner"), general, "settings show")
    await shown_settings.wait_answered()
    text = shown_settings.text()
    assert "Quiet hours: 22:30–07:00 (UTC)" in text and "for at most 2 days;" in text
    for typed in ("off", "0", "forever", "15d"):
        answer = await set_up(fake, general, "settings pause", max=typed)
        assert "as the longest pause" in answer
    assert "(the bot's default)" in await set_up(fake, general, "settings pause",
                                                  max="default")
    assert "No quiet hours" in await set_up(fake, general, "settings quiet", hours="off")
    stored = await bot.store.server_settings(fake.world.guild.id)
    assert stored["quiet_hours"] is None and stored["max_pause"] is None
