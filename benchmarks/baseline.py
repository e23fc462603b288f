"""Bare-int yardsticks with no engine around them: a random 4-player trick deal, and
an SO-ISMCTS for one seat leading such a deal.

The benchmarks report these rates beside the engine's and the AI's own, measured in
the same run, so the ratios hold however busy the machine is.
"""

from __future__ import annotations

import math
import random
import time
from typing import Any


def bare_trick_deal(rng: random.Random) -> int:
    deck = list(range(52))
    rng.shuffle(deck)
    hands = [deck[i * 13:(i + 1) * 13] for i in range(4)]
    leader = 0
    for _ in range(13):
        trick: list[int] = []
        for i in range(4):
            hand = hands[(leader + i) % 4]
            if trick:
                led = trick[0] // 13
                legal = [c for c in hand if c // 13 == led] or hand
            else:
                legal = hand
            card = rng.choice(legal)
            hand.remove(card)
            trick.append(card)
        led = trick[0] // 13
        best = 0
        for i in range(1, 4):
            if trick[i] // 13 == led and trick[i] > trick[best]:
                best = i
        leader = (leader + best) % 4
    return 52


def bare_ismcts_rate(iterations: int, rng: random.Random) -> float:
    """A bare-int SO-ISMCTS for seat 0 leading a 4-player trick deal (−1 a trick).

    No engine, no classes beyond a node: the fastest plain Python does it, so
    the ratio to the AI's rate shows what the engine and the generality cost.
    """
    deck = list(range(52))
    rng.shuffle(deck)
    mine = sorted(deck[:13])
    unseen = deck[13:]
    root: dict[int, Any] = {}  # action -> [visits, total, avail, children, seat]
    log, sqrt = math.log, math.sqrt
    start = time.perf_counter()
    for _ in range(iterations):
        rng.shuffle(unseen)
        hands = [list(mine), unseen[:13], unseen[13:26], unseen[26:]]
        trick: list[int] = []
        leader = seat = 0
        tricks = [0, 0, 0, 0]
        node: dict[int, Any] = root
        path: list[Any] = []  # the entries walked
        entry: Any
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
