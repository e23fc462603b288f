"""The words of a table's life: its status, and what the bot must do itself.

Both are ``StrEnum``s: stored, compared and logged as their plain strings.
"""

from __future__ import annotations

from enum import StrEnum


class Status(StrEnum):
    """Where a table is in its life (stored as the plain string)."""

    LOBBY = "lobby"
    PLAYING = "playing"
    FINISHED = "finished"
    STOPPED = "stopped"


class Automation(StrEnum):
    """What the bot must do itself at a table (``Table.automation``)."""

    FINISH = "finish"  # the game is over: results, record, close
    DEAL = "deal"  # deal the next deal
    AUTO = "auto"  # a step the rules play by themselves
    ABANDON = "abandon"  # every person is away: stop the table
    FORCED = "forced"  # the one legal action is to pass
    AI = "ai"  # an AI seat is to act
    AWAY = "away"  # an away player is to act: the bot plays for them
