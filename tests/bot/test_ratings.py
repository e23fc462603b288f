"""bot.storage.ratings: openskill's Plackett-Luce behind a small pure interface."""

from __future__ import annotations

import math

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from openskill.models import PlackettLuce

from bot.storage.ratings import Rating, default_rating, dense_places, ordinal, rate

NEW = default_rating()


def test_default_rating_is_openskills_prior() -> None:
    prior = PlackettLuce().rating()
    assert (NEW.mu, NEW.sigma) == (prior.mu, prior.sigma)
    assert NEW.ordinal == pytest.approx(0.0)  # mu 25 - 3 × 25/3: newcomers start at 0


def test_ordinal_is_mu_minus_three_sigma() -> None:
    assert ordinal(30.0, 2.0) == pytest.approx(24.0)
    assert Rating(10.0, 4.0).ordinal == pytest.approx(-2.0)


def test_two_player_result_matches_openskill_called_directly() -> None:
    model = PlackettLuce()
    winner, loser = Rating(28.0, 5.0), Rating(24.5, 7.25)
    expected = model.rate([[model.rating(28.0, 5.0)], [model.rating(24.5, 7.25)]], ranks=[1, 0])
    got = rate([winner, loser], [1, 0])
    for mine, theirs in zip(got, expected, strict=True):
        assert mine.mu == pytest.approx(theirs[0].mu, abs=1e-12)
        assert mine.sigma == pytest.approx(theirs[0].sigma, abs=1e-12)


def test_winner_rises_loser_falls_and_both_get_surer() -> None:
    winner, loser = rate([NEW, NEW], [0, 1])
    assert winner.mu > NEW.mu > loser.mu
    assert winner.sigma < NEW.sigma and loser.sigma < NEW.sigma
    assert winner.ordinal > loser.ordinal


def test_tie_moves_less_than_a_win() -> None:
    strong, weak = Rating(32.0, 4.0), Rating(22.0, 6.0)
    tie = rate([strong, weak], [0, 0])
    weak_wins = rate([strong, weak], [1, 0])
    # The weaker player gains on a tie with a stronger one, but less than by beating them.
    assert weak.mu < tie[1].mu < weak_wins[1].mu
    assert weak_wins[0].mu < tie[0].mu < strong.mu
    # Between equals, a tie changes nobody's estimate.
    even = rate([NEW, NEW], [0, 0])
    assert even[0].mu == pytest.approx(NEW.mu) and even[1].mu == pytest.approx(NEW.mu)


def test_an_upset_moves_more_than_the_expected_result() -> None:
    strong, weak = Rating(32.0, 4.0), Rating(22.0, 4.0)
    upset = rate([strong, weak], [1, 0])
    expected = rate([strong, weak], [0, 1])
    assert upset[1].mu - weak.mu > expected[0].mu - strong.mu > 0


def test_symmetric_inputs_give_symmetric_outputs() -> None:
    winner, loser = rate([NEW, NEW], [0, 1])
    assert winner.mu - NEW.mu == pytest.approx(NEW.mu - loser.mu)
    assert winner.sigma == pytest.approx(loser.sigma)
    a, b, c = rate([NEW, NEW, NEW], [1, 0, 1])
    assert a == c and b.mu > a.mu


def test_multiplayer_means_follow_the_places() -> None:
    after = rate([NEW] * 5, [3, 0, 4, 1, 2])
    by_place = [after[seat].mu for seat in (1, 3, 4, 0, 2)]
    assert by_place == sorted(by_place, reverse=True)
    assert len(set(by_place)) == 5


def test_gaps_in_places_do_not_matter() -> None:
    before = [Rating(25, 8), Rating(30, 3), Rating(20, 5), Rating(27, 6)]
    assert rate(before, [0, 3, 3, 5]) == rate(before, [0, 1, 1, 2])


def test_dense_places_keep_order_and_ties() -> None:
    assert dense_places([4, 0, 4, 9, 2]) == [2, 0, 2, 3, 1]
    assert dense_places([0, 0]) == [0, 0]


ratings_st = st.builds(Rating, st.floats(0, 50), st.floats(0.5, 10))


@settings(max_examples=60, deadline=None)
@given(st.lists(st.tuples(ratings_st, st.integers(0, 4)), min_size=2, max_size=6), st.randoms())
def test_seat_order_does_not_matter(seats: list[tuple[Rating, int]], rnd) -> None:
    """Permuting the seats permutes the results: nobody is favoured by where they sit."""
    order = list(range(len(seats)))
    rnd.shuffle(order)
    straight = rate([r for r, _ in seats], [p for _, p in seats])
    shuffled = rate([seats[i][0] for i in order], [seats[i][1] for i in order])
    for position, seat in enumerate(order):
        assert math.isclose(shuffled[position].mu, straight[seat].mu, abs_tol=1e-9)
        assert math.isclose(shuffled[position].sigma, straight[seat].sigma, abs_tol=1e-9)


@pytest.mark.parametrize(("before", "places"), [
    ([NEW, NEW], [0]),
    ([NEW], [0]),
    ([NEW, NEW], [0, -1]),
    ([NEW, NEW], [0, True]),
    ([NEW, NEW], [0, 1.0]),
    ([NEW, Rating(25, 0)], [0, 1]),
])
def test_bad_input_is_refused(before: list[Rating], places: list) -> None:
    with pytest.raises(ValueError):
        rate(before, places)
