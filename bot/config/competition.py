"""Seasons, time windows and role rewards as data: what a server chose and the rules that
follow from it, without Discord (``docs/competition.md``).

* A **season** is a run of ``days`` days from a first day (``Schedule``): the schedule's
  first season, numbered ``first`` (1 unless the schedule changed), runs from ``start``,
  and season N from ``start + (N - first) · days`` to ``start + (N - first + 1) · days``,
  each boundary at midnight in the server's time zone (``/settings timezone``; UTC
  without one). A game counts in the season it ended in (``season_at``). Seasons are
  numbered onwards for good: a new schedule's first season takes the number after every
  one used before (``next_first``), so it never lands on an old season's ratings or post.
* The **rolling windows** of ``/leaderboard period`` (``WINDOWS``) end now: the games that
  ended in the last 7 or 30 days.
* A **tier** (``Tier``) is a role for a least rating, of one game or of every game. The
  tiers of one game form a ladder, and those of every game another: a player holds at most
  one role of each ladder, the highest whose least rating they reach (``tier_roles``) —
  in the game's ladder by their rating in that game on the server, in the every-game
  ladder by their best rating of any game there.
"""

from __future__ import annotations

import re
import zoneinfo
from collections.abc import Iterable
from dataclasses import dataclass
from datetime import UTC, date, datetime, time, timedelta, tzinfo

from bot.table.durations import OFF_WORDS
from engine.text import T

WINDOWS = {"week": 7, "month": 30}
"""The rolling windows of ``/leaderboard period``, in days."""
PERIODS = ("week", "month", "season", "all")
MAX_SEASON_DAYS = 365
MAX_TIERS = 20  # the tiers a server may keep (every game's together)
MAX_TIER_RATING = 100.0  # an ordinal above this is out of reach of any player
_DAYS = re.compile(r"(\d{1,4})\s*(d|days?)?")


class SeasonError(ValueError):
    """A season or a tier that cannot be; raised with a ``Text`` for the person who typed
    it (``locales.say(error)``)."""


def window_start(period: str, now: float) -> float:
    """The first moment of a rolling window ending ``now`` (epoch seconds)."""
    return now - WINDOWS[period] * 86400


def zone_of(name: str | None) -> tzinfo:
    """A server's time zone (None, or a zone this machine lost: UTC)."""
    try:
        return zoneinfo.ZoneInfo(name) if name else UTC
    except (zoneinfo.ZoneInfoNotFoundError, ValueError):
        return UTC


def day_at(when: float, zone: str | None) -> date:
    """The date at ``when`` (epoch seconds) in a server's time zone."""
    return datetime.fromtimestamp(when, zone_of(zone)).date()


@dataclass(frozen=True)
class Schedule:
    """A server's seasons: the first day of its first season, each season's length in
    days, the time zone whose midnights bound them (None: UTC), and the number of its
    first season."""

    start: date
    days: int
    zone: str | None = None
    first: int = 1

    def _tz(self) -> tzinfo:
        return zone_of(self.zone)

    def first_day(self, season: int) -> date:
        return self.start + timedelta(days=(season - self.first) * self.days)

    def start_of(self, season: int) -> float:
        """When season ``season`` (from ``first``) begins: midnight of its first day."""
        return datetime.combine(self.first_day(season), time(0), tzinfo=self._tz()).timestamp()

    def end_of(self, season: int) -> float:
        """When it ends: the next season's beginning."""
        return self.start_of(season + 1)

    def season_at(self, when: float) -> int | None:
        """The season running at ``when`` (epoch seconds); None before the first."""
        day = day_at(when, self.zone)
        if day < self.start:
            return None
        return (day - self.start).days // self.days + self.first

    def next_change(self, now: float) -> float:
        """The next boundary after ``now``: the end of the running season, or the start of
        the first."""
        season = self.season_at(now)
        return self.start_of(self.first) if season is None else self.end_of(season)


def schedule_of(start: str | None, days: int | None, zone: str | None,
                first: int = 1) -> Schedule | None:
    """A server's schedule from its settings (None: it keeps no seasons)."""
    if start is None or days is None:
        return None
    try:
        return Schedule(date.fromisoformat(start), days, zone, first)
    except ValueError:
        return None


def next_first(old: Schedule | None, now: float, last_used: int | None) -> int:
    """The number of a new schedule's first season: after the last season with ratings or
    a post (``last_used``) and after the season running now under the old schedule (a
    game may be recording into it right now), so no number is ever used twice."""
    running = old.season_at(now) if old is not None else None
    return max(last_used or 0, running or 0) + 1


def parse_days(typed: str) -> int | None:
    """A season's length typed (``30``, ``30d``, ``30 days``) in days; None for ``off``.
    ``SeasonError`` for anything else."""
    text = typed.strip().lower()
    if text in OFF_WORDS:
        return None
    found = _DAYS.fullmatch(text)
    days = int(found[1]) if found else 0
    if not 1 <= days <= MAX_SEASON_DAYS:
        raise SeasonError(T("I cannot read {value} as a season's length. Write a number of "
                            "days from 1 to {most}, such as {example}, or {off} for no "
                            "seasons.", value=typed.strip(), most=MAX_SEASON_DAYS,
                            example="`30`", off="`off`"))
    return days


def parse_start(typed: str | None, today: date) -> date:
    """A season's first day typed as ``YYYY-MM-DD`` (or ``today``; None: today)."""
    text = (typed or "today").strip().lower()
    if text == "today":
        return today
    try:
        return date.fromisoformat(text)
    except ValueError:
        raise SeasonError(T("I cannot read {value} as a date. Write it as {example} (year, "
                            "month, day), or {today}.", value=(typed or "").strip(),
                            example="`2025-06-01`", today="`today`")) from None


# ------------------------------------------------------------------ role rewards


@dataclass(frozen=True)
class Tier:
    """A role for a least rating (openskill ordinal, as the leaderboards show it) in one
    game, or (``game`` None) in any game."""

    role: int
    rating: float
    game: str | None = None

    def to_data(self) -> dict[str, object]:
        return {"role": self.role, "rating": self.rating, "game": self.game}


def tier_of(data: object) -> Tier | None:
    """A tier from its plain data; None when it is not one."""
    if not isinstance(data, dict):
        return None
    role, rating, game = data.get("role"), data.get("rating"), data.get("game")
    if not (isinstance(role, int) and not isinstance(role, bool) and role > 0):
        return None
    if isinstance(rating, bool) or not isinstance(rating, int | float) \
            or not -MAX_TIER_RATING <= rating <= MAX_TIER_RATING:
        return None
    if game is not None and not isinstance(game, str):
        return None
    return Tier(role, float(rating), game)


def with_tier(tiers: Iterable[Tier], tier: Tier) -> tuple[Tier, ...]:
    """``tiers`` with ``tier`` in (its role's tier replaced), in ladder order."""
    kept = [t for t in tiers if t.role != tier.role]
    if len(kept) >= MAX_TIERS:
        raise SeasonError(T("A server can have at most {n} tiers. Remove one first (name "
                            "its role without a rating).", n=MAX_TIERS))
    return ordered([*kept, tier])


def without_tier(tiers: Iterable[Tier], role: int) -> tuple[Tier, ...]:
    return tuple(t for t in tiers if t.role != role)


def ordered(tiers: Iterable[Tier]) -> tuple[Tier, ...]:
    """Every game's ladder first, then each game's, each from its lowest tier."""
    return tuple(sorted(tiers, key=lambda t: (t.game or "", t.rating, t.role)))


def tier_roles(tiers: Iterable[Tier], game: str, rating: float | None,
               best: float | None) -> tuple[set[int], set[int]]:
    """After a rated game of ``game``: the roles the player should hold of the two ladders
    it touches (``game``'s, by ``rating`` there; every game's, by ``best``, their best
    rating of any game; None: no rating), and every role of those ladders (those to take
    back unless wanted)."""
    wanted: set[int] = set()
    ladders: set[int] = set()
    tiers = list(tiers)
    for ladder_game, value in ((game, rating), (None, best)):
        ladder = [t for t in tiers if t.game == ladder_game]
        ladders.update(t.role for t in ladder)
        reached = [t for t in ladder if value is not None and value >= t.rating]
        if reached:
            wanted.add(max(reached, key=lambda t: (t.rating, -t.role)).role)
    return wanted, ladders
