"""Pausing a running table by vote, and the quiet hours its slow timers keep.

``PauseState`` is a ``Table`` field group (saved with the snapshot). The rules here
have no front end: the button is ``bot.ui.pause_buttons``, its click's handler
``bot.features.pause``.

**Decisions** (issue #30):

* The voters are the seated people who are here (not away, not left): an AI seat or an
  away player's has no vote. A motion carries with more than half of them (1 of 1,
  2 of 2, 2 of 3, 3 of 4). The same vote pauses a running game and resumes a paused
  one; a vote counts until its motion carries (or the voter is away); pressing again
  withdraws it.
* Paused, nothing moves: no move is accepted (``require_running``, from
  ``Table.check_move``), the bot plays no seat and deals no deal (``Table.automation``
  is None), no turn timer runs and no reminder goes out. What was left of the turn's
  timer is kept (``turn_left``) and given back on resume (through quiet hours on a
  slow table). The menus stay as they are (no new step): they work again on resume.
* A pause lasts at most the table's ``max_pause`` (its server's ``/settings pause``,
  else ``DEFAULT_MAX_PAUSE``): then the game resumes by itself (the timer "resume",
  ``bot.table.timers.next_due``).
"""

from __future__ import annotations

from bot.table import quiet
from bot.table.errors import TableError
from bot.table.pause_state import PAUSE, RESUME
from bot.table.state import Table
from bot.table.status import Status
from engine.text import T

# -- who votes ------------------------------------------------------------------------


def voters(table: Table) -> list[int]:
    """The people who vote: seated, and here (not away, not left)."""
    return [s.user_id for s in table.humans if not s.away and not s.left]


def needed(table: Table) -> int:
    """Votes that carry a motion: more than half of the voters."""
    return len(voters(table)) // 2 + 1


def votes(table: Table) -> int:
    """The votes for the motion under way that count (their voter still votes)."""
    present = set(voters(table))
    return sum(1 for user in table.pause_votes if user in present)


def motion(table: Table) -> str:
    """What a vote now asks: to pause (the game runs) or to resume (it is paused)."""
    return RESUME if table.paused else PAUSE


def offered(table: Table) -> bool:
    """Whether the table shows the Pause (or Resume) button: a game under way."""
    return (table.status == Status.PLAYING and table.game is not None and not table.game.is_over
            and bool(voters(table)))


def check_vote(table: Table, user_id: int, asked: str) -> None:
    """``TableError`` unless ``user_id`` may vote ``asked`` (a motion) now; changes
    nothing."""
    game = table.require_playing()
    seat = table.seat_of(user_id)
    if seat is None:
        raise TableError(T("Only the players seated at this table can vote to pause or "
                           "resume it."))
    if table.seats[seat].away or table.seats[seat].left:
        raise TableError(T("The bot plays your seat while you are away, so you have no "
                           "vote. Press **My hand** to come back first."))
    if game.is_over:
        raise TableError(T("This game is over."))
    if asked != motion(table):
        raise TableError(T("The table has just been paused: the button now votes to "
                           "resume it.") if table.paused else
                         T("The table has just resumed: the button now votes to pause it."))


# -- a vote, and what it carries (each one step: ``Steps.apply``) -----------------------


def vote(table: Table, user_id: int, asked: str, now: float) -> str:
    """``user_id`` votes ``asked`` (or withdraws their vote, pressing again). Returns
    "voted", "withdrawn", "paused" or "resumed"."""
    check_vote(table, user_id, asked)
    if user_id in table.pause_votes:
        table.pause_votes = [u for u in table.pause_votes if u != user_id]
        return "withdrawn"
    table.pause_votes = [*table.pause_votes, user_id]
    if votes(table) < needed(table):
        return "voted"
    if asked == PAUSE:
        pause(table, now)
        return "paused"
    resume(table, now)
    return "resumed"


def pause(table: Table, now: float) -> None:
    """The vote carried: nothing moves until ``resume`` (at the latest ``max_pause`` on)."""
    present = set(voters(table))
    table.paused_by = [u for u in table.pause_votes if u in present]
    table.pause_votes = []
    table.turn_left = quiet.time_left(table, now)
    table.turn_deadline = table.reminder_at = None
    table.paused_until = now + table.max_pause
    table.add_line(T("⏸️ The players voted to pause the game."))


def resume(table: Table, now: float, by_vote: bool = True) -> None:
    """The game goes on: the turn's timer gets back the time it had left."""
    left = table.turn_left
    table.paused_until, table.paused_by, table.pause_votes = None, [], []
    table.turn_left = None
    table.last_activity = now  # (the idle stop and the nudges count from here)
    table.arm_turn_timer(now)  # a fresh timer (none if the bot is to play) ...
    if table.turn_deadline is not None and left is not None:  # ... or what was left of it
        table.turn_deadline = quiet.turn_deadline(table, now, left)
        table.reminder_at = quiet.reminder(table, now)
    table.add_line(T("▶️ The players voted to resume the game.") if by_vote
                   else T("▶️ The pause ran out: the game resumes."))


def resume_due(table: Table, now: float) -> bool:
    """Whether a paused table's longest pause is over."""
    return table.paused_until is not None and now >= table.paused_until
