"""Quiet hours without Discord: which moments are quiet, and when running time adds up,
across midnight and the nights the clocks change; a slow table's timer and reminders."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from zoneinfo import ZoneInfo

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from bot.table import quiet
from bot.table.durations import next_reminder
from bot.table.quiet import SLOW, QuietHours
from tests.bot.test_tables import started

HOUR, DAY = 3600, 86400
STOCKHOLM = "Europe/Stockholm"
NIGHT = (23 * 60, 8 * 60)  # 23:00–08:00


def utc(year: int, month: int, day: int, hour: int, minute: int = 0) -> float:
    return datetime(year, month, day, hour, minute, tzinfo=UTC).timestamp()


def local(zone: str, year: int, month: int, day: int, hour: int, minute: int = 0,
          fold: int = 0) -> float:
    return datetime(year, month, day, hour, minute, tzinfo=ZoneInfo(zone),
                    fold=fold).timestamp()


# ------------------------------------------------------------------ worked examples


def test_a_night_is_quiet_from_its_start_to_its_end():
    night = QuietHours(*NIGHT, "UTC")
    assert not night.contains(utc(2023, 11, 14, 22, 59) + 59)
    assert night.contains(utc(2023, 11, 14, 23))
    assert night.contains(utc(2023, 11, 15, 3))
    assert night.contains(utc(2023, 11, 15, 8) - 1)
    assert not night.contains(utc(2023, 11, 15, 8))
    assert not night.contains(utc(2023, 11, 15, 12))
    assert night.next_end(utc(2023, 11, 15, 2)) == utc(2023, 11, 15, 8)
    assert night.next_end(utc(2023, 11, 14, 23)) == utc(2023, 11, 15, 8)
    assert night.next_end(utc(2023, 11, 15, 12)) == utc(2023, 11, 15, 12)  # not quiet


def test_a_day_of_running_time_from_ten_at_night_skips_two_nights():
    night = QuietHours(*NIGHT, "UTC")
    start = utc(2023, 11, 14, 22)
    # 1 h before the first night, 15 h the next day, 8 h the day after.
    assert night.deadline(start, DAY) == utc(2023, 11, 16, 16) == start + 42 * HOUR
    assert night.running(start, start + 42 * HOUR) == DAY
    assert night.deadline(start, HOUR) == utc(2023, 11, 14, 23)  # the night's first moment
    assert night.deadline(start, HOUR + 1) == utc(2023, 11, 15, 8) + 1
    assert night.deadline(utc(2023, 11, 15, 2), 0) == utc(2023, 11, 15, 2)
    assert night.deadline(utc(2023, 11, 15, 2), 60) == utc(2023, 11, 15, 8, 1)


def test_quiet_hours_within_a_day():
    lunch = QuietHours(12 * 60, 13 * 60 + 30, "UTC")
    assert lunch.contains(utc(2024, 5, 1, 12, 45))
    assert not lunch.contains(utc(2024, 5, 1, 13, 30))
    assert lunch.deadline(utc(2024, 5, 1, 11), 2 * HOUR) == utc(2024, 5, 1, 14, 30)
    assert lunch.running(utc(2024, 5, 1, 0), utc(2024, 5, 2, 0)) == DAY - 90 * 60


def test_in_a_zone_the_quiet_hours_are_its_wall_clock():
    night = QuietHours(*NIGHT, STOCKHOLM)  # UTC+1 in winter, UTC+2 in summer
    assert night.contains(utc(2024, 1, 10, 22, 30))  # 23:30 in Stockholm
    assert not night.contains(utc(2024, 1, 10, 21, 30))  # 22:30
    assert night.next_end(utc(2024, 1, 10, 22, 30)) == utc(2024, 1, 11, 7)
    assert night.next_end(utc(2024, 7, 10, 22)) == utc(2024, 7, 11, 6)  # 08:00 CEST


def test_the_night_the_clocks_go_forward_is_an_hour_shorter():
    # 2024-03-31: at 02:00 the clocks in Stockholm jump to 03:00.
    night = QuietHours(*NIGHT, STOCKHOLM)
    begins = local(STOCKHOLM, 2024, 3, 30, 23)
    assert night.next_end(begins) == local(STOCKHOLM, 2024, 3, 31, 8)
    assert night.running(begins, local(STOCKHOLM, 2024, 3, 31, 8)) == 0
    assert local(STOCKHOLM, 2024, 3, 31, 8) - begins == 8 * HOUR
    # Quiet hours that start in the hour the clocks skip start when they skip it.
    skipped = QuietHours(2 * 60 + 30, 6 * 60, STOCKHOLM)
    jump = utc(2024, 3, 31, 1)  # 02:00 CET is 03:00 CEST
    assert not skipped.contains(jump - 1) and skipped.contains(jump)
    assert skipped.next_end(jump) == local(STOCKHOLM, 2024, 3, 31, 6)


def test_the_night_the_clocks_go_back_is_an_hour_longer():
    # 2024-10-27: at 03:00 the clocks in Stockholm go back to 02:00.
    night = QuietHours(*NIGHT, STOCKHOLM)
    begins = local(STOCKHOLM, 2024, 10, 26, 23)
    ends = night.next_end(begins)
    assert ends == local(STOCKHOLM, 2024, 10, 27, 8) and ends - begins == 10 * HOUR
    assert night.contains(local(STOCKHOLM, 2024, 10, 27, 2, 30, fold=1))
    # Quiet hours that end in the hour passed twice end the first time.
    early = QuietHours(1 * 60, 2 * 60 + 30, STOCKHOLM)
    assert early.next_end(local(STOCKHOLM, 2024, 10, 27, 1)) == local(
        STOCKHOLM, 2024, 10, 27, 2, 30, fold=0)


def test_quiet_hours_are_checked_and_shown():
    with pytest.raises(ValueError):
        QuietHours(60, 60, "UTC")
    with pytest.raises(ValueError):
        QuietHours(0, 24 * 60, "UTC")
    assert quiet.shown(*NIGHT) == "23:00–08:00"
    assert quiet.shown(5, 9 * 60 + 30) == "00:05–09:30"
    # A zone the system does not know any more: UTC rather than a crash.
    assert QuietHours(*NIGHT, "Mars/Olympus").contains(utc(2024, 1, 1, 23, 30))


# ------------------------------------------------------------------ properties

MOMENTS = st.integers(min_value=1_600_000_000, max_value=1_900_000_000)
MINUTES = st.integers(min_value=0, max_value=24 * 60 - 1)
SECONDS = st.integers(min_value=0, max_value=14 * DAY)
ZONES = st.sampled_from(["UTC", STOCKHOLM, "America/New_York", "Australia/Lord_Howe",
                         "Asia/Kolkata"])


@st.composite
def quiet_hours(draw: st.DrawFn) -> QuietHours:
    start = draw(MINUTES)
    end = draw(MINUTES.filter(lambda m: m != start))
    return QuietHours(start, end, draw(ZONES))


@settings(max_examples=300, deadline=None)
@given(quiet_hours(), MOMENTS, SECONDS)
def test_a_deadline_is_exactly_that_much_running_time_later(hours, start, seconds):
    due = hours.deadline(start, seconds)
    assert due - start >= seconds
    assert hours.running(start, due) == seconds
    if seconds > 0:  # the first such moment: a second earlier is not enough
        assert hours.running(start, due - 1) == seconds - 1
    if hours.running(start, start + seconds) == seconds:  # no quiet time on the way
        assert due == start + seconds


@settings(max_examples=300, deadline=None)
@given(quiet_hours(), MOMENTS)
def test_a_quiet_moment_waits_for_the_end_of_its_period(hours, t):
    if hours.contains(t):
        end = hours.next_end(t)
        assert end > t and not hours.contains(end) and hours.contains(end - 1)
        assert hours.running(t, end) == 0
        assert hours.deadline(t, 1) == end + 1
    else:
        assert hours.next_end(t) == t
        assert hours.running(t, t + 1) == 1


@settings(max_examples=300, deadline=None)
@given(quiet_hours(), MOMENTS)
def test_quiet_is_what_the_local_clock_reads_away_from_a_change_of_the_clocks(hours, t):
    zone = ZoneInfo(hours.zone)
    seen = datetime.fromtimestamp(t, zone)
    if any(datetime.fromtimestamp(t + d, zone).utcoffset() != seen.utcoffset()
           for d in (-DAY, DAY)):
        return  # a day the clocks change: the other tests say what happens then
    minute = seen.hour * 60 + seen.minute
    length = (hours.end - hours.start) % (24 * 60)
    assert hours.contains(t) == ((minute - hours.start) % (24 * 60) < length)


@settings(max_examples=200, deadline=None)
@given(quiet_hours(), MOMENTS, SECONDS, SECONDS)
def test_running_time_adds_up(hours, start, a, b):
    middle, stop = start + a, start + a + b
    assert hours.running(start, stop) == hours.running(start, middle) + hours.running(
        middle, stop)
    assert 0 <= hours.running(start, stop) <= stop - start


# ------------------------------------------------------------------ a slow table


def slow_table(timer: float = DAY, hours: tuple[int, int] | None = NIGHT):
    table = started(3)
    table.turn_timer = float(timer)
    table.quiet_hours = list(hours) if hours else []
    return table


def test_a_slow_table_holds_its_turn_timer_overnight_and_reminds_in_the_day():
    table = slow_table()
    start = utc(2023, 11, 14, 22)
    table.arm_turn_timer(start)
    assert table.turn_deadline == utc(2023, 11, 16, 16)
    # 12 h of running time: 1 h that evening, 11 h the next day.
    assert table.reminder_at == utc(2023, 11, 15, 19)
    table.remind_later(table.reminder_at)
    assert table.reminder_at == utc(2023, 11, 16, 15)  # 23 h: an hour before the end
    table.remind_later(table.reminder_at)
    assert table.reminder_at is None
    assert quiet.time_left(table, utc(2023, 11, 16, 3)) == 8 * HOUR  # (in the night)


def test_a_reminder_due_as_a_night_begins_waits_for_its_end():
    table = slow_table(timer=2 * HOUR)
    table.arm_turn_timer(utc(2023, 11, 14, 22))  # its reminder after an hour: 23:00
    assert table.reminder_at == utc(2023, 11, 15, 8)
    assert table.turn_deadline == utc(2023, 11, 15, 9)
    table.arm_turn_timer(utc(2023, 11, 14, 22, 30))
    assert table.reminder_at == utc(2023, 11, 15, 8, 30)  # not 23:30
    assert not QuietHours(*NIGHT).contains(table.reminder_at)


def test_a_fast_table_or_a_table_without_quiet_hours_keeps_plain_timers():
    start = utc(2023, 11, 14, 22, 50)
    for table in (slow_table(timer=SLOW - 60), slow_table(hours=None)):
        table.arm_turn_timer(start)
        assert table.turn_deadline == start + table.turn_timer
        assert table.reminder_at == next_reminder(table.turn_timer, table.turn_deadline,
                                                  start)
    table = slow_table(timer=SLOW)  # an hour is slow
    table.arm_turn_timer(start)
    assert table.turn_deadline == utc(2023, 11, 15, 8, 50)


def test_the_quiet_hours_and_zone_are_in_the_snapshot():
    table = slow_table()
    table.quiet_zone = STOCKHOLM
    table.max_pause = 2 * HOUR
    back = type(table).from_data(table.to_data(), table.engine, table.version)
    assert (back.quiet_hours, back.quiet_zone, back.max_pause) == (list(NIGHT), STOCKHOLM,
                                                                   2 * HOUR)
    assert quiet.of(back) == QuietHours(*NIGHT, STOCKHOLM)
    old = table.to_data()
    for name in ("quiet_hours", "quiet_zone", "max_pause"):
        del old[name]
    assert quiet.of(type(table).from_data(old, table.engine, table.version)) is None


def test_nights_far_ahead_are_found_quickly():
    night = QuietHours(0, 23 * 60 + 59, "UTC")  # one running minute a day
    start = utc(2024, 1, 1, 23, 59)
    assert night.deadline(start, 14 * 60) == start + 13 * DAY + 60
    assert datetime.fromtimestamp(start, UTC) + timedelta(days=13, minutes=1) == \
        datetime.fromtimestamp(night.deadline(start, 14 * 60), UTC)
