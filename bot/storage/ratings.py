"""Player ratings: a thin, pure wrapper around openskill's Plackett-Luce model.

A rating is a belief about a player's skill: ``mu`` (the estimate) and ``sigma``
(how unsure we are). Leaderboards sort by the ``ordinal`` ``mu - 3·sigma``, a
conservative estimate, so that one lucky win does not put a newcomer on top.

``rate`` takes the ratings of the seats before a game and their final places
(0 = best, equal numbers = a shared place, as ``Game.ranking()`` gives them)
and returns the ratings after it. Nothing here does I/O or keeps state: the
storage module decides whose ratings to load and where to write them.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from openskill.models import PlackettLuce

# openskill's defaults (mu 25, sigma 25/3, beta 25/6, tau 25/300): well studied, and
# the ordinal of a new player is then exactly 0, which reads well on a leaderboard.
MODEL = PlackettLuce()

PROVISIONAL_GAMES = 5
"""A player with fewer rated games than this is shown as provisional."""


@dataclass(frozen=True, slots=True)
class Rating:
    """One player's rating in one game and scope."""

    mu: float
    sigma: float

    @property
    def ordinal(self) -> float:
        return ordinal(self.mu, self.sigma)


def default_rating() -> Rating:
    """The rating of a player who has not played yet (the model's prior)."""
    prior = MODEL.rating()
    return Rating(prior.mu, prior.sigma)


def ordinal(mu: float, sigma: float) -> float:
    """The number leaderboards sort by (openskill's ``ordinal``: ``mu - 3·sigma``)."""
    return MODEL.rating(mu=mu, sigma=sigma).ordinal()


def dense_places(places: Sequence[int]) -> list[int]:
    """Places renumbered 0, 1, 2… keeping order and ties: ``[0, 3, 3, 5]`` → ``[0, 1, 1, 2]``.

    Used when only some seats are rated (AI seats are left out), so the places of
    the rated seats are relative to each other.
    """
    order = {place: index for index, place in enumerate(sorted(set(places)))}
    return [order[place] for place in places]


def rate(before: Sequence[Rating], places: Sequence[int]) -> list[Rating]:
    """The ratings after one game, in seat order.

    ``before``: each seat's rating before the game; ``places``: each seat's final
    place (0 = best; equal places share). Every seat is its own team.
    """
    _check(before, places)
    teams = [[MODEL.rating(mu=r.mu, sigma=r.sigma)] for r in before]
    # Dense places: only the order and the ties of the places mean anything.
    after = MODEL.rate(teams, ranks=[float(p) for p in dense_places(places)])
    return [Rating(team[0].mu, team[0].sigma) for team in after]


def _check(before: Sequence[Rating], places: Sequence[int]) -> None:
    if len(before) != len(places):
        raise ValueError("There must be one place for each rating.")
    if len(before) < 2:
        raise ValueError("A rated game needs at least two players.")
    for place in places:
        if isinstance(place, bool) or not isinstance(place, int) or place < 0:
            raise ValueError(f"A place must be a whole number from 0, not {place!r}.")
    for rating in before:
        if not rating.sigma > 0:
            raise ValueError(f"A rating's sigma must be positive, not {rating.sigma!r}.")
