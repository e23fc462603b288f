"""The rules of the Nudge button, without any front end: who may nudge whom, and when.

Any seated player but the one to act may nudge, once the player to act has been
silent for a while (``silence_needed``), at most once per ``nudge_gap`` per table.
The time of the last nudge is ``Table.nudged_at`` (saved without a new step). The
click's handler is ``bot.features.nudges``; the button ``bot.ui``'s.
"""

from __future__ import annotations

from collections.abc import Callable

from bot.table.durations import DAY, MINUTE
from bot.table.errors import TableError
from bot.table.state import Table
from engine.text import T

SILENCE_WITHOUT_TIMER = 5 * MINUTE
GAP, SLOW_GAP = 10 * MINUTE, 60 * MINUTE


def silence_needed(turn_timer: float) -> float:
    """How long the player to act must have been silent before a nudge (seconds)."""
    return SILENCE_WITHOUT_TIMER if turn_timer <= 0 else max(float(MINUTE), turn_timer / 4)


def nudge_gap(turn_timer: float) -> float:
    """The least time between two nudges at a table (seconds)."""
    return SLOW_GAP if turn_timer > DAY else GAP


def waiting_for(table: Table) -> int | None:
    """The seat of the person the table waits for now, or None (the bot plays)."""
    seat = table.to_act
    return seat if seat is not None and table.automation() is None and not table.paused else None


def check_nudge(table: Table, user_id: int, now: float, when: Callable[[float], str]) -> int:
    """The seat a nudge by ``user_id`` reaches now, or ``TableError`` with the reason;
    changes nothing. ``when`` shows a moment to the reader (a front end's clock text)."""
    table.require_playing()
    table.seated(user_id)
    table.require_running()  # (paused: nobody is waited for, bot.table.pause)
    seat = waiting_for(table)
    if seat is None:
        raise TableError(T("Nobody is being waited for just now: the bot is playing."))
    player = table.seats[seat]
    if player.user_id == user_id:
        raise TableError(T("It is your own turn: there is nobody to nudge but you."))
    ready = table.last_activity + silence_needed(table.turn_timer)
    if now < ready:
        raise TableError(T("{player} has only just got the turn. You can nudge them {when}.",
                           player=player.name_text, when=when(ready)))
    if table.nudged_at is not None:
        again = table.nudged_at + nudge_gap(table.turn_timer)
        if now < again:
            raise TableError(T("This table had a nudge a short while ago. The next one can "
                               "be sent {when}.", when=when(again)))
    return seat
