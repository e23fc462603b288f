"""AI benchmarks: decision time per level, and strength in self-play tournaments.

``python -m benchmarks ai-speed GAME [--level L] [--positions N]``
    decision time over many positions (median and p95), ISMCTS iterations a
    second, and for Jazz the iteration rate at the start of a 4-player trick
    deal beside a bare-int ISMCTS measured in the same run (the yardstick).

``python -m benchmarks ai-strength GAME --a LEVEL --b LEVEL [--games N]``
    A against B. Two-player games: seats alternate, A's win rate with a 95 %
    Wilson interval (a drawn AttackJack game counts half). Jazz and AttackJack
    with more players: one A seat (rotating) against B in every other seat;
    A's score minus the B seats' average, with a 95 % normal interval.
    Games are played in duplicate: each deal sequence once with A in every seat,
    so the luck of the cards largely cancels (the intervals, which treat the
    games as independent, are then on the safe side).

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

from engine.ai import LEVELS, decide, game_ai
from engine.ai.search import search
from engine.core import Game, Options
from engine.registry import game_class

DEFAULT_PLAYERS = {"jazz": 4, "jacko": 2, "california_jack": 2, "attackjack": 2}
# AttackJack has a decision only with the ``choice`` option: benchmark it with that.
DEFAULT_OPTIONS: dict[str, dict[str, Any]] = {"attackjack": {"choice": True}}


def make_game(game_id: str, players: int, options: dict[str, Any] | None,
              first_dealer: int) -> Game:
    cls = game_class(game_id)
    raw = DEFAULT_OPTIONS.get(game_id, {}) if options is None else options
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
            found.append(type(game).from_data(game.to_data()))

    while len(found) < count:
        game = make_game(game_id, players, None, rng.randrange(players))
        play(game, ["easy"] * players, rng.randrange(1 << 30), keep)
    return found


def speed(game_id: str, level: str, count: int, players: int | None, seed: int = 1) -> dict:
    n = players or DEFAULT_PLAYERS[game_id]
    games = positions(game_id, n, count, seed)
    times, rates = [], []
    capped = 0
    spec = LEVELS[level]
    for i, game in enumerate(games):
        game.run_auto_steps()  # a restored game leaves its trailing forced steps pending
        seat = game.to_act
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
    if game_id == "jazz" and level in ("normal", "hard"):
        out.update(jazz_start_rate())
    return out


def jazz_start_rate(iterations: int = 5000, rounds: int = 3) -> dict[str, Any]:
    """ISMCTS iterations a second at the start of a 4-player trick deal, beside the
    bare-int ISMCTS in the same run (alternated, so both see the same machine load)."""
    ai = game_ai("jazz")
    ours, bare = [], []
    for r in range(rounds):
        game = make_game("jazz", 4, None, 0)
        game.start_deal(game.random_deal(random.Random(r)))
        obs = ai.observe(game, game.to_act)
        result = search(ai, obs, random.Random(r), iterations, None)
        ours.append(result.iterations / result.seconds)
        bare.append(bare_ismcts_rate(iterations, random.Random(r)))
    a, b = statistics.median(ours), statistics.median(bare)
    return {"jazz_start_iterations_per_s": round(a), "bare_ismcts_iterations_per_s": round(b),
            "ai_vs_bare": round(a / b, 2)}


def bare_ismcts_rate(iterations: int, rng: random.Random) -> float:
    """A bare-int SO-ISMCTS for seat 0 leading a 4-player trick deal (−1 a trick).

    No engine, no classes beyond a node: the fastest plain Python does it, so
    the ratio to the AI's rate shows what the engine and the generality cost.
    """
    deck = list(range(52))
    rng.shuffle(deck)
    mine = sorted(deck[:13])
    unseen = deck[13:]
    root: dict = {}  # action -> [visits, total, avail, children]
    log, sqrt = math.log, math.sqrt
    start = time.perf_counter()
    for _ in range(iterations):
        rng.shuffle(unseen)
        hands = [list(mine), unseen[:13], unseen[13:26], unseen[26:]]
        trick: list[int] = []
        leader = seat = 0
        tricks = [0, 0, 0, 0]
        node, path = root, []
        expanding = True
        while hands[seat] or trick:
            hand = hands[seat]
            if trick:
                led = trick[0] // 13
                legal = [c for c in hand if c // 13 == led] or hand
            else:
                legal = hand
            if expanding:
                untried = [c for c in legal if c not in node]
                if untried:
                    c = untried[rng.randrange(len(untried))]
                    node[c] = entry = [0, 0.0, 1, {}, seat]
                    expanding = False
                else:
                    best, entry = -1.0, None
                    for x in legal:
                        e = node[x]
                        e[2] += 1
                        score = e[1] / e[0] + 0.7 * sqrt(log(e[2]) / e[0])
                        if score > best:
                            best, entry, c = score, e, x
                path.append(entry)
                node = entry[3]
            else:
                c = legal[rng.randrange(len(legal))]
            hand.remove(c)
            trick.append(c)
            seat = (seat + 1) % 4
            if len(trick) == 4:
                led = trick[0] // 13
                best_i = 0
                for i in range(1, 4):
                    if trick[i] // 13 == led and trick[i] > trick[best_i]:
                        best_i = i
                leader = seat = (leader + best_i) % 4
                tricks[leader] += 1
                trick = []
        for entry in path:
            p = entry[4]
            entry[0] += 1
            entry[1] += 0.5 - (tricks[p] - (13 - tricks[p]) / 3) / 26
    return iterations / (time.perf_counter() - start)


# ---------------------------------------------------------------- strength


def _one_game(args: tuple[str, int, list[str], int, int]) -> tuple[list[int], list[int]]:
    game_id, players, levels, seed, first_dealer = args
    game = play(make_game(game_id, players, None, first_dealer), levels, seed)
    return game.totals, game.winners()


def strength(game_id: str, a: str, b: str, games: int, players: int | None,
             jobs: int = 1, seed: int = 1) -> dict[str, Any]:
    n = players or DEFAULT_PLAYERS[game_id]
    plans = []
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
    if game_id == "attackjack" and b == "random" and n <= CEILING_MAX_PLAYERS:
        shares = [oracle_share(_dealt(p), p[2].index(a) if a != b else 0) for p in plans]
        out["a_ceiling"] = round(statistics.fmean(shares), 3)
    return out


# AttackJack's luck sets a ceiling on any player's win rate against random ones: an
# oracle that sees every card and answers the others' coin flips exactly. The tree
# doubles with each chooser, so it is only worked out for small tables.
CEILING_MAX_PLAYERS = 6


def _dealt(plan: tuple[str, int, list[str], int, int]) -> Game:
    """The game of a tournament plan with its deal made, as ``play`` makes it."""
    game_id, players, _, seed, first_dealer = plan
    game = make_game(game_id, players, None, first_dealer)
    game.start_deal(game.random_deal(random.Random(seed)))
    return game


def oracle_share(state: Game, seat: int) -> float:
    """``seat``'s expected share of the wins when it sees every card and plays best,
    while every other seat takes or stands at random (a drawn game counts as in
    ``strength``)."""
    while state.has_auto_step:
        state.auto_step()
    if state.is_over:
        return win_share(state.winners(), state.players, seat)
    values = []
    for action in state.legal_actions():
        after = state.copy()
        after.apply(state.to_act, action)
        values.append(oracle_share(after, seat))
    return max(values) if state.to_act == seat else statistics.fmean(values)


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
