"""A tournament's course: sign-up closes, rounds are planned and played, results kept.

Pure changes of a ``Tournament`` (``bot.table.tournament``), made by
``bot.features.tournaments`` under its lock and saved with the tournament's version.
Who meets whom is ``bot.table.tournament_pairing``; scores ``bot.table.tournament_scoring``.

**Decisions.** A round's tables open together; players have ``grace`` seconds to join,
then each table starts with an AI player in the seat of whoever is missing (a no-show
scores nothing for that table). A round then lasts at most ``round_time`` seconds: the
tables still playing are stopped and score as they stand (the points of the deals played,
the deal under way included), because a round that waits for its slowest table holds up
everybody else, and stopping is what a tournament director does at the bell.
"""

from __future__ import annotations

from bot.table import tournament_pairing as pairing
from bot.table.tournament import (
    CANCELLED,
    FINISHED,
    KNOCKOUT,
    RUNNING,
    SIGNUP,
    Entrant,
    Pairing,
    Round,
    TableResult,
    Tournament,
)
from bot.table.tournament_scoring import knockout_after, standing_order


def begin(t: Tournament, signed: list[tuple[int, str]], ratings: dict[int, float]) -> None:
    """Sign-up is over: ``signed`` (user id, name, in sign-up order) become the entrants,
    seeded by rating (the unrated after, in sign-up order). ``PairingError`` if too few."""
    needed = max(t.low, 2)
    if len(signed) < needed:
        raise pairing.PairingError(f"{len(signed)} players, {needed} needed")

    def key(i: int) -> tuple[bool, float, int]:
        rating = ratings.get(signed[i][0])
        return rating is None, -(rating or 0.0), i

    order = sorted(range(len(signed)), key=key)
    t.entrants = [Entrant(signed[i][0], signed[i][1], ratings.get(signed[i][0]), seed + 1)
                  for seed, i in enumerate(order)]
    t.status = RUNNING


def plan_round(t: Tournament, now: float, seed: int, table_ids: list[str]) -> Round:
    """The next round, its tables seated (``table_ids``: fresh ids, at least one per
    table), added to ``t``. Its tables open now: players have ``t.grace`` to join, then
    the round lasts ``t.round_time`` at most."""
    number = len(t.played) + 1
    slots: list[int | None] | None = None
    if t.format == KNOCKOUT:
        slots = (pairing.bracket([e.user_id for e in sorted(t.entrants, key=lambda e: e.seed)])
                 if t.current is None else knockout_after(t, t.current))
        gone = {e.user_id for e in t.entrants if e.withdrawn}
        slots = [None if s in gone else s for s in slots]  # a walkover for their opponent
        groups, byes = pairing.matches(slots)
    else:
        order = [e.user_id for e in standing_order(t) if not e.withdrawn]
        sizes, bye_count = pairing.table_sizes(len(order), t.low, t.high, t.seats,
                                               equal=t.duplicate)
        byes = pairing.choose_byes(order, bye_count, t.byes_had())
        seated = [u for u in order if u not in byes]
        groups = (pairing.first_round(seated, sizes) if t.current is None
                  else pairing.swiss_tables(seated, sizes, t.met()))
        # Positions turn with the rounds, so nobody always holds the same place.
        groups = [g[number % len(g):] + g[:number % len(g)] for g in groups]
    start_by = now + t.grace
    end_by = start_by + t.round_time if t.round_time > 0 else None
    rnd = Round(number, seed, [Pairing(i + 1, list(g), table_ids[i])
                               for i, g in enumerate(groups)], list(byes), start_by, end_by,
                slots)
    t.played.append(rnd)
    return rnd


def record(t: Tournament, table_id: str, result: TableResult) -> bool:
    """Keep the result of a table of ``t``; False if it is none of its tables, or its
    result is kept already (a restart may see an end twice)."""
    found = t.round_of(table_id)
    if found is None or found[1].result is not None:
        return False
    found[1].result = result
    return True


def is_over(t: Tournament) -> bool:
    """Whether the last round played was the last: a knockout with one player left, a
    Swiss tournament after its rounds (or with too few players left for a table)."""
    rnd = t.current
    if rnd is None or not rnd.over:
        return False
    if t.format == KNOCKOUT:
        return len(knockout_after(t, rnd)) <= 1
    return rnd.number >= t.rounds or len(t.playing()) < t.low


def withdraw(t: Tournament, user_id: int) -> bool:
    """A player leaves a running tournament: not paired again (their rounds stand)."""
    entrant = t.entrant(user_id)
    if entrant is None or entrant.withdrawn or t.status != RUNNING:
        return False
    entrant.withdrawn = True
    return True


def cancel(t: Tournament, why: str) -> None:
    t.status = CANCELLED
    t.why = why


def finish(t: Tournament) -> None:
    t.status = FINISHED


def next_due(t: Tournament, now: float) -> float | None:
    """The tournament's next timed moment after ``now``: sign-up's end and the start, the
    round's start at the latest (no-shows replaced), the round's end (tables stopped).
    None: nothing is timed (a start already due is the caller's to see)."""
    moments: list[float] = []
    if t.status == SIGNUP:  # (sign-up's end: its message loses Sign up)
        moments += [m for m in (t.starts_at, t.signup_until) if m is not None and m > now]
    rnd = t.current
    if t.status == RUNNING and rnd is not None and not rnd.over:
        moments += [m for m in (rnd.start_by, rnd.end_by) if m is not None and m > now]
    return min(moments) if moments else None


def signup_open(t: Tournament, now: float) -> bool:
    """Whether sign-up is open: before the start, and before the sign-up's own end."""
    return t.status == SIGNUP and (t.signup_until is None or now < t.signup_until) \
        and (t.starts_at is None or now < t.starts_at)
