"""AttackJack's own benchmark figures: its AI's table size, and the oracle's ceiling.

With the open card face up, the choice is nearly obvious, so AttackJack's AI is
benchmarked at two seats (``AI_PLAYERS``). Its luck sets a ceiling on any
player's win rate against random ones: an oracle that sees every card and
answers the others' coin flips exactly (``oracle_share``). ``ai-strength``
against random players prints it as ``a_ceiling``. Its largest pictures, for
``benchmarks images``, have the choices and a blind card (``LARGEST_OPTIONS``).
"""

from __future__ import annotations

import statistics
from typing import Any

from benchmarks.ai import Plan, dealt, win_share
from engine.core import Game

AI_PLAYERS = 2
# ``benchmarks images``: its largest pictures (17 seats) with the choices and a blind card.
LARGEST_OPTIONS = {"choice": True, "blind": True}
# The oracle's tree doubles with each chooser, so it is only worked out for small tables.
CEILING_MAX_PLAYERS = 6


def strength_extras(plans: list[Plan], a: str, b: str) -> dict[str, Any]:
    """``a_ceiling``: the oracle's average share on the tournament's deals, for A's seat."""
    players = plans[0][1] if plans else 0
    if b != "random" or players > CEILING_MAX_PLAYERS:
        return {}
    shares = [oracle_share(dealt(p), p[2].index(a) if a != b else 0) for p in plans]
    return {"a_ceiling": round(statistics.fmean(shares), 3)}


def oracle_share(state: Game, seat: int) -> float:
    """``seat``'s expected share of the wins when it sees every card and plays best,
    while every other seat takes or stands at random (a drawn game counts as in
    ``strength``)."""
    while state.has_auto_step:
        state.auto_step_quietly()
    if state.is_over:
        return win_share(state.winners(), state.players, seat)
    chooser = state.to_act
    assert chooser is not None
    values = []
    for action in state.legal_actions():
        after = state.copy()
        after.apply_quietly(chooser, action)
        values.append(oracle_share(after, seat))
    return max(values) if chooser == seat else statistics.fmean(values)
