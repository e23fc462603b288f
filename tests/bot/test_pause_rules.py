"""Pause and Resume by vote, without Discord: who votes, what carries, what a pause stops
and what the resume gives back."""

from __future__ import annotations

import pytest

from bot.features.rematch import next_table
from bot.table import pause
from bot.table.pause import PAUSE, RESUME, check_vote, needed, vote, voters, votes
from bot.table.seats import fresh_seats
from bot.table.state import Table, TableError
from bot.table.timers import next_due
from engine.core import action_code
from locales import say
from tests.bot.test_tables import HOST, started, user_to_act

HOUR, DAY = 3600, 86400


def players(table: Table) -> list[int]:
    return [s.user_id for s in table.seats]


def refusal(table: Table, user: int, asked: str) -> str:
    with pytest.raises(TableError) as refused:
        check_vote(table, user, asked)
    return say(refused.value)


def test_more_than_half_of_the_players_here_carry_a_motion():
    for seated, wanted in ((3, 2), (4, 3), (5, 3), (6, 4)):
        assert needed(started(seated)) == wanted
    table = started(4)
    table.seats[3].away = True  # (an away player has no vote, nor one who left)
    assert voters(table) == players(table)[:3] and needed(table) == 2
    table.seats[2].left = True
    assert voters(table) == players(table)[:2] and needed(table) == 2


def test_an_ai_seat_has_no_vote():
    table = started(3)
    table.seats[1].ai = table.seats[2].ai = "normal"
    assert voters(table) == [HOST] and needed(table) == 1
    assert vote(table, HOST, PAUSE, 50.0) == "paused"  # alone with the AI: at once


def test_a_vote_counts_until_it_carries_and_a_second_press_withdraws_it():
    table = started(3)
    first, second, third = players(table)
    before = table.to_data()
    assert vote(table, first, PAUSE, 20.0) == "voted"
    assert votes(table) == 1 and not table.paused
    assert vote(table, first, PAUSE, 21.0) == "withdrawn"
    assert votes(table) == 0 and table.to_data() == before
    assert vote(table, first, PAUSE, 22.0) == "voted"
    step = table.step
    assert vote(table, third, PAUSE, 30.0) == "paused"
    assert table.paused and table.paused_by == [first, third] and table.pause_votes == []
    assert table.step == step  # nobody's menu goes stale
    assert pause.motion(table) == RESUME
    assert vote(table, second, RESUME, 40.0) == "voted"
    assert vote(table, second, RESUME, 41.0) == "withdrawn"
    assert vote(table, second, RESUME, 42.0) == "voted"
    assert vote(table, first, RESUME, 50.0) == "resumed"
    assert not table.paused and table.paused_by == [] and table.pause_votes == []


def test_who_may_not_vote_is_told_why_and_nothing_changes():
    table = started(3)
    first, second, _ = players(table)
    before = table.to_data()
    assert "Only the players seated" in refusal(table, HOST + 50, PAUSE)
    table.seats[1].away = True
    assert "while you are away" in refusal(table, second, PAUSE)
    table.seats[1].away = False
    assert "now votes to pause" in refusal(table, first, RESUME)  # a button drawn before
    assert table.to_data() == before
    lobby = started(3)
    lobby.status = "lobby"
    assert "has not started" in refusal(lobby, first, PAUSE)


def test_a_pause_stops_moves_the_timer_and_the_bot_and_the_resume_gives_the_time_back():
    table = started(3)
    table.turn_timer = float(HOUR)
    table.arm_turn_timer(1000.0)
    assert table.turn_deadline == 1000.0 + HOUR
    first, second, _ = players(table)
    vote(table, first, PAUSE, 1000.0 + 600)
    vote(table, second, PAUSE, 1000.0 + 900)  # 45 minutes of the hour left
    assert table.turn_left == 45 * 60
    assert table.turn_deadline is None and table.reminder_at is None
    assert table.paused_until == 1900.0 + DAY  # the bot's longest pause
    assert next_due(table) == (1900.0 + DAY, "resume")
    assert table.automation() is None  # the bot plays nobody's seat
    mover = user_to_act(table)
    code = action_code(table.game.legal_actions()[0])
    with pytest.raises(TableError) as refused:
        table.check_move(mover, table.step, code)
    assert "The table is paused" in say(refused.value)
    vote(table, first, RESUME, 5000.0)
    assert vote(table, second, RESUME, 5000.0) == "resumed"
    assert table.turn_deadline == 5000.0 + 45 * 60
    assert table.reminder_at == 5000.0 + 15 * 60  # half time, as it would have been
    assert table.check_move(mover, table.step, code)[0] == table.to_act
    assert "voted to resume" in say(table.lines[-1])


def test_the_longest_pause_ends_it_by_itself():
    table = started(3)
    table.max_pause = 2 * HOUR
    table.turn_timer = 600.0
    table.arm_turn_timer(100.0)
    for user in players(table)[:2]:
        vote(table, user, PAUSE, 400.0)
    assert table.paused_until == 400.0 + 2 * HOUR
    assert not pause.resume_due(table, 400.0 + 2 * HOUR - 1)
    assert pause.resume_due(table, 400.0 + 2 * HOUR)
    pause.resume(table, 400.0 + 2 * HOUR, by_vote=False)
    assert table.turn_deadline == 400.0 + 2 * HOUR + 300
    assert "pause ran out" in say(table.lines[-1])


def test_a_player_back_from_away_while_paused_gets_a_fresh_timer_at_the_resume():
    table = started(3)
    table.turn_timer = 600.0
    to_act = table.to_act
    table.seats[to_act].away = True  # the bot would play their seat: no timer
    table.arm_turn_timer(100.0)
    assert table.turn_deadline is None
    others = [s.user_id for i, s in enumerate(table.seats) if i != to_act]
    for user in others:
        vote(table, user, PAUSE, 200.0)
    assert table.paused and table.turn_left is None
    table.welcome_back(table.seats[to_act].user_id, 300.0)
    assert table.turn_deadline is None  # still paused
    vote(table, others[0], RESUME, 400.0)
    assert vote(table, others[1], RESUME, 400.0) == "resumed"
    assert table.turn_deadline == 400.0 + 600


def test_a_slow_table_resumes_through_quiet_hours():
    table = started(3)
    table.turn_timer, table.quiet_hours = float(DAY), [23 * 60, 8 * 60]
    start = 1_699_999_200.0  # 2023-11-14 22:00 UTC
    table.arm_turn_timer(start)
    for user in players(table)[:2]:
        vote(table, user, PAUSE, start + 30 * 60)  # 22:30: 23.5 hours of running time left
    assert table.turn_left == DAY - 30 * 60
    back = start + 3 * HOUR  # 01:00, in the night
    for user in players(table)[:2]:
        vote(table, user, RESUME, back)
    # From 08:00: 15 h to 23:00, then 8.5 h from 08:00 the day after.
    assert table.turn_deadline == start + 10 * HOUR + 15 * HOUR + 9 * HOUR + 8.5 * HOUR


def test_the_pause_is_in_the_snapshot_and_a_rematch_starts_unpaused():
    table = started(3)
    table.quiet_hours, table.max_pause = [60, 300], 3 * HOUR
    first, second, third = players(table)
    vote(table, first, PAUSE, 50.0)
    vote(table, second, PAUSE, 60.0)
    vote(table, third, RESUME, 70.0)
    back = Table.from_data(table.to_data(), table.engine, table.version)
    assert (back.paused_until, back.paused_by, back.pause_votes, back.turn_left) == (
        table.paused_until, [first, second], [third], table.turn_left)
    following = next_table(table, fresh_seats(table.seats), 100.0)
    assert not following.paused and following.pause_votes == following.paused_by == []
    assert following.turn_left is None
    assert (following.quiet_hours, following.max_pause) == ([60, 300], 3 * HOUR)
