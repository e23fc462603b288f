"""Dealing the cards a seat cannot see, consistently with what it has seen.

A determinization needs the unseen cards split into buckets of known sizes
(the other seats' hands, a stock), where a bucket may be barred from some
cards (a seat that showed a void cannot hold that suit; a seat that passed in
Sevens holds none of the cards it could have played). The sample is a pure
function of its arguments and the ``rng``: never of the real hidden cards.
"""

from __future__ import annotations

import random
from collections import deque
from collections.abc import Collection, Sequence


def deal_unseen(pool: Sequence[int], sizes: Sequence[int],
                barred: Sequence[Collection[int]], rng: random.Random) -> list[list[int]]:
    """Split ``pool`` into buckets of ``sizes`` (summing to ``len(pool)``), bucket ``i``
    never receiving a card of ``barred[i]``.

    The usual case (nothing barred) is one shuffle and slices. Otherwise cards are
    placed most-constrained first into a random open bucket, weighted by its room,
    and a dead end is repaired by moving placed cards along an augmenting path, so
    a consistent split is always found when one exists (the real deal is one).
    """
    if sum(sizes) != len(pool):
        raise ValueError(f"{len(pool)} unseen cards do not fill buckets of {list(sizes)}.")
    cards = list(pool)
    rng.shuffle(cards)
    if not any(barred):
        out, start = [], 0
        for size in sizes:
            out.append(cards[start:start + size])
            start += size
        return out
    return _constrained(cards, sizes, barred, rng)


def _constrained(cards: list[int], sizes: Sequence[int], barred: Sequence[Collection[int]],
                 rng: random.Random) -> list[list[int]]:
    k = len(sizes)
    allowed = {c: [b for b in range(k) if sizes[b] and c not in barred[b]] for c in set(cards)}
    cards.sort(key=lambda c: len(allowed[c]))  # stable: the shuffle still orders equals
    buckets: list[list[int]] = [[] for _ in range(k)]
    room = list(sizes)
    for c in cards:
        choices = allowed[c]
        total = sum(room[b] for b in choices)
        if total:
            pick = rng.randrange(total)
            for b in choices:
                pick -= room[b]
                if pick < 0:
                    break
        else:
            b = _make_room(c, choices, buckets, room, allowed)
        buckets[b].append(c)
        room[b] -= 1
    return buckets


def _make_room(c: int, choices: list[int], buckets: list[list[int]], room: list[int],
               allowed: dict[int, list[int]]) -> int:
    """Free a place for ``c`` in one of ``choices`` (all full) by moving placed cards
    along a shortest augmenting path; return the bucket freed."""
    came_from: dict[int, tuple[int, int] | None] = {b: None for b in choices}
    queue = deque(choices)
    while queue:
        b = queue.popleft()
        for x in buckets[b]:
            for b2 in allowed[x]:
                if b2 in came_from:
                    continue
                came_from[b2] = (b, x)
                if room[b2] > 0:
                    return _shift(b2, came_from, buckets, room)
                queue.append(b2)
    # Only reachable if the constraints contradict themselves (a bug upstream): rather
    # than fail a player's turn, give ``c`` any bucket with room.
    return next(b for b in range(len(room)) if room[b] > 0)


def _shift(end: int, came_from: dict[int, tuple[int, int] | None], buckets: list[list[int]],
           room: list[int]) -> int:
    b = end
    step = came_from[b]
    while step is not None:
        prev, x = step
        buckets[prev].remove(x)
        buckets[b].append(x)
        room[b] -= 1
        room[prev] += 1
        b = prev
        step = came_from[b]
    return b
