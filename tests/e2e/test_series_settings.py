"""A series' next deal follows the server's ``/settings`` as they are when it is set up
(issue #26: "rematches and series copy settings that have since changed"), as a rematch
does: AI seats leave if no longer allowed, hints in rated games and pictures-off are the
server's now, a channel games may no longer open in ends the series, and so do settings
that cannot be read (never "no restrictions"). The deal's own choices stay."""

from __future__ import annotations

import pytest

from testkit.clock import ManualClock
from testkit.fakediscord import FakeChannel, FakeDiscord, FakeMessage, FakeUser
from testkit.harness import FAST, MakeBot, idle
from testkit.tables import GAMES, live, open_and_start, play_out

PAUSE = FAST.series_pause


def last_result(fake: FakeDiscord, channel: FakeChannel) -> FakeMessage:
    shown = [m for m in fake.messages(channel)
             if m.content.startswith("🏁") and "showdown" in m.text()]
    assert shown, "no deal result"
    return shown[-1]


def buttons(message: FakeMessage) -> list[str]:
    return [str(c.get("label")) for c in message.leaf_components()]


async def test_the_next_deal_takes_the_servers_settings_as_they_are_now(
        fake: FakeDiscord, alice: FakeUser, bob: FakeUser, general: FakeChannel,
        clock: ManualClock, run_bot: MakeBot) -> None:
    games = fake.channel("games")
    guild = fake.world.guild.id
    bot = await run_bot(extensions=GAMES, clock=clock)
    # ``choice``: a player under 21 chooses, so the deal waits while the settings change.
    await open_and_start(fake, general, [alice, bob], "attackjack", ai=1, choice=True,
                         turn_timer="7m")
    first = live(bot, general)
    assert first is not None and first.images and first.ai_allowed
    assert not first.hints_allowed and len(first.seats) == 3
    # Mid-deal, the managers forbid AI seats and pictures, and allow hints in rated games.
    await bot.store.save_server_settings(guild, {"ai_allowed": False, "images": False,
                                                 "hints_allowed": True, "language": "sv",
                                                 "turn_timer": 3600})
    await play_out(fake, bot, general, [alice, bob], seed=1)
    result = last_result(fake, general)
    assert "This server does not allow AI players at its tables." in result.text()
    waiting = live(bot, general)
    assert waiting is not None and waiting.status == "lobby" and waiting.series_deal == 2
    assert [s.user_id for s in waiting.seats] == [alice.id, bob.id]  # the AI seat left
    assert (waiting.ai_allowed, waiting.images, waiting.hints_allowed) == (False, False, True)
    # The series' own choices stay: its options, timer and language.
    assert (waiting.options, waiting.turn_timer, waiting.language) == (
        first.options, 420, first.language)
    assert "End series" in buttons(result)

    # The next deal is dealt; meanwhile games may be opened only in #games: it is the last.
    await idle(bot)
    clock.advance(PAUSE)
    await idle(bot)
    second = live(bot, general)
    assert second is waiting and second.status == "playing"
    await bot.store.save_server_settings(guild, {"channels": [games.id]})
    await play_out(fake, bot, general, [alice, bob], seed=2)
    last = last_result(fake, general)
    assert last is not result
    assert "this server no longer opens games in this channel" in last.text()
    assert live(bot, general) is None and buttons(last) == ["Rematch", "Replay"]
    fake.assert_no_violations()


async def test_settings_that_cannot_be_read_end_the_series_and_open_nothing(
        fake: FakeDiscord, alice: FakeUser, bob: FakeUser, general: FakeChannel,
        clock: ManualClock, run_bot: MakeBot, monkeypatch: pytest.MonkeyPatch) -> None:
    bot = await run_bot(extensions=GAMES, clock=clock)
    await open_and_start(fake, general, [alice, bob], "attackjack", choice=True)

    async def broken(guild_id: int) -> None:
        raise RuntimeError("database is locked")

    monkeypatch.setattr(bot.store, "server_settings", broken)
    await play_out(fake, bot, general, [alice, bob], seed=3)
    last = last_result(fake, general)
    assert "I could not set up the next deal" in last.text()
    assert live(bot, general) is None and buttons(last) == ["Rematch", "Replay"]
    fake.assert_no_violations()


async def test_a_series_in_a_thread_goes_on_where_its_parent_channel_is_allowed(
        fake: FakeDiscord, alice: FakeUser, bob: FakeUser, general: FakeChannel,
        clock: ManualClock, run_bot: MakeBot) -> None:
    fake.set_bot_permissions(general, create_public_threads=True)
    bot = await run_bot(extensions=GAMES, clock=clock)
    await bot.store.save_server_settings(fake.world.guild.id, {"threads": True,
                                                               "channels": [general.id]})
    await (await fake.slash(alice, general, "attackjack start")).wait_answered()
    (thread,) = [c for c in fake.world.channels.values() if c.parent_id == general.id]
    lobby = fake.find_message(thread, label="Join")
    assert lobby is not None
    await (await fake.click(bob, lobby, label="Join")).wait_answered()
    await (await fake.click(alice, lobby, label="Start")).wait_answered()
    await idle(bot)  # nobody chooses: the deal plays itself
    await fake.settle()
    result = last_result(fake, thread)
    waiting = live(bot, thread)
    assert waiting is not None and waiting.series_deal == 2, result.text()
    assert "End series" in buttons(result)
    fake.assert_no_violations()
