"""What goes in and out of a store: plain rows and the errors, the same for every backend.

The rest of the bot sees storage only through these dataclasses and ``Store``
(``interface.py``), so a backend can change without a cog noticing.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any, Final

STARTING_CHIPS: Final = 1000
"""Every player's balance in a server before their first counted game with stakes."""
GLOBAL_SCOPE: Final = 0
"""The ratings scope of all servers together (a guild id is a snowflake, never 0)."""

ACTIVE_STATUSES: Final = ("lobby", "playing")
CLOSED_STATUSES: Final = ("finished", "stopped")
STATUSES: Final = ACTIVE_STATUSES + CLOSED_STATUSES


# ================================================================ errors


class StorageError(Exception):
    """Base of the errors storage raises on purpose."""


class StorageBusy(StorageError):
    """The database stayed busy longer than the store waits (another process holds its
    write lock, or this process queued too much): nothing was written."""


class VersionConflict(StorageError):
    """``save_table`` found another version than expected: someone saved in between.

    ``actual`` is the version in the database, or None when the table does not exist.
    """

    def __init__(self, table_id: str, expected: int, actual: int | None):
        where = "no such table" if actual is None else f"it is at version {actual}"
        super().__init__(f"Table {table_id!r}: expected version {expected}, but {where}.")
        self.table_id = table_id
        self.expected = expected
        self.actual = actual


class TableExists(StorageError):
    """``create_table`` with a table id that is already stored."""


class ChannelBusy(StorageError):
    """A channel already has an active table (lobby or playing): ``table_id``."""

    def __init__(self, channel_id: int, table_id: str | None):
        super().__init__(f"Channel {channel_id} already has an active table ({table_id}).")
        self.channel_id = channel_id
        self.table_id = table_id


class InvalidResult(StorageError, ValueError):
    """``record_game`` refused a game: nothing was written."""


class ChipsNotConserved(InvalidResult):
    """The net chips of a game's seats do not sum to 0."""


class SchemaTooNew(StorageError):
    """The database was written by a newer version of the bot (more migrations applied)."""


class MigrationFailed(StorageError):
    """A migration failed; it was rolled back and the database keeps its previous version."""

    def __init__(self, number: int, cause: Exception):
        super().__init__(f"Migration {number} failed and was rolled back: {cause}")
        self.number = number


# ================================================================ live tables


@dataclass
class TableRow:
    """One live table. ``data`` is the session's snapshot (a JSON-safe dict).

    ``posts`` is bookkeeping outside the snapshot (where the table's messages and
    DMs are): written by ``save_posts`` without a version, so it never makes a
    move's save stale. Only a hint: None when never written or unreadable.
    """

    table_id: str
    guild_id: int
    channel_id: int
    game: str
    status: str = "lobby"
    version: int = 0
    data: dict[str, Any] = field(default_factory=dict)
    created_at: datetime | None = None  # set by the store
    updated_at: datetime | None = None  # set by the store
    posts: dict[str, Any] | None = None
    owed: str | None = None  # what a closed table still owes its channel (``Store.owed``)


OWED_KINDS: Final = ("result", "board", "idle", "series_over")
"""What a closed table can owe its channel once its end is stored (``finish_table``):
a finished game's result, a stopped table's message redrawn (``idle``: and its players
told why), a series' final standings (``bot.play.owed``)."""


CHANGE_KINDS: Final = ("opened", "saved", "closed", "answered")
"""The kinds of ``TableChange``, in the order a table meets them."""


def check_kinds(kinds: Iterable[str]) -> frozenset[str]:
    """``kinds`` of ``TableChange`` as a set; ValueError for one that is not a kind."""
    if isinstance(kinds, str):  # "saved" would be its letters
        raise ValueError(f"Kinds are a collection of kinds, not the text {kinds!r}.")
    chosen = frozenset(kinds)
    if unknown := chosen - frozenset(CHANGE_KINDS):
        raise ValueError(f"Unknown table change kinds {sorted(unknown)}: "
                         f"they are {CHANGE_KINDS}.")
    return chosen


@dataclass(frozen=True)
class TableChange:
    """A change to a live table, as the processes sharing a store tell each other
    (``Store.announce``/``listen``; PostgreSQL only: one process has nobody to tell).

    ``kind`` says which:

    * ``"opened"``, ``"saved"``, ``"closed"``: sent by the store itself for every
      ``create_table``, ``save_table`` and ``close_table`` or ``finish_table``, in the
      transaction of the write: delivered once it commits, never for a write refused or
      rolled back, so every version of a table is announced exactly once, in version
      order.
      ``status`` is the table's status after the write; ``seat`` and ``collapsed`` are None.
    * ``"answered"``: sent by ``Store.announce`` after the fact. Discord sends every
      click on a DM hand to the process of shard 0, which applies the move itself (and
      posts the result of a deal it ended); it then tells the table's owner that it
      answered the click, with ``seat`` and ``collapsed``, and the owner shows the rest
      (the table message, the next hand), then drives timers and AI seats from the new
      version. It follows the ``"saved"`` notice of the same version. A move made at
      a web table (``web``) is announced so too, with ``deals``: the finished deals whose
      results the owner posts, since that process has no Discord.

    ``version`` is the table's version after the change; ``origin`` names the store
    (the process) that made it.
    """

    table_id: str
    version: int  # the table's version after the change
    origin: str = ""
    seat: int | None = None  # answered: the seat that moved (its answer was given already)
    collapsed: int | None = None  # answered: the DM message the answer collapsed to one line
    kind: str = "answered"  # one of CHANGE_KINDS
    status: str | None = None  # the table's status after the change (None: not said)
    # answered: the deals this step finished whose results the owner is to post (a web
    # table's process has no Discord to post them); None: posted already, or none.
    deals: tuple[int, ...] | None = None

    def __post_init__(self) -> None:
        if self.kind not in CHANGE_KINDS:
            raise ValueError(f"A table change is one of {CHANGE_KINDS}, not {self.kind!r}.")


@dataclass(frozen=True)
class CorruptTable:
    """A stored table whose snapshot cannot be read; returned instead of raising.

    ``posts`` are kept apart from the snapshot, so they may still say where its
    messages are (None when there are none or they are unreadable too).
    """

    table_id: str
    guild_id: int
    channel_id: int
    game: str
    status: str
    version: int
    error: str
    posts: dict[str, Any] | None = None


# ================================================================ finished games


@dataclass(frozen=True)
class SeatResult:
    """How one seat ended a game. ``user_id`` None = an AI seat (named by ``name``), or a
    seat that changed hands mid-game (``FinishedGame.taken_over``: credited to nobody)."""

    seat: int
    user_id: int | None
    name: str
    points: int  # the seat's total (records.md ``totals``)
    place: int  # 0 = best, equal places shared (``Game.ranking()``)
    won: bool
    chips: int = 0  # a game with stakes: net chips won (+) or lost (−); 0 elsewhere


@dataclass
class FinishedGame:
    """What ``record_game`` (or ``finish_table``) stores: a game that ended, completed or
    stopped; a table has at most one (by ``table_id``).

    ``record`` is the game's record (``records.md``), as a dict or as JSON text
    (text is stored exactly as given). ``stakes``: this game's kind moves chips
    between players; the game declares it (the registry), storage never guesses
    from the game's name.
    """

    guild_id: int
    channel_id: int
    game: str
    started_at: datetime
    ended_at: datetime
    completed: bool  # False: stopped early; stored, but counts for nothing
    record: dict[str, Any] | str
    seats: list[SeatResult]
    table_id: str | None = None
    stakes: bool = False
    hinted: bool = False  # a player asked for a hint (bot.features.hints): counted, never rated
    # Seats that changed hands mid-game (bot.features.takeover), each with no user id: the
    # game counts for none of their holders, and the other seats are rated among themselves.
    taken_over: tuple[int, ...] = ()
    # The server's season the game ended in (bot.config.competition): a rated game rates
    # its players in that season too (season_ratings). None: the server keeps no seasons.
    season: int | None = None


@dataclass(frozen=True)
class GameSummary:
    """A stored game as ``history`` lists it; ``players`` carry the latest names."""

    game_id: int
    game: str
    guild_id: int
    channel_id: int
    started_at: datetime
    ended_at: datetime
    completed: bool
    rated: bool
    players: tuple[SeatResult, ...]

    @property
    def when(self) -> datetime:
        return self.ended_at

    @property
    def winners(self) -> tuple[SeatResult, ...]:
        return tuple(p for p in self.players if p.won)


# ================================================================ boards and stats


@dataclass(frozen=True)
class LeaderboardRow:
    """One player on a game's leaderboard (a server's or the global one)."""

    rank: int  # from 1; no two rows share a rank (ties broken by games, then user id)
    user_id: int
    name: str
    games: int
    wins: int
    win_rate: float
    points: int
    mu: float
    sigma: float
    ordinal: float
    provisional: bool  # fewer than ratings.PROVISIONAL_GAMES rated games
    rated_games: int = 0  # none: the rating is the starting one, never earned


@dataclass(frozen=True)
class WindowRow:
    """One player on a server's board of a time window (``Store.window_board``): their
    completed games of one game that ended in it, ranked by wins, then points, then games."""

    rank: int
    user_id: int
    name: str
    games: int
    wins: int
    win_rate: float
    points: int


@dataclass(frozen=True)
class GameStats:
    """One player's numbers in one game and scope (``stats``)."""

    game: str
    games: int
    wins: int
    win_rate: float
    points: int
    mu: float
    sigma: float
    ordinal: float
    provisional: bool
    rank: int
    ranked_players: int  # how many players that leaderboard holds
    rated_games: int = 0  # none: the rating is the starting one, never earned


@dataclass(frozen=True)
class ChipBalance:
    user_id: int
    balance: int


@dataclass(frozen=True)
class ChipsRow:
    rank: int
    user_id: int
    name: str
    balance: int


@dataclass(frozen=True)
class StoreInfo:
    """How the store is set up (for a start-up log line and for tests)."""

    backend: str
    location: str
    schema_version: int
    journal_mode: str
    foreign_keys: bool
    busy_timeout_ms: int
