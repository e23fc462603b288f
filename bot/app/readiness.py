"""Whether this process serves its players now: what ``/healthz`` answers.

Ready means: set up (the tables restored), every shard this process runs connected to
the gateway, and the database answering a cheap query within ``ping_timeout``.
discord.py's ``is_ready()`` stays true across a dropped gateway connection, so the
shards' connections are followed from their own events instead.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable, Iterable

log = logging.getLogger(__name__)


class Readiness:
    def __init__(self, set_up: Callable[[], bool], local_shards: Callable[[], Iterable[int]],
                 ping: Callable[[], Awaitable[object]], ping_timeout: float = 2.0):
        self._set_up = set_up
        self._local_shards = local_shards
        self._ping = ping
        self.ping_timeout = ping_timeout
        self.connected: set[int] = set()

    def shard_connected(self, shard_id: int) -> None:
        self.connected.add(shard_id)

    def shard_disconnected(self, shard_id: int) -> None:
        self.connected.discard(shard_id)

    async def why_not(self) -> str | None:
        """None if ready; else one line saying why not (for the log and the response)."""
        if not self._set_up():
            return "starting"
        shards = set(self._local_shards())
        if not shards:
            return "no gateway connection yet"
        down = sorted(shards - self.connected)
        if down:
            return f"shard(s) {', '.join(map(str, down))} not connected to the gateway"
        try:
            await asyncio.wait_for(self._ping(), self.ping_timeout)
        except Exception as error:  # a timeout, a refused connection, a closed store
            return f"the database does not answer: {type(error).__name__}"
        return None

    async def ready(self) -> bool:
        why = await self.why_not()
        if why is not None:
            log.info("not ready: %s", why)
        return why is None
