"""engine/jacko.py against the plain reference implementation, record by record."""

from __future__ import annotations

import copy
import random

import pytest

from engine.jacko import Jacko, JackoOptions
from engine.records import ReplayError, replay
from tests.engine.playout import random_game
from tests.engine.reference_jacko import replay_jacko


def engine_result(record: dict) -> dict:
    try:
        return replay(record)
    except ReplayError as error:
        return {"error": (error.deal, error.step)}


def mutate(record: dict, rng: random.Random) -> dict:
    broken = copy.deepcopy(record)
    deal = rng.randrange(len(broken["deals"]))
    actions = broken["deals"][deal]["actions"]
    kind = rng.choice(["seat", "card", "cut", "keyword", "extra"])
    if kind == "seat" and actions:
        i = rng.randrange(len(actions))
        actions[i][0] = 1 - actions[i][0]
    elif kind == "card" and actions:
        i = rng.randrange(len(actions))
        actions[i][1] = rng.choice(broken["deals"][deal]["hands"][actions[i][0]])
    elif kind == "keyword" and actions:
        i = rng.randrange(len(actions))
        actions[i][1] = rng.choice(["pass", "stop"])
    elif kind == "cut":
        del actions[rng.randrange(len(actions) + 1):]
    else:
        actions.append([rng.randrange(2), rng.choice(["pass", "stop", "QS"])])
    return broken


@pytest.mark.parametrize("target", [121, 31, 5])
def test_random_records_agree_step_by_step(target):
    for seed in range(120):
        game = random_game(Jacko, 2, JackoOptions(target=target), seed)
        record = game.to_record()
        assert engine_result(record) == replay_jacko(record), seed


def test_broken_records_are_refused_at_the_same_place():
    refused = 0
    for seed in range(300):
        rng = random.Random(seed)
        record = random_game(Jacko, 2, JackoOptions(target=rng.choice([121, 40])),
                             seed).to_record()
        broken = mutate(record, rng)
        expected = replay_jacko(broken)
        assert engine_result(broken) == expected, seed
        refused += "error" in expected
    assert refused > 150
