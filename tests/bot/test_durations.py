"""Turn timers as people type and read them, and when a turn reminds its player."""

from __future__ import annotations

import itertools

import pytest

from bot.table.durations import (
    DAY,
    HOUR,
    MINUTE,
    DurationError,
    describe_duration,
    next_reminder,
    parse_duration,
    reminder_offsets,
)
from locales import say


@pytest.mark.parametrize(("typed", "seconds"), [
    ("off", 0), ("OFF", 0), (" none ", 0), ("0", 0),
    ("90", 90 * MINUTE), ("1", MINUTE), ("30m", 30 * MINUTE), ("30 min", 30 * MINUTE),
    ("2h", 2 * HOUR), ("2 hours", 2 * HOUR), ("1d", DAY), ("3 days", 3 * DAY),
    ("1h30m", 90 * MINUTE), ("1d 12h", 36 * HOUR), ("1h, 30m", 90 * MINUTE),
    ("1.5h", 90 * MINUTE), ("1,5h", 90 * MINUTE), ("14d", 14 * DAY), ("1m", MINUTE),
    ("90s", 90), ("1m 30s", 90),
])
def test_typed_durations_are_read_as_seconds(typed, seconds):
    assert parse_duration(typed) == seconds


@pytest.mark.parametrize("typed", ["", "abc", "5x", "-5", "1 2h", "h", "2h later", "٣",
                                   "0.5", "1" * 60, "10 weeks"])
def test_anything_else_is_refused_with_the_forms_accepted(typed):
    with pytest.raises(DurationError) as refused:
        parse_duration(typed)
    said = say(refused.value)
    assert "`off`, `90`, `30m`, `2h`, `1d`" in said and said.endswith(".")


@pytest.mark.parametrize("typed", ["30s", "0.5m", "15d", "14d 1m", "400h"])
def test_out_of_bounds_is_refused_naming_the_bounds(typed):
    with pytest.raises(DurationError) as refused:
        parse_duration(typed)
    assert say(refused.value) == ("A turn timer must be between 1 minute and 14 days, "
                                  "or off.")


def test_the_bounds_themselves_are_accepted():
    assert parse_duration("1m") == MINUTE and parse_duration("14d") == 14 * DAY
    assert parse_duration("336h") == 14 * DAY


@pytest.mark.parametrize(("seconds", "words"), [
    (0, "off"), (-1, "off"), (MINUTE, "1 minute"), (5 * MINUTE, "5 minutes"),
    (90 * MINUTE, "90 minutes"), (HOUR, "1 hour"), (36 * HOUR, "36 hours"),
    (DAY, "1 day"), (14 * DAY, "14 days"), (30, "30 seconds"), (300.0, "5 minutes"),
    (90.5, "90 seconds"),
])
def test_durations_in_words(seconds, words):
    assert describe_duration(seconds) == words


def test_what_is_described_reads_back():
    for seconds in (MINUTE, 45 * MINUTE, 2 * HOUR, 36 * HOUR, 3 * DAY):
        assert parse_duration(describe_duration(seconds)) == seconds


def test_reminders_scale_with_the_timer():
    assert reminder_offsets(0) == []
    assert reminder_offsets(5 * MINUTE) == [150]
    assert reminder_offsets(HOUR) == [HOUR / 2]  # an hour or less: once, at half time
    # Longer, but the late reminder would come less than 6 hours after the first: once.
    assert reminder_offsets(2 * HOUR) == [HOUR]
    assert reminder_offsets(12 * HOUR) == [6 * HOUR]
    # A day: at half time and an hour before the end.
    assert reminder_offsets(DAY) == [12 * HOUR, 23 * HOUR]
    assert reminder_offsets(14 * DAY) == [7 * DAY, 14 * DAY - HOUR]


def test_no_two_reminders_of_a_turn_within_six_hours():
    for timer in range(MINUTE, 14 * DAY + 1, 17 * MINUTE):
        offsets = reminder_offsets(timer)
        assert 1 <= len(offsets) <= 2 and offsets[0] == timer / 2
        assert all(0 < o < timer for o in offsets)
        assert all(b - a >= 6 * HOUR for a, b in itertools.pairwise(offsets))


def test_the_next_reminder_follows_the_one_just_sent():
    start, timer = 1000.0, float(DAY)
    deadline = start + timer
    assert next_reminder(timer, deadline, start) == start + 12 * HOUR
    assert next_reminder(timer, deadline, start + 12 * HOUR) == start + 23 * HOUR
    assert next_reminder(timer, deadline, start + 23 * HOUR) is None
    # Woken late (the bot was down past both): no burst of reminders.
    assert next_reminder(timer, deadline, start + 23.5 * HOUR) is None
    assert next_reminder(timer, None, start) is None
    assert next_reminder(300, start + 300, start + 150) is None
