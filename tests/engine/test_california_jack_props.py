"""California Jack over random seeded games, for every option: what must always hold."""

from __future__ import annotations

import itertools
import random
from typing import Any

import pytest

from engine.california_jack import CaliforniaJack, CaliforniaJackOptions
from engine.cards import CODE, DECK, parse_card
from engine.core import Game
from engine.records import restore
from tests.engine.playout import assert_restores_exactly, random_game

OPTION_SETS = [
    CaliforniaJackOptions(target=target, scoring=scoring, follow_or_trump=follow_or_trump)
    for target, scoring, follow_or_trump in itertools.product(
        (1, 10, 21), ("standard", "simple"), (False, True))
]
SEEDS = range(4)
MAX_DEALS = 60  # a target of 21 needs about 12 deals; 60 is far beyond any real game


def card_strings(view: Any) -> set[str]:
    """Every string anywhere in a view that is a card code."""
    found: set[str] = set()
    stack = [view]
    while stack:
        item = stack.pop()
        if isinstance(item, dict):
            stack.extend(item.values())
        elif isinstance(item, list):
            stack.extend(item)
        elif isinstance(item, str) and item in CODE:
            found.add(item)
    return found


def check_follow_suit(view: dict[str, Any], follow_or_trump: bool) -> None:
    """Legal = the whole hand, unless the seat follows and holds the suit led."""
    hand, legal = view["hand"], view["legal"]
    assert legal and set(legal) <= set(hand)
    led = view["trick"][0]["card"][1] if view["trick"] else None
    if led is None or all(c[1] != led for c in hand):
        assert sorted(legal) == sorted(hand)
        return
    allowed = {led, view["trump"]} if follow_or_trump else {led}
    assert sorted(legal) == sorted(c for c in hand if c[1] in allowed)


class DealChecker:
    """The ``check`` callback of ``random_game``: asserts after every step."""

    def __init__(self) -> None:
        self.deals = 0
        self.draws = [0, 0]
        self.tricks = 0
        self.top: str | None = None  # the stock's top card before the trick being played

    def __call__(self, game: Game) -> None:
        assert isinstance(game, CaliforniaJack)
        view = game.public_view()
        if len(game.deal_points) > self.deals:  # a deal has just started
            self.deals += 1
            assert self.deals <= MAX_DEALS, "the game does not end"
            self.draws, self.tricks, self.top = [0, 0], 0, view["stock_top"]
            assert view["trump"] == view["stock_top"][1]
            assert view["to_act"] == 1 - view["dealer"]
        self.check_cards(game, view)
        if view["tricks_played"] > self.tricks:
            self.check_trick(view)
        if not view["in_deal"]:
            self.check_deal_end(game, view)

    def check_cards(self, game: CaliforniaJack, view: dict[str, Any]) -> None:
        """52 cards conserved; hidden cards never public; every hand visible to its seat."""
        history = game.history[-1]
        played = [action for _, action in history.actions]
        hands = [[parse_card(c) for c in game.seat_view(seat)["hand"]] for seat in (0, 1)]
        size = view["stock_size"]
        stock = history.deal.stock[len(history.deal.stock) - size:]
        assert sorted(hands[0] + hands[1] + stock + played) == list(DECK)
        assert view["hand_sizes"] == [len(h) for h in hands]
        assert view["stock_top"] == (CODE[stock[0]] if stock else None)
        dealt = set(history.deal.hands[0] + history.deal.hands[1])
        hidden = {CODE[c] for h in hands for c in h if c in dealt}
        assert not hidden & card_strings(view)
        for seat in (0, 1):
            own = game.seat_view(seat)
            assert set(own["known"][seat]) <= set(own["hand"])
            if game.to_act != seat:
                assert own["legal"] == []
            else:
                check_follow_suit(own, game.options.follow_or_trump)


    def check_trick(self, view: dict[str, Any]) -> None:
        """A trick just ended: its winner drew the card that was on top, the loser the next."""
        self.tricks += 1
        assert view["tricks_played"] == self.tricks <= 26
        assert sum(view["tricks_won"]) == self.tricks
        winner = view["last_trick"]["winner"]
        if self.tricks <= 20:
            assert [d["seat"] for d in view["draws"]] == [winner, 1 - winner]
            assert view["draws"][0]["card"] == self.top
            for draw in view["draws"]:
                self.draws[draw["seat"]] += 1
            assert view["hand_sizes"] == [6, 6]
        else:
            assert view["draws"] == [] and view["stock_size"] == 0
        self.top = view["stock_top"]

    def check_deal_end(self, game: CaliforniaJack, view: dict[str, Any]) -> None:
        result = view["last_result"]
        assert self.tricks == 26 and self.draws == [20, 20]
        assert sum(result["tricks"]) == 26 and sum(result["trick_points"]) == 80
        points = game.deal_points[-1]
        assert result["points"] == points and points[0] >= 0 and points[1] >= 0
        assert sum(points) == (3 if result["game"] is None else 4)
        counts = result["tricks"] if game.options.scoring == "simple" else result["trick_points"]
        if counts[0] != counts[1]:
            assert result["game"] == (0 if counts[0] > counts[1] else 1)
        assert game.totals == [sum(p[s] for p in game.deal_points) for s in (0, 1)]


def check_the_end(game: CaliforniaJack) -> None:
    totals, target = game.totals, game.options.target
    assert game.is_over and not game.needs_deal and game.to_act is None
    assert max(totals) >= target and totals[0] != totals[1]
    assert game.winners() == [totals.index(max(totals))]
    assert game.ranking() == ([0, 1] if game.winners() == [0] else [1, 0])
    # Before the last deal the game was not over: nobody had reached the target, or a tie.
    before = [t - p for t, p in zip(totals, game.deal_points[-1], strict=True)]
    assert max(before) < target or before[0] == before[1]


@pytest.mark.slow
@pytest.mark.parametrize("options", OPTION_SETS, ids=repr)
def test_random_games_keep_every_rule(options: CaliforniaJackOptions) -> None:
    for seed in SEEDS:
        checker = DealChecker()
        game = random_game(CaliforniaJack, 2, options, seed, checker)  # checker caps the deals
        assert isinstance(game, CaliforniaJack)
        check_the_end(game)
        assert checker.deals == len(game.deal_points)


def test_example_8_every_deal_adds_up() -> None:
    """26 tricks, 20 draws each, 80 trick points, 4 game points (3 when Game is tied)."""
    seen_ties = seen_full = 0
    for seed in range(16):
        checker = DealChecker()
        game = random_game(CaliforniaJack, 2, None, 100 + seed, checker)
        for points in game.deal_points:
            seen_full += sum(points) == 4
            seen_ties += sum(points) == 3
    assert seen_full and seen_ties  # both kinds of deal were met (and checked)


def test_many_games_end_well_before_the_cap() -> None:
    longest = 0
    for seed in range(300):
        game = random_game(CaliforniaJack, 2, None, seed)
        longest = max(longest, len(game.deal_points))
        check_the_end(game)
    assert longest < MAX_DEALS // 2


def partial_game(options: CaliforniaJackOptions, seed: int) -> CaliforniaJack:
    """A game stopped after a random number of steps (maybe between deals or mid-trick)."""
    rng = random.Random(seed)
    game = CaliforniaJack(2, options, first_dealer=rng.randrange(2))
    for _ in range(rng.randrange(0, 400)):
        if game.is_over:
            break
        if game.needs_deal:
            game.start_deal(game.random_deal(rng))
        else:
            game.apply(game.to_act, rng.choice(game.legal_actions()))
    return game


@pytest.mark.parametrize("options", OPTION_SETS, ids=repr)
def test_save_restore_continues_identically(options: CaliforniaJackOptions) -> None:
    for seed in SEEDS:
        game = partial_game(options, seed)
        restored = restore(game.to_data(), CaliforniaJack)
        for seat in (0, 1):
            assert restored.seat_view(seat) == game.seat_view(seat)
        assert restored.deal_points == game.deal_points
        assert_restores_exactly(game, seed)


def test_a_copy_plays_on_like_the_original() -> None:
    for seed in range(10):
        game = partial_game(CaliforniaJackOptions(), seed)
        if game.is_over or game.needs_deal:
            continue
        clone = game.copy()
        rng_a, rng_b = random.Random(seed), random.Random(seed)
        for original, rng in ((game, rng_a), (clone, rng_b)):
            while original.to_act is not None:
                original.apply(original.to_act, rng.choice(original.legal_actions()))
        assert clone.public_view() == game.public_view()
        assert clone.history is None and clone.deal_points == game.deal_points
