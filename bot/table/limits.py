"""How many tables may be open at once: per server, and per host in a server.

A table counts from the moment its ``/start`` passes the check until it closes, lobbies
included: ``Openings`` counts the live tables of the ``TableManager`` plus the starts
that passed the check and are still opening (a thread being made, the first save), so
that starts racing each other cannot pass the same free place twice.

Counted in this process only, and that is exact: every table of a server lives in the
process that runs the server's shard (``Shards.owns_guild``; a table opened here is
claimed here before it is stored), so with several shard processes over one PostgreSQL
a server's tables, and its hosts', are all here. A rematch or a series' next deal takes
the place of the table it follows (closed first), so only a start is checked.
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from dataclasses import dataclass

from bot.storage import ACTIVE_STATUSES
from bot.table.manager import TableManager


@dataclass(frozen=True)
class Caps:
    """The open tables a server allows: of one host, and in all."""

    per_host: int
    per_server: int


@dataclass(frozen=True)
class Full:
    """A start refused: which cap is reached (``"host"`` or ``"server"``), and at what."""

    which: str
    cap: int


@dataclass
class Start:
    """A start that passed the check and is opening its table; ``table_id`` once the table
    is made: from the moment the manager holds that table, the manager counts it."""

    guild_id: int
    host_id: int
    table_id: str | None = None


class Openings:
    def __init__(self, manager: TableManager):
        self.manager = manager
        self._starts: list[Start] = []

    def counts(self, guild_id: int, host_id: int) -> tuple[int, int]:
        """(the host's, the server's) open tables, starts still opening included."""
        host = server = 0
        for table in self.manager.all():
            if table.guild_id == guild_id and table.status in ACTIVE_STATUSES:
                server += 1
                host += table.host_id == host_id
        for start in self._starts:
            if start.guild_id == guild_id and (start.table_id is None
                                               or self.manager.get(start.table_id) is None):
                server += 1
                host += start.host_id == host_id
        return host, server

    def full(self, guild_id: int | None, host_id: int, caps: Caps) -> Full | None:
        """Which cap a new table of ``host_id`` would pass (None: there is room)."""
        if guild_id is None:
            return None
        host, server = self.counts(guild_id, host_id)
        if server >= caps.per_server:
            return Full("server", caps.per_server)
        if host >= caps.per_host:
            return Full("host", caps.per_host)
        return None

    @contextlib.contextmanager
    def opening(self, guild_id: int | None, host_id: int) -> Iterator[Start]:
        """Count a start that passed ``full`` until it is over (its table open, or given
        up); set the ``Start``'s ``table_id`` once the table is made, so that it is not
        counted twice while the manager holds it. No await between ``full`` and this, so
        no other start runs in between."""
        start = Start(guild_id or 0, host_id)
        self._starts.append(start)
        try:
            yield start
        finally:
            self._starts.remove(start)
