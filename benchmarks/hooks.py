"""A game's own benchmark figures, found by its id: ``benchmarks/<game id>.py``.

Such a module may define any of these (each is optional, a missing module too):

* ``engine_extras(cls, players, seconds) -> dict``: added to ``benchmarks engine``;
* ``speed_extras(level) -> dict``: added to ``benchmarks ai-speed``;
* ``strength_extras(plans, a, b) -> dict``: added to ``benchmarks ai-strength``;
* ``AI_PLAYERS``: the table size of the AI benchmarks (default: the registry's);
* ``LARGEST_OPTIONS``: the options of its largest pictures in ``benchmarks images``.
"""

from __future__ import annotations

import importlib
from types import ModuleType
from typing import Any


def game_module(game_id: str) -> ModuleType | None:
    """``benchmarks.<game_id>``, or None when the game has no module of its own."""
    name = f"{__package__}.{game_id}"
    try:
        return importlib.import_module(name)
    except ModuleNotFoundError as error:
        if error.name == name:
            return None
        raise  # the module exists but imports something missing: say so


def hook(game_id: str, name: str) -> Any:
    """Attribute ``name`` of the game's benchmark module, or None."""
    module = game_module(game_id)
    return getattr(module, name, None) if module is not None else None
