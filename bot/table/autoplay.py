"""The simplest sensible move: the fallback when the AI cannot decide.

No search and no strategy: score now when the rules allow it, otherwise get rid
of the lowest card that is legal. Games whose sensible default differs
(AttackJack's take/stand) pass their own policy. The bot now plays timed-out
turns and away players with the ``normal`` AI (``bot.table.ai_runner``); this move is the
fallback when an AI decision fails (a worker process died).
"""

from __future__ import annotations

from collections.abc import Callable

from engine import cards
from engine.core import PASS, STAND, STOP, TAKE, Game

Policy = Callable[[Game], int]


def simple_action(game: Game) -> int:
    """A legal action for the seat to act: stop > lowest card > pass > anything."""
    legal = game.legal_actions()
    if not legal:
        raise ValueError("nobody is to act")
    if STOP in legal:  # taking the points on offer is never silly
        return STOP
    played = [a for a in legal if 0 <= a <= cards.JOKER]
    if played:
        return min(played, key=lambda c: (cards.RANK[c], cards.SUIT[c]))
    for keyword in (PASS, STAND, TAKE):
        if keyword in legal:
            return keyword
    return legal[0]
