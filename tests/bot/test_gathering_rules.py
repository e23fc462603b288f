"""Who may join a table with kept seats or by invitation only, and a scheduled lobby's
timer (its reminders, its time), without Discord."""

from __future__ import annotations

import json

import pytest

from bot.features.rematch import next_table
from bot.table import gathering
from bot.table.gathering import REMINDERS
from bot.table.seats import fresh_seats
from bot.table.state import Table, TableError
from bot.table.timers import next_due
from tests.bot.test_tables import HOST, lobby

BOB, CAROL, DAVE, ERIN = 201, 202, 203, 204


def snapshot(table: Table) -> str:
    return json.dumps(table.to_data(), sort_keys=True)


def test_kept_seats_refuse_a_stranger_only_when_the_free_seats_are_all_kept():
    table = lobby(1, norwegian=True)  # Norwegian Jazz: 3 to 5 seats; the host seated
    gathering.invite(table, [BOB, CAROL])
    table.join(DAVE, "dave", 1.0)  # 4 free seats, 2 kept: a stranger may
    table.join(ERIN, "erin", 1.0)  # 3 free, 2 kept: still
    before = snapshot(table)
    with pytest.raises(TableError, match="The free seats are kept for invited players"):
        table.join(HOST + 50, "late", 2.0)
    with pytest.raises(TableError, match="kept for invited players"):
        table.add_ai(HOST, "easy", 2.0)  # nor an AI player
    assert snapshot(table) == before
    table.join(CAROL, "carol", 3.0)  # an invited member takes their seat
    with pytest.raises(TableError, match="The free seat is kept for an invited player"):
        table.join(HOST + 50, "late", 4.0)
    table.join(BOB, "bob", 5.0)
    assert table.seat_of(BOB) == 4 and gathering.kept_free(table) == []


def test_an_invitation_only_table_refuses_everyone_not_invited():
    table = lobby(1)
    table.invite_only = True
    gathering.invite(table, [BOB])
    with pytest.raises(TableError, match="by invitation only"):
        table.join(CAROL, "carol", 1.0)
    table.join(BOB, "bob", 1.0)
    assert [s.user_id for s in table.seats] == [HOST, BOB]


def test_inviting_keeps_no_more_seats_than_are_free_and_skips_the_seated():
    table = lobby(2, norwegian=True)  # 5 seats, 2 taken
    assert gathering.invite(table, [HOST + 1, BOB, BOB]) == [BOB]  # seated, twice
    with pytest.raises(TableError, match="Only 2 seats are free to keep"):
        gathering.invite(table, [CAROL, DAVE, ERIN])
    assert table.reserved == [BOB]  # a refused invitation keeps nothing
    assert gathering.invite(table, [CAROL, DAVE]) == [CAROL, DAVE]


def test_a_scheduled_lobby_reminds_twice_then_begins_and_never_idles_out():
    table = lobby(1)
    table.schedule(10_000.0, now=0.0)
    assert next_due(table) == (10_000.0 - REMINDERS[0], "call")
    table.called_done()
    assert next_due(table) == (10_000.0 - REMINDERS[1], "call")
    table.called_done()
    assert next_due(table) == (10_000.0, "begin")


def test_reminders_already_past_at_scheduling_are_skipped():
    table = lobby(1)
    table.schedule(1_000.0, now=0.0)  # 1000 s ahead: the hour's reminder is past
    assert table.reminders_done == 1
    assert next_due(table) == (1_000.0 - REMINDERS[1], "call")


def test_the_host_may_start_a_scheduled_table_only_from_an_hour_before():
    table = lobby(3)
    table.schedule(10_000.0, now=0.0)
    with pytest.raises(TableError, match="scheduled"):
        table.start(HOST, 10_000.0 - REMINDERS[0] - 1)
    table.start(HOST, 10_000.0 - REMINDERS[0])
    assert table.game is not None


def test_needed_counts_the_players_still_missing():
    table = lobby(1)
    assert gathering.needed(table) == 2
    table.join(BOB, "bob", 1.0)
    table.join(CAROL, "carol", 1.0)
    assert gathering.needed(table) == 0


def test_a_rematch_is_neither_scheduled_nor_by_invitation():
    table = lobby(3)
    table.schedule(10_000.0, now=0.0)
    table.reserved, table.invite_only, table.called, table.fill_ai = [BOB], True, True, True
    again = next_table(table, fresh_seats(table.seats), 20_000.0)
    assert (again.starts_at, again.reserved, again.invite_only, again.called,
            again.fill_ai, again.reminders_done) == (None, [], False, False, False, 0)


def test_the_gathering_fields_survive_a_save():
    table = lobby(1)
    table.schedule(10_000.0, now=0.0)
    gathering.invite(table, [BOB])
    table.invite_only, table.fill_ai, table.called = True, True, True
    back = Table.from_data(json.loads(json.dumps(table.to_data())), table.engine, 1)
    assert (back.starts_at, back.reserved, back.invite_only, back.fill_ai, back.called,
            back.reminders_done) == (10_000.0, [BOB], True, True, True, 0)
