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
from collections import Counter
from collections.abc import Callable, Iterator
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


class Openings:
    def __init__(self, manager: TableManager):
        self.manager = manager
        self._opening: Counter[tuple[int, int | None]] = Counter()  # (guild, host): starts

    def counts(self, guild_id: int, host_id: int) -> tuple[int, int]:
        """(the host's, the server's) open tables, starts still opening included."""
        host = server = 0
        for table in self.manager.all():
            if table.guild_id == guild_id and table.status in ACTIVE_STATUSES:
                server += 1
                host += table.host_id == host_id
        for (guild, opener), n in self._opening.items():
            if guild == guild_id:
                server += n
                host += n if opener == host_id else 0
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
    def opening(self, guild_id: int | None, host_id: int) -> Iterator[Callable[[], None]]:
        """Count a start that passed ``full`` until it is given up, or until the callable
        it gives is called: its table is open, and the manager counts it from then on. No
        await between ``full`` and this, so no other start runs in between."""
        key = (guild_id or 0, host_id)
        self._opening[key] += 1
        counted = True

        def opened() -> None:
            nonlocal counted
            if counted:
                counted = False
                self._opening[key] -= 1
                if self._opening[key] <= 0:
                    del self._opening[key]

        try:
            yield opened
        finally:
            opened()
