"""Properties of random seeded Jacko games, for every option.

Each step of a random game is checked against the rules: the deck is
conserved, the sum stays within 21, every card's value and points agree with a
from-scratch reading of the round (``reference_values``), scores only grow and
match what was earned, the game ends the moment the target is reached, and no
hidden card ever shows in the public view.
"""

from __future__ import annotations

import random
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from engine.cards import CODE, JACK, KING, QUEEN, RANK, parse_card
from engine.core import KEYWORDS, PASS, STOP, Game
from engine.jacko import Jacko, JackoOptions
from tests.engine.playout import assert_restores_exactly, random_game

OPTION_SETS = [JackoOptions(target, open_hands)
               for target in (1, 3, 12, 40, 121, 300) for open_hands in (True, False)]
FACE = {JACK: 0, 14: 1}


def reference_values(cards: list[int]) -> list[int | None]:
    """The value of each card of a round, read afresh from the rules (None: a queen waiting)."""
    found: list[int | None] = []
    doubling = False
    for i, c in enumerate(cards):
        rank = RANK[c]
        if rank == QUEEN and all(v is None for v in found):
            found.append(None)  # led queens wait for the next card
            continue
        if rank == KING:
            value = 0 if i == 0 else sum(v or 0 for v in found)
            doubling = doubling or i == 0
        elif rank == QUEEN:
            value = found[-1]
        else:
            value = FACE.get(rank, rank) * (2 if doubling else 1)
        found = [value if v is None else v for v in found]
        found.append(value)
    return found


def reference_points(cards: list[int], values: list[int | None]) -> tuple[list[int], int]:
    """Making eleven (3) and holding it with a zero card (1), card by card; and the sum."""
    resolving = next((i for i, c in enumerate(cards) if RANK[c] != QUEEN), len(cards))
    points, total = [], 0
    for i, value in enumerate(values):
        if i < resolving or value is None:  # a led queen adds nothing when laid
            points.append(0)
            continue
        added = value * (resolving + 1) if i == resolving else value
        before, total = total, total + added
        points.append(1 if added == 0 and before == 11 else 3 if total == 11 != before else 0)
    return points, total


def card_strings(data: Any) -> set[str]:
    """Every string in a view that is a card code."""
    if isinstance(data, dict):
        return set().union(*(card_strings(v) for v in data.values())) if data else set()
    if isinstance(data, list):
        return set().union(*(card_strings(v) for v in data)) if data else set()
    return {data} if isinstance(data, str) and data in CODE else set()


class Checker:
    """Checks every step of one game against the state before it."""

    def __init__(self, options: JackoOptions):
        self.options = options
        self.totals = [0, 0]
        self.before: dict[str, Any] | None = None
        self.mover_view: dict[str, Any] | None = None
        self.deals = 0

    def __call__(self, game: Game) -> None:
        assert isinstance(game, Jacko)
        view = game.public_view()
        hands = [game.seat_view(0)["hand"], game.seat_view(1)["hand"]]
        self.check_cards(game, view, hands)
        self.check_round(view)
        self.check_scores(game, view)
        self.check_legal(game, view, hands)
        self.check_hidden(game, view, hands)
        self.before = view
        self.mover_view = game.seat_view(game.to_act) if game.to_act is not None else None

    def check_cards(self, game: Jacko, view: dict[str, Any], hands: list[list[str]]) -> None:
        played = [CODE[a] for _, a in game.history[-1].actions if a not in KEYWORDS]
        assert sorted(hands[0] + hands[1] + played) == sorted(CODE[:52])
        assert view["cards_left"] == [len(hands[0]), len(hands[1])]

    def check_round(self, view: dict[str, Any]) -> None:
        assert 0 <= view["sum"] <= 21
        last = view["last_round"]
        for cards, total in [(view["round"], view["sum"])] + (
                [(last["cards"], last["sum"])] if last else []):
            played = [parse_card(e["card"]) for e in cards]
            expected = reference_values(played)
            assert [e["value"] for e in cards] == expected
            assert ([e["points"] for e in cards], total) == reference_points(played, expected)
        if view["doubling"]:
            assert view["sum"] % 2 == 0
        if last is not None:
            total, zeros = last["sum"], last["zeros_at_21"]
            table = max(0, 7 - zeros) if total == 21 else max(0, total - 15)
            assert last["points"] == table
            assert last["winner"] == last["cards"][-1]["seat"]

    def check_scores(self, game: Jacko, view: dict[str, Any]) -> None:
        totals = view["totals"]
        gained = [now - was for now, was in zip(totals, self.totals, strict=True)]
        assert min(gained) >= 0, "scores only grow"
        assert totals == [sum(p[s] for p in game.deal_points) for s in (0, 1)]
        if self.deals == len(game.deal_points):  # an action, not a new deal
            assert gained == self.earned(view)
        else:
            assert gained == [0, 0]
        self.deals = len(game.deal_points)
        self.totals = totals
        target = self.options.target
        if game.is_over:
            winner = [s for s in (0, 1) if totals[s] >= target]
            assert winner == game.winners() == view["winners"] and len(winner) == 1
            assert max(gained) > 0, "the game ends on the step that reached the target"
            assert view["to_act"] is None and game.legal_actions() == []
        else:
            assert max(totals) < target and game.winners() == []

    def earned(self, view: dict[str, Any]) -> list[int]:
        """What the last action should have scored: its card's points and a round's."""
        assert self.before is not None
        earned = [0, 0]
        ended = view["rounds_played"] - self.before["rounds_played"]
        assert ended in (0, 1)
        action = view["last_action"]["action"]
        if action not in ("pass", "stop"):
            entry = view["last_round"]["cards"][-1] if ended else view["round"][-1]
            assert entry["card"] == action
            earned[entry["seat"]] += entry["points"]
        if ended:
            earned[view["last_round"]["winner"]] += view["last_round"]["points"]
        return earned

    def check_legal(self, game: Jacko, view: dict[str, Any], hands: list[list[str]]) -> None:
        if game.to_act is None:
            assert game.is_over or game.needs_deal
            return
        legal = game.legal_actions()
        assert legal and len(set(legal)) == len(legal)
        mine = hands[game.to_act]
        cards = [CODE[a] for a in legal if a not in KEYWORDS]
        assert all(c in mine and c[1] == mine[0][1] for c in cards), "current suit only"
        if PASS in legal:
            assert legal == [PASS] and view["passed"] is None
        if STOP in legal:
            assert view["passed"] == 1 - game.to_act and view["sum"] > 15 and cards
        if view["passed"] is not None:
            assert game.to_act == 1 - view["passed"] and cards, "alone with a card, or over"
        mover = self.mover_view
        if mover is not None and view["last_action"] is not None:
            # The action just taken was legal for its seat in the state before it.
            assert view["last_action"]["seat"] == mover["seat"]
            assert view["last_action"]["action"] in mover["legal"]

    def check_hidden(self, game: Jacko, view: dict[str, Any], hands: list[list[str]]) -> None:
        assert not card_strings(view) & set(hands[0] + hands[1])
        if not self.options.open_hands:
            for seat in (0, 1):
                assert not card_strings(game.seat_view(seat)) & set(hands[1 - seat])


@pytest.mark.slow
@pytest.mark.parametrize("options", OPTION_SETS, ids=lambda o: f"t{o.target}-{o.open_hands}")
def test_random_games_keep_every_rule(options: JackoOptions) -> None:
    for seed in range(15):
        checker = Checker(options)
        game = random_game(Jacko, 2, options, seed, check=checker)
        assert game.is_over and game.winners()
        assert game.public_view()["totals"] == game.totals


@settings(max_examples=40, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), target=st.integers(1, 160), open_hands=st.booleans())
def test_random_games_keep_every_rule_hypothesis(seed: int, target: int,
                                                 open_hands: bool) -> None:
    options = JackoOptions(target, open_hands)
    game = random_game(Jacko, 2, options, seed, check=Checker(options))
    assert max(game.totals) >= target


def play_some(seed: int, options: JackoOptions, steps: int) -> Jacko:
    rng = random.Random(seed)
    game = Jacko(2, options, first_dealer=seed % 2)
    for _ in range(steps):
        if game.is_over:
            break
        if game.needs_deal:
            game.start_deal(game.random_deal(rng))
        else:
            game.apply(game.to_act, rng.choice(game.legal_actions()))
    return game


@pytest.mark.parametrize("options", OPTION_SETS[::3], ids=lambda o: f"t{o.target}-{o.open_hands}")
def test_save_restore_continues_identically(options: JackoOptions) -> None:
    for seed in range(8):
        game = play_some(seed, options, random.Random(seed).randrange(0, 400))
        assert_restores_exactly(game, seed)


def test_restore_between_deals_and_after_the_end() -> None:
    options = JackoOptions()
    game = play_some(3, options, 10_000)
    assert game.is_over
    assert_restores_exactly(game, 3)
    game = Jacko(2, options)
    rng = random.Random(9)
    game.start_deal(game.random_deal(rng))
    while game.to_act is not None:
        game.apply(game.to_act, rng.choice(game.legal_actions()))
    assert game.needs_deal
    assert_restores_exactly(game, 9)


def test_copies_play_on_exactly_like_the_original() -> None:
    rng = random.Random(4)
    game = Jacko(2)
    while not game.is_over:
        if game.needs_deal:
            game.start_deal(game.random_deal(rng))
            continue
        twin = game.copy()
        assert twin.public_view() == game.public_view()
        assert twin.legal_actions() == game.legal_actions()
        action = rng.choice(game.legal_actions())
        twin.apply(twin.to_act, action)
        game.apply(game.to_act, action)
        assert twin.seat_view(0) == game.seat_view(0)
        assert twin.seat_view(1) == game.seat_view(1)
