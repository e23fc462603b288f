"""Bringing people to a table: when it starts, whose seats are kept, who was called.

``Gathering`` holds the lobby's part of a table's state (a ``Table`` field group,
saved with the snapshot like every plain field): a scheduled table's start time and
reminders, the seats kept for invited members, whether only they may join, and
whether the server's role was called. The rules over these fields are here too; no
I/O, so they are tested with plain numbers.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Protocol

from bot.table.errors import TableError
from bot.table.seats import Seat
from engine.text import TN, T, Text

# A scheduled table reminds its players this long before the start (seconds), earliest
# first; the lobby accepts a Start from the first reminder on.
REMINDERS = (3600.0, 600.0)


@dataclass(kw_only=True)
class Gathering:
    # A scheduled table (``/<game> start at:``): when it starts (epoch seconds; None: not
    # scheduled, or started), whether empty seats then get AI players, and how many of
    # ``REMINDERS`` were sent (or skipped: past at scheduling, or in quiet hours).
    starts_at: float | None = None
    fill_ai: bool = False
    reminders_done: int = 0
    # The members seats are kept for (``players:`` at the start, the host's invitations),
    # and whether only they (and the host) may join. Replaced, never changed in place.
    reserved: list[int] = field(default_factory=list)
    invite_only: bool = False
    # The server's call role was pinged for this lobby (once per lobby).
    called: bool = False
    # Who left this scheduled lobby: an Interested on its event no longer seats them.
    declined: list[int] = field(default_factory=list)

    # -- a scheduled table ----------------------------------------------------------

    def schedule(self, starts_at: float, now: float) -> None:
        """Start at ``starts_at``; the reminders already past are not sent."""
        self.starts_at = starts_at
        self.reminders_done = sum(1 for ahead in REMINDERS if starts_at - ahead <= now)

    def gathering_due(self) -> tuple[float, str] | None:
        """A scheduled lobby's next moment: a reminder ("call") or the start ("begin")."""
        if self.starts_at is None:
            return None
        if self.reminders_done < len(REMINDERS):
            return self.starts_at - REMINDERS[self.reminders_done], "call"
        return self.starts_at, "begin"

    def may_start_early(self, now: float) -> bool:
        """A scheduled lobby may be started by its host from the first reminder on."""
        return self.starts_at is None or now >= self.starts_at - REMINDERS[0]

    def called_done(self) -> None:
        """The reminder due was sent (or skipped): the next one is due."""
        self.reminders_done += 1


# -- who may join (the rules over the seats: ``Table`` calls them) ----------------------


class Seating(Protocol):
    """What the rules of who may join read of a table (``Table`` is one)."""

    host_id: int
    seats: list[Seat]
    reserved: list[int]
    removed: list[int]
    invite_only: bool

    @property
    def seat_range(self) -> tuple[int, int]: ...

    def seat_of(self, user_id: int) -> int | None: ...


def kept_free(table: Seating) -> list[int]:
    """The invited members who have not taken their kept seat (yet); one the host removed
    keeps none."""
    return [u for u in table.reserved if table.seat_of(u) is None and u not in table.removed]


def _kept_refusal(table: Seating) -> Text | None:
    free = table.seat_range[1] - len(table.seats)
    if 0 < free <= len(kept_free(table)):
        return TN("The free seat is kept for an invited player.",
                  "The free seats are kept for invited players.", free)
    return None


def join_refusal(table: Seating, user_id: int) -> Text | None:
    """Why ``user_id`` may not take a seat, for the invitations (None: they may). The
    host and an invited member always may (while a seat is free)."""
    if user_id == table.host_id or user_id in table.reserved:
        return None
    if table.invite_only:
        return T("This table is by invitation only: ask its host to invite you.")
    return _kept_refusal(table)


def ai_refusal(table: Seating) -> Text | None:
    """Why the host may not seat one more AI player: the free seats are kept."""
    return _kept_refusal(table)


def invite(table: Seating, user_ids: list[int]) -> list[int]:
    """Keep seats for ``user_ids`` (the host's invitation); returns those newly invited.
    ``TableError`` if there are not seats enough to keep."""
    new = [u for u in dict.fromkeys(user_ids)
           if u not in table.reserved and u != table.host_id and table.seat_of(u) is None
           and u not in table.removed]
    if not new:
        return []
    free = table.seat_range[1] - len(table.seats) - len(kept_free(table))
    if len(new) > free:
        raise TableError(TN("Only {n} seat is free to keep.",
                            "Only {n} seats are free to keep.", max(free, 0)))
    table.reserved = [*table.reserved, *new]
    return new


def needed(table: Seating) -> int:
    """How many more players the game needs to start (0: enough are seated)."""
    return max(0, table.seat_range[0] - len(table.seats))
