"""bot.config.competition: seasons' calendar, the lengths and days typed, rating tiers;
and the season and reward settings kept in ``ServerSettings``."""

from __future__ import annotations

from datetime import UTC, date, datetime
from zoneinfo import ZoneInfo

import pytest

from bot.config.competition import (
    MAX_TIERS,
    Schedule,
    SeasonError,
    Tier,
    day_at,
    next_first,
    parse_days,
    parse_start,
    tier_roles,
    window_start,
    with_tier,
    without_tier,
)
from bot.config.server_settings import ServerSettings


def at(*args: int, zone: str = "UTC") -> float:
    return datetime(*args, tzinfo=ZoneInfo(zone)).timestamp()


def test_season_n_runs_from_start_plus_n_minus_one_lengths() -> None:
    schedule = Schedule(date(2025, 6, 1), 30)
    assert schedule.season_at(at(2025, 5, 31, 23, 59)) is None
    assert schedule.season_at(at(2025, 6, 1)) == 1
    assert schedule.season_at(at(2025, 6, 30, 23, 59)) == 1
    assert schedule.season_at(at(2025, 7, 1)) == 2  # June 1 + 30 days
    assert schedule.start_of(3) == at(2025, 7, 31)
    assert schedule.end_of(1) == schedule.start_of(2) == at(2025, 7, 1)
    assert schedule.next_change(at(2025, 5, 1)) == schedule.start_of(1)
    assert schedule.next_change(at(2025, 7, 5)) == schedule.end_of(2)


def test_seasons_turn_at_midnight_in_the_servers_time_zone() -> None:
    zone = "Europe/Stockholm"
    schedule = Schedule(date(2025, 3, 1), 30, zone)
    # The end of season 1 is midnight of 31 March in Stockholm (summer time by then).
    assert schedule.end_of(1) == at(2025, 3, 31, zone=zone)
    assert schedule.season_at(at(2025, 3, 30, 23, 30, zone=zone)) == 1
    assert schedule.season_at(at(2025, 3, 30, 22, 30)) == 2  # 00:30 in Stockholm
    assert day_at(at(2025, 3, 30, 22, 30), zone) == date(2025, 3, 31)
    assert Schedule(date(2025, 3, 1), 30, "Nowhere/Lost").start_of(1) == at(2025, 3, 1)


def test_lengths_and_first_days_as_typed() -> None:
    assert [parse_days(t) for t in ("30", "30d", " 7 days ", "1 day", "365")] == [
        30, 30, 7, 1, 365]
    assert parse_days("off") is None and parse_days("none") is None
    for wrong in ("366", "-3", "a month", "2w", ""):
        with pytest.raises(SeasonError):
            parse_days(wrong)
    today = date(2025, 6, 10)
    assert parse_start(None, today) == parse_start("today", today) == today
    assert parse_start("2025-01-31", today) == date(2025, 1, 31)
    with pytest.raises(SeasonError):
        parse_start("31/01/2025", today)


def test_a_rolling_window_ends_now() -> None:
    now = at(2025, 6, 10)
    assert window_start("week", now) == at(2025, 6, 3)
    assert window_start("month", now) == at(2025, 5, 11)


BRONZE, SILVER, GOLD, ACE = 1, 2, 3, 4
TIERS = (Tier(BRONZE, 5.0, "jazz"), Tier(SILVER, 15.0, "jazz"), Tier(GOLD, 25.0, "jazz"),
         Tier(ACE, 20.0))


def test_a_player_holds_the_highest_tier_they_reach_of_each_ladder() -> None:
    everything = {BRONZE, SILVER, GOLD, ACE}
    assert tier_roles(TIERS, "jazz", 16.2, 16.2) == ({SILVER}, everything)
    assert tier_roles(TIERS, "jazz", 30.0, 30.0) == ({GOLD, ACE}, everything)
    assert tier_roles(TIERS, "jazz", 2.0, 22.0) == ({ACE}, everything)  # best: another game
    assert tier_roles(TIERS, "jazz", None, None) == (set(), everything)
    # A game of another game touches only the every-game ladder.
    assert tier_roles(TIERS, "jacko", 50.0, 50.0) == ({ACE}, {ACE})


def test_tiers_are_kept_one_per_role_and_at_most_a_few() -> None:
    tiers = with_tier((), Tier(GOLD, 25.0, "jazz"))
    tiers = with_tier(tiers, Tier(ACE, 20.0))
    tiers = with_tier(tiers, Tier(GOLD, 30.0, "jazz"))  # its role's tier replaced
    assert tiers == (Tier(ACE, 20.0), Tier(GOLD, 30.0, "jazz"))
    assert without_tier(tiers, ACE) == (Tier(GOLD, 30.0, "jazz"),)
    many = tuple(Tier(100 + n, float(n)) for n in range(MAX_TIERS))
    with pytest.raises(SeasonError):
        with_tier(many, Tier(99, 1.0))


def test_season_and_reward_settings_survive_their_plain_data() -> None:
    settings = ServerSettings(timezone="Europe/Stockholm", season_start="2025-06-01",
                              season_days=30, season_channel=55, champion_roles={"jazz": 7},
                              tiers=(Tier(ACE, 20.0), Tier(GOLD, 25.0, "jazz")))
    assert ServerSettings.from_data(settings.to_data()) == settings
    schedule = settings.schedule()
    assert schedule == Schedule(date(2025, 6, 1), 30, "Europe/Stockholm")
    assert ServerSettings().schedule() is None


@pytest.mark.parametrize("damage", [
    {"season_start": "June", "season_days": 30}, {"season_start": "2025-06-01"},
    {"season_start": "2025-06-01", "season_days": 0},
    {"season_start": "2025-06-01", "season_days": 400},
    {"season_start": "2025-06-01", "season_days": True}])
def test_a_season_that_cannot_be_reads_as_none(damage: dict) -> None:
    settings = ServerSettings.from_data(damage)
    assert (settings.season_start, settings.season_days, settings.schedule()) == (
        None, None, None)


def test_damaged_rewards_read_back_as_none() -> None:
    settings = ServerSettings.from_data({
        "season_channel": "55", "champion_roles": {"jazz": "7", "jacko": 8, "": True},
        "tiers": [{"role": 3, "rating": 25}, {"role": 0, "rating": 1}, {"role": 4},
                  {"role": 5, "rating": 1e9}, {"role": 6, "rating": 2, "game": 3}, "x"]})
    assert settings.season_channel is None
    assert settings.champion_roles == {"jacko": 8}
    assert settings.tiers == (Tier(3, 25.0),)
    assert ServerSettings.from_data({"champion_roles": [], "tiers": {}}) == ServerSettings()


def test_a_game_counts_in_the_season_its_end_falls_in() -> None:
    schedule = Schedule(date(2025, 6, 1), 7)
    ends = [datetime(2025, 6, d, 12, tzinfo=UTC).timestamp() for d in (1, 7, 8, 15, 29)]
    assert [schedule.season_at(t) for t in ends] == [1, 1, 2, 3, 5]


def test_a_new_schedule_numbers_on_after_every_season_used() -> None:
    old = Schedule(date(2025, 1, 1), 30)
    now = at(2025, 3, 10)  # season 3 of the old schedule runs
    assert next_first(old, now, last_used=2) == 4  # after the running one
    assert next_first(old, now, last_used=7) == 8  # after the last with ratings or a post
    assert next_first(None, now, last_used=None) == 1  # a server's first schedule
    new = Schedule(date(2025, 3, 10), 7, first=4)
    assert new.season_at(now) == 4 and new.season_at(at(2025, 3, 17)) == 5
    assert new.start_of(4) == now and new.next_change(at(2025, 3, 1)) == now
    assert new.season_at(at(2025, 3, 9)) is None
