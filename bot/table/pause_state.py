"""A paused table's part of its state, and its turn timer through a pause and quiet hours.

``PauseState`` is a ``Table`` field group (saved with the snapshot); ``arm_turn`` and
``remind_again`` are what ``Table.arm_turn_timer`` and ``remind_later`` call. The vote's
rules are ``bot.table.pause``; kept apart so that ``state.py`` imports these without
the rules, which import ``Table``.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Protocol

from bot.table import quiet
from bot.table.errors import TableError
from engine.text import T

DEFAULT_MAX_PAUSE = 86400.0  # a day: the longest pause where the server set none
PAUSE, RESUME = "pause", "resume"  # the two motions

PAUSED = T("The table is paused: nobody can play until it resumes. To play on, vote "
           "**Resume** on the table.")


@dataclass(kw_only=True)
class PauseState:
    # The server's quiet hours at the table's opening ([start, end] minutes after midnight
    # in ``quiet_zone``; []: none) and its longest pause (seconds): bot.actions.commands.
    quiet_hours: list[int] = field(default_factory=list)
    quiet_zone: str = "UTC"
    max_pause: float = DEFAULT_MAX_PAUSE
    # The vote under way (to pause a running game, to resume a paused one): the voters in
    # the order they voted. Replaced, never changed in place (clones share it).
    pause_votes: list[int] = field(default_factory=list)
    # Paused: when the game resumes by itself, who voted the pause, and the running
    # seconds the turn's timer had left (None: none ran).
    paused_until: float | None = None
    paused_by: list[int] = field(default_factory=list)
    turn_left: float | None = None

    @property
    def paused(self) -> bool:
        return self.paused_until is not None

    def require_running(self) -> None:
        """``TableError`` while the table is paused (a move is refused)."""
        if self.paused_until is not None:
            raise TableError(PAUSED)


class PausableClock(quiet.TurnClock, Protocol):
    """What the turn timer's rules read and set of a table (``Table`` is one)."""

    turn_left: float | None

    @property
    def paused(self) -> bool: ...


# -- the turn's timer (``Table.arm_turn_timer`` and ``remind_later`` call these) ------------


def arm_turn(table: PausableClock, now: float, waits: bool) -> None:
    """A fresh turn timer when ``waits`` (a person must act), through quiet hours on a
    slow table; else none. Paused: none runs, and a fresh one waits for the resume."""
    if table.paused:
        table.turn_left = None  # (a person back from away: the resume arms a fresh one)
        table.turn_deadline = table.reminder_at = None
    elif waits and table.turn_timer > 0:
        table.turn_deadline = quiet.turn_deadline(table, now, table.turn_timer)
        table.reminder_at = quiet.reminder(table, now)
    else:
        table.turn_deadline = table.reminder_at = None


def remind_again(table: PausableClock, now: float) -> None:
    """A reminder was sent: the turn's next one, if any."""
    table.reminder_at = quiet.reminder(table, now)
