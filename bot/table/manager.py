"""The live tables: one per channel (a thread counts as a channel), found by channel or id.

``TableManager`` keeps every open table in memory with its ``asyncio.Lock``,
and is the only code that turns a table into storage rows: ``save`` is the one
versioned save of a step, ``finish`` the last one (closed, with its game recorded,
in one transaction), ``save_posts`` writes where its messages are (not versioned),
``restore`` brings the tables back after a restart. Nothing here talks to Discord.

Several processes (shards) may share one database: each restores and drives only
the tables of its own shards that it could claim (``Store.claim_table``), ``reload``
reads a table another process changed, and ``recheck`` claims again the tables whose
ownership went with the database connection (or the lease), or lets them go. A table
of another process's shard can still be *visited* (``visit``): Discord sends every
click on a DM hand to shard 0's process, which applies the move there on a copy read
from storage at its version; the owner catches up from the change that process
announces.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from bot.storage import ACTIVE_STATUSES, CorruptTable, FinishedGame, Store, TableRow
from bot.table.bus import Change, Saved, TableBus
from bot.table.state import Table, TableError
from engine.core import Game
from engine.text import T

log = logging.getLogger(__name__)


@dataclass
class RestoreProblem:
    table_id: str
    channel_id: int | None
    guild_id: int | None
    reason: str  # for the log
    language: str | None = None  # the table's, if its snapshot could still be read


class TableManager:
    def __init__(self, store: Store, engines: Callable[[str], type[Game] | None],
                 bus: TableBus | None = None):
        self.store = store
        self.bus = bus if bus is not None else TableBus()  # every write of a table, told
        self._engines = engines
        self._by_channel: dict[int, Table] = {}
        self._by_id: dict[str, Table] = {}
        self._locks: dict[str, asyncio.Lock] = {}
        self._saved_posts: dict[str, dict[str, Any]] = {}
        self._visiting: dict[str, Table] = {}  # another process's tables, clicked here
        self._releasing: set[asyncio.Task[None]] = set()
        self._kept: set[str] = set()  # closed tables still claimed: their end is being shown

    def in_channel(self, channel_id: int) -> Table | None:
        return self._by_channel.get(channel_id)

    def get(self, table_id: str) -> Table | None:
        return self._by_id.get(table_id)

    def is_live(self, table: Table) -> bool:
        """Whether ``table`` is still the live one (it may have closed while someone waited).

        A visited table (another process's) is live while it is open."""
        if self._visiting.get(table.table_id) is table:
            return table.status in ACTIVE_STATUSES
        return self._by_id.get(table.table_id) is table

    def is_visiting(self, table: Table) -> bool:
        """Whether ``table`` is another process's, read here for one click."""
        return self._visiting.get(table.table_id) is table

    async def visit(self, table_id: str) -> Table | None:
        """Another process's open table, read from storage for a click that reached this
        one (a DM hand's click reaches shard 0 only); None if there is no such open table.

        Only for a store several processes share; the copy is not driven here."""
        if not self.store.shared or table_id in self._by_id:
            return self._by_id.get(table_id)
        row = await self.store.load_table(table_id)
        if not isinstance(row, TableRow) or row.status not in ACTIVE_STATUSES:
            return None
        table = self._restore_one(row)
        self._visiting[table_id] = table
        return table

    async def read(self, table_id: str) -> Table | None:
        """A stored table as it is now, whatever its status, for showing only (the web
        table's viewers): not driven, not kept. None if there is none or it is unreadable."""
        row = await self.store.load_table(table_id)
        return self._restore_one(row) if isinstance(row, TableRow) else None

    def leave(self, table: Table) -> None:
        """The click that visited ``table`` is over: forget the copy."""
        if self._visiting.get(table.table_id) is table:
            del self._visiting[table.table_id]
            if table.table_id not in self._by_id:
                lock = self._locks.get(table.table_id)
                if lock is not None and not lock.locked():
                    del self._locks[table.table_id]

    async def reload(self, table: Table) -> bool:
        """Read ``table`` again from storage, where another process saved a newer version;
        the posts this process keeps stay. False if it is gone or unreadable."""
        row = await self.store.load_table(table.table_id)
        if not isinstance(row, TableRow):
            return False
        fresh = self._restore_one(row)
        table.restore(fresh)  # every field but the posts, the version included
        return True

    def all(self) -> list[Table]:
        return list(self._by_id.values())

    def lock(self, table: Table) -> asyncio.Lock:
        return self._locks.setdefault(table.table_id, asyncio.Lock())

    def any_locked(self) -> bool:
        return any(lock.locked() for lock in self._locks.values())

    def tables_of(self, user_id: int) -> list[Table]:
        return [t for t in self._by_id.values() if t.seat_of(user_id) is not None]

    async def open(self, table: Table) -> None:
        """Register a new lobby; refuse a second table in the same channel."""
        other = self._by_channel.get(table.channel_id)
        if other is not None:
            raise TableError(T("There is already a table of {game} in this channel.",
                               game=other.title))
        # A new table is this process's (its channel is on this process's shard): claimed
        # before it is stored, so that no other process can take it over in between.
        if not await self.store.claim_table(table.table_id):
            raise TableError(  # not for players: a random id already claimed elsewhere
                f"Table {table.table_id} is claimed by another process.")
        self._register(table)
        posts = table.posts.to_data()
        try:
            await self.store.create_table(TableRow(
                table_id=table.table_id, guild_id=table.guild_id or 0,
                channel_id=table.channel_id, game=table.game_id, status=table.status,
                version=table.version, data=table.to_data(), posts=posts))
        except Exception:
            self._unregister(table)
            raise
        self._saved_posts[table.table_id] = posts
        self._publish(table, Change.OPENED)

    async def save(self, table: Table) -> None:
        """The versioned save; the storage refuses a stale version (``VersionConflict``)."""
        table.version = await self.store.save_table(
            table.table_id, table.status, table.to_data(), table.version)
        self._publish(table, Change.SAVED)

    async def save_posts(self, table: Table) -> None:
        """Write where the table's messages are, if that changed since the last write."""
        posts = table.posts.to_data()
        if self._saved_posts.get(table.table_id) == posts:
            return
        await self.store.save_posts(table.table_id, posts)
        self._saved_posts[table.table_id] = posts

    async def finish(self, table: Table, game: FinishedGame | None = None,
                     owed: str | None = None) -> None:
        """End the table (its status already ``finished`` or ``stopped``): its final state
        saved at its version, the table closed and ``game`` recorded, in one transaction
        (``Store.finish_table``), published as one closed version; then forgotten here.
        ``owed``: what the end still shows (``bot.play.owed``), stored with it; the table
        stays claimed by this process until ``let_go``.

        If storage fails (``VersionConflict`` included), nothing of it was stored and the
        error is raised with the table still live here at its version: the caller puts its
        state back, and a later try finishes it (once: a table records one game)."""
        table.version = await self.store.finish_table(
            table.table_id, table.status, table.to_data(), table.version, game, owed)
        self._publish(table, Change.CLOSED)
        self.forget(table, keep_claim=owed is not None)

    async def close(self, table: Table, owed: str | None = None) -> None:
        """Save the final state and forget the table (it stays in storage, closed): a
        lobby, or a table no game was played at. Forgotten here even if storage fails."""
        try:
            await self.finish(table, owed=owed)
        finally:
            self._unregister(table)

    def ended_by_us(self, table: Table) -> None:
        """A table whose end this process stored but could not confirm (a reply lost after
        the commit), found closed on a reread: its followers hear it closed, once."""
        self._publish(table, Change.CLOSED)

    def _publish(self, table: Table, change: Change) -> None:
        self.bus.publish(Saved(table.table_id, table.version, change, str(table.status)))

    def forget(self, table: Table, keep_claim: bool = False) -> None:
        """Forget a table that closed; ``keep_claim``: it stays this process's until
        ``let_go`` (its end is still to be shown here)."""
        if keep_claim:
            self.keep_claim(table.table_id)
        self._unregister(table)

    def keep_claim(self, table_id: str) -> None:
        """The closed table ``table_id`` stays claimed by this process until ``let_go``."""
        self._kept.add(table_id)

    def let_go(self, table_id: str) -> None:
        """A closed table kept claimed (``keep_claim``) is shown: its claim goes."""
        if table_id in self._kept and table_id not in self._by_id:
            self._kept.discard(table_id)
            self._release(table_id)

    def rebuild(self, row: TableRow) -> Table:
        """A stored table as a ``Table`` that is not live here (a closed one, to show its
        end); raises if its game is not in this build or its snapshot is unreadable."""
        return self._restore_one(row)

    async def restore(self, wanted: Callable[[int], bool] = lambda guild_id: True
                      ) -> tuple[list[Table], list[RestoreProblem]]:
        """Load every active table of the servers ``wanted`` (this process's shards) that
        this process can claim and does not hold yet; a row that cannot be restored is
        reported, not raised. Called again later, it takes over the tables a process that
        stopped has left."""
        restored, problems = [], []
        for table_id, guild_id in await self.store.active_table_keys():
            if table_id in self._by_id or not wanted(guild_id):
                continue
            if not await self.store.claim_table(table_id):
                continue  # another process drives it (a restart overlap): not twice
            row = await self.store.load_table(table_id)  # read once it is ours
            if row is None or row.status not in ACTIVE_STATUSES:
                await self.store.release_table(table_id)  # closed meanwhile
                continue
            if isinstance(row, CorruptTable):
                problems.append(RestoreProblem(row.table_id, row.channel_id, row.guild_id,
                                               row.error))
                continue
            try:
                table = self._restore_one(row)
            except Exception as error:  # one broken table must not stop the others
                log.exception("cannot restore table %s", row.table_id)
                language = row.data.get("language") if isinstance(row.data, dict) else None
                problems.append(RestoreProblem(row.table_id, row.channel_id, row.guild_id,
                                               str(error) or type(error).__name__,
                                               language if isinstance(language, str) else None))
                continue
            self._register(table)
            if row.posts is not None:
                self._saved_posts[table.table_id] = table.posts.to_data()
            restored.append(table)
        return restored, problems

    async def recheck(self) -> tuple[list[tuple[Table, int]], list[Table]]:
        """The live tables whose ownership this process lost (``Store.owns_table``: the
        database restarted, or the lease ran out while the process stood still), claimed
        again: ``(kept, gone)``. ``kept``: claimed again, each with its stored version (the
        caller catches up if another process wrote it meanwhile). ``gone``: another process
        holds it now, or it closed in storage meanwhile; forgotten here, not driven twice."""
        kept: list[tuple[Table, int]] = []
        gone: list[Table] = []
        for table in list(self._by_id.values()):
            if self.store.owns_table(table.table_id):
                continue
            if await self.store.claim_table(table.table_id):
                row = await self.store.load_table(table.table_id)  # read once it is ours
                if isinstance(row, TableRow) and row.status in ACTIVE_STATUSES:
                    kept.append((table, row.version))
                    continue
            if self._by_id.get(table.table_id) is table:  # (it may have closed meanwhile)
                self._unregister(table)
                gone.append(table)
        return kept, gone

    def _restore_one(self, row: TableRow) -> Table:
        data = row.data
        engine = self._engines(data["game_id"])
        if engine is None:
            raise TableError(  # not for players: the restore log says it
                f"The game {data['game_id']!r} is not available in this build.")
        table = Table.from_data(data, engine, row.version, row.posts)
        table.status = row.status
        return table

    def _register(self, table: Table) -> None:
        self._by_channel[table.channel_id] = table
        self._by_id[table.table_id] = table

    def _unregister(self, table: Table) -> None:
        if self._by_channel.get(table.channel_id) is table:
            del self._by_channel[table.channel_id]
        if self._by_id.pop(table.table_id, None) is not None \
                and table.table_id not in self._kept:
            self._release(table.table_id)
        self._locks.pop(table.table_id, None)
        self._saved_posts.pop(table.table_id, None)

    def _release(self, table_id: str) -> None:
        """Give up owning a table that is no longer live here (closed, or forgotten)."""
        if not self.store.shared:
            return
        task = asyncio.get_running_loop().create_task(self._release_quietly(table_id))
        self._releasing.add(task)
        task.add_done_callback(self._releasing.discard)

    async def _release_quietly(self, table_id: str) -> None:
        try:
            await self.store.release_table(table_id)
        except Exception:  # the lock goes with the connection at the latest
            log.exception("cannot release table %s", table_id)
