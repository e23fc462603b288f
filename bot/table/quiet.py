"""Quiet hours: a server's nightly stretch when slow turn timers stand still.

``QuietHours`` is a daily period of a server's local wall clock (start and end in
minutes after midnight, possibly over midnight, in an IANA zone). Each local day has
one quiet period: from the first moment the local clock reads its start to the first
moment it reads its end (a time the clocks skip when summer time begins: the moment
they skip it), so a night the clocks change is an hour longer or shorter, as the wall
clock says. ``deadline`` counts only the time outside those periods (*running* time).

A **slow** table (a turn timer of an hour or more, ``SLOW``) keeps the quiet hours:
its turn runs out after ``turn_timer`` seconds of running time, and its reminders
come at the same points of that running time (never inside quiet hours). A faster
game is played by people at the table just now: its timers are left alone. No I/O,
no Discord: tested with plain numbers.
"""

from __future__ import annotations

import functools
import math
from collections.abc import Iterator
from dataclasses import dataclass
from datetime import UTC, date, datetime, time, timedelta, tzinfo
from typing import Protocol
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

from bot.table.durations import next_reminder, reminder_offsets

SLOW = 3600.0  # a turn timer this long or longer keeps the quiet hours (seconds)
DAY_MINUTES = 24 * 60
# A reminder counts as sent once this much running time of it has passed: the running
# time of a turn is computed again from its deadline, so it may differ by a rounding.
_SLACK = 1.0


@functools.cache
def _zone(name: str) -> tzinfo:
    try:
        return ZoneInfo(name)
    except (ZoneInfoNotFoundError, ValueError):  # a zone the system no longer knows
        return UTC


def _instant(day: date, minute: int, zone: tzinfo) -> float:
    """The first moment of ``day`` when the clock in ``zone`` reads ``minute`` (after
    midnight); a time the clocks skip: the moment they skip it."""
    naive = datetime.combine(day, time(minute // 60, minute % 60))
    first = naive.replace(tzinfo=zone).timestamp()
    if datetime.fromtimestamp(first, zone).replace(tzinfo=None) == naive:
        return first
    # Skipped (summer time begins): fold 1 reads it with the offset after the jump, an
    # earlier moment; the jump lies between. Found to the second (jumps are whole seconds).
    low, high = math.floor(naive.replace(tzinfo=zone, fold=1).timestamp()), math.ceil(first)
    while high - low > 1:
        middle = (low + high) // 2
        if datetime.fromtimestamp(middle, zone).replace(tzinfo=None) > naive:
            high = middle
        else:
            low = middle
    return float(high)


@dataclass(frozen=True)
class QuietHours:
    start: int  # minutes after local midnight
    end: int  # minutes after local midnight (before ``start``: over midnight)
    zone: str = "UTC"  # an IANA name

    def __post_init__(self) -> None:
        if not (0 <= self.start < DAY_MINUTES and 0 <= self.end < DAY_MINUTES
                and self.start != self.end):
            raise ValueError(f"not quiet hours: {self.start}-{self.end}")

    def periods(self, t: float) -> Iterator[tuple[float, float]]:
        """The quiet periods (start, end) that end after ``t``, in order, for ever."""
        zone = _zone(self.zone)
        day = datetime.fromtimestamp(t, zone).date() - timedelta(days=1)  # (over midnight)
        over = 1 if self.end < self.start else 0
        while True:
            begins = _instant(day, self.start, zone)
            ends = _instant(day + timedelta(days=over), self.end, zone)
            if ends > max(begins, t):  # (a period the clocks skipped entirely: none)
                yield begins, ends
            day += timedelta(days=1)

    def _period(self, t: float) -> tuple[float, float]:
        return next(self.periods(t))

    def contains(self, t: float) -> bool:
        """Whether ``t`` (epoch seconds) is in quiet hours."""
        begins, _ = self._period(t)
        return begins <= t

    def next_end(self, t: float) -> float:
        """The end of the quiet period ``t`` is in (``t`` itself outside quiet hours)."""
        begins, ends = self._period(t)
        return ends if begins <= t else t

    def running(self, start: float, stop: float) -> float:
        """The running (not quiet) seconds between ``start`` and ``stop``."""
        if stop <= start:
            return 0.0
        quiet = 0.0
        for begins, ends in self.periods(start):
            if begins >= stop:
                break
            quiet += min(ends, stop) - max(begins, start)
        return stop - start - quiet

    def deadline(self, start: float, seconds: float) -> float:
        """The first moment when ``seconds`` of running time have passed after ``start``."""
        if seconds <= 0:
            return start
        t, left = start, seconds
        for begins, ends in self.periods(start):
            if begins > t:  # running from t until this period begins
                if begins - t >= left:
                    break
                left -= begins - t
            t = max(t, ends)
        return t + left


class TurnClock(Protocol):
    """What the quiet hours' rules read of a table (``Table`` is one)."""

    turn_timer: float
    turn_deadline: float | None
    reminder_at: float | None
    quiet_hours: list[int]
    quiet_zone: str


def shown(start: int, end: int) -> str:
    """Quiet hours as people read them: ``23:00–08:00``."""
    return f"{start // 60:02d}:{start % 60:02d}–{end // 60:02d}:{end % 60:02d}"


def of(table: TurnClock) -> QuietHours | None:
    """The table's quiet hours (copied from its server's settings), or None."""
    if len(table.quiet_hours) != 2:
        return None
    start, end = table.quiet_hours
    try:
        return QuietHours(start, end, table.quiet_zone)
    except ValueError:
        return None


def held(table: TurnClock) -> QuietHours | None:
    """The quiet hours the table's turn timer keeps: a slow table's, else None."""
    return of(table) if table.turn_timer >= SLOW else None


# -- a turn's timer through quiet hours (``Table`` calls these) ---------------------------


def turn_deadline(table: TurnClock, now: float, seconds: float) -> float:
    """When a turn with ``seconds`` of its timer left from ``now`` runs out."""
    quiet = held(table)
    return quiet.deadline(now, seconds) if quiet is not None else now + seconds


def time_left(table: TurnClock, now: float) -> float | None:
    """The running seconds left of the turn's timer (None: no timer runs)."""
    if table.turn_deadline is None:
        return None
    quiet = held(table)
    if quiet is None:
        return max(0.0, table.turn_deadline - now)
    return quiet.running(now, table.turn_deadline)


def reminder(table: TurnClock, now: float) -> float | None:
    """The turn's next reminder after ``now``: at the same points of its running time as
    without quiet hours (``bot.table.durations.reminder_offsets``), never in them."""
    timer, deadline = table.turn_timer, table.turn_deadline
    quiet = held(table)
    if quiet is None or deadline is None:
        return next_reminder(timer, deadline, now)
    passed = timer - quiet.running(now, deadline)
    offset = next((o for o in reminder_offsets(timer) if o > passed + _SLACK), None)
    if offset is None:
        return None
    at = quiet.deadline(now, offset - passed)
    return quiet.next_end(at)  # (at a quiet period's first moment: sent as it ends)
