"""A scene (``bot.images.scene.Scene``) as the JSON the web table draws.

The page gets the same game-neutral scene the bot draws as a PNG: its fields by their
own names (``docs/web-protocol.md``, "A snapshot"), tuples as lists, so a fifth game
or a new scene field needs no code here.
"""

from __future__ import annotations

import dataclasses
from typing import Any

from bot.images.scene import Scene


def scene_json(scene: Scene) -> dict[str, Any]:
    """``scene`` as a JSON-able dict: each dataclass field by its name, tuples as lists."""
    plain = _plain(scene)
    assert isinstance(plain, dict)
    return plain


def _plain(value: Any) -> Any:
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return {f.name: _plain(getattr(value, f.name)) for f in dataclasses.fields(value)}
    if isinstance(value, tuple | list):
        return [_plain(item) for item in value]
    return value
