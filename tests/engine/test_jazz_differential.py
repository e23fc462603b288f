"""engine/jazz.py against the plain reference implementation, record by record."""

from __future__ import annotations

import copy
import random

import pytest

from engine.jazz import Jazz, JazzOptions
from engine.records import ReplayError, replay
from tests.engine.playout import random_game
from tests.engine.reference_jazz import replay_jazz


def random_options(rng: random.Random, players: int) -> JazzOptions:
    return JazzOptions(sevens_bonus=rng.choice([0, 10, 80]),
                       norwegian=players <= 5 and rng.random() < 0.4,
                       play_out=rng.random() < 0.3)


def engine_result(record: dict) -> dict:
    try:
        return replay(record)
    except ReplayError as error:
        return {"error": (error.deal, error.step)}


def reference_result(record: dict) -> dict:
    result = replay_jazz(record)
    if "error" in result:
        return result
    return {
        "game": "jazz",
        "deals": [{"steps": d["steps"], "points": d["points"]} for d in result["deals"]],
        "totals": result["totals"],
        "winners": result["winners"],
        "complete": result["complete"],
    }


def mutate(record: dict, rng: random.Random) -> dict:
    """A record broken (or merely cut) in one random place."""
    broken = copy.deepcopy(record)
    deal = rng.randrange(len(broken["deals"]))
    actions = broken["deals"][deal]["actions"]
    kind = rng.choice(["seat", "card", "cut", "swap_cards", "extra"])
    if kind == "seat" and actions:
        i = rng.randrange(len(actions))
        actions[i][0] = (actions[i][0] + rng.randrange(1, broken["players"])) % broken["players"]
    elif kind == "card" and actions:
        i = rng.randrange(len(actions))
        hand = broken["deals"][deal]["hands"][actions[i][0]]
        actions[i][1] = rng.choice([*hand, "pass"])
    elif kind == "cut":
        del actions[rng.randrange(len(actions) + 1):]
    elif kind == "swap_cards":
        hands = broken["deals"][deal]["hands"]
        a, b = rng.sample(range(len(hands)), 2)
        hands[a][0], hands[b][0] = hands[b][0], hands[a][0]
    else:
        actions.append([rng.randrange(broken["players"]), rng.choice(["pass", "AS", "2C"])])
    return broken


@pytest.mark.parametrize("block", range(4))
def test_random_records_agree_step_by_step(block):
    for seed in range(block * 100, block * 100 + 100):
        rng = random.Random(seed)
        players = rng.randint(3, 7)
        game = random_game(Jazz, players, random_options(rng, players), seed)
        record = game.to_record()
        assert engine_result(record) == reference_result(record)


@pytest.mark.slow
def test_broken_records_are_refused_at_the_same_place():
    refused = 0
    for seed in range(300):
        rng = random.Random(seed)
        players = rng.randint(3, 7)
        record = random_game(Jazz, players, random_options(rng, players), seed).to_record()
        broken = mutate(record, rng)
        expected = reference_result(broken)
        assert engine_result(broken) == expected
        refused += "error" in expected
    assert refused > 150  # most mutations must break the record
