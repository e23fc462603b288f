"""Durations as people type and read them: a turn timer of ``off``, ``90``, ``30m``, ``2h``, ``1d``.

``parse_duration`` reads what someone typed (a ``/<game> start`` option, a server's
default timer) as seconds, ``0`` for off, and refuses anything else with one
sentence listing the accepted forms (``DurationError``, raised with a ``Text``:
``locales.say(error)``). ``describe_duration`` says a number of seconds in words
in the current language (``2 hours``, ``1 day``), with the catalogue's plural
forms. No Discord here: the server settings and the slash commands share it.
"""

from __future__ import annotations

import re

from engine.text import TN, T
from locales import _, _n

MINUTE, HOUR, DAY = 60, 3600, 86400
SHORTEST, LONGEST = MINUTE, 14 * DAY  # a turn timer's bounds (seconds); 0 is off
OFF_WORDS = ("off", "none", "no", "0")
_UNITS = {"s": 1, "sec": 1, "secs": 1, "second": 1, "seconds": 1,
          "m": MINUTE, "min": MINUTE, "mins": MINUTE, "minute": MINUTE, "minutes": MINUTE,
          "h": HOUR, "hr": HOUR, "hrs": HOUR, "hour": HOUR, "hours": HOUR,
          "d": DAY, "day": DAY, "days": DAY}
_TERM = re.compile(r"(\d{1,6}(?:[.,]\d{1,3})?)\s*([a-z]+)")  # a number and its unit
# What the refusals list (in code font: typed as they are, in any language).
FORMS = "`off`, `90`, `30m`, `2h`, `1d`"


class DurationError(ValueError):
    """Text that is not a duration, or one out of bounds; raised with a ``Text`` for the
    person who typed it."""


def parse_duration(text: str, shortest: int = SHORTEST, longest: int = LONGEST) -> int:
    """Seconds for a typed duration, 0 for off.

    ``off`` (also ``none``, ``no``, ``0``); a bare number is minutes (``90``); a number and
    a unit ``m``/``h``/``d`` (or ``min``, ``hours``, ``days``…; ``s`` too), several added up
    (``1h30m``, ``1d 12h``); a decimal point is allowed (``1.5h``). ``DurationError``
    for anything else, and outside ``shortest``…``longest`` (1 minute to 14 days)."""
    typed = str(text).strip().lower()
    if typed in OFF_WORDS:
        return 0
    if typed.isascii() and typed.isdigit() and len(typed) <= 6:
        typed += "m"  # a bare number: minutes
    terms = _TERM.findall(typed) if len(typed) <= 40 else []
    if (not terms or _TERM.sub("", typed).strip(" ,+")
            or any(unit not in _UNITS for _, unit in terms)):
        raise DurationError(T("I cannot read {value} as a time. Write off, or a number of "
                              "minutes, hours or days: {forms}.",
                              value=repr(str(text).strip()), forms=FORMS))
    seconds = round(sum(float(number.replace(",", ".")) * _UNITS[unit]
                        for number, unit in terms))
    if not shortest <= seconds <= longest:
        raise DurationError(T("A turn timer must be between {shortest} and {longest}, or "
                              "off.", shortest=TN("{n} minute", "{n} minutes", 1),
                              longest=TN("{n} day", "{n} days", 14)))
    return seconds


def describe_duration(seconds: float) -> str:
    """``seconds`` in words in the current language: the largest unit that measures it
    exactly (``90 minutes``, ``36 hours``, ``2 days``); ``off`` for 0 or less."""
    whole = round(seconds)
    if seconds <= 0:
        # Translators: a turn timer that is switched off
        return _("off")
    if whole != seconds or whole % MINUTE:
        return _n("{n} second", "{n} seconds", whole)
    if whole % DAY == 0:
        return _n("{n} day", "{n} days", whole // DAY)
    if whole % HOUR == 0:
        return _n("{n} hour", "{n} hours", whole // HOUR)
    return _n("{n} minute", "{n} minutes", whole // MINUTE)


# ------------------------------------------------------------------------ reminders

LAST_CALL = 3600  # the late reminder comes when 10% of the turn, at most this, is left
REMINDER_GAP = 6 * HOUR  # never two reminders of a turn closer together than this


def reminder_offsets(timer: float) -> list[float]:
    """When a turn of ``timer`` seconds reminds its player, in seconds from its start.

    A timer of an hour or less: once, at half time. A longer one: also when 10% of it
    (at most an hour) is left — unless that comes less than 6 hours after the first,
    so no turn reminds more than once in 6 hours (a 2-hour timer reminds once, a day's
    timer at 12 hours and at 23 hours). No timer (0): never."""
    if timer <= 0:
        return []
    offsets = [timer / 2]
    if timer > HOUR:
        late = timer - min(timer / 10, LAST_CALL)
        if late - offsets[-1] >= REMINDER_GAP:
            offsets.append(late)
    return offsets


def next_reminder(timer: float, deadline: float | None, now: float) -> float | None:
    """The turn's next reminder after ``now`` (the turn ends at ``deadline``), or None."""
    if deadline is None:
        return None
    start = deadline - timer
    return next((start + offset for offset in reminder_offsets(timer)
                 if start + offset > now), None)
