"""Jazz's own benchmark figures: its trick deal beside the bare-int yardsticks.

``benchmarks engine jazz`` adds the rate of a trick deal (the AI's hot loop) and,
at 4 players, a bare-int trick deal measured in the same run with the engine's
ratio to it (``engine_vs_bare``), since the machine's speed varies.
``benchmarks ai-speed jazz`` at ``normal`` or ``hard`` adds the ISMCTS iteration
rate at the start of a 4-player trick deal beside a bare-int ISMCTS (``ai_vs_bare``).
"""

from __future__ import annotations

import random
import statistics
from typing import Any

from benchmarks.baseline import bare_ismcts_rate, bare_trick_deal
from benchmarks.engine import play_first_deal, rate
from engine.core import Game

GAME_ID = "jazz"


def engine_extras(cls: type[Game], players: int, seconds: float) -> dict[str, Any]:
    deals, _, _ = rate(lambda rng: play_first_deal(cls, players, rng), seconds, seed=2)
    out: dict[str, Any] = {"trick_deals_per_s": round(deals, 1)}
    if players == 4:
        bare, _, _ = rate(lambda rng: (bare_trick_deal(rng), 0), seconds, seed=3)
        out["bare_int_trick_deals_per_s"] = round(bare, 1)
        out["engine_vs_bare"] = round(deals / bare, 2)
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
