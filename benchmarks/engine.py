"""Random playouts through the public engine API: how fast is each game's engine?

Prints a few human lines, then one JSON line last, e.g.
``{"game": "jazz", "matches_per_s": …, "trick_deals_per_s": …, "actions_per_s": …}``.
The games and their default players come from the registry; a game's benchmark
module adds its own figures (``engine_extras``: Jazz's trick deal, through the public
``apply`` and the way the AI's search plays it, beside a bare-int yardstick).
"""

from __future__ import annotations

import random
import time
from collections.abc import Callable
from typing import Any

from benchmarks.hooks import hook
from engine import registry
from engine.core import Game


def play_match(cls: type[Game], players: int, rng: random.Random) -> tuple[int, int]:
    """One whole game with random legal actions; returns (actions, forced steps) played."""
    game = cls(players, None, first_dealer=rng.randrange(players))
    actions = forced = 0
    while not game.is_over:
        if game.needs_deal:
            game.start_deal(game.random_deal(rng))
        elif game.has_auto_step:
            game.auto_step()
            forced += 1
        else:
            seat = game.to_act
            assert seat is not None
            game.apply(seat, rng.choice(game.legal_actions()))
            actions += 1
    return actions, forced


def play_first_deal(cls: type[Game], players: int, rng: random.Random) -> tuple[int, int]:
    """Only the first deal (for Jazz: a trick deal, the AI's hot loop)."""
    game = cls(players, None, first_dealer=0)
    game.start_deal(game.random_deal(rng))
    actions = 0
    while game.to_act is not None:
        game.apply(game.to_act, rng.choice(game.legal_actions()))
        actions += 1
    return actions, 0


def play_first_deal_quietly(cls: type[Game], players: int,
                            rng: random.Random) -> tuple[int, int]:
    """The first deal as the AI's search plays it: a copy without history, each action
    through ``apply_quietly`` (the same checks as ``apply``, no events, no record)."""
    dealt = cls(players, None, first_dealer=0)
    dealt.start_deal(dealt.random_deal(rng))
    game = dealt.copy()
    actions = 0
    while game.to_act is not None:
        game.apply_quietly(game.to_act, rng.choice(game.legal_actions()))
        actions += 1
    return actions, 0


Work = Callable[[random.Random], tuple[int, int]]


def rate(work: Work, seconds: float, seed: int) -> tuple[float, float, float]:
    """Units, actions and forced steps per second of ``work`` run repeatedly for ``seconds``."""
    rng = random.Random(seed)
    units = actions = forced = 0
    start = time.perf_counter()
    deadline = start + seconds
    while True:
        done, auto = work(rng)
        actions += done
        forced += auto
        units += 1
        now = time.perf_counter()
        if now >= deadline:
            break
    elapsed = now - start
    return units / elapsed, actions / elapsed, forced / elapsed


def interleaved_rates(works: dict[str, Work], seconds: float, seed: int,
                      slice_seconds: float = 0.05) -> dict[str, float]:
    """Units per second of each of ``works``, run in turns of ``slice_seconds`` until
    each has had ``seconds``: every one sees the same machine load, so their ratios
    hold on a busy machine better than back-to-back runs (a second of someone else's
    tests can fall on one run and not the other)."""
    rngs = {name: random.Random(seed + i) for i, name in enumerate(works)}
    units = dict.fromkeys(works, 0)
    spent = dict.fromkeys(works, 0.0)
    while min(spent.values()) < seconds:
        for name, work in works.items():
            start = time.perf_counter()
            deadline = start + slice_seconds
            while True:
                work(rngs[name])
                units[name] += 1
                now = time.perf_counter()
                if now >= deadline:
                    break
            spent[name] += now - start
    return {name: units[name] / spent[name] for name in works}


def run(game_id: str, seconds: float, players: int | None = None) -> dict[str, Any]:
    spec = registry.spec(game_id)
    cls = spec.engine_class
    n = players or spec.default_players
    matches, actions, forced = rate(lambda rng: play_match(cls, n, rng), seconds, seed=1)
    result: dict[str, Any] = {"game": game_id, "players": n,
                              "matches_per_s": round(matches, 1),
                              "actions_per_s": round(actions)}
    if forced:
        result["forced_steps_per_s"] = round(forced)
    extras = hook(game_id, "engine_extras")
    if extras is not None:
        result.update(extras(cls, n, seconds))
    return result
