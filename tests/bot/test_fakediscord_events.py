"""Self-tests of the fake Discord's Guild Scheduled Events (testkit/fakediscord/events.py),
driven through discord.py's own API from a bot running on the fake."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from typing import Any

import discord
import pytest

from testkit.clock import ManualClock
from testkit.fakediscord import FakeDiscord, FakeDiscordError
from testkit.fakediscord.events import ACTIVE, CANCELED, COMPLETED, SCHEDULED

HOUR = timedelta(hours=1)


class Host(discord.Client):
    """A bot with the Guilds intent (the cardtable bot's), or more."""

    def __init__(self, intents: discord.Intents | None = None) -> None:
        super().__init__(intents=intents or discord.Intents(guilds=True),
                         enable_debug_events=True)
        self.heard: list[tuple[str, int]] = []
        self.received: list[str] = []  # every gateway event's name

    async def on_socket_event_type(self, name: str) -> None:
        self.received.append(name)

    async def on_scheduled_event_create(self, event: discord.ScheduledEvent) -> None:
        self.heard.append(("create", event.id))

    async def on_scheduled_event_user_add(self, event: discord.ScheduledEvent,
                                          user: discord.User) -> None:
        self.heard.append(("user_add", user.id))


def guild_of(fake: FakeDiscord, bot: discord.Client) -> discord.Guild:
    guild = bot.get_guild(fake.world.guild.id)
    assert guild is not None
    return guild


def at(clock: ManualClock, offset: timedelta = timedelta()) -> datetime:
    return datetime.fromtimestamp(clock.now(), UTC) + offset


async def schedule(guild: discord.Guild, start: datetime, name: str = "Jazz at eight",
                   end: timedelta = 3 * HOUR, **more: Any) -> discord.ScheduledEvent:
    return await guild.create_scheduled_event(
        name=name, start_time=start, end_time=start + end,
        entity_type=discord.EntityType.external, privacy_level=discord.PrivacyLevel.guild_only,
        location="#games", **more)


@pytest.fixture
def clock(fake_discord: FakeDiscord) -> ManualClock:
    clock = ManualClock()
    fake_discord.world.now = clock.now
    return clock


async def test_creating_an_event_needs_a_permission_the_invite_did_not_ask_for(
        fake_discord: FakeDiscord, clock: ManualClock) -> None:
    fake = fake_discord
    bot = Host()
    async with fake.running(bot):
        guild = guild_of(fake, bot)
        assert not guild.me.guild_permissions.create_events
        with pytest.raises(discord.Forbidden) as refused:
            await schedule(guild, at(clock, HOUR))
        assert refused.value.code == 50013
        assert fake.scheduled_events() == []
        fake.set_bot_guild_permissions(create_events=True)
        await fake.wait_for(lambda: guild.me.guild_permissions.create_events)  # ROLE_UPDATE
        event = await schedule(guild, at(clock, HOUR), description="Four seats")
    assert event.status is discord.EventStatus.scheduled and event.location == "#games"
    assert event.start_time == at(clock, HOUR) and event.creator_id == fake.world.bot.id
    [kept] = fake.scheduled_events()
    assert (kept.id, kept.name, kept.description, kept.location) == (
        event.id, "Jazz at eight", "Four seats", "#games")
    assert kept.start == clock.now() + 3600 and kept.end == clock.now() + 4 * 3600
    assert kept.status == SCHEDULED and kept.channel_id is None
    assert fake.errors[0].route == "POST /guilds/{guild_id}/scheduled-events"


async def test_manage_events_also_allows_it(fake_discord: FakeDiscord,
                                            clock: ManualClock) -> None:
    fake_discord.set_bot_guild_permissions(manage_events=True)  # before the bot connects
    bot = Host()
    async with fake_discord.running(bot):
        guild = guild_of(fake_discord, bot)
        event = await schedule(guild, at(clock, HOUR))
        await event.delete()
        with pytest.raises(discord.NotFound) as gone:
            await guild.fetch_scheduled_event(event.id)
    assert gone.value.code == 10070
    assert fake_discord.scheduled_events() == []
    assert fake_discord.scheduled_event(event.id).deleted


async def test_members_interested_are_listed_with_the_creator(
        fake_discord: FakeDiscord, clock: ManualClock) -> None:
    fake = fake_discord
    alice, bob, carol = fake.add_user("alice"), fake.add_user("bob"), fake.add_user("carol")
    fake.set_bot_guild_permissions(create_events=True)
    bot = Host()
    async with fake.running(bot):
        guild = guild_of(fake, bot)
        event = await schedule(guild, at(clock, HOUR))
        fake.mark_interested(bob, event.id)
        fake.mark_interested(alice, event.id)
        fake.mark_interested(carol, event.id)
        fake.unmark_interested(carol, event.id)
        users = [u async for u in event.users()]
        fetched = await guild.fetch_scheduled_event(event.id)  # with_counts=True
        listed = await guild.fetch_scheduled_events(with_counts=True)
        raw = await bot.http.get_scheduled_event_users(guild.id, event.id, limit=1,
                                                       with_member=True, after=bot.user.id)
        before = await bot.http.get_scheduled_event_users(guild.id, event.id, limit=100,
                                                          with_member=False, before=bob.id)
    assert [u.name for u in users] == ["cardtable", "alice", "bob"]  # ascending ids
    assert fetched.user_count == 3 and [e.user_count for e in listed] == [3]
    assert [(r["guild_scheduled_event_id"], r["user"]["username"]) for r in raw] == [
        (str(event.id), "alice")]
    assert raw[0]["member"]["roles"] == [] and "user" not in raw[0]["member"]
    assert [r["user"]["username"] for r in before] == ["cardtable", "alice"]
    assert "member" not in before[0]
    assert fake.scheduled_event(event.id).interested == [fake.world.bot, alice, bob]
    with pytest.raises(FakeDiscordError, match="not a member"):
        fake.mark_interested(fake.add_user("dave", guilds=[]), event.id)


async def test_status_moves_forward_only(fake_discord: FakeDiscord,
                                         clock: ManualClock) -> None:
    fake = fake_discord
    fake.set_bot_guild_permissions(create_events=True)
    bot = Host()
    async with fake.running(bot):
        guild = guild_of(fake, bot)
        event = await schedule(guild, at(clock, HOUR))
        event = await event.edit(name="Jazz at nine", description="Moved",
                                 start_time=at(clock, 2 * HOUR), end_time=at(clock, 5 * HOUR))
        assert (event.name, event.start_time) == ("Jazz at nine", at(clock, 2 * HOUR))
        started = await event.edit(status=discord.EventStatus.active)
        assert started.status is discord.EventStatus.active
        with pytest.raises(discord.HTTPException) as wrong:
            await started.edit(status=discord.EventStatus.cancelled)  # ACTIVE -> CANCELED
        assert (wrong.value.status, wrong.value.code) == (400, 50035)
        [violation] = fake.take_violations()
        assert "status" in violation.detail
        ended = await started.end()
        assert ended.status is discord.EventStatus.completed
        with pytest.raises(discord.HTTPException) as over:
            await ended.edit(name="Again")
        assert (over.value.status, over.value.code) == (400, 180000)  # not a violation
        assert await guild.fetch_scheduled_events() == []  # finished: out of the list
        assert (await guild.fetch_scheduled_event(event.id)).status is (
            discord.EventStatus.completed)
        other = await schedule(guild, at(clock, HOUR), name="Jacko")
        cancelled = await other.cancel()
        assert cancelled.status is discord.EventStatus.cancelled
        with pytest.raises(discord.HTTPException) as finished:
            await other.edit(status=discord.EventStatus.scheduled)
        assert finished.value.code == 180000  # CANCELED is final too
    assert [e.status for e in fake.scheduled_events()] == [COMPLETED, CANCELED]


async def test_a_scheduled_event_cannot_skip_to_completed(fake_discord: FakeDiscord,
                                                          clock: ManualClock) -> None:
    fake_discord.set_bot_guild_permissions(create_events=True)
    bot = Host()
    async with fake_discord.running(bot):
        event = await schedule(guild_of(fake_discord, bot), at(clock, HOUR))
        with pytest.raises(discord.HTTPException) as wrong:
            await event.edit(status=discord.EventStatus.completed)
    assert wrong.value.code == 50035
    [violation] = fake_discord.take_violations()
    assert "GUILD_SCHEDULED_EVENT_INVALID_STATUS_TRANSITION" in violation.detail


async def test_a_start_in_the_past_is_refused_and_a_violation(
        fake_discord: FakeDiscord, clock: ManualClock) -> None:
    fake = fake_discord
    fake.set_bot_guild_permissions(create_events=True)
    bot = Host()
    async with fake.running(bot):
        guild = guild_of(fake, bot)
        with pytest.raises(discord.HTTPException) as past:
            await schedule(guild, at(clock, -timedelta(minutes=1)))
        assert (past.value.status, past.value.code) == (400, 50035)
        [violation] = fake.take_violations()
        assert "scheduled_start_time" in violation.detail
        assert "GUILD_SCHEDULED_EVENT_SCHEDULE_PAST" in violation.detail
        event = await schedule(guild, at(clock, HOUR))
        with pytest.raises(discord.HTTPException):
            await event.edit(start_time=at(clock, -HOUR))
        assert len(fake.take_violations()) == 1
    assert fake.scheduled_events()[0].start == clock.now() + 3600  # unchanged


@pytest.mark.parametrize(("change", "field"), [
    ({"name": ""}, "name"),
    ({"name": "x" * 101}, "name"),
    ({"description": "x" * 1001}, "description"),
    ({"privacy_level": 1}, "privacy_level"),
    ({"entity_type": 4}, "entity_type"),
    ({"entity_metadata": {"location": "x" * 101}}, "location"),
    ({"entity_metadata": None}, "location"),
    ({"scheduled_end_time": None}, "scheduled_end_time"),
    ({"scheduled_end_time": "2023-11-14T22:13:20+00:00"}, "GUILD_SCHEDULED_EVENT_END_BEFORE"),
    ({"scheduled_start_time": "tomorrow"}, "scheduled_start_time"),
    ({"channel_id": "general"}, "channel_id"),
    ({"entity_type": 2, "channel_id": "general"}, "CHANNEL_TYPE_INVALID"),
    ({"privacy_level": None}, "BASE_TYPE_REQUIRED"),
])
async def test_a_bad_create_body_is_50035_naming_the_field(
        fake_discord: FakeDiscord, clock: ManualClock, change: dict[str, Any],
        field: str) -> None:
    fake = fake_discord
    fake.set_bot_guild_permissions(create_events=True)
    if change.get("channel_id") == "general":
        change["channel_id"] = str(fake.channel("general").id)
    body = {"name": "Jazz", "privacy_level": 2, "entity_type": 3,
            "scheduled_start_time": at(clock, HOUR).isoformat(),
            "scheduled_end_time": at(clock, 2 * HOUR).isoformat(),
            "entity_metadata": {"location": "#games"}} | change
    bot = Host()
    async with fake.running(bot):
        with pytest.raises(discord.HTTPException) as refused:
            await bot.http.create_guild_scheduled_event(fake.world.guild.id, **body)
    assert (refused.value.status, refused.value.code) == (400, 50035)
    [violation] = fake.take_violations()
    assert field in violation.detail
    assert fake.scheduled_events() == []


async def test_discord_starts_and_ends_an_external_event_by_itself(
        fake_discord: FakeDiscord, clock: ManualClock) -> None:
    fake = fake_discord
    fake.set_bot_guild_permissions(create_events=True)
    bot = Host()
    async with fake.running(bot):
        guild = guild_of(fake, bot)
        event = await schedule(guild, at(clock, HOUR))
        clock.advance(3600)  # its start: Discord makes it ACTIVE
        assert fake.scheduled_event(event.id).status == ACTIVE
        with pytest.raises(discord.HTTPException) as late:
            await event.edit(status=discord.EventStatus.active)  # lost the race: no violation
        assert late.value.code == 50035
        with pytest.raises(discord.HTTPException):
            await event.edit(start_time=at(clock, HOUR))  # started: its start is fixed
        fetched = await guild.fetch_scheduled_event(event.id)
        assert fetched.status is discord.EventStatus.active
        clock.advance(3 * 3600)  # its end
        assert [e.status for e in fake.scheduled_events()] == [COMPLETED]
        assert await guild.fetch_scheduled_events() == []
        with pytest.raises(FakeDiscordError, match="over"):
            fake.mark_interested(fake.add_user("late"), event.id)


async def test_changing_an_event_needs_the_permission_still(
        fake_discord: FakeDiscord, clock: ManualClock) -> None:
    fake = fake_discord
    fake.set_bot_guild_permissions(create_events=True)
    bot = Host()
    async with fake.running(bot):
        guild = guild_of(fake, bot)
        event = await schedule(guild, at(clock, HOUR))
        fake.set_bot_guild_permissions(create_events=False)
        await fake.wait_for(lambda: not guild.me.guild_permissions.create_events)
        with pytest.raises(discord.Forbidden):
            await event.cancel()
        with pytest.raises(discord.Forbidden):
            await event.delete()
        assert len(await guild.fetch_scheduled_events()) == 1  # reading needs nothing
    assert fake.scheduled_events()[0].status == SCHEDULED


async def test_gateway_events_need_the_scheduled_events_intent(
        fake_discord: FakeDiscord, clock: ManualClock) -> None:
    fake = fake_discord
    alice = fake.add_user("alice")
    fake.set_bot_guild_permissions(create_events=True)
    listener, plain = Host(discord.Intents(guilds=True, guild_scheduled_events=True)), Host()
    async with fake.running(listener), fake.running(plain):
        event = await schedule(guild_of(fake, plain), at(clock, HOUR))
        fake.mark_interested(alice, event)
        fake.unmark_interested(alice, event)
        await fake.wait_for(lambda: "GUILD_SCHEDULED_EVENT_USER_REMOVE" in listener.received)
        await event.edit(name="Jazz at nine")
        await fake.wait_for(lambda: "GUILD_SCHEDULED_EVENT_UPDATE" in listener.received)
        assert guild_of(fake, listener).get_scheduled_event(event.id) is not None
    # discord.py tells of users it knows only: without the Members intent, the bot itself
    assert listener.heard == [("create", event.id), ("user_add", fake.world.bot.id)]
    assert [n for n in listener.received if "SCHEDULED" in n] == [
        "GUILD_SCHEDULED_EVENT_CREATE", "GUILD_SCHEDULED_EVENT_USER_ADD",
        "GUILD_SCHEDULED_EVENT_USER_ADD", "GUILD_SCHEDULED_EVENT_USER_REMOVE",
        "GUILD_SCHEDULED_EVENT_UPDATE"]
    assert plain.heard == [] and not [n for n in plain.received if "SCHEDULED" in n]
    assert guild_of(fake, plain).get_scheduled_event(event.id) is None


async def test_a_bot_that_connects_later_finds_the_events_in_guild_create(
        fake_discord: FakeDiscord, clock: ManualClock) -> None:
    fake = fake_discord
    fake.set_bot_guild_permissions(create_events=True)
    async with fake.running(Host()) as first:
        event = await schedule(guild_of(fake, first), at(clock, HOUR))
    async with fake.running(Host()) as second:
        found = guild_of(fake, second).get_scheduled_event(event.id)
    assert found is not None and found.name == "Jazz at eight"
