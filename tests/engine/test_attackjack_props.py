"""AttackJack: properties over seeded random games, every player count and every option."""

from __future__ import annotations

import itertools
import json
import random
from collections import Counter
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from engine import cards
from engine.attackjack import FULL_DECK, AttackJack, AttackJackOptions, hand_value
from engine.core import Game, action_code
from engine.records import replay
from tests.engine.playout import assert_restores_exactly, random_game

PLAYERS = range(AttackJack.MIN_PLAYERS, AttackJack.MAX_PLAYERS + 1)
OPTION_SETS = [
    AttackJackOptions(blind=blind, stake=stake, choice=choice)
    for blind, stake, choice in itertools.product((False, True), (0, 7), (False, True))
]
CONFIGS = [(n, opts) for n in PLAYERS for opts in OPTION_SETS]
SEEDS = range(3)


def _ids(config: tuple[int, AttackJackOptions]) -> str:
    n, o = config
    return f"{n}p-blind{int(o.blind)}-stake{o.stake}-choice{int(o.choice)}"


def card_codes(view: Any) -> Counter[str]:
    """Every string in a view that is a card code, counted."""
    found: Counter[str] = Counter()
    if isinstance(view, dict):
        for value in view.values():
            found += card_codes(value)
    elif isinstance(view, list):
        for value in view:
            found += card_codes(value)
    elif isinstance(view, str) and view in cards.CODE:
        found[view] += 1
    return found


def hidden_from_the_table(game: AttackJack) -> Counter[int]:
    """The cards nobody at the table has seen face up: the deck under the open card and,
    until the showdown, the blind (second dealt) card of each hand (from the record)."""
    hidden = Counter(game.stock_left()[1:])
    if game.options.blind and not game.is_over:
        hidden.update(cards.parse_card(hand[1]) for hand in game.to_record()["deals"][0]["hands"])
    return hidden


class Checker:
    """The ``check`` callback of ``random_game``: invariants after every step."""

    def __init__(self) -> None:
        self.steps = 0

    def __call__(self, game: Game) -> None:
        assert isinstance(game, AttackJack)
        self.steps += 1
        # One turn per seat plus the deal: anything more means a step that does not end.
        assert self.steps <= game.players + 1
        self.cards_conserved(game)
        self.views_hide_what_is_hidden(game)
        self.seat_views(game)

    @staticmethod
    def cards_conserved(game: AttackJack) -> None:
        hands = [game.hand(s) for s in range(game.players)]
        assert all(2 <= len(h) <= 3 for h in hands)
        assert Counter(c for h in hands for c in h) + Counter(game.stock_left()) == Counter(
            FULL_DECK)

    @staticmethod
    def views_hide_what_is_hidden(game: AttackJack) -> None:
        view = game.public_view()
        assert json.loads(json.dumps(view)) == view
        visible = Counter(FULL_DECK)
        visible.subtract(hidden_from_the_table(game))
        shown = card_codes(view)
        for code, count in shown.items():
            assert count <= visible[cards.parse_card(code)], f"{code} leaked"
        if game.is_over:  # everything is turned up at the showdown
            for s, seat in enumerate(view["seats"]):
                assert Counter(seat["cards"]) == Counter(cards.codes(game.hand(s)))
                assert seat["hidden"] == 0

    @staticmethod
    def seat_views(game: AttackJack) -> None:
        for s in range(game.players):
            view = game.seat_view(s)
            assert view["hand"] == cards.codes(cards.sorted_hand(game.hand(s)))
            if s == game.to_act:
                assert view["legal"] == [action_code(a) for a in game.legal_actions()]
            else:
                assert view["legal"] == []
            other = (s + 1) % game.players
            if game.options.blind and not game.is_over:
                # My blind card is mine: it is in my view but not as one of the table's cards.
                assert view["face_down"] == cards.code(game.hand(s)[1])
                assert view["seats"][s]["hidden"] == 1
                assert view["seats"][other]["hidden"] == 1


def check_result(game: AttackJack) -> None:
    """The end of a game: every seat had its turn, the showdown and the bank are right."""
    n, stake = game.players, game.options.stake
    view = game.public_view()
    ins = []
    for s in range(n):
        hand, status = game.hand(s), game.status(s)
        value = hand_value(hand)
        assert status != "waiting"
        assert (status == "out") == (value > 21)
        assert len(hand) == (3 if status in ("took", "out") else 2)
        if status == "kept":
            assert value == 21
        if status == "stood":
            assert game.options.choice and value < 21
        if status == "took" and not game.options.choice:
            assert hand_value(hand[:2]) < 21
        if status != "out":
            ins.append(s)
    winners = game.winners()
    assert set(winners) <= set(ins) and (winners == []) == (ins == [])
    bombs = [s for s in ins if cards.JOKER in game.hand(s)]
    if bombs:
        assert winners == bombs
    elif ins:
        assert {hand_value(game.hand(s)) for s in winners} == {
            max(hand_value(game.hand(s)) for s in ins)}
    assert [s for s in range(n) if game.ranking()[s] == 0] == (winners or list(range(n)))
    points = game.deal_points[0]
    assert sum(view["payout"]) == stake * n  # the bank is paid out in full
    if stake:
        assert sum(points) == 0  # chips are never created or lost
        for s in range(n):
            assert points[s] == view["payout"][s] - stake
        if winners:
            shares = [view["payout"][s] for s in winners]
            assert max(shares) - min(shares) < len(winners)
    else:
        assert points == [1 if s in winners else 0 for s in range(n)]


@pytest.mark.parametrize("config", CONFIGS, ids=[_ids(c) for c in CONFIGS])
def test_random_games_keep_every_invariant(config: tuple[int, AttackJackOptions]) -> None:
    players, options = config
    for seed in SEEDS:
        checker = Checker()
        game = random_game(AttackJack, players, options, seed, check=checker)
        assert isinstance(game, AttackJack) and game.is_over
        check_result(game)
        # Every recorded action was legal where it was taken: the replay re-checks each one.
        result = replay(game.to_record(), summary=True)
        assert result["totals"] == game.totals and result["winners"] == game.winners()


@pytest.mark.parametrize("config", CONFIGS[::3], ids=[_ids(c) for c in CONFIGS[::3]])
def test_save_restore_continues_identically(config: tuple[int, AttackJackOptions]) -> None:
    players, options = config
    for seed in SEEDS:
        rng = random.Random(seed)
        game = AttackJack(players, options, first_dealer=rng.randrange(players))
        game.start_deal(game.random_deal(rng))
        for _ in range(rng.randrange(players + 1)):  # stop somewhere in the round
            if game.has_auto_step:
                game.auto_step()
            elif game.to_act is not None:
                game.apply(game.to_act, rng.choice(game.legal_actions()))
        assert_restores_exactly(game, seed)


@pytest.mark.parametrize("players", [2, 5, 17])
def test_copies_continue_like_the_original(players: int) -> None:
    options = AttackJackOptions(blind=True, stake=3, choice=True)
    for seed in range(10):
        rng = random.Random(seed)
        game = AttackJack(players, options)
        game.start_deal(game.random_deal(rng))
        twins: list[tuple[AttackJack, int]] = []  # a copy and the actions taken before it
        while not game.is_over:
            twins.append((game.copy(), len(game.history[0].actions)))
            if game.has_auto_step:
                game.auto_step()
            else:
                game.apply(game.to_act, rng.choice(game.legal_actions()))
        for twin, taken in twins:
            assert twin.history is None
            rest = iter(game.history[0].actions[taken:])
            while not twin.is_over:  # the same choices from there give the same game
                if twin.has_auto_step:
                    twin.auto_step()
                else:
                    twin.apply(*next(rest))
            assert next(rest, None) is None
            assert twin.public_view() == game.public_view()


# ---------------------------------------------------------------- hand value properties

any_card = st.sampled_from(FULL_DECK)
plain_card = st.integers(min_value=0, max_value=51)


@settings(max_examples=300, deadline=None)
@given(st.lists(any_card, min_size=1, max_size=3), st.randoms(use_true_random=False))
def test_value_ignores_order(hand: list[int], rnd: random.Random) -> None:
    shuffled = list(hand)
    rnd.shuffle(shuffled)
    assert hand_value(shuffled) == hand_value(hand)


@settings(max_examples=300, deadline=None)
@given(st.lists(plain_card, min_size=1, max_size=2), st.data())
def test_a_second_card_of_a_rank_adds_nothing(hand: list[int], data: st.DataObject) -> None:
    again = data.draw(st.sampled_from(hand))
    suit = data.draw(st.integers(min_value=0, max_value=3))
    twin = cards.card(cards.RANK[again], suit)
    assert hand_value([*hand, twin]) == hand_value(hand)


@settings(max_examples=300, deadline=None)
@given(st.lists(any_card, min_size=0, max_size=2))
def test_a_joker_always_makes_21(hand: list[int]) -> None:
    assert hand_value([*hand, cards.JOKER]) == 21


@settings(max_examples=300, deadline=None)
@given(st.lists(plain_card, min_size=1, max_size=3, unique=True))
def test_ace_counts_eleven_only_when_that_stays_within_21(hand: list[int]) -> None:
    ranks = {cards.RANK[c] for c in hand}
    others = sum(min(r, 10) for r in ranks if r != cards.ACE)
    if cards.ACE in ranks:
        assert hand_value(hand) in (others + 11, others + 1)
        assert (hand_value(hand) == others + 11) == (others + 11 <= 21)
    else:
        assert hand_value(hand) == others
