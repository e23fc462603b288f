"""A tournament table's part of its state: a ``Table`` field group (saved with the snapshot).

A table of a tournament (``bot.features.tournaments``) opens as a lobby whose seats are
kept for the players the round put there, and no one else (``reserved``,
``invite_only``). Each player has a **position** (``tournament_order``): whoever joins
first, the game starts with the players in those positions, so that in a duplicate
round the player in position k of every table holds the same cards. A player who has not
joined when the game starts (all joined, or the round's start time came) is replaced by an
AI seat in their position (``seat_by_position``); tournaments seat AI players for this even
on a server that allows none at its ordinary tables.

Kept apart from ``state.py`` (which inherits the fields): the rules read the table through
the ``Seated`` protocol, so no import circle forms.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Protocol

from bot.table.ai_runner import seat_name
from bot.table.seats import Seat

NO_SHOW_LEVEL = "normal"  # the AI that plays a no-show's seat


@dataclass(kw_only=True)
class TournamentSeat:
    # The tournament (None: an ordinary table), its round and the table's number in it.
    tournament_id: str | None = None
    tournament_round: int = 0
    tournament_table: int = 0
    # The players by position (user ids): replaced, never changed in place.
    tournament_order: list[int] = field(default_factory=list)
    # When the game starts at the latest, with AI players for those not seated (epoch s).
    tournament_start_by: float | None = None


class Seated(Protocol):
    """What the tournament's seating rules read and set of a table (``Table`` is one)."""

    seats: list[Seat]
    tournament_order: list[int]

    def seat_of(self, user_id: int) -> int | None: ...


def all_joined(table: Seated) -> bool:
    """Whether every player of the table's positions has taken a seat."""
    return bool(table.tournament_order) and all(
        table.seat_of(user) is not None for user in table.tournament_order)


def absent(table: Seated) -> list[int]:
    """The positions whose player has not taken a seat (yet)."""
    return [k for k, user in enumerate(table.tournament_order) if table.seat_of(user) is None]


def seat_by_position(table: Seated) -> list[int]:
    """Seat the players in their positions, an AI player in each position whose player did
    not come; returns those positions. Anyone seated who is not one of the table's
    players (never, with the seats kept) is left out."""
    missing = absent(table)
    seats: list[Seat] = []
    ai_number = 0
    for k, user in enumerate(table.tournament_order):
        index = table.seat_of(user)
        if index is not None:
            seats.append(table.seats[index])
            continue
        ai_number += 1
        # Negative ids: never a Discord user's (as Table.add_ai), one per AI seat.
        seats.append(Seat(-(k + 1), seat_name(NO_SHOW_LEVEL, ai_number), ai=NO_SHOW_LEVEL))
    table.seats = seats
    return missing
