"""Pictures of the table and of a hand, drawn with Pillow from a ``Scene``.

A game's UI builds the scene (``bot.images.scene``, plain data, no Pillow); this
package draws it: ``render(scene) -> bytes`` (PNG, 800 px wide) on the caller's
thread. The bot draws through a ``Painter`` (``bot.images.painter``) instead:
``await painter.render(scene)``, in worker threads, so the event loop never waits for
Pillow. Pillow is only imported when a picture is drawn, so the rest of the bot loads
without it.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from bot.images.painter import Painter
from bot.images.scene import Card, Scene, Seat, Zone

if TYPE_CHECKING:
    from bot.images.draw import Format

__all__ = ["Card", "Painter", "Scene", "Seat", "Zone", "render", "size_of"]


def render(scene: Scene, fmt: Format = "png", cache: bool = True) -> bytes:
    """The scene as image bytes (PNG by default), cached by scene."""
    from bot.images import draw

    return draw.render(scene, fmt, cache)


def size_of(scene: Scene) -> tuple[int, int]:
    """The (width, height) in pixels the scene's image has."""
    from bot.images import draw

    return draw.size_of(scene)
