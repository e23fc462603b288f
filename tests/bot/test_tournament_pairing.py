"""Who meets whom in a tournament: table sizes, Swiss tables, knockout brackets.

Properties over random cases: every player seated once a round, table sizes legal, no
repeated meeting where a partition without one exists (checked against every partition),
byes to the top seeds of a knockout."""

from __future__ import annotations

import itertools
import random
from collections import Counter
from collections.abc import Iterator

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from bot.table import tournament_pairing as pairing
from bot.table.tournament_pairing import Pair, PairingError

# ------------------------------------------------------------------ table sizes


@pytest.mark.parametrize(("n", "low", "high", "preferred", "equal", "sizes", "byes"), [
    (9, 3, 7, 3, False, [3, 3, 3], 0),  # the example
    (9, 3, 7, 3, True, [3, 3, 3], 0),
    (10, 3, 7, 3, False, [4, 3, 3], 0),
    (10, 3, 7, 3, True, [5, 5], 0),  # duplicate: all alike, nobody left out
    (11, 3, 7, 4, True, [5, 5], 1),  # 11 is prime: the fewest byes (1), at tables of 5
    (7, 2, 2, 2, False, [2, 2, 2], 1),  # two-player games: one bye when odd
    (8, 2, 2, 2, True, [2, 2, 2, 2], 0),
    (3, 3, 7, 5, False, [3], 0),
    (14, 3, 7, 7, False, [7, 7], 0),
])
def test_table_sizes(n, low, high, preferred, equal, sizes, byes):
    assert pairing.table_sizes(n, low, high, preferred, equal) == (sizes, byes)


def test_too_few_players_for_a_table():
    with pytest.raises(PairingError):
        pairing.table_sizes(2, 3, 7, 3)


@settings(max_examples=300, deadline=None)
@given(n=st.integers(2, 60), low=st.integers(2, 4), span=st.integers(0, 4),
       preferred=st.integers(2, 8), equal=st.booleans())
def test_sizes_are_legal_and_seat_everyone_they_can(n, low, span, preferred, equal):
    high = low + span
    if n < low:
        return
    sizes, byes = pairing.table_sizes(n, low, high, preferred, equal)
    assert sum(sizes) + byes == n and sizes
    assert all(low <= s <= high for s in sizes)
    assert max(sizes) - min(sizes) <= (0 if equal else 1)
    if not equal:
        assert byes < low  # a bye only when the rest cannot be split
    else:  # no equal size seats more players
        assert byes == min(n % s if n >= s else n for s in range(low, high + 1))


# ------------------------------------------------------------------ Swiss


def partitions(players: list[int], sizes: list[int]) -> Iterator[list[list[int]]]:
    """Every way to seat ``players`` at tables of ``sizes`` (a multiset), once each."""
    if not players:
        yield []
        return
    anchor, rest = players[0], players[1:]
    for size in set(sizes):
        left = list(sizes)
        left.remove(size)
        for others in itertools.combinations(rest, size - 1):
            remaining = [p for p in rest if p not in others]
            for more in partitions(remaining, left):
                yield [[anchor, *others], *more]


def random_meetings(players: list[int], rng: random.Random, rounds: int,
                    size: int) -> Counter[Pair]:
    met: Counter[Pair] = Counter()
    for _ in range(rounds):
        order = list(players)
        rng.shuffle(order)
        for i in range(0, len(order) - size + 1, size):
            for a, b in itertools.combinations(order[i:i + size], 2):
                met[frozenset((a, b))] += 1
    return met


@settings(max_examples=150, deadline=None)
@given(n=st.integers(2, 10), size=st.integers(2, 4), rounds=st.integers(0, 4),
       seed=st.integers(0, 10_000))
def test_swiss_seats_everyone_once_and_repeats_only_what_it_must(n, size, rounds, seed):
    if n < size:
        return
    rng = random.Random(seed)
    players = list(range(100, 100 + n))
    sizes, byes = pairing.table_sizes(n, size, size + 1 if size > 2 else 2, size)
    seated = players[:n - byes]
    met = random_meetings(players, rng, rounds, size)
    tables = pairing.swiss_tables(seated, sizes, met)
    assert sorted(p for t in tables for p in t) == sorted(seated)  # each once
    assert sorted(len(t) for t in tables) == sorted(sizes)
    fewest = min(pairing.repeats(p, met) for p in partitions(seated, sizes))
    assert pairing.repeats(tables, met) == fewest


def test_swiss_follows_the_standings_when_nothing_repeats():
    order = list(range(1, 10))
    assert pairing.swiss_tables(order, [3, 3, 3], Counter()) == [[1, 2, 3], [4, 5, 6],
                                                                 [7, 8, 9]]


def test_swiss_moves_the_fewest_down_to_avoid_a_repeat():
    met: Counter[Pair] = Counter({frozenset((1, 2)): 1})
    # 1 and 2 met: 1 plays 3 and 2 plays 4, not 1-2 again.
    assert pairing.swiss_tables([1, 2, 3, 4], [2, 2], met) == [[1, 3], [2, 4]]


def test_a_large_field_is_paired_within_the_budget():
    order = list(range(64))
    met = random_meetings(order, random.Random(5), 4, 2)
    tables = pairing.swiss_tables(order, [2] * 32, met, budget=5000)
    assert sorted(p for t in tables for p in t) == order


def test_first_round_spreads_the_seeds():
    assert pairing.first_round(list(range(1, 10)), [3, 3, 3]) == [[1, 4, 7], [2, 5, 8],
                                                                  [3, 6, 9]]
    assert pairing.first_round([1, 2, 3, 4], [2, 2]) == [[1, 3], [2, 4]]  # top v bottom half
    assert pairing.first_round(list(range(1, 8)), [4, 3]) == [[1, 3, 5, 7], [2, 4, 6]]


def test_byes_go_to_the_lowest_who_had_none():
    assert pairing.choose_byes([1, 2, 3, 4, 5], 1) == [5]
    assert pairing.choose_byes([1, 2, 3, 4, 5], 1, had_bye=[5]) == [4]
    assert pairing.choose_byes([1, 2, 3], 2, had_bye=[1, 2, 3]) == [3, 2]


# ------------------------------------------------------------------ knockout


def test_bracket_order():
    assert pairing.bracket_order(8) == [1, 8, 4, 5, 2, 7, 3, 6]
    assert pairing.bracket_order(2) == [1, 2]


@settings(max_examples=100, deadline=None)
@given(n=st.integers(2, 70))
def test_knockout_byes_go_to_the_top_seeds(n):
    seeded = [1000 + i for i in range(n)]  # best seed first
    slots = pairing.bracket(seeded)
    size = len(slots)
    assert size >= n and size & (size - 1) == 0 and size < 2 * n
    tables, byes = pairing.matches(slots)
    assert sorted(byes) == seeded[:size - n]  # the top seeds, one each
    played = [p for t in tables for p in t]
    assert sorted(played + byes) == seeded  # everyone once
    # Seed 1 and seed 2 are in different halves: they can only meet in the final.
    if n >= 2:
        half = size // 2
        assert (slots.index(seeded[0]) < half) != (slots.index(seeded[1]) < half)


def test_five_players_three_byes():
    slots = pairing.bracket([1, 2, 3, 4, 5])  # seeds 6-8 missing: byes for 1-3
    assert slots == [1, None, 4, 5, 2, None, 3, None]
    tables, byes = pairing.matches(slots)
    assert byes == [1, 2, 3] and tables == [[4, 5]]
