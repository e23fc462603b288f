"""Every game's presentation without Discord: its pictures' scenes and its texts.

A game's view is the ``GameView`` subclass in ``bot/views/<game id>.py`` whose
``GAME_ID`` is that id; its cog's UI (``bot.ui.game_ui.GameUI``) adds Discord's embeds.
``views()`` finds them for every game of ``engine.registry`` by that convention, so no
module but the game's own names a game, and a front end without Discord (``web/``) gets
every game's view without importing discord: nothing in this package imports it,
directly or through another module. A registered game without such a module (a test's
toy game) simply has no view here. Beside the games' modules, ``replay`` steps through a
finished game's record for every front end (the web table's replay, Discord's Replay).
"""

from __future__ import annotations

import importlib

from bot.views.game_view import GameView
from engine.registry import spec, specs

__all__ = ["GameView", "view_class", "views"]


def view_class(game_id: str) -> type[GameView] | None:
    """The view class of a registered game id, from its module in this package; None when
    the game has no such module. KeyError for an unknown id."""
    spec(game_id)  # KeyError for a game nobody registered
    name = f"{__name__}.{game_id}"
    try:
        module = importlib.import_module(name)
    except ModuleNotFoundError as missing:
        if missing.name == name:
            return None
        raise  # the module is there but one of its imports is not: a real error
    for value in vars(module).values():
        if isinstance(value, type) and issubclass(value, GameView) \
                and value.__module__ == name and getattr(value, "GAME_ID", None) == game_id:
            return value
    return None


def views() -> dict[str, GameView]:
    """A view of every registered game whose engine is present and that has a view, by
    game id, in the registry's order."""
    found = {}
    for game in specs():
        cls = view_class(game.id) if game.is_available() else None
        if cls is not None:
            found[game.id] = cls()
    return found
