"""Jazz invariants over seeded random matches, for every player count and option."""

from __future__ import annotations

import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from engine import cards
from engine.core import PASS, RulesError
from engine.jazz import CLUB_CARDS, SEVENS_DEAL, Jazz, JazzOptions, trick_deck
from tests.engine.playout import assert_restores_exactly, random_game

OPTION_SETS = [
    JazzOptions(),
    JazzOptions(play_out=True),
    JazzOptions(sevens_bonus=80),
    JazzOptions(norwegian=True),
    JazzOptions(norwegian=True, play_out=True, sevens_bonus=0),
]


def valid_cases():
    for players in range(3, 8):
        for options in OPTION_SETS:
            if options.norwegian and players > 5:
                continue
            yield players, options


def expected_deal_total(players: int, deal: int, passes: list[int], bonus: int) -> int:
    """What a deal's penalties must add up to, from the rules table alone."""
    deck = trick_deck(players)
    if deal == 0:
        return -len(deck) // players  # one point a trick
    if deal == 1:
        return -sum(1 for c in deck if c in CLUB_CARDS)
    if deal == 2:
        return -20
    if deal == 3:
        return -15
    if deal == 4:
        return -20
    return -sum(passes) + bonus


class ConservationCheck:
    """After every step: the deal's cards are conserved and every hand is disjoint."""

    def __init__(self) -> None:
        self.deal_started = -1

    def __call__(self, game: Jazz) -> None:
        view = game.public_view()
        deal = view["deal"]
        if game.needs_deal or game.is_over:
            return
        deck = cards.DECK if deal == SEVENS_DEAL else trick_deck(game.players)
        hands = [game.seat_view(s)["hand"] for s in range(game.players)]
        in_hands = [code for hand in hands for code in hand]
        assert len(in_hands) == len(set(in_hands))
        on_table = [x["card"] for x in view["trick"]]
        played = game.history[-1].actions
        played_cards = [cards.CODE[a] for _, a in played if a != PASS]
        assert sorted(in_hands + played_cards) == sorted(cards.CODE[c] for c in deck)
        assert set(on_table) <= set(played_cards)
        assert view["hand_sizes"] == [len(h) for h in hands]
        assert not set(in_hands) & set(played_cards)


@pytest.mark.parametrize(("players", "options"), list(valid_cases()))
def test_random_matches_keep_every_invariant(players, options):
    for seed in range(6):
        check = ConservationCheck()
        game = random_game(Jazz, players, options, seed=seed * 31 + players, check=check)
        assert game.is_over
        points = game.deal_points
        assert len(points) == 6  # a match always ends after six deals
        for deal, deal_points in enumerate(points):
            passes = game.public_view()["passes"] if deal == SEVENS_DEAL else []
            assert sum(deal_points) == expected_deal_total(
                players, deal, passes, options.sevens_bonus)
        assert game.totals == [sum(p[s] for p in points) for s in range(players)]
        best = max(game.totals)
        assert game.winners() == [s for s in range(players) if game.totals[s] == best]


@settings(max_examples=40, deadline=None)
@given(players=st.integers(3, 7), seed=st.integers(0, 2**32 - 1),
       steps=st.integers(0, 400), play_out=st.booleans())
def test_illegal_actions_change_nothing_and_restore_is_exact(players, seed, steps, play_out):
    """Play ``steps`` random actions, probing an illegal action before each; then save,
    restore and check both games continue identically."""
    rng = random.Random(seed)
    game = Jazz(players, JazzOptions(play_out=play_out), first_dealer=rng.randrange(players))
    for _ in range(steps):
        if game.is_over:
            break
        if game.needs_deal:
            game.start_deal(game.random_deal(rng))
            continue
        seat, legal = game.to_act, game.legal_actions()
        illegal = [a for a in [*range(52), PASS] if a not in legal]
        before = game.to_record()
        with pytest.raises(RulesError):
            game.apply(seat, rng.choice(illegal))
        with pytest.raises(RulesError):
            game.apply((seat + 1) % players, legal[0])
        assert game.to_record() == before
        game.apply(seat, rng.choice(legal))
    assert_restores_exactly(game, seed)


def test_a_copy_is_independent_and_keeps_no_history():
    game = Jazz(4)
    rng = random.Random(5)
    game.start_deal(game.random_deal(rng))
    copy = game.copy()
    assert copy.history is None
    before = game.public_view()
    while copy.to_act is not None:
        copy.apply(copy.to_act, rng.choice(copy.legal_actions()))
    assert game.public_view() == before
    assert copy.public_view()["hand_sizes"] != before["hand_sizes"]


def test_public_view_never_shows_a_card_in_any_hand():
    for seed in range(20):
        def check(game: Jazz) -> None:
            public = str(game.public_view())
            for seat in range(game.players):
                for code in game.seat_view(seat)["hand"]:
                    assert f"'{code}'" not in public
        random_game(Jazz, 3 + seed % 5, None, seed, check=check)
