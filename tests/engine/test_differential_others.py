"""California Jack and AttackJack engines against plain reference implementations."""

from __future__ import annotations

import copy
import random

import pytest

from engine.attackjack import AttackJack, AttackJackOptions
from engine.california_jack import CaliforniaJack, CaliforniaJackOptions
from engine.records import ReplayError, replay
from tests.engine.playout import random_game
from tests.engine.reference_others import replay_attackjack, replay_california_jack


def engine_result(record: dict) -> dict:
    try:
        return replay(record)
    except ReplayError as error:
        return {"error": (error.deal, error.step)}


def mutate(record: dict, rng: random.Random, keywords: list[str]) -> dict:
    broken = copy.deepcopy(record)
    deal = rng.randrange(len(broken["deals"]))
    actions = broken["deals"][deal]["actions"]
    players = broken["players"]
    kind = rng.choice(["seat", "action", "cut", "extra", "swap"])
    if kind == "seat" and actions:
        i = rng.randrange(len(actions))
        actions[i][0] = (actions[i][0] + rng.randrange(1, players)) % players
    elif kind == "action" and actions:
        i = rng.randrange(len(actions))
        hand = broken["deals"][deal]["hands"][actions[i][0]]
        actions[i][1] = rng.choice(hand + keywords)
    elif kind == "cut":
        del actions[rng.randrange(len(actions) + 1):]
    elif kind == "swap":
        hands = broken["deals"][deal]["hands"]
        stock = broken["deals"][deal]["stock"]
        if stock:
            hands[0][0], stock[-1] = stock[-1], hands[0][0]
    else:
        actions.append([rng.randrange(players), rng.choice(keywords or ["AS"])])
    return broken


@pytest.mark.parametrize("options", [
    CaliforniaJackOptions(),
    CaliforniaJackOptions(scoring="simple"),
    CaliforniaJackOptions(follow_or_trump=True, target=4),
])
def test_california_jack_records_agree(options):
    for seed in range(60):
        record = random_game(CaliforniaJack, 2, options, seed).to_record()
        assert engine_result(record) == replay_california_jack(record), seed


def test_broken_california_jack_records_are_refused_at_the_same_place():
    refused = 0
    for seed in range(200):
        rng = random.Random(seed)
        record = random_game(CaliforniaJack, 2, CaliforniaJackOptions(target=5),
                             seed).to_record()
        broken = mutate(record, rng, [])
        expected = replay_california_jack(broken)
        assert engine_result(broken) == expected, seed
        refused += "error" in expected
    assert refused > 80


@pytest.mark.parametrize("choice", [False, True])
@pytest.mark.parametrize("stake", [0, 7])
def test_attackjack_records_agree(choice, stake):
    for seed in range(150):
        players = 2 + seed % 16
        options = AttackJackOptions(choice=choice, stake=stake, blind=seed % 2 == 0)
        record = random_game(AttackJack, players, options, seed).to_record()
        assert engine_result(record) == replay_attackjack(record), seed


def test_broken_attackjack_records_are_refused_at_the_same_place():
    refused = 0
    for seed in range(200):
        rng = random.Random(seed)
        options = AttackJackOptions(choice=True, stake=3)
        record = random_game(AttackJack, 2 + seed % 6, options, seed).to_record()
        broken = mutate(record, rng, ["take", "stand"])
        expected = replay_attackjack(broken)
        assert engine_result(broken) == expected, seed
        refused += "error" in expected
    assert refused > 50
