"""PostgreSQL: which process owns which live table, for several processes on one database.

A process owns a live table while it holds a session-level advisory lock on the table's
key (``table_key``), on one connection kept for that alone (``Owner``). A process that
dies loses its connection, and PostgreSQL frees its locks at once, so another can take
its tables over; a process that loses the connection forgets what it owned (``owns``
says so) and claims its tables again at its next look (``TableManager.recheck``).

A process that hangs without dying (a blocked event loop, a paused machine) would keep
its locks for as long as its socket lives — hours with default TCP keepalives. So the
ownership is a lease: the connection runs with ``idle_session_timeout`` = ``lease_s``
and the owner renews it with a query every third of that. A process that stands still
for ``lease_s`` has its session ended by the server, its locks with it, and the others
take its tables over; when it wakes, its claims fail and it lets those tables go.

The notices processes send each other are ``postgres_notices.py``.
"""

from __future__ import annotations

import asyncio
import contextlib
import hashlib
import logging
from collections.abc import AsyncIterator, Awaitable, Callable

import asyncpg  # type: ignore[import-untyped]  # asyncpg ships no type information

from bot.storage.rows import StorageBusy

log = logging.getLogger(__name__)

Connect = Callable[[str], Awaitable[asyncpg.Connection]]
"""Opens a dedicated connection; its argument names its use (application_name)."""

LEASE_S = 30.0
"""How long a process may stand still before the server ends its ownership session:
well over any pause a healthy process makes (a long garbage collection, a slow disk),
well under the minutes a table's players would wait."""


def table_key(table_id: str) -> int:
    """The advisory lock key of a table: a stable signed 64-bit hash of its id."""
    digest = hashlib.blake2b(table_id.encode("utf-8"), digest_size=8,
                             person=b"cardtable-own").digest()
    return int.from_bytes(digest, "big", signed=True)



class Owner:
    """The tables this store owns: advisory locks on one dedicated connection."""

    def __init__(self, connect: Connect, wait_s: float, lease_s: float = LEASE_S) -> None:
        self._connect = connect
        self._wait_s = wait_s
        self._lease_s = lease_s
        self._conn: asyncpg.Connection | None = None
        self._owned: set[str] = set()
        self._lock = asyncio.Lock()
        self._renewing: asyncio.Task[None] | None = None

    @property
    def owned(self) -> frozenset[str]:
        return frozenset(self._owned)

    def owns(self, table_id: str) -> bool:
        """Whether this process holds the table's lock now, as far as it knows (a lost
        connection is known at once when its socket closes, else at the next renewal)."""
        return table_id in self._owned and self._conn is not None and not self._conn.is_closed()

    async def claim(self, table_id: str) -> bool:
        async with self._turn():
            if table_id in self._owned and self._conn is not None and not self._conn.is_closed():
                return True  # never a second lock on top of the first
            conn = await self._connection()
            if await conn.fetchval("SELECT pg_try_advisory_lock($1)", table_key(table_id)):
                self._owned.add(table_id)
                return True
            return False

    async def release(self, table_id: str) -> None:
        async with self._turn():
            if table_id not in self._owned:
                return
            self._owned.discard(table_id)
            if self._conn is not None and not self._conn.is_closed():
                await self._conn.fetchval("SELECT pg_advisory_unlock($1)", table_key(table_id))

    async def close(self) -> None:
        if self._renewing is not None:
            self._renewing.cancel()
            self._renewing = None
        conn, self._conn = self._conn, None
        self._owned.clear()
        if conn is not None and not conn.is_closed():
            try:
                await asyncio.wait_for(conn.close(), self._wait_s)
            except (TimeoutError, OSError, asyncpg.PostgresError, asyncpg.InterfaceError):
                conn.terminate()

    @contextlib.asynccontextmanager
    async def _turn(self) -> AsyncIterator[None]:
        try:
            await asyncio.wait_for(self._lock.acquire(), self._wait_s)
        except TimeoutError:
            raise StorageBusy("The ownership connection stayed busy.") from None
        try:
            yield
        except (TimeoutError, OSError, asyncpg.PostgresError, asyncpg.InterfaceError) as error:
            raise StorageBusy(f"Table ownership is out of reach: {error}") from error
        finally:
            self._lock.release()

    async def _connection(self) -> asyncpg.Connection:
        if self._conn is not None and not self._conn.is_closed():
            return self._conn
        if self._owned:  # the connection went, and its locks with it
            log.warning("storage: the ownership connection was lost; %d table(s) are no "
                        "longer this process's", len(self._owned))
            self._owned.clear()
        conn = await asyncio.wait_for(self._connect("owner"), self._wait_s)
        try:  # the lease: a session idle this long is ended by the server (see above)
            await conn.execute(f"SET idle_session_timeout = {round(self._lease_s * 1000)}")
        except asyncpg.UndefinedObjectError:  # before PostgreSQL 14: no lease, still owned
            log.warning("storage: this PostgreSQL has no idle_session_timeout (version 14 "
                        "or later has): a process that hangs keeps its tables until its "
                        "connection is found dead")
        except BaseException:
            conn.terminate()
            raise
        conn.add_termination_listener(self._lost)
        self._conn = conn
        if self._renewing is None or self._renewing.done():
            self._renewing = asyncio.create_task(self._renew(), name="ownership lease")
        return conn

    async def _renew(self) -> None:
        """Keep the lease while this process runs: a query every third of it. A renewal
        that fails or does not come back in ``wait_s`` ends the connection: unsure
        whether it still holds its locks, this process holds nothing (``_lost``)."""
        while True:
            await asyncio.sleep(self._lease_s / 3)
            async with self._lock:  # one query at a time on the connection
                conn = self._conn
                if conn is None or conn.is_closed():
                    continue  # nothing held: the next claim connects again
                try:
                    await asyncio.wait_for(conn.fetchval("SELECT 1"), self._wait_s)
                except (TimeoutError, OSError, asyncpg.PostgresError,
                        asyncpg.InterfaceError) as error:
                    log.warning("storage: the ownership lease could not be renewed: %r",
                                error)
                    conn.terminate()
                    self._lost(conn)

    def _lost(self, conn: asyncpg.Connection) -> None:
        if conn is self._conn and self._owned:
            log.warning("storage: the ownership connection closed; %d table(s) are no "
                        "longer this process's", len(self._owned))
            self._owned.clear()


