"""PostgreSQL: the connections of one ``PostgresStorage``, every wait bounded.

* a pool (asyncpg) for the queries: a connection within ``wait_s`` or ``StorageBusy``;
* on every connection ``lock_timeout`` (``wait_s``) and ``statement_timeout`` (three
  times that), with a client-side timeout a second above it: a lock or a statement
  that takes too long is ``StorageBusy`` too, never a hang;
* transactions retried after a deadlock or a serialization failure, within the bound;
* **turns**: the writes of one key (a table, a user, a meta key) run one after the other
  in the order they were called, as on SQLite's one connection, so that two calls of
  one process cannot overtake each other on two pooled connections (the latest posts,
  the latest name win); writes of different keys run side by side;
* dedicated connections (ownership, notices) outside the pool.
"""

from __future__ import annotations

import asyncio
import logging
import random
from collections.abc import AsyncIterator, Awaitable, Callable, Hashable
from contextlib import asynccontextmanager
from typing import Any, Self, TypeVar
from urllib.parse import parse_qsl, urlencode, urlsplit, urlunsplit

import asyncpg  # type: ignore[import-untyped]  # asyncpg ships no type information

from bot.storage.rows import StorageBusy, StorageError

log = logging.getLogger(__name__)

T = TypeVar("T")

# What a connection lost or refused looks like, apart from a query's own errors.
GONE = (OSError, asyncpg.PostgresConnectionError, asyncpg.AdminShutdownError,
        asyncpg.CannotConnectNowError, asyncpg.TooManyConnectionsError)
_BUSY = (asyncpg.LockNotAvailableError, asyncpg.QueryCanceledError, TimeoutError)
_RETRY = (asyncpg.DeadlockDetectedError, asyncpg.SerializationError)


def safe_location(url: str) -> str:
    """The database URL without its password (for logs and ``info``)."""
    try:
        parts = urlsplit(url)
        host = parts.hostname or ""
        if ":" in host:
            host = f"[{host}]"
        netloc = f"{parts.username}@{host}" if parts.username else host
        if parts.port:
            netloc += f":{parts.port}"
        query = urlencode([(k, v) for k, v in parse_qsl(parts.query) if k != "password"])
        return urlunsplit((parts.scheme, netloc, parts.path, query, ""))
    except ValueError:
        return "postgresql://(unreadable URL)"


def server_settings(wait_ms: int) -> dict[str, str]:
    """The bounds every connection of a store runs with."""
    # The server's side of a connection whose client vanished without closing it (a host
    # powered off, a network cut, a process frozen past its socket): without the tcp_
    # settings, Linux probes an idle connection only after 2 hours, and the server keeps
    # its session, its locks and its place in max_connections all that time. An idle
    # connection is probed after 30 s, every 10 s, and dropped after 3 unanswered probes
    # (a minute in all); one with data unacknowledged for a minute (a NOTIFY to a dead
    # listener, which keepalives do not probe) is dropped too. Any role may set them when
    # it connects; on a Unix-domain socket they are ignored and read 0.
    return {"lock_timeout": str(wait_ms), "statement_timeout": str(3 * wait_ms),
            "idle_in_transaction_session_timeout": str(max(60_000, 6 * wait_ms)),
            "tcp_keepalives_idle": "30", "tcp_keepalives_interval": "10",
            "tcp_keepalives_count": "3", "tcp_user_timeout": "60000",
            "application_name": "cardtable"}


async def _keep_session(conn: asyncpg.Connection) -> None:
    """A pooled connection goes back as it is (asyncpg has already rolled back any open
    transaction): the store changes no session state on them — no session locks, no
    LISTEN, no SET but SET LOCAL — so the default reset would be one round trip per
    call for nothing."""
    return None


class Connections:
    """A store's pool, its bounds and its turns: ``await Connections.open(url, ...)``."""

    def __init__(self, pool: asyncpg.Pool, url: str, wait_s: float,
                 settings: dict[str, str]) -> None:
        self._pool = pool
        self._url = url
        self.location = safe_location(url)
        self.wait_s = wait_s
        self._settings = settings
        self._turns: dict[Hashable, tuple[asyncio.Lock, int]] = {}
        self.closed = False

    @classmethod
    async def open(cls, url: str, wait_s: float, pool_size: int) -> Self:
        settings = server_settings(round(wait_s * 1000))
        try:
            pool = await asyncpg.create_pool(
                url, min_size=1, max_size=pool_size, timeout=wait_s,
                command_timeout=3 * wait_s + 1, server_settings=settings,
                max_inactive_connection_lifetime=300, reset=_keep_session)
        except (*GONE, TimeoutError, asyncpg.PostgresError) as error:
            raise StorageError(f"Cannot connect to PostgreSQL at {safe_location(url)}: "
                               f"{error}") from error
        return cls(pool, url, wait_s, settings)

    async def close(self) -> None:
        self.closed = True
        try:
            await asyncio.wait_for(self._pool.close(), self.wait_s)
        except (TimeoutError, *GONE):
            self._pool.terminate()

    def terminate(self) -> None:
        self.closed = True
        self._pool.terminate()

    async def dedicated(self, use: str) -> asyncpg.Connection:
        """A connection of its own (ownership, notices), out of the pool; ``use`` names
        it in ``pg_stat_activity`` (with the store's origin)."""
        if self.closed:
            raise StorageError("The storage is closed.")
        settings = {**self._settings, "application_name": f"cardtable/{use}"}
        return await asyncpg.connect(self._url, timeout=self.wait_s, server_settings=settings)

    @asynccontextmanager
    async def connection(self) -> AsyncIterator[asyncpg.Connection]:
        """A pooled connection within the bound; the waits that ran out as ``StorageBusy``."""
        if self.closed:
            raise StorageError("The storage is closed.")
        try:
            conn = await self._pool.acquire(timeout=self.wait_s)
        except TimeoutError:
            log.warning("storage: waited %.1f s for a connection; giving up", self.wait_s)
            raise StorageBusy(f"No database connection came free in {self.wait_s:.1f} s."
                              ) from None
        except GONE as error:
            raise StorageBusy(f"Cannot reach the database: {error}") from error
        try:
            yield conn
        except _BUSY as error:
            log.warning("storage: the database stayed busy (%s); giving up",
                        type(error).__name__)
            raise StorageBusy(f"The database stayed busy: {error or type(error).__name__}"
                              ) from error
        except GONE as error:
            raise StorageError(f"The connection to the database was lost: {error}") from error
        finally:
            await self._pool.release(conn)

    async def write(self, work: Callable[[asyncpg.Connection], Awaitable[T]]) -> T:
        """``work`` in one transaction; again after a deadlock or a serialization
        failure (the other transaction won; nothing of ours was kept), within the bound."""
        loop = asyncio.get_running_loop()
        deadline, attempt = loop.time() + self.wait_s, 0
        while True:
            try:
                async with self.connection() as conn, conn.transaction():
                    return await work(conn)
            except _RETRY as error:
                attempt += 1
                if loop.time() >= deadline:
                    raise StorageBusy(f"The transaction kept colliding: {error}") from error
                await asyncio.sleep(random.uniform(0, 0.002 * 2 ** min(attempt, 6)))

    async def fetch(self, sql: str, *params: Any) -> list[Any]:
        async with self.connection() as conn:
            return list(await conn.fetch(sql, *params))

    async def execute(self, sql: str, *params: Any) -> None:
        async with self.connection() as conn:
            await conn.execute(sql, *params)

    @asynccontextmanager
    async def turn(self, key: Hashable) -> AsyncIterator[None]:
        """Wait for the writes of ``key`` called before (first come, first served)."""
        lock, users = self._turns.get(key) or (asyncio.Lock(), 0)
        self._turns[key] = (lock, users + 1)
        try:
            try:
                if lock.locked():
                    await asyncio.wait_for(lock.acquire(), self.wait_s)
                else:  # free: no timer needed (the usual case)
                    await lock.acquire()
            except TimeoutError:
                raise StorageBusy(f"Earlier writes of {key!r} took over {self.wait_s:.1f} s."
                                  ) from None
            try:
                yield
            finally:
                lock.release()
        finally:
            lock, users = self._turns[key]
            if users == 1:
                del self._turns[key]
            else:
                self._turns[key] = (lock, users - 1)
