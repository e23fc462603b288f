"""Game ids → engine classes. Adding a game means one line here and one module."""

from __future__ import annotations

import importlib

from engine.core import Game

# Imported lazily so that a tool (replay, benchmarks) only loads the game it needs.
_GAMES = {
    "jazz": ("engine.jazz", "Jazz"),
    "jacko": ("engine.jacko", "Jacko"),
    "california_jack": ("engine.california_jack", "CaliforniaJack"),
    "attackjack": ("engine.attackjack", "AttackJack"),
}

GAME_IDS = tuple(_GAMES)


def game_class(game_id: str) -> type[Game]:
    """The engine class of a game id; KeyError for an unknown id."""
    module_name, class_name = _GAMES[game_id]
    return getattr(importlib.import_module(module_name), class_name)


def available_games() -> list[str]:
    """The game ids whose engine is present in this build."""
    found = []
    for game_id in _GAMES:
        try:
            game_class(game_id)
        except (ImportError, AttributeError):
            continue
        found.append(game_id)
    return found
