"""The end of a table: a finished game's results, a stopped table, a closed lobby.

Closing takes the table out of play everywhere at once (its timers, its pending
edit, its driver, storage) before anything is posted, so no step can run on a
table that has ended. A finished or stopped game goes to storage as a record
with each seat's result, in the same transaction as the table's closing
(``TableManager.finish``): the result is never recorded without the table closed,
nor the table closed without its result. Chips move only for a game that declares
them.

If that transaction fails the table stays open here and in storage, and the driver
tries again later (``bot.play.driver.RETRY``): a table records one game, so a second
try records nothing twice. A failure that may have committed (the connection lost on
the answer) is remembered, so that the next try, finding the table closed at the very
version it wrote, shows the result that nobody was shown rather than forgetting it.

What an end shows is stored with it, as what the table owes its channel
(``bot.play.owed``), and settled once shown: a process that dies in between leaves it to
the restart, which shows it then.
"""

from __future__ import annotations

import contextlib
import logging
from collections.abc import Awaitable, Callable
from datetime import UTC, datetime
from typing import Protocol

from bot.play.front import Front, GameRules, Rules
from bot.play.owed import Debts
from bot.storage import (
    FinishedGame,
    SeatResult,
    StorageBusy,
    Store,
    VersionConflict,
    is_rated,
)
from bot.table import takeover
from bot.table.manager import TableManager
from bot.table.state import FINISHED, LOBBY, PLAYING, STOPPED, Table
from bot.table.tasks import TableTasks
from bot.table.timers import Clock, TableTimers
from engine.registry import spec
from engine.text import Text

log = logging.getLogger(__name__)


class Standings(Protocol):
    """What a finished game adds to a series (``bot.features.series``): the deal counted
    in its standings, before the final save."""

    def count(self, table: Table) -> None: ...


class Endings:
    def __init__(self, store: Store, manager: TableManager, front: Front, rules: Rules,
                 timers: TableTimers, tasks: TableTasks, clock: Clock):
        self.store = store
        self.manager = manager
        self.front = front
        self.rules = rules
        self.timers = timers
        self.tasks = tasks
        self.clock = clock
        self.standings: Standings | None = None  # set by the croupier (bot.features.series)
        # Seasons (bot.features.seasons, set by the croupier): the server's season a rated
        # game counts in, and the word that a game was recorded (its players' tier roles).
        self.season_of: Callable[[int | None, float], Awaitable[int | None]] | None = None
        self.recorded: Callable[[FinishedGame], None] | None = None
        self.debts = Debts(store, manager)  # what an end shows; "series_over": the croupier's
        self.debts.payers.update(result=front.finished, board=front.stopped, idle=self._idle)
        self.debts.afterwards["result"] = front.closed  # once settled: no second result
        # Tables whose last end failed in a way that may have committed: the version it
        # was tried at, and the status it wrote.
        self._unsure: dict[str, tuple[int, str]] = {}

    async def finish(self, table: Table) -> None:
        """The game is over: the table closed with its game recorded (one transaction),
        then its results shown. If storage fails, the table is put back as it was, still
        open, and the error raised: the driver tries again after a pause (a click that
        kicks it meanwhile, or the restore after a restart, at once), ending it once."""
        kept = table.clone()
        table.status = FINISHED
        table.turn_deadline = table.reminder_at = None
        if self.standings is not None:
            self.standings.count(table)  # before the final save: a series' standings
        if await self.end(table, kept, completed=True, owed="result"):
            # After the record, so a series' next deal sees the chips this one moved.
            await self.debts.pay(table, "result")

    async def stop(self, table: Table, by: int | None, why: Text) -> None:
        """Stop the table; ``why`` is the line it shows ("The table was stopped by
        {player}."), said in the table's language when drawn. A game under way is
        recorded as stopped, in the same transaction. If storage fails, the table goes
        on as it was and the error is raised (``finish``)."""
        kept = table.clone()
        was_playing = table.status == PLAYING and table.game is not None
        table.status = STOPPED
        table.stopped_by = by
        table.turn_deadline = table.reminder_at = None
        table.lines = [why]
        if await self.end(table, kept, completed=False if was_playing else None,
                          owed="board"):
            await self.debts.pay(table, "board")

    async def _idle(self, table: Table) -> None:
        """What a table stopped for want of moves shows (``bot.play.deadlines``)."""
        await self.front.stopped(table)
        await self.front.idle_stopped(table)

    async def close_lobby(self, table: Table, why: Text, owed: str | None = None) -> None:
        """Close a lobby; ``why`` is the line it shows (said in the table's language).
        ``owed``: what the caller shows next (``debts.pay``), to be shown after a restart
        if this process dies first."""
        table.status = STOPPED
        table.lines = [why if isinstance(why, Text) else Text.from_data(why)]
        await self.close(table, owed)

    def _out_of_play(self, table: Table) -> None:
        """No timer, pending edit nor driver of the table runs any more."""
        self.timers.cancel(table.table_id)
        self.front.closing(table.table_id)
        self.tasks.cancel_driver(table.table_id)

    async def close(self, table: Table, owed: str | None = None) -> None:
        """Close a table that has no game to record (a lobby); forgotten here even if
        storage fails (then a restart finds it open, and closes it again)."""
        self._out_of_play(table)
        try:
            await self.manager.close(table, owed)
        except Exception:
            log.exception("cannot close table %s in storage", table.table_id)
            return
        if owed is not None:
            self.debts.owing(table.table_id)

    async def end(self, table: Table, kept: Table, completed: bool | None,
                  owed: str | None = None) -> bool:
        """End ``table`` (its final state set; ``kept``: a clone from before) in storage:
        the final state, the table closed and, unless ``completed`` is None, its game
        recorded (ratings, history, chips), all in one transaction. True once ended here;
        then the caller shows ``owed`` (``debts.pay``), stored with the end.

        On a failure nothing was stored: the table gets ``kept`` back and its timers, stays
        live, and the error is raised. False: another process ended it meanwhile (a
        version conflict, the stored table closed), so it is only forgotten here."""
        self._out_of_play(table)
        tried = (table.version, str(table.status))
        game = None
        try:
            if completed is not None and table.game is not None:
                now = self.clock.now()
                game = finished_game(table, self.rules[table.game_id], completed, now)
                if self.season_of is not None and is_rated(game):
                    game.season = await self.season_of(table.guild_id, now)
            await self.manager.finish(table, game, owed)
            self._unsure.pop(table.table_id, None)
            if owed is not None:
                self.debts.owing(table.table_id)
            if game is not None and self.recorded is not None:
                self.recorded(game)
            return True
        except Exception as error:
            table.restore(kept)
            if isinstance(error, VersionConflict) and await self._ended_elsewhere(table):
                if self._ours(table, tried, error):
                    log.info("table %s had been ended by this process's last try",
                             table.table_id)
                    self.manager.ended_by_us(table)  # (its followers: a tournament's)
                    self.manager.forget(table, keep_claim=owed is not None)
                    if game is not None and self.recorded is not None:
                        self.recorded(game)  # (its players' tier roles)
                    if owed is not None:
                        self.debts.owing(table.table_id)
                    return True  # its result was never shown: shown now
                log.info("table %s was ended by another process", table.table_id)
                self.manager.forget(table)
                return False
            if not isinstance(error, (VersionConflict, StorageBusy)):
                self._unsure[table.table_id] = tried  # it may have committed
            log.warning("cannot end table %s in storage (%s): it stays open, to be ended "
                        "again", table.table_id, error)
            self.timers.schedule(table)
            raise

    def _ours(self, table: Table, tried: tuple[int, str], conflict: VersionConflict) -> bool:
        """Whether the stored end ``table`` was reread as (after ``conflict``) is this
        process's own last try, which failed with an error that may have come after its
        commit: closed one version after that try's, with that try's status."""
        unsure = self._unsure.pop(table.table_id, None)
        return (unsure is not None and unsure[0] == tried[0] == conflict.expected
                and conflict.actual == tried[0] + 1 and str(table.status) == unsure[1])

    async def _ended_elsewhere(self, table: Table) -> bool:
        """After a version conflict: the table as stored now (reread), and whether that
        is closed."""
        try:
            reread = await self.manager.reload(table)
        except Exception:
            log.exception("cannot reread table %s", table.table_id)
            return False
        return not reread or table.status not in (LOBBY, PLAYING)

    async def abandon(self, table_id: str, channel_id: int | None, guild_id: int | None,
                      reason: str, language: str | None = None) -> None:
        """A saved table that cannot be brought back after a restart: stop it, say so (in
        the table's language, when its snapshot still told it)."""
        log.error("table %s cannot be restored: %s", table_id, reason)
        with contextlib.suppress(Exception):
            await self.store.close_table(table_id, STOPPED)
        if channel_id is not None:
            await self.front.lost(channel_id, guild_id, language)


def finished_game(table: Table, rules: GameRules, completed: bool, now: float
                  ) -> FinishedGame:
    game = table.game
    assert game is not None
    totals, places, winners = game.totals, game.ranking(), set(game.winners())
    stakes = spec(table.game_id).chips
    chips = rules.chips(game) if completed and stakes else [0] * game.players
    # A seat that changed hands (bot.table.takeover) is credited to nobody: no user id,
    # its holders' names in order; storage rates the others among themselves.
    taken = takeover.changed_seats(table)
    if any(s.is_ai for s in table.seats) or taken:  # chips never move then (storage)
        chips = [0] * game.players
    seats = [SeatResult(seat=i, user_id=None if s.is_ai or i in taken else s.user_id,
                        name=" → ".join(takeover.holders(table, i)) if i in taken else s.name,
                        points=totals[i], place=places[i], won=i in winners, chips=chips[i])
             for i, s in enumerate(table.seats)]
    started = table.started_at if table.started_at is not None else table.created_at
    record = game.to_record()
    if table.hinted:  # records.md: other top-level keys are ignored by a replay
        record = {**record, "hinted": sorted(table.hinted)}
    if taken:  # where each change happened, never who: a record is handed to anyone
        record = {**record, "seat_changes": takeover.record_changes(table)}
    return FinishedGame(guild_id=table.guild_id or 0, channel_id=table.channel_id,
                        game=table.game_id, started_at=datetime.fromtimestamp(started, UTC),
                        ended_at=datetime.fromtimestamp(now, UTC), completed=completed,
                        record=record, seats=seats, table_id=table.table_id,
                        stakes=stakes, hinted=bool(table.hinted), taken_over=tuple(taken))
