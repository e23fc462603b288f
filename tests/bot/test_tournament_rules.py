"""A tournament's course and scores, without Discord: rounds planned, results kept, the
duplicate matchpoints against a hand computation, byes, no-shows, a knockout's bracket."""

from __future__ import annotations

import random
from fractions import Fraction as F

import pytest

from bot.table import tournament_rounds as rounds
from bot.table.seats import Seat
from bot.table.tournament import KNOCKOUT, RUNNING, SWISS, Pairing, TableResult, Tournament
from bot.table.tournament_pairing import PairingError
from bot.table.tournament_scoring import (
    by_places,
    duplicate,
    knockout_after,
    round_scores,
    standings,
)
from bot.table.tournament_seat import absent, all_joined, seat_by_position


def swiss(n: int, *, duplicate: bool = False, low: int = 3, high: int = 7, seats: int = 3,
          rounds_: int = 3) -> Tournament:
    t = Tournament("t1", 1, 2, "jazz", organiser=9, created_at=0.0, format=SWISS,
                   duplicate=duplicate, seats=seats, rounds=rounds_, low=low, high=high,
                   grace=600, round_time=3600)
    rounds.begin(t, [(100 + i, f"p{i}") for i in range(n)], {})
    return t


def ids(count: int) -> list[str]:
    return [f"{i:08x}" for i in range(count)]


def ranking(points: list[int]) -> list[int]:
    return [sum(1 for other in points if other > mine) for mine in points]


def result(points: list[int], absent_: list[int] | None = None) -> TableResult:
    return TableResult(points, ranking(points), absent_ or [])


# ------------------------------------------------------------------ scores


def test_places_score_each_opponent_beaten():
    r = result([-10, -30, -10, -50])  # places 0, 2, 0, 3
    assert [by_places(r, k) for k in range(4)] == [F(5, 6), F(1, 3), F(5, 6), F(0)]
    assert sum(by_places(r, k) for k in range(4)) == 2  # n/2: the average is a half


def test_a_no_show_scores_nothing_and_the_ai_result_stands():
    r = result([-10, -30, -20], absent_=[0])  # position 0 was an AI, and won
    assert by_places(r, 0) == 0
    assert by_places(r, 2) == F(1, 2)  # beat position 1, lost to the AI
    assert by_places(TableResult([0, 0], [0, 0], played=False), 0) == 0


def test_duplicate_matchpoints_by_hand():
    # Three tables of three held the same cards, position by position.
    tables = [Pairing(1, [1, 2, 3], "a", result=result([-12, -40, -30])),
              Pairing(2, [4, 5, 6], "b", result=result([-20, -40, -22])),
              Pairing(3, [7, 8, 9], "c", result=result([-12, -35, -45], absent_=[1]))]
    # Position 0: -12, -20, -12. Player 1 ties 7, beats 4: (½ + 1) / 2.
    assert duplicate(tables, tables[0], 0) == F(3, 4)
    assert duplicate(tables, tables[1], 0) == F(0)
    assert duplicate(tables, tables[2], 0) == F(3, 4)
    # Position 1: -40, -40, -35 (an AI's, at table 3: it counts for the others).
    assert duplicate(tables, tables[0], 1) == F(1, 4)
    assert duplicate(tables, tables[1], 1) == F(1, 4)
    assert duplicate(tables, tables[2], 1) == 0  # the no-show scores nothing
    # Position 2: -30, -22, -45.
    assert [duplicate(tables, t, 2) for t in tables] == [F(1, 2), F(1), F(0)]


def test_duplicate_with_one_table_played_scores_by_places():
    tables = [Pairing(1, [1, 2, 3], "a", result=result([-5, -10, -1])),
              Pairing(2, [4, 5, 6], "b", result=TableResult([0] * 3, [0] * 3, [0, 1, 2],
                                                           played=False))]
    assert duplicate(tables, tables[0], 2) == 1
    assert duplicate(tables, tables[1], 0) == 0


def test_standings_total_the_rounds_and_a_bye_is_half():
    t = swiss(4, low=3, high=3, seats=3, rounds_=2)
    rnd = rounds.plan_round(t, 0.0, 1, ids(2))
    (only,) = rnd.tables
    assert len(rnd.byes) == 1 and len(only.players) == 3
    rounds.record(t, only.table_id, result([-1, -2, -3]))
    scores = round_scores(t, rnd)
    assert scores[rnd.byes[0]] == F(1, 2)
    assert sorted(scores.values()) == [0, F(1, 2), F(1, 2), 1]
    table = standings(t)
    assert [row.place for row in table] == [1, 2, 3, 4]
    assert table[0].score == 1 and table[0].firsts == 1


# ------------------------------------------------------------------ a Swiss tournament


def play_round(t: Tournament, rng: random.Random, seed: int) -> None:
    rnd = rounds.plan_round(t, 0.0, seed, ids(len(t.entrants)))
    for p in rnd.tables:
        assert rounds.record(t, p.table_id, result([-rng.randrange(60) for _ in p.players]))
        assert not rounds.record(t, p.table_id, result([0] * len(p.players)))  # once


@pytest.mark.parametrize("dup", [False, True])
def test_nine_players_three_rounds_meet_nobody_twice(dup):
    t = swiss(9, duplicate=dup)
    rng = random.Random(4)
    for number in range(1, 4):
        assert not rounds.is_over(t)
        play_round(t, rng, number)
        rnd = t.played[-1]
        seated = [u for p in rnd.tables for u in p.players]
        assert sorted(seated) == [100 + i for i in range(9)] and not rnd.byes
        assert [len(p.players) for p in rnd.tables] == [3, 3, 3]
    assert rounds.is_over(t)
    assert max(t.met().values()) == 1  # 3 rounds of 3 × 3: nobody met twice
    table = standings(t)
    assert sum(row.score for row in table) == F(9 * 3, 2)  # every table's average is ½
    assert [row.place for row in table] == list(range(1, 10))
    assert table == sorted(table, key=lambda r: (-r.score, -r.firsts, r.entrant.seed))


def test_duplicate_rounds_have_tables_of_one_size_and_byes():
    t = swiss(11, duplicate=True, seats=4)
    rnd = rounds.plan_round(t, 0.0, 7, ids(5))
    assert {len(p.players) for p in rnd.tables} == {5} and len(rnd.byes) == 1
    assert {t.table_seed(rnd, p) for p in rnd.tables} == {7}  # the same deals
    plain = swiss(11, seats=4)
    rnd = rounds.plan_round(plain, 0.0, 7, ids(5))
    assert len({plain.table_seed(rnd, p) for p in rnd.tables}) == len(rnd.tables)


def test_withdrawn_players_are_not_paired_again():
    t = swiss(6, low=3, high=3)
    play_round(t, random.Random(1), 1)
    assert rounds.withdraw(t, 100) and not rounds.withdraw(t, 100)
    rnd = rounds.plan_round(t, 0.0, 2, ids(3))
    assert 100 not in [u for p in rnd.tables for u in p.players] + rnd.byes
    assert len(standings(t)) == 6  # their round stands


def test_too_few_players():
    t = Tournament("t", 1, 2, "jazz", 9, 0.0, low=3, high=7)
    with pytest.raises(PairingError):
        rounds.begin(t, [(1, "a"), (2, "b")], {})


def test_seeds_by_rating_then_sign_up():
    t = Tournament("t", 1, 2, "jacko", 9, 0.0, format=KNOCKOUT)
    rounds.begin(t, [(1, "a"), (2, "b"), (3, "c"), (4, "d")], {3: 30.0, 2: 10.0})
    assert t.status == RUNNING
    assert [(e.user_id, e.seed) for e in t.entrants] == [(3, 1), (2, 2), (1, 3), (4, 4)]


# ------------------------------------------------------------------ a knockout


def test_knockout_with_a_bye_and_a_no_show():
    t = Tournament("k", 1, 2, "jacko", 9, 0.0, format=KNOCKOUT, grace=60, round_time=0)
    rounds.begin(t, [(1, "a"), (2, "b"), (3, "c")], {1: 3.0, 2: 2.0, 3: 1.0})
    assert t.total_rounds() == 2
    first = rounds.plan_round(t, 0.0, 1, ids(2))
    assert first.byes == [1] and [p.players for p in first.tables] == [[2, 3]]
    assert first.end_by is None and first.start_by == 60
    # 2 did not show: the AI in their seat won, yet 3 goes through (a walkover).
    rounds.record(t, first.tables[0].table_id, TableResult([121, 40], [0, 1], absent=[0]))
    assert knockout_after(t, first) == [1, 3] and not rounds.is_over(t)
    final = rounds.plan_round(t, 100.0, 2, ["ff"])
    assert [p.players for p in final.tables] == [[1, 3]] and not final.byes
    rounds.record(t, "ff", result([50, 121]))
    assert rounds.is_over(t)
    assert [(row.entrant.user_id, row.out_in) for row in standings(t)] == [
        (3, None), (1, 2), (2, 1)]


def test_a_knockout_player_who_withdrew_gives_a_walkover():
    t = Tournament("k", 1, 2, "jacko", 9, 0.0, format=KNOCKOUT)
    rounds.begin(t, [(1, "a"), (2, "b"), (3, "c"), (4, "d")], {})
    first = rounds.plan_round(t, 0.0, 1, ids(2))
    assert [p.players for p in first.tables] == [[1, 4], [2, 3]]
    rounds.record(t, first.tables[0].table_id, result([10, 5]))
    rounds.record(t, first.tables[1].table_id, result([10, 5]))
    assert rounds.withdraw(t, 2)
    final = rounds.plan_round(t, 0.0, 2, ids(1))
    assert final.tables == [] and final.byes == [1] and final.over
    assert rounds.is_over(t) and [r.entrant.user_id for r in standings(t)][:2] == [1, 2]
    assert standings(t)[1].out_in == 2


def test_knockout_ties_and_empty_tables_go_to_the_better_seed():
    t = Tournament("k", 1, 2, "jacko", 9, 0.0, format=KNOCKOUT)
    rounds.begin(t, [(1, "a"), (2, "b")], {})
    rnd = rounds.plan_round(t, 0.0, 1, ids(1))
    rounds.record(t, rnd.tables[0].table_id, TableResult([0, 0], [0, 0], [0, 1],
                                                         played=False))
    assert knockout_after(t, rnd) == [1]


# ------------------------------------------------------------------ timing and data


def test_next_due():
    t = Tournament("t", 1, 2, "jazz", 9, 0.0, starts_at=500.0, low=3, high=7,
                   round_time=3600)
    assert rounds.next_due(t, 0.0) == 500.0
    assert rounds.signup_open(t, 499.0) and not rounds.signup_open(t, 500.0)
    rounds.begin(t, [(i, str(i)) for i in range(3)], {})
    rnd = rounds.plan_round(t, 1000.0, 1, ids(1))
    assert (rnd.start_by, rnd.end_by) == (1600.0, 5200.0)
    assert rounds.next_due(t, 1000.0) == 1600.0
    assert rounds.next_due(t, 1601.0) == 5200.0
    rounds.record(t, rnd.tables[0].table_id, result([1, 2, 3]))
    assert rounds.next_due(t, 1601.0) is None


def test_plain_data_round_trip():
    t = swiss(9, duplicate=True)
    play_round(t, random.Random(2), 1)
    rounds.plan_round(t, 5.0, 2, ids(3))
    rounds.withdraw(t, 101)
    back = Tournament.from_data(t.to_data(), version=4)
    assert back.version == 4 and back.to_data() == t.to_data()
    assert standings(back)[0].score == standings(t)[0].score


# ------------------------------------------------------------------ seats by position


class Seats:
    def __init__(self, order: list[int], seated: list[int]):
        self.tournament_order = order
        self.seats = [Seat(u, f"u{u}") for u in seated]

    def seat_of(self, user_id: int) -> int | None:
        return next((i for i, s in enumerate(self.seats) if s.user_id == user_id), None)


def test_seats_by_position_with_ai_for_the_absent():
    table = Seats([5, 6, 7, 8], seated=[7, 5])  # joined in another order; 6 and 8 missing
    assert not all_joined(table) and absent(table) == [1, 3]
    assert seat_by_position(table) == [1, 3]
    assert [s.user_id for s in table.seats][::2] == [5, 7]
    assert all(s.is_ai and s.user_id < 0 for s in table.seats[1::2])
    assert len({s.user_id for s in table.seats}) == 4
    full = Seats([1, 2], seated=[2, 1])
    assert all_joined(full) and seat_by_position(full) == []
    assert [s.user_id for s in full.seats] == [1, 2]
