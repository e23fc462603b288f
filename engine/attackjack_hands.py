"""What an AttackJack hand is worth, and how hands compare at the showdown.

Pure functions of a list of cards (``engine.cards`` ints, ``JOKER`` for a joker),
used by the game (``engine.attackjack``, which re-exports them) and its AI.
"""

from __future__ import annotations

from typing import Any

from engine.cards import ACE, JOKER, RANK

# Points of each card by index; the ace's 11 is adjusted by ``hand_value``.
_POINTS: tuple[int, ...] = tuple(
    [min(RANK[c], 10) if RANK[c] != ACE else 0 for c in range(52)] + [0]
)
_RANK_BIT: tuple[int, ...] = tuple([1 << RANK[c] for c in range(52)] + [0])
_ACE_BIT = 1 << ACE
_SENTINEL = 15  # above every rank: a shorter list of counted ranks beats a longer one


def is_bomb(hand: list[int]) -> bool:
    return JOKER in hand


def hand_value(hand: list[int]) -> int:
    """The value of a hand: ranks counted once, the ace 11 or 1 by the cards, a bomb 21."""
    mask = 0
    total = 0
    for c in hand:
        if c == JOKER:
            return 21
        bit = _RANK_BIT[c]
        if not mask & bit:  # the same rank counts once (K, Q are two ranks)
            mask |= bit
            total += _POINTS[c]
    if mask & _ACE_BIT:  # duplicates are gone first, so there is at most one ace
        total += 11 if total <= 10 else 1
    return total


def counted_ranks(hand: list[int]) -> tuple[int, ...]:
    """The tie-break list: distinct ranks from the highest down (the ace highest)."""
    return tuple(sorted({RANK[c] for c in hand if c != JOKER}, reverse=True))


def showdown_key(hand: list[int], out: bool) -> tuple[Any, ...]:
    """A key ordering hands as the showdown does: greater is better, equal shares.

    Out < any hand in < a bomb (bombs are all equal); hands in compare by total,
    then by the counted ranks card by card, the shorter list winning a common
    prefix (the sentinel above every rank does that).
    """
    if out:
        return (0,)
    if JOKER in hand:
        return (2,)
    return (1, hand_value(hand), (*counted_ranks(hand), _SENTINEL))
