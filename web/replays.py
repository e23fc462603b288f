"""A finished game's record as the web table's replay (``docs/web-protocol.md``, "Replays").

The stepping itself is ``bot.views.replay`` (shared with Discord's Replay button): the
record checked by the engine's own replay first (a damaged one raises
``engine.records.ReplayError`` at its deal and step), then played again, each step a
frame. Here each frame becomes JSON: the public table's scene, every seat's hand scene
face up (built from that seat's view with no legal moves: hands are shown, nothing is
playable), a line saying what happened, the deal it belongs to and, where a deal ended,
its result.

The scenes come from each game's views (``SceneViews``: ``bot.views``' discord-free
views), passed in by the caller: this module imports no Discord.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import locales
from bot.views.replay import (
    MAX_STEPS,
    Moment,
    SceneViews,
    TooLong,
    action_count,
    hand_scenes,
    replay_steps,
)
from engine.core import Game
from web.scenes import scene_json

__all__ = ["MAX_STEPS", "SceneViews", "TooLong", "action_count", "replay_frames"]


def replay_frames(record: dict[str, Any], views: Mapping[str, SceneViews],
                  names: list[str] | None, language: str,
                  strings: Mapping[str, str] | None = None) -> dict[str, Any]:
    """The replay JSON of ``record``: ``game``, ``title``, ``players`` (names), ``language``,
    ``frames``, ``deals`` (each deal's first frame) and ``strings`` (the page's own words,
    given by the caller).

    Names are the record's ``names`` when it holds one per seat, else ``names``; a seat
    without one is "Player N". Every word is in ``language``. Raises ``TooLong`` (a
    ``ValueError``) for a record of more than ``MAX_STEPS`` actions, ``ReplayError`` for
    a damaged record and ``KeyError`` for a game that has no view in ``views``."""

    def frame(game: Game, seats: Sequence[str], moment: Moment) -> dict[str, Any]:
        view = views[game.GAME_ID]
        return {
            "scene": scene_json(view.table_scene(game.public_view(), seats)),
            "hands": [scene_json(hand) for hand in hand_scenes(view, game, seats)],
            "line": moment.line,
            "deal": moment.deal,
            "result": moment.result,
        }

    replayed = replay_steps(record, names, language, frame)
    with locales.speaking(language):
        title = views[replayed.game].title
    return {
        "game": replayed.game,
        "title": title,
        "players": replayed.players,
        "language": replayed.language,
        "frames": replayed.frames,
        "deals": replayed.deals,
        "strings": dict(strings or {}),
    }
