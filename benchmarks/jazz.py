"""Jazz's own benchmark figures: its trick deal beside the bare-int yardsticks.

``benchmarks engine jazz`` adds the rate of a random trick deal played through the
public ``apply`` (checked, with its events and the game's record), and of the same
deal as the AI's search plays it (a copy without record, ``apply_quietly``); at 4
players also a bare-int trick deal, measured in turns with them so that all three see
the same machine, and the engine's ratios to it (``engine_vs_bare``, ``search_vs_bare``).
``benchmarks ai-speed jazz`` at ``normal`` or ``hard`` adds the ISMCTS iteration
rate at the start of a 4-player trick deal beside a bare-int ISMCTS (``ai_vs_bare``).
"""

from __future__ import annotations

import random
import statistics
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
