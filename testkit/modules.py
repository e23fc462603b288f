"""A game's optional module in a package (``<package>.<game id>``) and its attributes:
how the benchmarks and the testkit find what each game adds, without naming games."""

from __future__ import annotations

import importlib
from types import ModuleType
from typing import Any


def optional_module(package: str, game_id: str) -> ModuleType | None:
    """``<package>.<game_id>``, or None when the game has no module there."""
    name = f"{package}.{game_id}"
    try:
        return importlib.import_module(name)
    except ModuleNotFoundError as error:
        if error.name == name:
            return None
        raise  # the module exists but imports something missing: say so


def optional_attribute(package: str, game_id: str, name: str) -> Any:
    """Attribute ``name`` of the game's module in ``package``, or None."""
    module = optional_module(package, game_id)
    return getattr(module, name, None) if module is not None else None
