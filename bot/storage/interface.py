"""The one interface the bot holds storage by: ``Store``.

The cogs and the bot depend only on this class and on ``rows.py``; each backend
(SQLite today, PostgreSQL next) is one subclass with its own SQL, and a backend
that leaves a method out cannot even be built.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Callable, Iterable
from datetime import datetime, timedelta
from typing import Any, Self

from bot.storage.rivals import HISTORY_LIMIT, HeadToHead, RatingPoint, Streak
from bot.storage.rows import (
    ChipBalance,
    ChipsRow,
    CorruptTable,
    FinishedGame,
    GameStats,
    GameSummary,
    LeaderboardRow,
    StoreInfo,
    TableChange,
    TableRow,
    WindowRow,
    check_kinds,
)
from bot.storage.tournaments import TournamentRow


class Store(ABC):
    """What the bot needs from storage; every backend implements all of it.

    Usable as an async context manager: ``async with await Storage.open(path) as s:``.
    """

    async def __aenter__(self) -> Self:
        return self

    async def __aexit__(self, *exc_info: object) -> None:
        await self.close()

    shared: bool = False
    """Whether several processes may use this store at once (PostgreSQL). A store of one
    process (SQLite) needs no ownership nor notices: the defaults below are for it."""

    @abstractmethod
    async def close(self) -> None: ...

    # -- several processes (shards) -------------------------------------------------

    async def claim_table(self, table_id: str) -> bool:
        """Own a live table: this process alone drives it (timers, AI seats, edits) until
        it releases it or exits. False: another process owns it now. Claiming a table
        this store already owns is True. A process that dies releases its tables at once
        (PostgreSQL: a session advisory lock), so a restart can take them over."""
        return True

    async def release_table(self, table_id: str) -> None:
        """Give up owning a table (closed, or this process is stopping)."""
        return None

    def owns_table(self, table_id: str) -> bool:
        """Whether this process still owns a table it claimed, as far as it knows: False
        once its ownership went (PostgreSQL: the connection holding the lock was lost —
        a database restart — or its lease ran out while the process stood still)."""
        return True

    async def announce(self, change: TableChange) -> None:
        """Tell the other processes of a change this one made: today, that it answered a
        DM click on a table another process owns (``kind`` ``"answered"``, the default).
        Sent after the fact, on its own; ``origin`` is set to this store's.

        Not for the writes themselves: ``create_table``, ``save_table``, ``close_table``
        and ``finish_table`` announce every version they write (``"opened"``, ``"saved"``,
        ``"closed"``, ``"closed"``) in the same transaction as the write."""
        return None  # one process: nobody to tell

    async def listen(self, on_change: Callable[[TableChange], None], *, own: bool = False,
                     kinds: Iterable[str] = ("answered",)) -> None:
        """Call ``on_change`` for every change of the given ``kinds`` announced from now on.

        ``own`` False (the default): only other stores' (processes') changes, never this
        store's own; True: this store's too (a second front end in the same process, a
        follower of every table, tests). ``kinds`` defaults to ``"answered"`` alone, what
        a listener received before the writes were announced; ``CHANGE_KINDS`` for all.
        Each table's changes arrive in the order of its versions, and a write is heard
        only once committed: the table as stored is then at least at that version.
        Raises ValueError for an unknown kind."""
        check_kinds(kinds)
        return None  # one process: nobody else saves

    @abstractmethod
    async def info(self) -> StoreInfo: ...

    # -- live tables ------------------------------------------------------

    @abstractmethod
    async def create_table(self, row: TableRow) -> TableRow:
        """Store a new table; the returned row has its timestamps.

        Raises ``TableExists`` for a known table id and ``ChannelBusy`` when the row
        is active and its channel already has an active table. ``row.posts``, if
        given, is stored as the table's first posts.
        """

    @abstractmethod
    async def save_table(self, table_id: str, status: str, data: dict[str, Any],
                         expected_version: int) -> int:
        """Write a table's status and snapshot if it is still at ``expected_version``.

        Returns the new version (``expected_version + 1``); raises ``VersionConflict``
        (nothing written) when the stored version differs or the table does not exist.
        The table's posts are left as they are.
        """

    @abstractmethod
    async def save_posts(self, table_id: str, posts: dict[str, Any]) -> None:
        """Write a table's posts (where its messages are), unversioned.

        Touches neither the version nor the snapshot nor the status, so it never
        makes a concurrent ``save_table`` stale; an unknown table id is a no-op.
        """

    @abstractmethod
    async def close_table(self, table_id: str, status: str) -> int | None:
        """Mark a table ``finished`` or ``stopped`` whatever its version (a table that
        cannot be restored). Bumps the version so that a stale save fails; returns it
        (None: no such table). A table the bot ends itself goes through ``finish_table``.
        """

    @abstractmethod
    async def finish_table(self, table_id: str, status: str, data: dict[str, Any],
                           expected_version: int, game: FinishedGame | None = None,
                           owed: str | None = None) -> int:
        """End a table in ONE transaction: its final snapshot written at
        ``expected_version`` with its closed ``status`` (``finished`` or ``stopped``), and
        ``game``, if given, recorded as ``record_game`` records it (the seats, counts,
        ratings, chips). Returns the new version (``expected_version + 1``): one version,
        announced as ``"closed"``.

        Either all of it is stored or nothing is: ``VersionConflict`` when the table is
        not at ``expected_version`` (or does not exist), ``InvalidResult`` for a game that
        does not add up or names another table, and any failure on the way rolls the
        whole back — the table is then still open at its old version, to be finished
        again. A game already recorded for this table (``record_game``) is not recorded
        again: the table is closed and nothing else moves.

        ``owed`` (one of ``OWED_KINDS``, or None) is stored with it: what the table still
        owes its channel, until ``settle_owed``; a restart finds it in ``owed_table_keys``.
        """

    @abstractmethod
    async def owed_table_keys(self) -> list[tuple[str, int]]:
        """(table id, guild id) of every closed table that still owes its channel what
        its end shows (``finish_table``'s ``owed``), oldest first."""

    @abstractmethod
    async def settle_owed(self, table_id: str) -> None:
        """The table's end was shown: it owes nothing any more (an unknown id: no-op)."""

    @abstractmethod
    async def load_active_tables(self) -> list[TableRow | CorruptTable]:
        """Every table in lobby or playing, oldest first; unreadable ones as ``CorruptTable``."""

    @abstractmethod
    async def active_table_keys(self) -> list[tuple[str, int]]:
        """(table id, guild id) of every table in lobby or playing, oldest first: what a
        process looks through for tables to take over, without reading their snapshots."""

    @abstractmethod
    async def active_table_in_channel(self, channel_id: int) -> TableRow | CorruptTable | None:
        ...

    @abstractmethod
    async def load_table(self, table_id: str) -> TableRow | CorruptTable | None:
        """One table by id whatever its status (a finished one too: its rematch), or None."""

    @abstractmethod
    async def prune_closed_tables(self, older_than: timedelta) -> int:
        """Delete the rows of the tables closed (finished or stopped) more than
        ``older_than`` ago, by this store's clock; returns how many. Open tables are never
        touched, nor anything of a finished game (its record, seats, counts, ratings,
        chips: ``games.table_id`` keeps the table's id). Deleted in short transactions, so
        the tables in play are not held up. A pruned table's id stays taken while a game
        names it: ``create_table`` refuses it (``TableExists``), so that a new table can
        never meet the game of an old one (``record_game`` records one game a table)."""

    # -- meta and users ---------------------------------------------------

    @abstractmethod
    async def get_meta(self, key: str) -> str | None: ...

    @abstractmethod
    async def set_meta(self, key: str, value: str) -> None: ...

    @abstractmethod
    async def spend_link(self, nonce: str, expires: float, now: float) -> bool:
        """Spend a web link token (``web.tokens``): True the first time ``nonce`` is
        spent, False ever after (in every process sharing the store). Spent tokens that
        expired before ``now`` are forgotten."""

    @abstractmethod
    async def remember_user(self, user_id: int, name: str) -> None:
        """Keep ``name`` as the display name of ``user_id`` (the latest one wins)."""

    @abstractmethod
    async def remember_language(self, user_id: int, language: str) -> None:
        """Keep ``language`` as what ``user_id`` reads (the latest one wins)."""

    @abstractmethod
    async def user_languages(self) -> dict[int, str]:
        """Every user's remembered language."""

    @abstractmethod
    async def server_settings(self, guild_id: int) -> dict[str, Any] | None:
        """A server's settings as ``save_server_settings`` stored them (None: never set)."""

    @abstractmethod
    async def save_server_settings(self, guild_id: int, data: dict[str, Any]) -> None:
        """Keep ``data`` (a JSON object) as the server's settings, replacing what was there."""

    # -- finished games ---------------------------------------------------

    @abstractmethod
    async def record_game(self, finished: FinishedGame) -> int:
        """Store a finished game in one transaction and return its game id.

        At most one game per table: a game whose ``table_id`` already has one changes
        nothing (no second row, no counts, ratings nor chips moved twice) and returns the
        game id recorded first, with a warning in the log. Games without a ``table_id``
        are each stored. Raises ``InvalidResult`` (``ChipsNotConserved``) without
        writing anything when the game does not add up.
        """

    @abstractmethod
    async def history(self, guild_id: int | None, channel_id: int | None = None,
                      user_id: int | None = None, game: str | None = None, limit: int = 10,
                      before: int | None = None) -> list[GameSummary]:
        """The latest games, newest first; ``before`` a game id to page back from.

        ``guild_id`` None: every server.
        """

    @abstractmethod
    async def game_record(self, game_id: int) -> dict[str, Any] | None: ...

    @abstractmethod
    async def game_record_json(self, game_id: int) -> str | None:
        """The record exactly as it was stored (byte for byte)."""

    @abstractmethod
    async def game_of_table(self, table_id: str) -> int | None:
        """The id of the game table ``table_id`` recorded (a table records at most one),
        or None: a table that recorded none, or an unknown id."""

    # -- ratings ------------------------------------------------------------

    @abstractmethod
    async def leaderboard(self, game: str, guild_id: int | None, offset: int = 0,
                          limit: int = 10) -> list[LeaderboardRow]:
        """A page of a game's leaderboard; ``guild_id`` None = the global one."""

    @abstractmethod
    async def leaderboard_size(self, game: str, guild_id: int | None) -> int: ...

    @abstractmethod
    async def rank_of(self, game: str, guild_id: int | None,
                      user_id: int) -> LeaderboardRow | None: ...

    @abstractmethod
    async def stats(self, user_id: int, guild_id: int | None,
                    game: str | None = None) -> list[GameStats]:
        """A player's numbers per game they have a rating in (by game id)."""

    # -- head-to-head, streaks, rating history (rivals.py) ----------------------

    @abstractmethod
    async def head_to_head(self, user_id: int, other_id: int, guild_id: int | None,
                           game: str | None = None) -> list[HeadToHead]:
        """Two players' completed games together, per game (by game id); ``guild_id``
        None: every server."""

    @abstractmethod
    async def games_together(self, user_id: int, other_id: int, guild_id: int | None,
                             game: str | None = None, limit: int = 10,
                             before: int | None = None) -> list[GameSummary]:
        """Their completed games together, newest first, as ``history`` lists games;
        ``before`` a game id to page back from."""

    @abstractmethod
    async def streaks(self, user_id: int, guild_id: int | None,
                      game: str | None = None) -> list[Streak]:
        """A player's current and longest winning streak per game they completed one of."""

    @abstractmethod
    async def rating_history(self, user_id: int, game: str, guild_id: int | None,
                             limit: int = HISTORY_LIMIT) -> list[RatingPoint]:
        """A player's rating after each of their latest ``limit`` rated games of ``game``
        in a scope, oldest first (written since migration 0011)."""

    # -- chips ----------------------------------------------------------------

    @abstractmethod
    async def chips(self, guild_id: int, user_id: int) -> int: ...

    @abstractmethod
    async def check_stake(self, guild_id: int, user_ids: Iterable[int],
                          stake: int) -> list[ChipBalance]:
        """The users whose balance is below ``stake`` (in the order given)."""

    @abstractmethod
    async def chips_leaderboard(self, guild_id: int, offset: int = 0,
                                limit: int = 10) -> list[ChipsRow]:
        """A page of a server's chip balances (one bounded query, as ``leaderboard``)."""

    @abstractmethod
    async def chips_board_size(self, guild_id: int) -> int:
        """How many players a server's chips board holds."""

    @abstractmethod
    async def chips_rank_of(self, guild_id: int, user_id: int) -> ChipsRow | None:
        """A player's line on a server's chips board; None if they never moved chips there."""

    # -- seasons, rolling windows, reward roles (season_reads.py) -------------------------

    @abstractmethod
    async def window_board(self, game: str, guild_id: int, since: datetime, offset: int = 0,
                           limit: int = 10) -> list[WindowRow]:
        """A page of a server's board of the completed games of ``game`` that ended at or
        after ``since``: wins, then points, then games (``season_sql`` says why)."""

    @abstractmethod
    async def window_board_size(self, game: str, guild_id: int, since: datetime) -> int: ...

    @abstractmethod
    async def window_rank_of(self, game: str, guild_id: int, since: datetime,
                             user_id: int) -> WindowRow | None: ...

    @abstractmethod
    async def season_board(self, game: str, guild_id: int, season: int, offset: int = 0,
                           limit: int = 10) -> list[LeaderboardRow]:
        """A page of a server's season board of ``game`` (its season ratings, kept from
        the rated games of that season: ``FinishedGame.season``)."""

    @abstractmethod
    async def season_board_size(self, game: str, guild_id: int, season: int) -> int: ...

    @abstractmethod
    async def season_rank_of(self, game: str, guild_id: int, season: int,
                             user_id: int) -> LeaderboardRow | None: ...

    @abstractmethod
    async def season_games(self, guild_id: int, season: int) -> list[str]:
        """The games with a board in a server's season, by game id."""

    @abstractmethod
    async def unposted_seasons(self, guild_id: int, before: int) -> list[int]:
        """The seasons before ``before`` with season ratings whose end was not posted yet
        (``mark_season_posted``), oldest first."""

    @abstractmethod
    async def last_season(self, guild_id: int) -> int | None:
        """The highest season number a server has ratings or a post of (None: none)."""

    @abstractmethod
    async def mark_season_posted(self, guild_id: int, season: int) -> None:
        """A season's end was posted: never again (marking twice changes nothing)."""

    @abstractmethod
    async def role_holders(self, guild_id: int, role_id: int) -> list[int]:
        """Who holds a reward role because the bot gave it (``hold_role``), by user id."""

    @abstractmethod
    async def hold_role(self, guild_id: int, role_id: int, user_id: int, held: bool) -> None:
        """Remember that the bot gave (``held``) or took back a reward role."""

    # -- tournaments (tournaments.py) ----------------------------------------------------

    @abstractmethod
    async def create_tournament(self, row: TournamentRow) -> None:
        """Store a new tournament. ``TableExists`` for a known id, ``ChannelBusy`` when
        its channel has a tournament signing up or running already."""

    @abstractmethod
    async def save_tournament(self, tournament_id: str, status: str, data: dict[str, Any],
                              expected_version: int) -> int:
        """Write a tournament's status and state if it is still at ``expected_version``;
        the new version, or ``VersionConflict`` (nothing written)."""

    @abstractmethod
    async def load_tournament(self, tournament_id: str) -> TournamentRow | None: ...

    @abstractmethod
    async def active_tournaments(self) -> list[TournamentRow]:
        """Every tournament signing up or running, oldest first (unreadable ones logged
        and left out)."""

    @abstractmethod
    async def sign_up(self, tournament_id: str, user_id: int, name: str) -> bool:
        """Sign ``user_id`` up; False if they were already (or there is no such
        tournament)."""

    @abstractmethod
    async def withdraw(self, tournament_id: str, user_id: int) -> bool:
        """Take a sign-up back; False if there was none."""

    @abstractmethod
    async def signups(self, tournament_id: str) -> list[tuple[int, str]]:
        """(user id, name) of every sign-up, in the order they came."""
