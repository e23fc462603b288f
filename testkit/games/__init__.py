"""What the tests, the soak and the load run know of each game, found by its id.

From the registry and the game's cog: its UI (``ui_class``), its slash command
(``command``), whether its deals follow as a series (``plays_series``), its seats
(``seats``), the cogs a test bot loads for some games (``extensions``).

A game's own testkit data is ``testkit/games/<game id>.py`` (the module and each name
optional), read by ``hook``:

* ``SOAK_OPTIONS``: the options the kill soak opens its tables with (as people play);
* ``SOAK_SHORT_OPTIONS``: those of quick games, for the soak's test.
"""

from __future__ import annotations

import functools
import importlib
from collections.abc import Iterable
from types import ModuleType
from typing import Any

from bot.ui.game_ui import GameUI
from engine.registry import spec
from testkit.modules import optional_attribute, optional_module


@functools.cache
def ui_class(game_id: str) -> type[GameUI]:
    """The game's UI class, found in the cog module its registry entry names."""
    cog = spec(game_id).cog
    if cog is None:
        raise LookupError(f"{game_id} has no cog")
    module = importlib.import_module(cog)
    for value in vars(module).values():
        if isinstance(value, type) and issubclass(value, GameUI) and value is not GameUI \
                and game_id == value.GAME_ID:
            return value
    raise LookupError(f"no GameUI for {game_id} in {cog}")


def command(game_id: str) -> str:
    """The game's slash command group (``californiajack``), from its cog's UI."""
    return ui_class(game_id).COMMAND


def plays_series(game_id: str) -> bool:
    """Whether each table plays one deal and the next follow as a series (End series)."""
    return ui_class(game_id).SERIES


def seats(game_id: str) -> tuple[int, int]:
    """The fewest and the most players of a table."""
    game = spec(game_id)
    return game.min_players, game.max_players


def extensions(game_ids: Iterable[str]) -> dict[str, str | None]:
    """The cogs a test bot loads for these games (extension → game id; None: not a game):
    help, then each game's cog."""
    return {"cogs.help": None, **{str(spec(g).cog): g for g in game_ids}}


def game_module(game_id: str) -> ModuleType | None:
    """The game's own testkit module, or None when it has none."""
    return optional_module(__name__, game_id)


def hook(game_id: str, name: str) -> Any:
    """Attribute ``name`` of the game's testkit module, or None."""
    return optional_attribute(__name__, game_id, name)
