"""Bringing people to a table: when it starts, whose seats are kept, who was called.

``Gathering`` holds the lobby's part of a table's state (a ``Table`` field group,
saved with the snapshot like every plain field): a scheduled table's start time and
reminders, the seats kept for invited members, whether only they may join, and
whether the server's role was called. The rules over these fields are here too; no
I/O, so they are tested with plain numbers.
"""

from __future__ import annotations

from dataclasses import dataclass, field

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
