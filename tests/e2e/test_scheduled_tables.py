"""Scheduled tables on the fake Discord: ``/jazz start at:`` makes a server event and a
lobby that reminds its players, starts by itself at the time (with AI players in the
empty seats when asked), or is called off; across a restart of the bot."""

from __future__ import annotations

import datetime as dt

import pytest

from bot.app.client import CardTableBot
from bot.config.server_settings import ServerSettings
from testkit.bots import EXTENSIONS, Bots
from testkit.clock import ManualClock
from testkit.fakediscord import FakeChannel, FakeDiscord, FakeUser
from testkit.fakediscord.events import ACTIVE, CANCELED, COMPLETED, SCHEDULED

WITH_JAZZ: dict[str, str | None] = {**EXTENSIONS, "cogs.jazz": "jazz"}
HOUR = 3600.0


@pytest.fixture
def bot_extensions() -> dict[str, str | None]:
    return WITH_JAZZ


def typed(when: float) -> str:
    """A time as a member types it (the server's zone is UTC here)."""
    return dt.datetime.fromtimestamp(when, dt.UTC).strftime("%Y-%m-%d %H:%M")


async def scheduling_bot(fake: FakeDiscord, bots: Bots, clock: ManualClock,
                         events: bool = True) -> CardTableBot:
    """A connected bot on ``clock``, Discord's clock the same (an event's start must be
    ahead of it); ``events``: the bot may create the server's events."""
    fake.world.now = clock.now
    if events:
        fake.set_bot_guild_permissions(create_events=True)
    bot = await bots.new(clock)
    await fake.start_bot(bot)
    return bot


def minute(when: float) -> float:
    """A time on the minute (as one is typed)."""
    return when // 60 * 60


def lobby_of(fake: FakeDiscord, channel: FakeChannel):
    return fake.find_message(channel, label="Join")


def pinged(channel: FakeChannel, text: str) -> list:
    return [m for m in channel.messages if text in m.content]


async def test_a_scheduled_table_reminds_across_a_restart_and_starts_with_ai_fill(
        fake: FakeDiscord, general: FakeChannel, alice: FakeUser, bob: FakeUser,
        bots: Bots):
    clock = ManualClock()
    bot = await scheduling_bot(fake, bots, clock)
    at = minute(clock.now() + 3 * HOUR)
    start = await fake.slash(alice, general, "jazz start", at=typed(at), fill=True)
    await start.wait_answered()
    await fake.settle()
    assert "scheduled" in start.text()
    [event] = fake.scheduled_events()
    assert event.status == SCHEDULED and event.start == at
    assert "Jazz" in event.name and "#general" in event.location
    lobby = lobby_of(fake, general)
    assert "Starts by itself" in lobby.embeds[0]["description"]
    # Before the hour's reminder the host cannot start it early.
    join = await fake.click(bob, lobby, label="Join")
    await join.wait_answered()
    await fake.settle()

    clock.advance(2 * HOUR)  # an hour before: the first reminder
    await fake.settle()
    [first] = pinged(general, "starts")
    assert f"<@{alice.id}>" in first.content and f"<@{bob.id}>" in first.content

    bot = await bots.restart(bot, clock)  # the second reminder comes from a new process
    clock.advance(50 * 60)
    await fake.settle()
    assert len(pinged(general, "⏰")) == 2

    clock.advance(10 * 60)  # the time: two seated, one AI player fills the third seat
    await fake.settle()
    table = fake.find_message(general, label="My hand")
    assert table is not None and "Jazz starts" in table.content
    assert "has started" in lobby_of_started(general)
    assert fake.scheduled_event(event.id).status in (ACTIVE,)
    live = bot.croupier.manager.in_channel(general.id)
    assert live is not None and [s.is_ai for s in live.seats] == [False, False, True]
    assert fake.messages(fake.dm(alice)) and fake.messages(fake.dm(bob))  # their hands

    await fake.slash(alice, general, "jazz stop")
    await fake.settle()
    assert fake.scheduled_event(event.id).status == COMPLETED


def lobby_of_started(channel: FakeChannel) -> str:
    started = [m for m in channel.messages if m.embeds and "has started" in
               (m.embeds[0].get("title") or "")]
    return started[-1].embeds[0]["title"] if started else ""


async def test_a_scheduled_table_short_of_players_is_called_off_and_its_event_ends(
        fake: FakeDiscord, general: FakeChannel, alice: FakeUser, bob: FakeUser,
        bots: Bots):
    clock = ManualClock()
    bot = await scheduling_bot(fake, bots, clock)
    at = minute(clock.now() + 30 * 60)  # within the hour: only the 10 minutes' reminder is due
    start = await fake.slash(alice, general, "jazz start", at=typed(at))
    await start.wait_answered()
    await fake.settle()
    [event] = fake.scheduled_events()
    fake.mark_interested(bob, event.id)  # Interested in Discord: a seat, as by Join

    clock.advance(20 * 60)
    await fake.settle()
    live = bot.croupier.manager.in_channel(general.id)
    assert live is not None and [s.user_id for s in live.seats] == [alice.id, bob.id]
    assert len(pinged(general, "⏰")) == 1

    clock.advance(10 * 60)
    await fake.settle()
    assert bot.croupier.manager.in_channel(general.id) is None
    [off] = pinged(general, "called off")
    assert "2 of the 3 players" in off.content
    assert fake.scheduled_event(event.id).status in (CANCELED, COMPLETED)
    assert "Called off" in lobby_of_closed(general)


def lobby_of_closed(channel: FakeChannel) -> str:
    closed = [m for m in channel.messages if m.embeds and "closed" in
              (m.embeds[0].get("title") or "")]
    return closed[-1].embeds[0].get("description") or "" if closed else ""


async def test_without_create_events_the_lobby_alone_shows_the_time(
        fake: FakeDiscord, general: FakeChannel, alice: FakeUser, bots: Bots):
    clock = ManualClock()
    await scheduling_bot(fake, bots, clock, events=False)
    start = await fake.slash(alice, general, "jazz start", at=typed(clock.now() + 2 * HOUR))
    await start.wait_answered()
    await fake.settle()
    assert fake.scheduled_events() == []
    assert "Create Events" in start.text()
    assert "Starts by itself" in lobby_of(fake, general).embeds[0]["description"]


@pytest.mark.parametrize("at, said", [("yesterday", "cannot read 'yesterday'"),
                                      ("2020-01-01 10:00", "has already passed"),
                                      ("<@1> **x**", "cannot read")])
async def test_a_time_that_cannot_be_read_opens_nothing(
        fake: FakeDiscord, general: FakeChannel, alice: FakeUser, bots: Bots,
        at: str, said: str):
    clock = ManualClock()
    bot = await scheduling_bot(fake, bots, clock, events=False)
    start = await fake.slash(alice, general, "jazz start", at=at)
    await start.wait_answered()
    assert start.ephemeral and said in start.text()
    assert "**x**" not in start.text()  # what they typed is quoted escaped
    assert bot.croupier.manager.in_channel(general.id) is None


async def test_the_role_is_called_once_and_its_count_follows_the_seats(
        fake: FakeDiscord, general: FakeChannel, alice: FakeUser, bob: FakeUser,
        cy: FakeUser, bots: Bots):
    bot = await bots.new()
    await fake.start_bot(bot)
    role = 424242
    await bot.store.save_server_settings(fake.world.guild.id,
                                         ServerSettings(call_role=role).to_data())
    start = await fake.slash(alice, general, "jazz start")
    await start.wait_answered()
    await fake.settle()
    [call] = pinged(general, f"<@&{role}>")
    assert "needs 2 more players" in call.content
    assert role_pings(fake, role) == 1
    lobby = lobby_of(fake, general)
    await (await fake.click(bob, lobby, label="Join")).wait_answered()
    await fake.settle()
    assert "needs 1 more player" in call.content
    await (await fake.click(cy, lobby, label="Join")).wait_answered()
    await fake.settle()
    assert "has players enough" in call.content
    await (await fake.click(alice, lobby, label="Start")).wait_answered()
    await fake.settle()
    assert "started" in call.content and f"<@&{role}>" not in call.content
    assert role_pings(fake, role) == 1  # once per lobby: its edits ping nobody


def role_pings(fake: FakeDiscord, role: int) -> int:
    """How many messages the bot sent or edited pinged ``role``, as Discord decides it
    from their ``allowed_mentions`` (absent: every mention pings)."""
    count = 0
    for call in fake.calls:
        body = call.body if isinstance(call.body, dict) else {}
        if f"<@&{role}>" not in (body.get("content") or ""):
            continue
        allowed = body.get("allowed_mentions")
        if not isinstance(allowed, dict) or "roles" in (allowed.get("parse") or ()) \
                or role in {int(r) for r in allowed.get("roles") or ()}:
            count += 1
    return count


async def test_a_scheduled_table_starts_by_itself_with_the_joined_players(
        fake: FakeDiscord, general: FakeChannel, alice: FakeUser, bob: FakeUser,
        cy: FakeUser, bots: Bots):
    clock = ManualClock()
    bot = await scheduling_bot(fake, bots, clock)
    at = minute(clock.now() + 2 * HOUR)
    start = await fake.slash(alice, general, "jazz start", at=typed(at))
    await start.wait_answered()
    await fake.settle()
    for player in (bob, cy):
        await (await fake.click(player, lobby_of(fake, general), label="Join")).wait_answered()
        await fake.settle()
    early = await fake.click(alice, lobby_of(fake, general), label="Start")
    await early.wait_answered()
    assert "can start from one hour before" in early.text()  # not yet
    clock.advance(at - clock.now() - 1)
    await fake.settle()
    assert bot.croupier.manager.in_channel(general.id).game is None  # a second early
    clock.advance(1)
    await fake.settle()
    live = bot.croupier.manager.in_channel(general.id)
    assert live is not None and live.game is not None
    assert [s.user_id for s in live.seats] == [alice.id, bob.id, cy.id]  # no AI player
    assert fake.scheduled_events()[0].status == ACTIVE


async def test_fill_lets_an_unclaimed_kept_seat_go_and_a_leaver_is_not_seated_again(
        fake: FakeDiscord, general: FakeChannel, alice: FakeUser, bob: FakeUser,
        cy: FakeUser, bots: Bots):
    clock = ManualClock()
    bot = await scheduling_bot(fake, bots, clock)
    at = minute(clock.now() + 2 * HOUR)
    start = await fake.slash(alice, general, "jazz start", at=typed(at), fill=True,
                             players=f"<@{bob.id}>")  # Bob never comes
    await start.wait_answered()
    await fake.settle()
    [event] = fake.scheduled_events()
    fake.mark_interested(cy, event.id)
    clock.advance(HOUR)  # the first reminder seats Cy (Interested) ...
    await fake.settle()
    live = bot.croupier.manager.in_channel(general.id)
    assert live is not None and cy.id in [s.user_id for s in live.seats]
    leave = await fake.click(cy, lobby_of(fake, general), label="Leave")
    await leave.wait_answered()
    await fake.settle()
    clock.advance(HOUR)  # ... who left, and is not seated again by the next moments
    await fake.settle()
    live = bot.croupier.manager.in_channel(general.id)
    assert live is not None and live.game is not None  # started: AI players filled it
    assert [s.user_id for s in live.humans] == [alice.id]
    assert len(live.seats) == 3 and live.reserved == []  # Bob's kept seat lapsed


async def test_a_bot_back_after_both_reminders_sends_one_and_one_back_too_late_calls_off(
        fake: FakeDiscord, general: FakeChannel, alice: FakeUser, bob: FakeUser,
        bots: Bots):
    clock = ManualClock()
    bot = await scheduling_bot(fake, bots, clock)
    at = minute(clock.now() + 3 * HOUR)
    start = await fake.slash(alice, general, "jazz start", at=typed(at))
    await start.wait_answered()
    await fake.settle()
    await (await fake.click(bob, lobby_of(fake, general), label="Join")).wait_answered()
    await fake.settle()
    await bots.crash(bot)
    clock.advance(3 * HOUR - 5 * 60)  # down through both reminders' moments
    bot = await bots.new(clock)
    await fake.start_bot(bot)
    await fake.settle()
    assert len(pinged(general, "⏰")) == 1  # one reminder, not two in a row
    await bots.crash(bot)
    clock.advance(HOUR)  # down through the start, and long after it
    bot = await bots.new(clock)
    await fake.start_bot(bot)
    await fake.settle()
    assert bot.croupier.manager.in_channel(general.id) is None
    [off] = pinged(general, "called off")
    assert f"<@{alice.id}>" in off.content and f"<@{bob.id}>" in off.content  # pinged
