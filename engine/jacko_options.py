"""Jacko's options (``docs/rules/jacko.md``): the target, and whether hands are open."""

from __future__ import annotations

from dataclasses import dataclass

from engine.core import Options, option
from engine.text import T


@dataclass(frozen=True)
class JackoOptions(Options):
    # Bounds: a game usually ends in its third deal at 121; 500 is a long evening.
    target: int = option(121, T("Points that win the game."),
                         # Translators: an option's short name: the points that win, "Target: 121"
                         label=T("Target"), minimum=1, maximum=500,
                         suggested=(31, 61, 91, 121, 181, 241))
    open_hands: bool = option(True, T("Show each player the cards the opponent still holds."),
                              # Translators: an option's short name (Jacko): the opponent's
                              # cards shown
                              label=T("Open hands"))
