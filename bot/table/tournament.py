"""A tournament as plain data: its players, its rounds and their tables.

``Tournament`` is the whole state of one tournament, saved as JSON with a version
(optimistic locking, as a table's snapshot) by ``bot.features.tournaments``. No I/O here:
its course is ``bot.table.tournament_rounds`` (sign-up closes, rounds planned, results
kept), who meets whom ``bot.table.tournament_pairing``, the scores and standings
``bot.table.tournament_scoring``; a tournament table's own fields are
``bot.table.tournament_seat``.

Formats: **knockout** (two-player games: one game a match, the winner goes through) and
**Swiss** (every game: tables of the game's size, a fixed number of rounds). A Swiss
tournament may be **duplicate**: every table of a round is dealt the same cards (the
tables share the round's ``seed``, and a table's deals and first dealer come from its
seed alone), and a player's result is compared with those who held the same cards.
"""

from __future__ import annotations

import dataclasses
from collections import Counter
from dataclasses import dataclass, field
from typing import Any

from bot.table.tournament_pairing import Pair

SWISS, KNOCKOUT = "swiss", "knockout"
FORMATS = (SWISS, KNOCKOUT)
SIGNUP, RUNNING, FINISHED, CANCELLED = "signup", "running", "finished", "cancelled"
ACTIVE = (SIGNUP, RUNNING)
DATA_VERSION = 1
MAX_ROUNDS = 15  # Swiss rounds a tournament may ask for
MAX_PLAYERS = 128  # sign-ups a tournament takes


@dataclass
class Entrant:
    user_id: int
    name: str
    rating: float | None = None  # the game's rating at the start (None: unrated)
    seed: int = 0  # 1 = the best rated (then the earliest signed up)
    withdrawn: bool = False  # no longer paired (their played rounds stand)


@dataclass
class TableResult:
    """What a tournament table ended with, by position."""

    points: list[int]  # each position's points (the game's totals)
    places: list[int]  # each position's place at the table (0 = best, ties equal)
    absent: list[int] = field(default_factory=list)  # positions whose player did not show
    completed: bool = True  # the game ran to its end (False: stopped, scored as it stood)
    played: bool = True  # False: no game at all (nobody came): nobody scores

    def to_data(self) -> dict[str, Any]:
        return dataclasses.asdict(self)

    @classmethod
    def from_data(cls, data: dict[str, Any]) -> TableResult:
        return cls(**{f.name: data[f.name] for f in dataclasses.fields(cls) if f.name in data})


@dataclass
class Pairing:
    """One table of a round: its players by position, the live table, and its result."""

    number: int  # 1, 2, ... in the round
    players: list[int]  # user ids by position
    table_id: str  # drawn when the round is planned: a restart finds the same table
    channel_id: int | None = None  # its thread, once opened
    result: TableResult | None = None

    def to_data(self) -> dict[str, Any]:
        return {"number": self.number, "players": list(self.players),
                "table_id": self.table_id, "channel_id": self.channel_id,
                "result": self.result.to_data() if self.result is not None else None}

    @classmethod
    def from_data(cls, data: dict[str, Any]) -> Pairing:
        result = data.get("result")
        return cls(data["number"], list(data["players"]), data["table_id"],
                   data.get("channel_id"),
                   TableResult.from_data(result) if result is not None else None)


@dataclass
class Round:
    number: int  # 1, 2, ...
    seed: int  # the round's deals: every table's in a duplicate round, else seed + table
    tables: list[Pairing]
    byes: list[int] = field(default_factory=list)  # players sitting out (Swiss: half a point)
    start_by: float = 0.0  # tables start then at the latest, AI players for no-shows
    end_by: float | None = None  # tables still playing then are stopped (None: no limit)
    slots: list[int | None] | None = None  # knockout: the bracket at the round's start
    announced: bool = False  # its call posted in the channel (once its tables are open)

    @property
    def over(self) -> bool:
        return all(p.result is not None for p in self.tables)

    def pairing_of(self, table_id: str) -> Pairing | None:
        return next((p for p in self.tables if p.table_id == table_id), None)

    def to_data(self) -> dict[str, Any]:
        return {"number": self.number, "seed": self.seed,
                "tables": [p.to_data() for p in self.tables], "byes": list(self.byes),
                "start_by": self.start_by, "end_by": self.end_by,
                "slots": list(self.slots) if self.slots is not None else None,
                "announced": self.announced}

    @classmethod
    def from_data(cls, data: dict[str, Any]) -> Round:
        slots = data.get("slots")
        return cls(data["number"], data["seed"], [Pairing.from_data(p) for p in data["tables"]],
                   list(data.get("byes") or ()), data.get("start_by") or 0.0,
                   data.get("end_by"), list(slots) if slots is not None else None,
                   bool(data.get("announced")))


@dataclass
class Tournament:
    tournament_id: str
    guild_id: int
    channel_id: int  # where it was created: its sign-up and standings message, its threads
    game_id: str
    organiser: int
    created_at: float
    name: str = ""
    format: str = SWISS
    duplicate: bool = False
    options: dict[str, Any] = field(default_factory=dict)  # the game's, as typed (checked)
    seats: int = 2  # the seats a table the organiser prefers
    rounds: int = 3  # Swiss rounds (knockout: as many as the bracket needs)
    low: int = 2  # the game's fewest and most players a table, with these options
    high: int = 2
    starts_at: float | None = None  # sign-up closes and round 1 begins (None: by command)
    signup_until: float | None = None  # sign-up closes earlier (None: at the start)
    round_time: float = 0.0  # seconds a round may last once its tables start (0: no limit)
    grace: float = 600.0  # seconds players have to join their table
    language: str = "en"
    status: str = SIGNUP
    entrants: list[Entrant] = field(default_factory=list)
    played: list[Round] = field(default_factory=list)
    message_id: int | None = None  # the sign-up message, then the standings (edited)
    final_posted: bool = False
    why: str | None = None  # why it was cancelled (English, for the log)
    version: int = 0  # the stored row's (optimistic locking), outside the data

    # -- reading ---------------------------------------------------------------------

    @property
    def current(self) -> Round | None:
        return self.played[-1] if self.played else None

    def entrant(self, user_id: int) -> Entrant | None:
        return next((e for e in self.entrants if e.user_id == user_id), None)

    def round_of(self, table_id: str) -> tuple[Round, Pairing] | None:
        for rnd in reversed(self.played):
            found = rnd.pairing_of(table_id)
            if found is not None:
                return rnd, found
        return None

    def table_seed(self, rnd: Round, pairing_: Pairing) -> int:
        """The seed of a table's deals: the round's own for every table of a duplicate
        round (the same cards), one of its own otherwise."""
        return rnd.seed if self.duplicate else rnd.seed + pairing_.number

    def met(self) -> Counter[Pair]:
        """How often each pair of players sat at one table so far."""
        counts: Counter[Pair] = Counter()
        for rnd in self.played:
            for p in rnd.tables:
                for a, b in _pairs(p.players):
                    counts[frozenset((a, b))] += 1
        return counts

    def byes_had(self) -> set[int]:
        return {user for rnd in self.played for user in rnd.byes}

    def total_rounds(self) -> int:
        """The rounds the tournament plays (knockout: log2 of its bracket)."""
        if self.format != KNOCKOUT:
            return self.rounds
        count, size = 0, 1
        while size < len(self.entrants):
            size, count = size * 2, count + 1
        return count

    def playing(self) -> list[Entrant]:
        return [e for e in self.entrants if not e.withdrawn]

    # -- plain data ------------------------------------------------------------------

    def to_data(self) -> dict[str, Any]:
        data = {f.name: getattr(self, f.name) for f in dataclasses.fields(self)
                if f.name not in ("entrants", "played", "version")}
        data.update(data_version=DATA_VERSION,
                    entrants=[dataclasses.asdict(e) for e in self.entrants],
                    played=[r.to_data() for r in self.played], options=dict(self.options))
        return data

    @classmethod
    def from_data(cls, data: dict[str, Any], version: int = 0) -> Tournament:
        plain = {f.name for f in dataclasses.fields(cls)} - {"entrants", "played", "version"}
        known = {f.name for f in dataclasses.fields(Entrant)}
        return cls(**{k: v for k, v in data.items() if k in plain},
                   entrants=[Entrant(**{k: v for k, v in e.items() if k in known})
                             for e in data.get("entrants") or ()],
                   played=[Round.from_data(r) for r in data.get("played") or ()],
                   version=version)


def _pairs(players: list[int]) -> list[tuple[int, int]]:
    return [(a, b) for i, a in enumerate(players) for b in players[i + 1:]]
