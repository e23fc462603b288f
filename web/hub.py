"""The viewers of each table, and a fresh snapshot to each at every table version.

The hub is told that a table changed (``changed``: the table bus of this process,
and on a shared store the notices of the others) and pushes: one read of the table,
one snapshot per kind of viewer (a seat, or the spectators, in a language), encoded
once, sent to each. Changes that come while a push is under way are merged into one
more push of the newest version. A viewer never gets an older version than it has.
"""

from __future__ import annotations

import asyncio
import json
import logging
import time
from collections import defaultdict
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field, replace
from typing import Any

from bot.table.state import Table
from web.snapshots import Views, hand_part, public_part
from web.tokens import Grant

log = logging.getLogger(__name__)

Send = Callable[[str], Awaitable[None]]


@dataclass(eq=False)
class Viewer:
    """One open page: who it is (its session's ``grant``) and how to reach it."""

    grant: Grant
    send: Send
    sent_version: int = -1  # the newest version it was sent

    def seat_in(self, table: Table) -> int | None:
        """The viewer's seat at ``table`` (None: a spectator, or no longer seated)."""
        return table.seat_of(self.grant.user) if self.grant.role == "seat" else None


@dataclass
class _Pushing:
    task: asyncio.Task[None] | None = None
    again: bool = False
    viewers: set[Viewer] = field(default_factory=set)


class Hub:
    def __init__(self, read: Callable[[str], Awaitable[Table | None]], views: Views,
                 forget: Callable[[str], None] = lambda table_id: None,
                 now: Callable[[], float] = time.time,
                 reissue: Callable[[Grant], str] | None = None):
        self._read = read
        self._reissue = reissue  # a session for a grant (viewers moving to a next table)
        self._now = now  # the clock of the tables' deadlines
        self._forget = forget  # told when a table has no viewer left
        self.views = views
        self._tables: dict[str, _Pushing] = defaultdict(_Pushing)

    def join(self, viewer: Viewer) -> None:
        self._tables[viewer.grant.table].viewers.add(viewer)

    def leave(self, viewer: Viewer) -> None:
        pushing = self._tables.get(viewer.grant.table)
        if pushing is None:
            return
        pushing.viewers.discard(viewer)
        if not pushing.viewers and pushing.task is None:
            del self._tables[viewer.grant.table]
            self._forget(viewer.grant.table)

    def viewers(self, table_id: str) -> int:
        pushing = self._tables.get(table_id)
        return len(pushing.viewers) if pushing is not None else 0

    def changed(self, table_id: str) -> None:
        """``table_id`` was saved at a new version: its viewers get it (called from the
        bus and the store's notices; returns at once)."""
        pushing = self._tables.get(table_id)
        if pushing is None or not pushing.viewers:
            return
        if pushing.task is not None:
            pushing.again = True
            return
        pushing.task = asyncio.get_running_loop().create_task(self._push(table_id, pushing))

    async def _push(self, table_id: str, pushing: _Pushing) -> None:
        try:
            while True:
                pushing.again = False
                table = await self._read(table_id)
                if table is not None:
                    await self.send_all(table, list(pushing.viewers))
                if not pushing.again or not pushing.viewers:
                    break
        except Exception:
            log.exception("web: cannot show table %s to its viewers", table_id)
        finally:
            pushing.task = None
            if not pushing.viewers:
                self._tables.pop(table_id, None)
                self._forget(table_id)

    async def send_all(self, table: Table, viewers: list[Viewer], force: bool = False) -> None:
        """Each viewer's snapshot of ``table``: the public part built and encoded once per
        language, the hand once per seat."""
        publics: dict[str, str] = {}
        frames: dict[tuple[Any, ...], str] = {}
        sends = []
        for viewer in viewers:
            if table.version < viewer.sent_version or (
                    table.version == viewer.sent_version and not force):
                continue
            seat = viewer.seat_in(table)
            language = viewer.grant.language
            key = (seat, language)
            frame = frames.get(key)
            if frame is None:
                public = publics.get(language)
                if public is None:
                    part = public_part(table, self.views, language, self._now())
                    public = publics[language] = _encode(part)[:-1]  # without its "}"
                hand = hand_part(table, self.views, seat, language)
                host = seat is not None and table.seats[seat].user_id == table.host_id
                frame = frames[key] = (
                    f'{public},"role":"{"seat" if seat is not None else "watch"}",'
                    f'"seat":{_encode(seat)},"host":{_encode(host)},"hand":{_encode(hand)}}}')
            viewer.sent_version = table.version
            sends.append(self._send(viewer, frame))
        await asyncio.gather(*sends)

    async def _send(self, viewer: Viewer, frame: str) -> None:
        try:
            await viewer.send(frame)
        except (ConnectionError, RuntimeError):  # the page went meanwhile: it left
            self.leave(viewer)

    def opened(self, table_id: str) -> None:
        """A table was opened: if it follows a table with viewers (a rematch, a series'
        next deal), they move to it (returns at once)."""
        if self._reissue is not None and self._tables:
            asyncio.get_running_loop().create_task(self._opened(table_id))

    async def _opened(self, table_id: str) -> None:
        try:
            table = await self._read(table_id)
            if table is not None and table.follows is not None:
                await self.follow(table.follows, table)
        except Exception:
            log.exception("web: cannot move the viewers to table %s", table_id)

    async def follow(self, old_id: str, table: Table) -> None:
        """The viewers of ``old_id`` move to ``table``, which follows it: each gets a
        session for it (a seat where they are seated, else to watch) and its snapshot."""
        pushing = self._tables.get(old_id)
        if pushing is None or self._reissue is None:
            return
        moving = list(pushing.viewers)
        for viewer in moving:
            self.leave(viewer)
            seated = table.seat_of(viewer.grant.user) is not None
            viewer.grant = replace(viewer.grant, table=table.table_id,
                                   role="seat" if seated and viewer.grant.role == "seat"
                                   else "watch")
            viewer.sent_version = -1
            self.join(viewer)
        for viewer in moving:
            try:
                await viewer.send(_encode({"type": "session", "table": table.table_id,
                                           "role": viewer.grant.role,
                                           "session": self._reissue(viewer.grant)}))
            except (ConnectionError, RuntimeError):
                self.leave(viewer)
        await self.send_all(table, moving, force=True)

    async def show(self, viewer: Viewer) -> bool:
        """The viewer's snapshot now (a hello, a sync, after a refused move); False if the
        table is gone."""
        table = await self._read(viewer.grant.table)
        if table is None:
            return False
        await self.send_all(table, [viewer], force=True)
        return True


def _encode(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False, separators=(",", ":"))
