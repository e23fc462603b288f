"""Times as members type them: zones, times of day, quiet hours and scheduled starts."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta, timezone

import pytest

from bot.table.when import (
    EARLIEST,
    LATEST,
    WhenError,
    parse_clock,
    parse_quiet,
    parse_start,
    parse_zone,
)
from locales import say

STOCKHOLM = "Europe/Stockholm"


def at(year: int, month: int, day: int, hour: int, minute: int = 0, second: int = 0,
       offset: float = 0) -> float:
    """Epoch seconds of a wall time at a fixed UTC offset (hours)."""
    zone = timezone(timedelta(hours=offset))
    return datetime(year, month, day, hour, minute, second, tzinfo=zone).timestamp()


def refusal(call, *args) -> str:
    with pytest.raises(WhenError) as refused:
        call(*args)
    said = say(refused.value.args[0])
    assert said.endswith(".")
    return said


# ------------------------------------------------------------------------------ zones

@pytest.mark.parametrize(("typed", "name"), [
    ("Europe/Stockholm", STOCKHOLM), ("europe/stockholm", STOCKHOLM),
    (" EUROPE/STOCKHOLM ", STOCKHOLM), ("america/new_york", "America/New_York"),
    ("America/New York", "America/New_York"), ("UTC", "UTC"), ("utc", "UTC"),
    ("GMT", "UTC"), ("Z", "UTC"), ("asia/kolkata", "Asia/Kolkata"),
])
def test_zone_names_are_read_in_any_case(typed, name):
    assert parse_zone(typed) == name


@pytest.mark.parametrize("typed", ["", "Stockholm", "Mars/Olympus", "CEST+1", "x" * 200])
def test_an_unknown_zone_is_refused_with_an_example(typed):
    said = refusal(parse_zone, typed)
    assert repr(typed.strip()) in said and "`Europe/Stockholm`" in said


# ------------------------------------------------------------------- times of day

@pytest.mark.parametrize(("typed", "minutes"), [
    ("20:30", 20 * 60 + 30), ("20.30", 20 * 60 + 30), ("8:05", 8 * 60 + 5),
    ("08:05", 8 * 60 + 5), ("20", 20 * 60), ("0", 0), ("00:00", 0), ("23:59", 23 * 60 + 59),
    ("8pm", 20 * 60), ("8 PM", 20 * 60), ("8:30 am", 8 * 60 + 30), ("8:30am", 8 * 60 + 30),
    ("12am", 0), ("12pm", 12 * 60), ("12:15 am", 15), ("11:59 p.m.", 23 * 60 + 59),
    (" 7 ", 7 * 60),
])
def test_times_of_day_are_minutes_after_midnight(typed, minutes):
    assert parse_clock(typed) == minutes


@pytest.mark.parametrize("typed", ["24:00", "24", "25:10", "20:60", "20:3", "13pm",
                                   "0am", "", "noon", "8 30", "-1", "20:30:00", "٢٠:٣٠"])
def test_anything_else_is_not_a_time_of_day(typed):
    said = refusal(parse_clock, typed)
    assert repr(typed.strip()) in said and "`20:30`, `8pm`" in said


# ------------------------------------------------------------------------ quiet hours

@pytest.mark.parametrize(("typed", "hours"), [
    ("23:00-08:00", (23 * 60, 8 * 60)), ("23-8", (23 * 60, 8 * 60)),
    ("23:00 - 08:00", (23 * 60, 8 * 60)), ("23:00–08:00", (23 * 60, 8 * 60)),
    ("22:30 — 7:15", (22 * 60 + 30, 7 * 60 + 15)), ("11pm-8am", (23 * 60, 8 * 60)),
    ("1-6", (60, 6 * 60)), ("9:00 am - 5:00 pm", (9 * 60, 17 * 60)),
])
def test_quiet_hours_are_a_start_and_an_end(typed, hours):
    assert parse_quiet(typed) == hours


@pytest.mark.parametrize("typed", ["23:00", "23:00-", "-08:00", "23:00-25:00", "late-early",
                                   "23:00 to 08:00", ""])
def test_unreadable_quiet_hours_are_refused(typed):
    assert "`23:00-08:00`" in refusal(parse_quiet, typed)


def test_quiet_hours_must_not_start_when_they_end():
    said = refusal(parse_quiet, "8-08:00")
    assert "same time" in said and "'8-08:00'" in said


# ------------------------------------------------------------------------------ starts

# Tuesday 1 December 2026, 12:00 UTC: 13:00 in Stockholm (winter time, +01:00).
TUESDAY_NOON = at(2026, 12, 1, 12)


@pytest.mark.parametrize(("typed", "expected"), [
    ("20:30", at(2026, 12, 1, 20, 30, offset=1)),  # still ahead today
    ("12:30", at(2026, 12, 2, 12, 30, offset=1)),  # passed today: tomorrow
    ("8pm", at(2026, 12, 1, 20, offset=1)),
    ("today 20:30", at(2026, 12, 1, 20, 30, offset=1)),
    ("Today  20:30", at(2026, 12, 1, 20, 30, offset=1)),
    ("tomorrow 20:30", at(2026, 12, 2, 20, 30, offset=1)),
    ("tomorrow 9am", at(2026, 12, 2, 9, offset=1)),
    ("fri 20:30", at(2026, 12, 4, 20, 30, offset=1)),
    ("Friday 20:30", at(2026, 12, 4, 20, 30, offset=1)),
    ("mon 20:30", at(2026, 12, 7, 20, 30, offset=1)),
    ("tue 20:30", at(2026, 12, 1, 20, 30, offset=1)),  # today, still ahead
    ("tuesday 12:30", at(2026, 12, 8, 12, 30, offset=1)),  # today, passed: next week
    ("2026-12-05 20:30", at(2026, 12, 5, 20, 30, offset=1)),
    ("2026-12-05 8:30 pm", at(2026, 12, 5, 20, 30, offset=1)),
    ("2026-12-05T20:30", at(2026, 12, 5, 20, 30, offset=1)),
    ("2026-12-05t20:30:00", at(2026, 12, 5, 20, 30, offset=1)),
    ("2026-12-05T20:30Z", at(2026, 12, 5, 20, 30)),  # its own offset wins
    ("2026-12-05T20:30+05:30", at(2026, 12, 5, 20, 30, offset=5.5)),
    ("2026-12-05 20:30-05:00", at(2026, 12, 5, 20, 30, offset=-5)),
    # The day words of the bot's other languages: Swedish, Danish, Russian.
    ("imorgon 20:30", at(2026, 12, 2, 20, 30, offset=1)),
    ("i morgon 20:30", at(2026, 12, 2, 20, 30, offset=1)),
    ("i morgen 20:30", at(2026, 12, 2, 20, 30, offset=1)),
    ("i dag 20:30", at(2026, 12, 1, 20, 30, offset=1)),
    ("завтра 20:30", at(2026, 12, 2, 20, 30, offset=1)),
    ("fre 20:30", at(2026, 12, 4, 20, 30, offset=1)),
    ("lördag 20:30", at(2026, 12, 5, 20, 30, offset=1)),
    ("lørdag 20:30", at(2026, 12, 5, 20, 30, offset=1)),
    ("Пятница 20:30", at(2026, 12, 4, 20, 30, offset=1)),
    ("mandag 20:30", at(2026, 12, 7, 20, 30, offset=1)),
])
def test_starts_are_read_in_the_servers_zone(typed, expected):
    assert parse_start(typed, STOCKHOLM, TUESDAY_NOON) == expected


def test_a_start_without_a_zone_is_utc():
    assert parse_start("20:30", None, TUESDAY_NOON) == at(2026, 12, 1, 20, 30)
    assert parse_start("2026-12-05 20:30", None, TUESDAY_NOON) == at(2026, 12, 5, 20, 30)
    assert parse_start("2026-12-05 20:30", "UTC", TUESDAY_NOON) == at(2026, 12, 5, 20, 30)


def test_today_is_local_to_the_zone_not_utc():
    """23:30 UTC on 1 December is already 2 December in Stockholm."""
    late = at(2026, 12, 1, 23, 30)
    assert parse_start("today 10:00", STOCKHOLM, late) == at(2026, 12, 2, 10, offset=1)
    assert parse_start("today 23:45", None, late) == at(2026, 12, 1, 23, 45)


@pytest.mark.parametrize("typed", ["", "soon", "20:30 tomorrow", "fri", "friday",
                                   "next week", "2026-12-05", "2026-13-05 20:30",
                                   "2026-02-30 20:30", "2026-12-05 25:00", "yesterday 20:30",
                                   "1" * 60])
def test_anything_else_is_refused_with_the_forms_accepted(typed):
    said = refusal(parse_start, typed, STOCKHOLM, TUESDAY_NOON)
    assert "`20:30`, `tomorrow 20:30`, `fri 20:30`, `2026-12-05 20:30`" in said


# ----------------------------------------------------------- today/tomorrow rollover

def test_a_time_of_day_rolls_over_to_tomorrow_once_it_is_now():
    evening = at(2026, 12, 1, 20, 30, offset=1)
    tomorrow = evening + 86400
    assert parse_start("20:30", STOCKHOLM, evening) == tomorrow
    assert parse_start("20:30", STOCKHOLM, evening + 1) == tomorrow
    assert parse_start("fri 20:30", STOCKHOLM, at(2026, 12, 4, 20, 30, offset=1)) == (
        at(2026, 12, 11, 20, 30, offset=1))


def test_just_before_the_time_it_is_today_and_too_soon():
    evening = at(2026, 12, 1, 20, 30, offset=1)
    assert parse_start("20:30", STOCKHOLM, evening - EARLIEST) == evening
    said = refusal(parse_start, "20:30", STOCKHOLM, evening - 1)
    assert "less than 2 minutes from now" in said and "'20:30'" in said


def test_today_at_a_time_passed_is_refused():
    said = refusal(parse_start, "today 12:30", STOCKHOLM, TUESDAY_NOON)
    assert "already passed" in said and "'today 12:30'" in said
    assert "already passed" in refusal(parse_start, "2026-11-30T20:30Z", None, TUESDAY_NOON)


# ---------------------------------------------------------------------------- limits

def test_a_start_may_be_up_to_thirty_days_ahead():
    furthest = TUESDAY_NOON + LATEST
    assert parse_start("2026-12-31T12:00Z", None, TUESDAY_NOON) == furthest
    said = refusal(parse_start, "2026-12-31T12:01Z", None, TUESDAY_NOON)
    assert said == "'2026-12-31T12:01Z' is more than 30 days ahead. Pick a start within 30 days."


def test_a_start_must_be_two_minutes_ahead():
    assert parse_start("2026-12-01T12:02Z", None, TUESDAY_NOON) == TUESDAY_NOON + EARLIEST
    said = refusal(parse_start, "2026-12-01T12:01:59Z", None, TUESDAY_NOON)
    assert "too soon" in said


# ------------------------------------------------------------------------ summer time

def test_a_time_the_clocks_skip_is_refused():
    """Stockholm's clocks go from 02:00 to 03:00 on 28 March 2027."""
    before = at(2027, 3, 20, 12)
    said = refusal(parse_start, "2027-03-28 02:30", STOCKHOLM, before)
    assert "'2027-03-28 02:30' does not exist in Europe/Stockholm" in said
    assert "does not exist" in refusal(parse_start, "sun 2:30", STOCKHOLM, at(2027, 3, 27, 12))
    assert parse_start("2027-03-28 03:30", STOCKHOLM, before) == at(2027, 3, 28, 3, 30,
                                                                    offset=2)
    assert parse_start("2027-03-28 01:30", STOCKHOLM, before) == at(2027, 3, 28, 1, 30,
                                                                    offset=1)


def test_a_skipped_time_that_has_passed_today_is_tomorrows():
    """Later on 28 March 2027, 02:30 (skipped that night) means the next night's."""
    morning = at(2027, 3, 28, 10, offset=2)
    assert parse_start("2:30", STOCKHOLM, morning) == at(2027, 3, 29, 2, 30, offset=2)
    assert parse_start("sun 2:30", STOCKHOLM, morning) == at(2027, 4, 4, 2, 30, offset=2)
    assert "does not exist" in refusal(parse_start, "today 2:30", STOCKHOLM, morning)


def test_a_time_the_clocks_pass_twice_is_the_first():
    """Stockholm's clocks go from 03:00 back to 02:00 on 25 October 2026."""
    before = at(2026, 10, 20, 12)
    first = at(2026, 10, 25, 2, 30, offset=2)  # still summer time
    assert parse_start("2026-10-25 02:30", STOCKHOLM, before) == first
    assert parse_start("sun 02:30", STOCKHOLM, before) == first
    assert parse_start("2026-10-25 03:30", STOCKHOLM, before) == at(2026, 10, 25, 3, 30,
                                                                    offset=1)


def test_a_day_across_the_change_is_a_calendar_day_not_24_hours():
    """Saturday 12:00 summer time to 'tomorrow 12:00' winter time is 25 hours."""
    saturday = at(2026, 10, 24, 12, offset=2)
    assert parse_start("tomorrow 12:00", STOCKHOLM, saturday) == saturday + 25 * 3600
    assert parse_start("12:00", STOCKHOLM, saturday) == saturday + 25 * 3600


def test_times_are_whole_minutes():
    start = parse_start("2026-12-05 20:30", STOCKHOLM, TUESDAY_NOON)
    assert start % 60 == 0
    assert datetime.fromtimestamp(start, UTC).hour == 19
