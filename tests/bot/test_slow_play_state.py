"""What slow play keeps, without Discord: the nudge rules, the reminders a table arms, and
the new fields in snapshots and posts (old ones without them still read)."""

from __future__ import annotations

import json

import pytest

from bot.table.nudge_rules import check_nudge, nudge_gap, silence_needed
from bot.table.posts import Posts
from bot.table.state import Table, TableError
from bot.ui.markup import relative_time
from engine.jazz import Jazz
from locales import say
from tests.bot.test_tables import HOST, started, user_to_act

DAY, HOUR, MINUTE = 86400, 3600, 60


def test_how_long_before_a_nudge_and_between_two():
    assert silence_needed(300) == MINUTE * 1.25  # a quarter of the timer
    assert silence_needed(120) == MINUTE  # but at least a minute
    assert silence_needed(DAY) == 6 * HOUR
    assert silence_needed(0) == 5 * MINUTE  # no timer: five minutes
    assert nudge_gap(300) == nudge_gap(DAY) == 10 * MINUTE
    assert nudge_gap(DAY + 1) == nudge_gap(3 * DAY) == HOUR


def test_a_nudge_is_checked_without_changing_anything():
    table = started(3)  # its turn began at 10.0, a 5-minute timer
    slow = user_to_act(table)
    other = next(s.user_id for s in table.seats if s.user_id != slow)
    before = table.to_data()
    for user, now, words in ((other, 10 + 74, "has only just got the turn"),
                             (slow, 10 + 75, "It is your own turn"),
                             (HOST + 50, 10 + 75, "You are not seated")):
        with pytest.raises(TableError) as refused:
            check_nudge(table, user, now, relative_time)
        assert words in say(refused.value)
    assert check_nudge(table, other, 10 + 75, relative_time) == table.to_act
    table.nudged_at = 100.0
    with pytest.raises(TableError, match="a short while ago"):
        check_nudge(table, other, 100 + 10 * MINUTE - 1, relative_time)
    assert check_nudge(table, other, 100 + 10 * MINUTE, relative_time) == table.to_act
    table.nudged_at = None
    assert table.to_data() == before


def test_a_table_arms_the_reminders_its_timer_calls_for():
    table = started(3)
    table.turn_timer = float(DAY)
    table.arm_turn_timer(1000.0)
    assert (table.turn_deadline, table.reminder_at) == (1000.0 + DAY, 1000.0 + 12 * HOUR)
    table.turn_timer = 0.0
    table.arm_turn_timer(1000.0)
    assert table.turn_deadline is None and table.reminder_at is None


def test_nudged_at_is_in_the_snapshot_and_an_old_snapshot_reads_without_it():
    table = started(3)
    table.nudged_at = 123.0
    data = json.loads(json.dumps(table.to_data()))
    assert Table.from_data(data, Jazz, version=0).nudged_at == 123.0
    del data["nudged_at"]
    assert Table.from_data(data, Jazz, version=0).nudged_at is None


def test_turn_notices_are_in_the_posts_and_old_posts_read_without_them():
    posts = Posts(message_id=5, turn_notices={7: 99})
    data = json.loads(json.dumps(posts.to_data()))
    assert Posts.from_data(data).turn_notices == {7: 99}
    del data["turn_notices"]
    assert Posts.from_data(data).turn_notices == {}
