"""A game's own benchmark figures, found by its id: ``benchmarks/<game id>.py``.

Such a module may define any of these (each is optional, a missing module too):

* ``engine_extras(cls, players, seconds) -> dict``: added to ``benchmarks engine``;
* ``speed_extras(level) -> dict``: added to ``benchmarks ai-speed``;
* ``strength_extras(plans, a, b) -> dict``: added to ``benchmarks ai-strength``;
* ``AI_PLAYERS``: the table size of the AI benchmarks (default: the registry's);
* ``LARGEST_OPTIONS``: the options of its largest pictures in ``benchmarks images``.
"""

from __future__ import annotations

from types import ModuleType
from typing import Any

from testkit.modules import optional_attribute, optional_module


def game_module(game_id: str) -> ModuleType | None:
    """The game's own benchmark module, or None when it has none."""
    return optional_module("benchmarks", game_id)


def hook(game_id: str, name: str) -> Any:
    """Attribute ``name`` of the game's benchmark module, or None."""
    return optional_attribute("benchmarks", game_id, name)
