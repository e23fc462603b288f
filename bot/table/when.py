"""Times as members type them: a server's time zone, quiet hours, a table's scheduled start.

``parse_zone`` reads an IANA zone name (``Europe/Stockholm``, any case; ``UTC``),
``parse_clock`` a time of day (``20:30``, ``8pm``) as minutes after midnight,
``parse_quiet`` quiet hours (``23:00-08:00``), and ``parse_start`` when a scheduled
table starts (``20:30``, ``tomorrow 20:30``, ``fri 20:30``, ``2026-12-05 20:30``, ISO
with an offset) as epoch seconds, in the server's zone. Each refuses anything else
with one sentence for the person who typed it (``WhenError``, raised with a ``Text``:
``locales.say(error)``). No Discord, no I/O: the server settings, the slash commands
and the scheduler share it.
"""

from __future__ import annotations

import functools
import re
from datetime import UTC, date, datetime, time, timedelta, tzinfo
from zoneinfo import ZoneInfo, available_timezones

from engine.text import TN, T

EARLIEST = 120.0  # a scheduled start is at least this many seconds ahead…
LATEST = 30 * 86400.0  # …and at most this many (30 days)
EXAMPLE_ZONE = "`Europe/Stockholm`"  # not for players: a zone's name, as typed
# What the refusals list (in code font: typed as they are, in any language).
START_FORMS = "`20:30`, `tomorrow 20:30`, `fri 20:30`, `2026-12-05 20:30`"
CLOCK_FORMS = "`20:30`, `8pm`"
QUIET_FORMS = "`23:00-08:00`"
_UTC_NAMES = ("utc", "gmt", "z", "zulu")
_CLOCK = re.compile(r"(\d{1,2})(?:[:.](\d{2}))?\s*(?:(am|a\.m\.|pm|p\.m\.))?", re.ASCII)
_QUIET = re.compile(r"(.+?)\s*[-–—]\s*(.+)")
_DATE = re.compile(r"(\d{4})-(\d{2})-(\d{2})(?:t|\s+)(.+)", re.ASCII)
# The day words, in the bot's four languages (a Swede types "fre 20:30" or "imorgon 20:30").
_WEEKDAYS = {name: day for day, names in enumerate((
    ("mon", "monday", "mån", "måndag", "man", "mandag", "пн", "понедельник"),
    ("tue", "tues", "tuesday", "tis", "tisdag", "tir", "tirsdag", "вт", "вторник"),
    ("wed", "wednesday", "ons", "onsdag", "ср", "среда", "среду"),
    ("thu", "thur", "thurs", "thursday", "tor", "torsdag", "чт", "четверг"),
    ("fri", "friday", "fre", "fredag", "пт", "пятница", "пятницу"),
    ("sat", "saturday", "lör", "lördag", "lør", "lørdag", "сб", "суббота", "субботу"),
    ("sun", "sunday", "sön", "söndag", "søn", "søndag", "вс", "воскресенье"))
) for name in names}
_TODAY = ("today", "idag", "сегодня")
_TOMORROW = ("tomorrow", "imorgon", "imorgen", "завтра")
# Two-word day words written as one ("i morgon" → "imorgon").
_JOINED = {"i dag": "idag", "i morgon": "imorgon", "i morgen": "imorgen"}


class WhenError(ValueError):
    """Text that is not a time zone, a time, quiet hours or a start, or a start too soon
    or too far ahead; raised with a ``Text`` for the person who typed it."""


def _typed(text: str) -> str:
    return repr(str(text).strip())


@functools.cache
def _zones() -> dict[str, str]:
    """Every IANA zone name by its lower case."""
    return {name.lower(): name for name in available_timezones()}


def parse_zone(text: str) -> str:
    """The IANA name of a typed time zone, in its proper case (``europe/stockholm`` →
    ``Europe/Stockholm``); ``UTC``, ``GMT`` and ``Z`` are ``UTC``."""
    typed = str(text).strip().lower().replace(" ", "_")
    if typed in _UTC_NAMES:
        return "UTC"
    name = _zones().get(typed) if len(typed) <= 64 else None
    if name is None:
        raise WhenError(T("I do not know the time zone {value}. Write a name like {example} "
                          "or {utc}.", value=_typed(text), example=EXAMPLE_ZONE,
                          utc="`UTC`"))
    return name


def _clock(typed: str) -> int | None:
    """Minutes after midnight for a typed time of day (already lower case), or None."""
    match = _CLOCK.fullmatch(typed)
    if match is None:
        return None
    hour, minute = int(match[1]), int(match[2] or 0)
    if minute > 59:
        return None
    if match[3]:  # 12-hour: 12am is midnight, 12pm noon
        if not 1 <= hour <= 12:
            return None
        hour = hour % 12 + (12 if match[3].startswith("p") else 0)
    elif hour > 23:
        return None
    return hour * 60 + minute


def parse_clock(text: str) -> int:
    """Minutes after midnight for a typed time of day: ``20:30``, ``20.30``, ``8:05``, a
    bare hour ``20``, or 12-hour ``8pm`` / ``8:30 am``. ``24:00`` and later are refused."""
    minutes = _clock(str(text).strip().lower())
    if minutes is None:
        raise WhenError(T("I cannot read {value} as a time of day. Write it like {forms}.",
                          value=_typed(text), forms=CLOCK_FORMS))
    return minutes


def parse_quiet(text: str) -> tuple[int, int]:
    """Quiet hours as (start, end) minutes after midnight: ``23:00-08:00`` (also
    ``23-8``, with spaces, an en dash). They may run over midnight; start != end."""
    match = _QUIET.fullmatch(str(text).strip().lower())
    start = _clock(match[1].strip()) if match else None
    end = _clock(match[2].strip()) if match else None
    if start is None or end is None:
        raise WhenError(T("I cannot read {value} as quiet hours. Write when they start and "
                          "when they end, like {forms}.", value=_typed(text),
                          forms=QUIET_FORMS))
    if start == end:
        raise WhenError(T("Quiet hours {value} start and end at the same time. Write when "
                          "they start and when they end, like {forms}.",
                          value=_typed(text), forms=QUIET_FORMS))
    return start, end


def _local(day: date, minutes: int, zone: tzinfo, text: str) -> float:
    """Epoch seconds of ``minutes`` after midnight on ``day`` in ``zone``. A time the
    clocks skip (summer time begins) is refused; one they pass twice (it ends) is the
    first of the two (fold 0)."""
    naive = datetime.combine(day, time(minutes // 60, minutes % 60))
    aware = naive.replace(tzinfo=zone)
    if aware.astimezone(UTC).astimezone(zone).replace(tzinfo=None) != naive:
        raise WhenError(T("{value} does not exist in {zone}: the clocks skip that time "
                          "when summer time begins. Pick a time an hour later.",
                          value=_typed(text), zone=str(zone)))
    return aware.timestamp()


def _unreadable(text: str) -> WhenError:
    return WhenError(T("I cannot read {value} as a start time. Write a time, a day and a "
                       "time, or a date and a time, like {forms}.", value=_typed(text),
                       forms=START_FORMS))


def _read_start(text: str, zone: tzinfo, now: float) -> float:
    """Epoch seconds of a typed start, not yet checked against the limits."""
    typed = " ".join(str(text).strip().lower().split())
    if len(typed) > 40:
        raise _unreadable(text)
    dated = _DATE.fullmatch(typed)
    if dated is not None:
        try:  # ISO 8601; its own offset (``+01:00``, ``Z``) wins over the server's zone
            stamp: datetime | None = datetime.fromisoformat(typed.upper())
        except ValueError:
            stamp = None
        if stamp is not None and stamp.tzinfo is not None:
            return stamp.timestamp()
        minutes = (stamp.hour * 60 + stamp.minute if stamp is not None
                   else _clock(dated[4].strip()))
        try:
            day = date(int(dated[1]), int(dated[2]), int(dated[3]))
        except ValueError:
            raise _unreadable(text) from None
        if minutes is None:
            raise _unreadable(text)
        return _local(day, minutes, zone, text)
    for two, one in _JOINED.items():
        typed = typed.replace(two + " ", one + " ", 1) if typed.startswith(two + " ") else typed
    word, _, rest = typed.partition(" ")
    word = "today" if word in _TODAY else "tomorrow" if word in _TOMORROW else word
    if word not in ("today", "tomorrow") and word not in _WEEKDAYS:
        word, rest = "", typed
    minutes = _clock(rest)
    if minutes is None:
        raise _unreadable(text)
    today = datetime.fromtimestamp(now, zone).date()
    if word == "today":
        return _local(today, minutes, zone, text)
    if word == "tomorrow":
        return _local(today + timedelta(days=1), minutes, zone, text)
    ahead = (_WEEKDAYS[word] - today.weekday()) % 7 if word else 0
    first = today + timedelta(days=ahead)
    try:
        when = _local(first, minutes, zone, text)
    except WhenError:  # a time the clocks skipped today is no matter once it has passed
        skipped = datetime.combine(first, time(minutes // 60, minutes % 60))
        if skipped > datetime.fromtimestamp(now, zone).replace(tzinfo=None):
            raise
        when = now
    if when <= now:  # passed today: tomorrow, or the same weekday next week
        when = _local(today + timedelta(days=ahead + (7 if word else 1)), minutes, zone,
                      text)
    return when


def parse_start(text: str, zone: str | None, now: float) -> float:
    """Epoch seconds of a scheduled start typed by a member, in ``zone`` (an IANA name;
    None: UTC), ``now`` being epoch seconds.

    ``20:30`` is today if still ahead, else tomorrow; ``today 20:30``, ``tomorrow 20:30``;
    a weekday in English (``fri 20:30``, ``friday 20:30``) is the next one, today if still
    ahead; ``2026-12-05 20:30`` or ISO ``2026-12-05T20:30`` is in ``zone``, unless it has
    its own offset (``+01:00``, ``Z``). ``WhenError`` for anything else, for a time the
    clocks skip, and for a start less than ``EARLIEST`` or more than ``LATEST`` ahead."""
    where = ZoneInfo(parse_zone(zone)) if zone else UTC
    when = _read_start(text, where, now)
    if when <= now:
        raise WhenError(T("{value} has already passed. Write a time still ahead, like "
                          "{example}.", value=_typed(text), example="`tomorrow 20:30`"))
    if when - now < EARLIEST:
        raise WhenError(T("{value} is less than {earliest} from now: too soon to gather "
                          "players. Pick a later time.", value=_typed(text),
                          earliest=TN("{n} minute", "{n} minutes", round(EARLIEST / 60))))
    if when - now > LATEST:
        raise WhenError(T("{value} is more than {latest} ahead. Pick a start within "
                          "{latest}.", value=_typed(text),
                          latest=TN("{n} day", "{n} days", round(LATEST / 86400))))
    return when
