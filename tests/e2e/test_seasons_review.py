"""Seasons and role rewards, what a review found (issue #31, part A): a reward role with
moderator powers or above its chooser, one role as champion of two games, seasons
renumbered by a new schedule, a season's end posted twice, a game on the boundary, and
tiers reached by a rating never earned."""
# ruff: noqa: F811  (each test's argument ``club`` is the fixture imported below)

from __future__ import annotations

import pytest

from bot.features.seasons import GRACE, RETRY
from testkit.bots import Bots
from testkit.fakediscord.world import FakeRole
from testkit.results import finished
from tests.e2e.test_seasons import (  # noqa: F401  (the fixture club, the hook bot_extensions)
    DAY,
    SEASON,
    Club,
    ask,
    at,
    bot_extensions,
    club,
    jazz,
    posts,
    set_up_seasons,
)

MANAGE_MESSAGES = 1 << 13


async def test_a_manager_cannot_make_a_moderator_role_or_one_above_theirs_a_reward(
        club: Club, bots: Bots) -> None:
    fake, general = club.fake, club.fake.channel("general")
    moderators = fake.roles.add("Moderators", permissions=MANAGE_MESSAGES)
    high = fake.roles.add("High", above_bot=True)  # above the manager's Managers role
    bot = await bots.new(club.clock)
    await fake.start_bot(bot)
    said = await ask(fake, club.boss, general, "settings rewards", game="jazz",
                     champion=moderators)
    assert "has moderator or admin permissions" in said.response.content
    said = await ask(fake, club.boss, general, "settings tier", role=moderators, rating=1.0)
    assert "has moderator or admin permissions" in said.response.content
    said = await ask(fake, club.boss, general, "settings tier", role=high, rating=1.0)
    assert "is not below your highest role" in said.response.content
    # not even the owner makes a moderator role a reward
    said = await ask(fake, fake.world.owner, general, "settings rewards", game="jazz",
                     champion=moderators)
    assert "has moderator or admin permissions" in said.response.content
    settings = await bot.store.server_settings(fake.world.guild.id)
    assert not (settings or {}).get("champion_roles") and not (settings or {}).get("tiers")


async def test_a_champion_role_that_gained_moderator_powers_is_not_given(
        club: Club, bots: Bots) -> None:
    fake, clock, role = club.fake, club.clock, club.champion
    bot = await bots.new(clock)
    await fake.start_bot(bot)
    await set_up_seasons(club, bot)
    role.permissions |= MANAGE_MESSAGES  # an admin changed the role since
    fake.roles._announce(fake.world.guild, {role.id})  # (GUILD_ROLE_UPDATE to the bot)
    clock.advance(SEASON * DAY + GRACE)
    [log] = await fake.wait_for(lambda: posts(club.news, "Champion roles of season 1"))
    await fake.settle()
    assert "has moderator or admin permissions" in log.content
    assert not fake.roles.has(club.alice, role)
    assert [c for c in fake.calls if c.route.endswith("/roles/{role_id}")] == []


async def test_one_role_cannot_be_the_champion_of_two_games(club: Club, bots: Bots) -> None:
    fake, general = club.fake, club.fake.channel("general")
    bot = await bots.new(club.clock)
    await fake.start_bot(bot)
    await ask(fake, club.boss, general, "settings rewards", game="jazz", champion=club.champion)
    said = await ask(fake, club.boss, general, "settings rewards", game="jacko",
                     champion=club.champion)
    assert "another game's champion role already" in said.response.content
    settings = await bot.store.server_settings(fake.world.guild.id)
    assert (settings or {})["champion_roles"] == {"jazz": club.champion.id}


async def test_a_new_schedule_numbers_its_seasons_after_those_used(
        club: Club, bots: Bots) -> None:
    fake, clock, general = club.fake, club.clock, club.fake.channel("general")
    guild = fake.world.guild.id
    bot = await bots.new(clock)
    await fake.start_bot(bot)
    await set_up_seasons(club, bot)  # two games of season 1
    clock.advance(SEASON * DAY + GRACE)
    await fake.wait_for(lambda: posts(club.news, "Season 1 is over"))
    await fake.settle()
    # Season 2 runs; a new schedule from today, of 7 days, must not start at 1 again
    seasons = bot.croupier.seasons
    assert await seasons.season_of(guild, clock.now()) == 2
    said = await ask(fake, club.boss, general, "settings season", length="7")
    assert "Season 3 runs now" in said.response.content
    assert await seasons.season_of(guild, clock.now()) == 3
    await bot.store.record_game(jazz(fake, [(club.bob, 9), (club.alice, 1)], at(clock),
                                     season=3))
    clock.advance(7 * DAY + GRACE)
    [ended] = await fake.wait_for(lambda: posts(club.news, "Season 3 is over"))
    assert ended.embeds[0]["description"].splitlines()[0].startswith("🥇 Bob")
    # the same schedule typed again keeps its numbers
    start = (await bot.store.server_settings(guild) or {})["season_start"]
    said = await ask(fake, club.boss, general, "settings season", length="7", start=start)
    assert "Season 4 runs now" in said.response.content


async def test_a_season_end_is_posted_once_when_marking_it_failed(
        club: Club, bots: Bots, monkeypatch: pytest.MonkeyPatch) -> None:
    fake, clock = club.fake, club.clock
    bot = await bots.new(clock)
    await fake.start_bot(bot)
    await set_up_seasons(club, bot)
    mark, failed = bot.store.mark_season_posted, []

    async def flaky(guild_id: int, season: int) -> None:
        if not failed:
            failed.append(season)
            raise OSError("the disk is full")
        await mark(guild_id, season)

    monkeypatch.setattr(bot.store, "mark_season_posted", flaky)
    clock.advance(SEASON * DAY + GRACE)
    await fake.wait_for(lambda: posts(club.news, "Season 1 is over"))
    await fake.wait_for(lambda: failed)
    await fake.settle()
    clock.advance(RETRY + 1)  # far past the nonce's few minutes
    await fake.wait_for(lambda: posts(club.news, "Champion roles of season 1"))
    await fake.settle()
    assert len(posts(club.news, "Season 1 is over")) == 1
    assert await bot.store.unposted_seasons(fake.world.guild.id, 99) == []
    assert fake.roles.has(club.alice, club.champion)


async def test_a_season_is_not_posted_until_a_grace_after_its_end(
        club: Club, bots: Bots) -> None:
    fake, clock = club.fake, club.clock
    bot = await bots.new(clock)
    await fake.start_bot(bot)
    await set_up_seasons(club, bot)
    guild = bot.get_guild(fake.world.guild.id)
    assert guild is not None
    schedule = (await bot.croupier.seasons.settings(guild.id)).schedule()
    assert schedule is not None
    # a second after the boundary: a game that ended on it may be saving still
    clock.advance(schedule.end_of(1) - clock.now() + 1)
    await bot.croupier.seasons.sweep([guild])
    await fake.settle()
    assert posts(club.news, "Season 1 is over") == []
    clock.advance(GRACE)
    await bot.croupier.seasons.sweep([guild])
    await fake.wait_for(lambda: posts(club.news, "Season 1 is over"))


async def test_a_rating_never_earned_reaches_no_tier(club: Club, bots: Bots) -> None:
    fake, clock, general = club.fake, club.clock, club.fake.channel("general")
    bot = await bots.new(clock)
    await fake.start_bot(bot)
    await ask(fake, club.boss, general, "settings channel", channel=club.news)
    low: FakeRole = fake.roles.add("Beginner")
    said = await ask(fake, club.boss, general, "settings tier", role=low, rating=-5.0)
    assert "a rating of -5 or more in any game" in said.response.content
    # a game with an AI seat counts but rates nobody: Alice's rating is the starting 0
    played = finished(fake.world.guild.id, general.id,
                      [(club.alice.id, "Alice", 9), (None, "AI", 1)], game="jazz",
                      when=at(clock))
    await bot.store.record_game(played)
    await bot.croupier.seasons.tiers(played)
    await fake.settle()
    assert not fake.roles.has(club.alice, low)
    assert [c for c in fake.calls if c.route.endswith("/roles/{role_id}")] == []
