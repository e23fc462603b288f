"""Jazz's own benchmark figures: its trick deal beside the bare-int yardsticks.

``benchmarks engine jazz`` adds the rate of a random trick deal played through the
public ``apply`` (checked, with its events and the game's record), and of the same
deal as the AI's search plays it (a copy without record, ``apply_quietly``); at 4
players also a bare-int trick deal, measured in turns with them so that all three see
the same machine, and the engine's ratios to it (``engine_vs_bare``, ``search_vs_bare``).
``benchmarks ai-speed jazz`` at ``normal`` or ``hard`` adds the ISMCTS iteration
rate at the start of a 4-player trick deal beside a bare-int ISMCTS (``ai_vs_bare``).

``python -m benchmarks.jazz [--seconds S]`` breaks ``engine_vs_bare`` down: the same
trick deal with one thing less at each step (the events, then the record, then the
checks), each measured in turns with the others and the bare-int deal, and what each
costs a deal in microseconds; what is left is the deal's start (the game built, the
deal checked and recorded) and the game kept in an object moved by calls, which no
caller of the engine does without. See ``breakdown``.
"""

from __future__ import annotations

import argparse
import json
import random
import statistics
import sys
from typing import Any

from benchmarks.baseline import bare_ismcts_rate, bare_trick_deal
from benchmarks.engine import interleaved_rates, play_first_deal, play_first_deal_quietly
from engine.core import Game

GAME_ID = "jazz"


def engine_extras(cls: type[Game], players: int, seconds: float) -> dict[str, Any]:
    works = {"trick_deals_per_s": lambda rng: play_first_deal(cls, players, rng),
             "search_trick_deals_per_s": lambda rng: play_first_deal_quietly(cls, players, rng)}
    if players == 4:
        works["bare_int_trick_deals_per_s"] = lambda rng: (bare_trick_deal(rng), 0)
    rates = interleaved_rates(works, seconds, seed=2)
    out: dict[str, Any] = {name: round(r, 1) for name, r in rates.items()}
    if players == 4:
        bare = rates["bare_int_trick_deals_per_s"]
        out["engine_vs_bare"] = round(rates["trick_deals_per_s"] / bare, 2)
        out["search_vs_bare"] = round(rates["search_trick_deals_per_s"] / bare, 2)
    return out


def speed_extras(level: str) -> dict[str, Any]:
    return start_rate() if level in ("normal", "hard") else {}


def start_rate(iterations: int = 5000, rounds: int = 3) -> dict[str, Any]:
    """ISMCTS iterations a second at the start of a 4-player trick deal, beside the
    bare-int ISMCTS in the same run (alternated, so both see the same machine load)."""
    from benchmarks.ai import make_game  # the AI loads only for the AI benchmarks
    from engine.ai import game_ai
    from engine.ai.search import search

    ai = game_ai(GAME_ID)
    ours, bare = [], []
    for r in range(rounds):
        game = make_game(GAME_ID, 4, None, 0)
        game.start_deal(game.random_deal(random.Random(r)))
        seat = game.to_act
        assert seat is not None
        obs = ai.observe(game, seat)
        result = search(ai, obs, random.Random(r), iterations, None)
        ours.append(result.iterations / result.seconds)
        bare.append(bare_ismcts_rate(iterations, random.Random(r)))
    a, b = statistics.median(ours), statistics.median(bare)
    return {"jazz_start_iterations_per_s": round(a), "bare_ismcts_iterations_per_s": round(b),
            "ai_vs_bare": round(a / b, 2)}


# ---------------------------------------------------------------- the breakdown


def play_first_deal_recorded(cls: type[Game], players: int,
                             rng: random.Random) -> tuple[int, int]:
    """The first deal through ``apply_quietly`` on the game itself: checked and recorded,
    no events."""
    game = cls(players, None, first_dealer=0)
    game.start_deal(game.random_deal(rng))
    actions = 0
    while game.to_act is not None:
        game.apply_quietly(game.to_act, rng.choice(game.legal_actions()))
        actions += 1
    return actions, 0


def play_first_deal_unrecorded(cls: type[Game], players: int,
                               rng: random.Random) -> tuple[int, int]:
    """The first deal through ``apply_quietly`` with no history kept (as a copy keeps
    none, without making one): checked, neither recorded nor told."""
    game = cls(players, None, first_dealer=0)
    game.start_deal(game.random_deal(rng))
    game.history = None
    actions = 0
    while game.to_act is not None:
        game.apply_quietly(game.to_act, rng.choice(game.legal_actions()))
        actions += 1
    return actions, 0


def play_first_deal_unchecked(cls: type[Game], players: int,
                              rng: random.Random) -> tuple[int, int]:
    """The first deal through the game's own ``_apply``, which trusts its caller: no
    check that the seat is to act and the action legal, no record, no events. Only a
    measurement: nothing else may move a game so."""
    game = cls(players, None, first_dealer=0)
    game.start_deal(game.random_deal(rng))
    game.history = None
    actions = 0
    while game.to_act is not None:
        game._apply(rng.choice(game.legal_actions()), None)
        actions += 1
    return actions, 0


def deal_setup(cls: type[Game], players: int, rng: random.Random) -> tuple[int, int]:
    """What every deal above begins with: the game built, its deal shuffled, checked and
    started (recorded), and no card played."""
    game = cls(players, None, first_dealer=0)
    game.start_deal(game.random_deal(rng))
    return 0, 0


def bare_deal_setup(rng: random.Random) -> tuple[int, int]:
    """What the bare-int deal begins with: its shuffle and hands (``bare_trick_deal``)."""
    deck = list(range(52))
    rng.shuffle(deck)
    _hands = [deck[i * 13:(i + 1) * 13] for i in range(4)]
    return 0, 0


BREAKDOWN = ("apply", "recorded", "unrecorded", "unchecked", "bare")
"""The steps of ``breakdown``, each with one thing less than the one before it."""
LAYERS = {"events": ("apply", "recorded"), "record": ("recorded", "unrecorded"),
          "checks": ("unrecorded", "unchecked")}
"""What a step leaves out of the one before: a deal's microseconds between the two."""


def breakdown(seconds: float = 3.0, players: int = 4) -> dict[str, Any]:
    """Where a trick deal through the public ``apply`` spends the time the bare-int deal
    (4 players) does not. The same deal is played with the events, then the record, then
    the checks left out: each step's ``*_vs_bare``, and each layer's microseconds a deal
    (``*_us``). What is still left is split in two: ``setup_us``, the deal's start beyond
    the bare shuffle (the game built, the deal checked, sorted into hands and recorded),
    and ``calls_us``, the rest (the game kept in an object that one call after another
    moves on, instead of in locals). All measured in turns, so they share the load."""
    from engine.jazz import Jazz

    works = {
        "apply": lambda rng: play_first_deal(Jazz, players, rng),
        "recorded": lambda rng: play_first_deal_recorded(Jazz, players, rng),
        "unrecorded": lambda rng: play_first_deal_unrecorded(Jazz, players, rng),
        "unchecked": lambda rng: play_first_deal_unchecked(Jazz, players, rng),
        "setup": lambda rng: deal_setup(Jazz, players, rng),
    }
    if players == 4:  # the bare-int deal is for 4 players
        works["bare"] = lambda rng: (bare_trick_deal(rng), 0)
        works["bare_setup"] = bare_deal_setup
    rates = interleaved_rates(works, seconds, seed=2)
    us = {name: 1e6 / rate for name, rate in rates.items()}
    out: dict[str, Any] = {f"{name}_deals_per_s": round(rate, 1) for name, rate in rates.items()}
    for layer, (more, less) in LAYERS.items():
        out[f"{layer}_us"] = round(us[more] - us[less], 2)
    if "bare" in rates:
        for name in BREAKDOWN[:-1]:
            out[f"{name}_vs_bare"] = round(rates[name] / rates["bare"], 2)
        setup = us["setup"] - us["bare_setup"]
        out["setup_us"] = round(setup, 2)
        out["calls_us"] = round(us["unchecked"] - us["bare"] - setup, 2)
    return out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m benchmarks.jazz",
                                     description=breakdown.__doc__)
    parser.add_argument("--seconds", type=float, default=3.0, help="time per measurement")
    parser.add_argument("--players", type=int, default=4)
    args = parser.parse_args(argv)
    result = breakdown(args.seconds, args.players)
    for key, value in result.items():
        print(f"{key:>26}: {value}")
    print(json.dumps(result))
    return 0


if __name__ == "__main__":
    sys.exit(main())
