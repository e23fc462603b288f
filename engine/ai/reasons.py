"""Why the ``easy`` rule of thumb plays a card: one short sentence for a hint.

The Hint button (``bot.features.hints``) shows the Normal AI's suggestion. A search has
no reason to give in words, but the ``easy`` heuristic has: when it picks the
same action, ``easy_reason`` says which of its rules picked it. It is honest by
construction: it runs the heuristic itself, says nothing when the heuristic would
play something else, and names the rule whose branch the heuristic took (each
explainer below follows its heuristic's branches in the same order).

Pure: no I/O; the sentences are ``Text`` (said in the reader's language by the bot).
"""

from __future__ import annotations

import random

from engine.ai import game_ai
from engine.core import Game, RulesError
from engine.text import T, Text

# Translators: a hint's reason: the suggested move is the only one the rules allow
ONLY_MOVE = T("It is your only legal move.")


def easy_reason(game: Game, seat: int, action: int) -> Text | None:
    """Why the ``easy`` heuristic plays ``action`` for ``seat`` (the seat to act), or None
    when it would play something else or gives no reason (a game without an explainer)."""
    if game.to_act != seat:
        return None
    legal = sorted(game.legal_actions())
    if action not in legal:
        return None
    if len(legal) == 1:
        return ONLY_MOVE
    try:
        ai = game_ai(game.GAME_ID)
        obs = ai.observe(game, seat)
        # The heuristics use no randomness; a fixed rng keeps any future one honest too.
        if ai.easy(obs, legal, random.Random(0)) != action:
            return None
    except (KeyError, RulesError, ValueError):
        return None
    return ai.explain_easy(obs, legal, action)


__all__ = ["easy_reason"]
