"""PostgreSQL: the notices several processes sharing one database send each other.

``Notices``: ``NOTIFY cardtable_tables`` with a ``TableChange`` as JSON
  (``change_payload``), received on a connection kept for ``LISTEN``, and listens again
  if that connection is lost. What is announced when:

  - every write of a table's version: ``create_table`` (``"opened"``), ``save_table``
    (``"saved"``), ``close_table`` and ``finish_table`` (``"closed"``: the table's end,
    its final snapshot and its game's record written in one transaction as one version)
    call ``pg_notify`` in the same transaction as the write (``postgres.py``).
    PostgreSQL delivers a notice when its transaction commits and drops it on a
    rollback, so a listener hears each version exactly once, after it is stored, and
    nothing of a write refused (``VersionConflict``, ``ChannelBusy``, ``TableExists``)
    or rolled back. The versions of one table are
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
import json
import logging
from collections.abc import Callable, Iterable
from dataclasses import asdict, dataclass
from typing import Final

import asyncpg  # type: ignore[import-untyped]  # asyncpg ships no type information

from bot.storage.postgres_ownership import Connect
from bot.storage.rows import CHANGE_KINDS, STATUSES, TableChange, check_kinds

log = logging.getLogger(__name__)

CHANNEL: Final = "cardtable_tables"
"""The NOTIFY channel of table changes."""

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
    deals = data.get("deals")
    if not (isinstance(table_id, str) and isinstance(origin, str) and _integer(version)
            and (seat is None or _integer(seat)) and (collapsed is None or _integer(collapsed))
            and isinstance(kind, str) and kind in CHANGE_KINDS
            and (status is None or (isinstance(status, str) and status in STATUSES))
            and (deals is None or (isinstance(deals, list) and len(deals) <= 50
                                   and all(_integer(d) for d in deals)))):
        raise ValueError("not a table change")
    assert isinstance(version, int)
    return TableChange(table_id, version, origin, seat, collapsed, kind, status,
                       tuple(deals) if deals is not None else None)


def _integer(value: object) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


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
