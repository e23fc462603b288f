"""AI benchmarks: decision time per level, and strength in self-play tournaments.

``python -m benchmarks ai-speed GAME [--level L] [--positions N]``
    decision time over many positions (median and p95), ISMCTS iterations a
    second, and what the game's own benchmark module adds (Jazz: the iteration
    rate at the start of a 4-player trick deal beside a bare-int ISMCTS measured in
    the same run, the yardstick).

``python -m benchmarks ai-strength GAME --a LEVEL --b LEVEL [--games N]``
    A against B. Two-player games: seats alternate, A's win rate with a 95 %
    Wilson interval (a drawn AttackJack game counts half). Jazz and AttackJack
    with more players: one A seat (rotating) against B in every other seat;
    A's score minus the B seats' average, with a 95 % normal interval.
    Games are played in duplicate: each deal sequence once with A in every seat,
    so the luck of the cards largely cancels (the intervals, which treat the
    games as independent, are then on the safe side). The game's own benchmark
    module may add figures (AttackJack against random players: the oracle's ceiling).

The games, their default players and the options the AI is benchmarked with come
from the registry (``GameSpec.default_players``, ``benchmark_options``); a game's
benchmark module may set ``AI_PLAYERS`` to benchmark its AI at another table size.
Each prints a few human lines, then one JSON line last.
"""

from __future__ import annotations

import math
import random
import statistics
import time
from collections.abc import Callable
from concurrent.futures import ProcessPoolExecutor
from typing import Any

from benchmarks.hooks import hook
from engine import registry
from engine.ai import LEVELS, decide
from engine.core import Game, Options

Plan = tuple[str, int, list[str], int, int]  # game, players, level per seat, seed, dealer


def default_players(game_id: str) -> int:
    """The table size the AI is benchmarked at: the game's module's ``AI_PLAYERS``, or
    the registry's default."""
    players = hook(game_id, "AI_PLAYERS")
    return int(players) if players is not None else registry.spec(game_id).default_players


def make_game(game_id: str, players: int, options: dict[str, Any] | None,
              first_dealer: int) -> Game:
    """A new game; ``options`` None: the registry's ``benchmark_options`` for it."""
    spec = registry.spec(game_id)
    cls = spec.engine_class
    raw = dict(spec.benchmark_options) if options is None else options
    opts: Options = cls.OPTIONS.from_dict(raw, players)
    return cls(players, opts, first_dealer)


def play(game: Game, levels: list[str], seed: int,
         on_decision: Callable[[Game, int, str], None] | None = None) -> Game:
    """Play ``game`` to its end with ``levels[seat]`` at each seat; deals from ``seed``."""
    deal_rng = random.Random(seed)
    ai_rng = random.Random(seed * 7919 + 1)
    while not game.is_over:
        if game.needs_deal:
            game.start_deal(game.random_deal(deal_rng))
        elif game.has_auto_step:
            game.auto_step()
        else:
            seat = game.to_act
            assert seat is not None
            if on_decision is not None:
                on_decision(game, seat, levels[seat])
            action = decide(game, seat, levels[seat], ai_rng).action
            game.apply(seat, action)
    return game


# ---------------------------------------------------------------- speed


def positions(game_id: str, players: int, count: int, seed: int) -> list[Game]:
    """``count`` positions with a real choice, from games played by the ``easy`` level."""
    found: list[Game] = []
    rng = random.Random(seed)

    def keep(game: Game, seat: int, level: str) -> None:
        if len(found) < count and len(game.legal_actions()) > 1 and rng.random() < 0.35:
            found.append(game.clone())

    while len(found) < count:
        game = make_game(game_id, players, None, rng.randrange(players))
        play(game, ["easy"] * players, rng.randrange(1 << 30), keep)
    return found


def speed(game_id: str, level: str, count: int, players: int | None,
          seed: int = 1) -> dict[str, Any]:
    n = players or default_players(game_id)
    games = positions(game_id, n, count, seed)
    times, rates = [], []
    capped = 0
    spec = LEVELS[level]
    for i, game in enumerate(games):
        seat = game.to_act
        assert seat is not None
        start = time.perf_counter()
        result = decide(game, seat, level, random.Random(i))
        elapsed = time.perf_counter() - start
        times.append(elapsed)
        if result.iterations:
            rates.append(result.iterations / result.seconds)
            capped += result.iterations < spec.iterations
    times.sort()
    out: dict[str, Any] = {
        "game": game_id, "players": n, "level": level, "positions": len(times),
        "median_ms": round(1000 * statistics.median(times), 1),
        "p95_ms": round(1000 * times[int(0.95 * (len(times) - 1))], 1),
        "max_ms": round(1000 * times[-1], 1),
    }
    if rates:
        out["iterations"] = spec.iterations
        out["median_iterations_per_s"] = round(statistics.median(rates))
        out["capped_by_time"] = capped
    extras = hook(game_id, "speed_extras")
    if extras is not None:
        out.update(extras(level))
    return out


# ---------------------------------------------------------------- strength


def _one_game(args: Plan) -> tuple[list[int], list[int]]:
    game_id, players, levels, seed, first_dealer = args
    game = play(make_game(game_id, players, None, first_dealer), levels, seed)
    return game.totals, game.winners()


def strength(game_id: str, a: str, b: str, games: int, players: int | None,
             jobs: int = 1, seed: int = 1) -> dict[str, Any]:
    n = players or default_players(game_id)
    plans: list[Plan] = []
    for g in range(games):
        # Duplicate play: each deal sequence is played n times, A taking every seat in
        # turn with the same cards, so the luck of the deal cancels out of the comparison.
        seat_a = g % n
        levels = [a if s == seat_a else b for s in range(n)]
        group = g // n
        plans.append((game_id, n, levels, seed * 100_003 + group, group % n))
    start = time.perf_counter()
    if jobs > 1:
        with ProcessPoolExecutor(jobs) as pool:
            results = list(pool.map(_one_game, plans))
    else:
        results = [_one_game(p) for p in plans]
    out: dict[str, Any] = {"game": game_id, "players": n, "a": a, "b": b, "games": games,
                           "seconds": round(time.perf_counter() - start, 1)}
    wins = 0.0
    margins = []
    for (_, _, levels, _, _), (totals, winners) in zip(plans, results, strict=True):
        seat_a = levels.index(a) if a != b else 0
        others = [totals[s] for s in range(n) if s != seat_a]
        margins.append(totals[seat_a] - sum(others) / len(others))
        wins += win_share(winners, n, seat_a)
    out["a_wins"] = wins
    out["a_win_rate"] = round(wins / games, 3)
    out["a_win_rate_ci95"] = [round(x, 3) for x in wilson(wins, games)]
    mean, half = mean_ci(margins)
    out["a_margin"] = round(mean, 2)
    out["a_margin_ci95"] = [round(mean - half, 2), round(mean + half, 2)]
    extras = hook(game_id, "strength_extras")
    if extras is not None:
        out.update(extras(plans, a, b))
    return out


def dealt(plan: Plan) -> Game:
    """The game of a tournament plan with its deal made, as ``play`` makes it."""
    game_id, players, _, seed, first_dealer = plan
    game = make_game(game_id, players, None, first_dealer)
    game.start_deal(game.random_deal(random.Random(seed)))
    return game


def win_share(winners: list[int], players: int, seat: int) -> float:
    """What one game counts for ``seat``: a shared win splits, and nobody winning
    (AttackJack, everyone out: the stakes come back) counts as a draw among all."""
    if not winners:
        return 1.0 / players
    return 1.0 / len(winners) if seat in winners else 0.0


def wilson(wins: float, n: int, z: float = 1.96) -> tuple[float, float]:
    """The Wilson score interval of a proportion."""
    if n == 0:
        return (0.0, 1.0)
    p = wins / n
    centre = (p + z * z / (2 * n)) / (1 + z * z / n)
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / (1 + z * z / n)
    return (max(0.0, centre - half), min(1.0, centre + half))


def mean_ci(values: list[float], z: float = 1.96) -> tuple[float, float]:
    """Mean and the half-width of its normal 95 % interval."""
    mean = statistics.fmean(values)
    if len(values) < 2:
        return mean, math.inf
    return mean, z * statistics.stdev(values) / math.sqrt(len(values))
