"""PostgreSQL: what several processes sharing one database tell each other.

* **Ownership** (``Owner``): a process owns a live table while it holds a session-level
  advisory lock on the table's key, on one connection kept for that alone. A process
  that dies loses its connection, and PostgreSQL frees its locks at once, so another
  can take its tables over; a process that loses the connection forgets what it owned.
* **Notices** (``Notices``): ``NOTIFY cardtable_tables`` with a ``TableChange`` as JSON
  (``change_payload``), received on a connection kept for ``LISTEN``, and listens again
  if that connection is lost. What is announced when:

  - every write of a table's version: ``create_table`` (``"opened"``), ``save_table``
    (``"saved"``) and ``close_table`` (``"closed"``) call ``pg_notify`` in the same
    transaction as the write (``postgres.py``). PostgreSQL delivers a notice when its
    transaction commits and drops it on a rollback, so a listener hears each version
    exactly once, after it is stored, and nothing of a write refused (``VersionConflict``,
    ``ChannelBusy``, ``TableExists``) or rolled back. The versions of one table are
    written one after the other (each write waits for the row's lock, and checks the
    version the last one committed), and notices arrive in commit order: a listener
    hears a table's versions in order. ``save_posts`` changes no version: no notice.
  - ``Store.announce`` (``"answered"``): a process that answered a DM click on another
    process's table tells its owner, after the fact, in a notice of its own.

  Each callback chooses its kinds, and whether it hears its own store's notices (by
  ``origin``, a random token per store): by default only others' ``"answered"``.
"""

from __future__ import annotations

import asyncio
import contextlib
import hashlib
import json
import logging
from collections.abc import AsyncIterator, Awaitable, Callable, Iterable
from dataclasses import asdict, dataclass
from typing import Final

import asyncpg  # type: ignore[import-untyped]  # asyncpg ships no type information

from bot.storage.rows import CHANGE_KINDS, STATUSES, StorageBusy, TableChange, check_kinds

log = logging.getLogger(__name__)

CHANNEL: Final = "cardtable_tables"
"""The NOTIFY channel of table changes."""

Connect = Callable[[str], Awaitable[asyncpg.Connection]]
"""Opens a dedicated connection; its argument names its use (application_name)."""


def table_key(table_id: str) -> int:
    """The advisory lock key of a table: a stable signed 64-bit hash of its id."""
    digest = hashlib.blake2b(table_id.encode("utf-8"), digest_size=8,
                             person=b"cardtable-own").digest()
    return int.from_bytes(digest, "big", signed=True)


NOTICE_LIMIT: Final = 8000
"""PostgreSQL's bound on a NOTIFY payload, in bytes (a longer one is an error)."""


def change_payload(change: TableChange) -> str:
    """A ``TableChange`` as the JSON text of a notice: only the fields that are set
    (a ``"saved"`` change is about 100 bytes). ValueError if it would not fit a notice
    (a table id thousands of characters long)."""
    fields = {name: value for name, value in asdict(change).items() if value is not None}
    payload = json.dumps(fields, separators=(",", ":"))  # ASCII: characters are bytes
    if len(payload) >= NOTICE_LIMIT:
        raise ValueError(f"A table change of {len(payload)} bytes does not fit a notice.")
    return payload


def change_of(payload: str) -> TableChange:
    """The ``TableChange`` of a notice; ValueError for anything else.

    A notice without ``kind`` (sent by an older bot) is ``"answered"``; fields it does
    not know are left out (a newer bot's)."""
    data = json.loads(payload)
    if not isinstance(data, dict):
        raise ValueError("a notice is a JSON object")
    table_id, version = data.get("table_id"), data.get("version")
    origin = data.get("origin", "")
    seat, collapsed = data.get("seat"), data.get("collapsed")
    kind, status = data.get("kind", "answered"), data.get("status")
    if not (isinstance(table_id, str) and isinstance(origin, str) and _integer(version)
            and (seat is None or _integer(seat)) and (collapsed is None or _integer(collapsed))
            and isinstance(kind, str) and kind in CHANGE_KINDS
            and (status is None or (isinstance(status, str) and status in STATUSES))):
        raise ValueError("not a table change")
    assert isinstance(version, int)
    return TableChange(table_id, version, origin, seat, collapsed, kind, status)


def _integer(value: object) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


class Owner:
    """The tables this store owns: advisory locks on one dedicated connection."""

    def __init__(self, connect: Connect, wait_s: float) -> None:
        self._connect = connect
        self._wait_s = wait_s
        self._conn: asyncpg.Connection | None = None
        self._owned: set[str] = set()
        self._lock = asyncio.Lock()

    @property
    def owned(self) -> frozenset[str]:
        return frozenset(self._owned)

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
        conn.add_termination_listener(self._lost)
        self._conn = conn
        return conn

    def _lost(self, conn: asyncpg.Connection) -> None:
        if conn is self._conn and self._owned:
            log.warning("storage: the ownership connection closed; %d table(s) are no "
                        "longer this process's", len(self._owned))
            self._owned.clear()


@dataclass(frozen=True)
class _Listener:
    """One callback of ``Notices`` and what it hears."""

    on_change: Callable[[TableChange], None]
    own: bool  # this store's own notices too
    kinds: frozenset[str]

    def hears(self, change: TableChange, origin: str) -> bool:
        return change.kind in self.kinds and (self.own or change.origin != origin)


class Notices:
    """``LISTEN`` on a dedicated connection; the notices to the callbacks that hear them."""

    def __init__(self, connect: Connect, origin: str, wait_s: float,
                 retry_s: float = 1.0) -> None:
        self._connect = connect
        self._origin = origin
        self._wait_s = wait_s
        self._retry_s = retry_s
        self._listeners: list[_Listener] = []
        self._conn: asyncpg.Connection | None = None
        self._opening = asyncio.Lock()
        self._reconnecting: asyncio.Task[None] | None = None
        self._closed = False

    async def listen(self, on_change: Callable[[TableChange], None], *, own: bool = False,
                     kinds: Iterable[str] = ("answered",)) -> None:
        """``Store.listen``: ``on_change`` for the notices of ``kinds``, this store's own
        too if ``own``."""
        self._listeners.append(_Listener(on_change, own, check_kinds(kinds)))
        await self._open()

    async def _open(self) -> None:
        """LISTEN on a connection of its own, unless already listening."""
        async with self._opening:
            if self._conn is not None or self._closed:
                return
            conn = await self._connect("listen")
            try:
                await conn.add_listener(CHANNEL, self._received)
            except BaseException:
                conn.terminate()
                raise
            conn.add_termination_listener(self._lost)
            self._conn = conn

    def _received(self, _conn: object, _pid: int, _channel: str, payload: str) -> None:
        try:
            change = change_of(payload)
        except (ValueError, TypeError) as error:
            log.warning("storage: ignoring a malformed table notice %r: %s", payload[:200],
                        error)
            return
        for listener in list(self._listeners):
            if not listener.hears(change, self._origin):
                continue
            try:
                listener.on_change(change)
            except Exception:
                log.exception("storage: a table notice's callback failed")

    def _lost(self, conn: asyncpg.Connection) -> None:
        if conn is not self._conn or self._closed:
            return
        self._conn = None
        log.warning("storage: the notice connection closed; listening again")
        self._reconnecting = asyncio.get_running_loop().create_task(self._reconnect())

    async def _reconnect(self) -> None:
        while not self._closed and self._conn is None:
            try:
                await self._open()
                log.info("storage: listening to table notices again")
            except (OSError, asyncpg.PostgresError, asyncpg.InterfaceError, TimeoutError) as e:
                log.warning("storage: cannot listen to table notices yet: %s", e)
                await asyncio.sleep(self._retry_s)

    async def close(self) -> None:
        self._closed = True
        if self._reconnecting is not None:
            self._reconnecting.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._reconnecting
        conn, self._conn = self._conn, None
        if conn is not None and not conn.is_closed():
            try:
                await asyncio.wait_for(conn.close(), self._wait_s)
            except (TimeoutError, OSError, asyncpg.PostgresError, asyncpg.InterfaceError):
                conn.terminate()
