"""The rules of what a finished game changes, apart from any database.

A backend asks these functions and does what they say, so every backend counts,
rates and moves chips alike, and the rules can be tested without one:

* a game whose seats do not add up is refused whole (``InvalidResult``);
* a table has at most one game: a second one for the same ``table_id`` changes nothing
  (the backends' ``insert_game``, over the unique ``games.table_id``);
* a completed game counts (games, wins, points) for its human seats, in its
  server and in the global scope (``is_counted``, ``scopes``);
* it changes ratings only when every seat is human, two or more, and nobody asked
  for a hint (``is_rated``). A seat that changed hands mid-game (``taken_over``) has no
  user id: it counts for none of its holders, and the others are rated among themselves,
  as people who all played the whole game;
* it moves chips only when its kind has stakes and every seat is human
  (``moves_chips``). Storage knows no game by name: ``FinishedGame.stakes`` says.
"""

from __future__ import annotations

import dataclasses
import json
import logging
from collections.abc import Mapping, Sequence

from bot.storage.ratings import Rating, default_rating, rate
from bot.storage.rows import (
    GLOBAL_SCOPE,
    STARTING_CHIPS,
    ChipBalance,
    ChipsNotConserved,
    FinishedGame,
    InvalidResult,
    SeatResult,
)
from bot.storage.values import to_json
from engine.core import RECORD_FORMAT

log = logging.getLogger(__name__)


def check_seats(finished: FinishedGame) -> None:
    """Refuse seats that cannot be a real game's (``InvalidResult``)."""
    seats = finished.seats
    if sorted(s.seat for s in seats) != list(range(len(seats))):
        raise InvalidResult("Seats must be numbered 0, 1, 2… once each.")
    humans = [s.user_id for s in seats if s.user_id is not None]
    if len(set(humans)) != len(humans):
        raise InvalidResult("A user cannot hold two seats of one game.")
    if any(s.user_id is not None for s in seats if s.seat in finished.taken_over) \
            or not set(finished.taken_over) <= {s.seat for s in seats}:
        raise InvalidResult("A seat that changed hands is a seat of the game, credited to "
                            "nobody.")
    if any(s.place < 0 for s in seats):
        raise InvalidResult("A place cannot be negative.")
    if sum(s.chips for s in seats) != 0:
        raise ChipsNotConserved(
            f"The seats' net chips sum to {sum(s.chips for s in seats)}, not 0: "
            "chips are never created or lost.")
    if not finished.stakes and any(s.chips for s in seats):
        raise InvalidResult(f"{finished.game!r} has no stakes: its seats cannot move chips.")


def of_table(finished: FinishedGame, table_id: str) -> FinishedGame:
    """``finished`` as the game of table ``table_id`` (``finish_table``): a game that
    names no table is given this one; one that names another is refused."""
    if finished.table_id is None:
        return dataclasses.replace(finished, table_id=table_id)
    if finished.table_id != table_id:
        raise InvalidResult(f"The game is of table {finished.table_id!r}, not {table_id!r}.")
    return finished


def recorded_already(table_id: str | None, game_id: int) -> None:
    """Say that a table's game was not recorded twice (``record_game`` returns the id)."""
    log.warning("storage: table %s has its game recorded already (game %d): nothing "
                "recorded again", table_id, game_id)


def record_text(finished: FinishedGame) -> str:
    """The record's JSON text to store, checked against the game it claims to be."""
    record = finished.record
    if isinstance(record, str):
        text = record
        try:
            record = json.loads(text)
        except json.JSONDecodeError as error:
            raise InvalidResult(f"The record is not valid JSON: {error.msg}.") from None
    else:
        try:
            text = to_json(record)
        except (TypeError, ValueError) as error:
            raise InvalidResult(f"The record is not JSON-safe: {error}.") from None
    if not isinstance(record, dict) or record.get("format") != RECORD_FORMAT:
        raise InvalidResult(f"The record's format must be {RECORD_FORMAT!r}.")
    if record.get("game") != finished.game:
        raise InvalidResult(f"The record is of {record.get('game')!r}, not {finished.game!r}.")
    if record.get("players") != len(finished.seats):
        raise InvalidResult("The record's player count differs from the number of seats.")
    return text


def is_counted(finished: FinishedGame) -> bool:
    """The human seats' games, wins and points change for every completed game."""
    return finished.completed and any(s.user_id is not None for s in finished.seats)


def is_rated(finished: FinishedGame) -> bool:
    """Ratings change only for a completed game whose seats are all human (two or more)
    and where nobody asked for a hint: a game against AI seats, or one played with the
    AI's help, says little about a person's skill against people. A seat that changed
    hands (``taken_over``) was people's, though nobody's whole game: the others (two or
    more) are rated among themselves, and it is left out like an AI seat's places."""
    humans = sum(1 for s in finished.seats if s.user_id is not None)
    people = all(s.user_id is not None or s.seat in finished.taken_over
                 for s in finished.seats)
    return finished.completed and not finished.hinted and humans >= 2 and people


def moves_chips(finished: FinishedGame) -> bool:
    """Chips move only for a completed game with stakes where every seat is human.

    AI seats hold no chips, so a game with one would create or destroy chips.
    """
    return (finished.completed and finished.stakes
            and all(s.user_id is not None for s in finished.seats))


def in_season(finished: FinishedGame) -> bool:
    """A rated game of a server that keeps seasons rates its players in the season it
    ended in too (``FinishedGame.season``): a second rating beside the all-time one."""
    return (finished.season is not None and finished.guild_id != GLOBAL_SCOPE
            and is_rated(finished))


def scopes(finished: FinishedGame) -> tuple[int, ...]:
    """Where a counted game counts: its server, then the global scope.

    A game without a server (guild 0, the global scope's own key) counts once.
    """
    return tuple(dict.fromkeys((finished.guild_id, GLOBAL_SCOPE)))


def humans_of(finished: FinishedGame) -> list[SeatResult]:
    """The human seats that a counted game counts for, in seat order."""
    return [s for s in sorted(finished.seats, key=lambda s: s.seat) if s.user_id is not None]


def new_ratings(known: Mapping[int, Rating], humans: Sequence[SeatResult]) -> list[Rating]:
    """The human seats' ratings after a rated game, in their order: from their ratings
    so far (``known``, by user id; a newcomer starts at the default). AI seats are not
    rated, so the places are those among the humans."""
    before = [known.get(h.user_id) or default_rating() for h in humans
              if h.user_id is not None]
    return rate(before, [h.place for h in humans])


def below_stake(wanted: Sequence[int], balances: Mapping[int, int],
                stake: int) -> list[ChipBalance]:
    """The users of ``wanted`` whose balance (``STARTING_CHIPS`` if never played) is
    below ``stake``, in that order."""
    return [ChipBalance(u, balances.get(u, STARTING_CHIPS)) for u in wanted
            if balances.get(u, STARTING_CHIPS) < stake]
