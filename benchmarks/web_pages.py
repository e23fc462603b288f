"""The web benchmark's harness (``python -m benchmarks web``, see benchmarks/web.py):
its configuration, the pages (``Viewer``: one open page reading its WebSocket; ``Move``:
one move sent from a page and when each page of its table saw it; ``WebTable``: a table's
players on Discord and its pages, playing from DMs or from the pages), the servers and
tables it opens on the fake Discord, and each page's link, session and socket.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import random
import re
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from engine.registry import game_ids

MOVE_PATIENCE = 15.0  # seconds a table waits for its seat to act (a bot step, a push)
ANSWER_PATIENCE = 10.0  # seconds a move waits for its mover's new snapshot
LINK_PATIENCE = 15.0  # seconds a link click waits for its answer
PER_ADDRESS = 10  # pages redeemed from one loopback address (the server allows 20/min)
AT_ONCE = 50  # clicks, redeems and connections in flight
TABLES_PER_GUILD = 25
SEATS = 3
VERSION = re.compile(r'"version":(\d+)')
SNAPSHOT = '{"type":"snapshot"'
WEB_ID = re.compile(r"^ct:web:([0-9a-f]+):(open|watch)$")


@dataclass(frozen=True)
class WebConfig:
    viewers: int = 1000
    tables: int = 200
    moves: int = 10  # per table, from DMs and then from the page
    every: float = 4.0
    links: str = "click"  # or "mint"
    pictures: bool = True
    seed: int = 1
    profile: Path | None = None
    profiler: str = "sample"
    timed: tuple[str, ...] = ()  # methods whose calls the bot times (benchmarks.web.TIMED)
    game: str = field(default_factory=lambda: game_ids()[0])  # the registry's first


# -- the pages -------------------------------------------------------------------------


@dataclass(eq=False)
class Move:
    """One move sent from a page, and when each page of its table saw it."""

    mover: Viewer
    target: int  # the version it makes: its snapshot's + 1
    sent: float
    got: dict[Viewer, float] = field(default_factory=dict)  # page → seconds
    answered: asyncio.Event = field(default_factory=asyncio.Event)
    refused: bool = False
    unanswered: bool = False


@dataclass(eq=False)
class Viewer:
    """One open page: its newest snapshot kept as text, parsed only when its seat acts."""

    user: Any  # FakeUser
    role: str  # "seat" or "watch"
    table: WebTable
    token: str = ""  # its link's
    session: str = ""  # what the link bought
    ws: Any = None  # aiohttp.ClientWebSocketResponse
    version: int = -1
    raw: str = ""
    parsed: dict[str, Any] | None = None
    frames: int = 0
    chars: int = 0  # of the frames received (JSON text)
    refusals: int = 0
    first: asyncio.Event = field(default_factory=asyncio.Event)
    task: asyncio.Task[None] | None = None

    def latest(self) -> dict[str, Any]:
        if self.parsed is None or self.parsed.get("version") != self.version:
            self.parsed = json.loads(self.raw)
        return self.parsed

    async def read(self) -> None:
        import aiohttp

        async for message in self.ws:
            if message.type != aiohttp.WSMsgType.TEXT:
                break
            now = time.monotonic()
            self.frames += 1
            text = message.data
            self.chars += len(text)
            if text.startswith(SNAPSHOT):
                found = VERSION.search(text, 0, 600)
                version = int(found[1]) if found else -1
                if version >= self.version:
                    self.version, self.raw = version, text
                self.first.set()
                self.table.saw(self, version, now)
            elif json.loads(text).get("type") == "refused":
                self.refusals += 1
                self.table.refused(self)


@dataclass(eq=False)
class WebTable:
    """A table's players on Discord (``LoadTable``) and its pages."""

    players: Any  # testkit.loadtables.LoadTable
    spectators: list[Any] = field(default_factory=list)  # FakeUser
    table_id: str = ""
    viewers: list[Viewer] = field(default_factory=list)
    moves: list[Move] = field(default_factory=list)
    open: list[Move] = field(default_factory=list)  # not yet seen by every page
    changed: asyncio.Event = field(default_factory=asyncio.Event)
    floor: int = 0  # the version the next move must be made from (at least)
    applied: int = 0
    stuck: int = 0

    @property
    def seats(self) -> list[Viewer]:
        return [v for v in self.viewers if v.role == "seat"]

    def saw(self, viewer: Viewer, version: int, now: float) -> None:
        for move in list(self.open):
            if version >= move.target and viewer not in move.got:
                move.got[viewer] = now - move.sent
                if viewer is move.mover:
                    move.answered.set()
                if len(move.got) == len(self.viewers):
                    self.open.remove(move)
        if viewer.role == "seat":
            self.changed.set()

    def refused(self, viewer: Viewer) -> None:
        move = self.moves[-1] if self.moves else None
        if move is not None and move.mover is viewer and not move.refused:
            move.refused = True
            move.answered.set()
            if move in self.open:
                self.open.remove(move)

    def mover(self) -> tuple[Viewer, dict[str, Any]] | None:
        """The seat whose newest snapshot (made after the last move) asks it to act."""
        for viewer in self.seats:
            if viewer.version < self.floor or not viewer.raw:
                continue
            snap = viewer.latest()
            hand = snap.get("hand")
            if snap.get("status") == "playing" and hand and hand.get("your_turn") and any(
                    a["legal"] for a in hand["actions"]):
                return viewer, snap
        return None

    async def wait_mover(self, patience: float) -> tuple[Viewer, dict[str, Any]] | None:
        deadline = time.monotonic() + patience
        while (found := self.mover()) is None:
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                return None
            self.changed.clear()
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self.changed.wait(), remaining)
        return found

    async def play_from_pages(self, moves: int, every: float, rng: random.Random) -> None:
        loop = asyncio.get_running_loop()
        due = loop.time() + rng.uniform(0, every)
        tries = 0
        while self.applied < moves and tries < 3 * moves:
            tries += 1
            await asyncio.sleep(max(0.0, due - loop.time()))
            due = max(due + every * rng.uniform(0.75, 1.25), loop.time())
            found = await self.wait_mover(MOVE_PATIENCE)
            if found is None:
                self.stuck += 1
                continue
            viewer, snap = found
            hand = snap["hand"]
            code = rng.choice([a for a in hand["actions"] if a["legal"]])["code"]
            frame = json.dumps({"type": "move", "step": hand["step"], "code": code})
            move = Move(viewer, int(snap["version"]) + 1, time.monotonic())
            self.moves.append(move)
            self.open.append(move)
            await viewer.ws.send_str(frame)
            try:
                await asyncio.wait_for(move.answered.wait(), ANSWER_PATIENCE)
            except TimeoutError:
                move.unanswered = True
                continue
            if not move.refused:
                self.applied += 1
                self.floor = move.target

    async def play_from_dms(self, moves: int, every: float, rng: random.Random) -> None:
        loop = asyncio.get_running_loop()
        due = loop.time() + rng.uniform(0, every)
        tries = 0
        while self.players.moves < moves and tries < 3 * moves:
            tries += 1
            await asyncio.sleep(max(0.0, due - loop.time()))
            due = max(due + every * rng.uniform(0.75, 1.25), loop.time())
            await self.players.turn(patience=MOVE_PATIENCE)



# -- the tables and their pages' links, sessions and sockets ---------------------------


def build_tables(fake: Any, config: WebConfig, rng: random.Random, clicks: Any,
                 load_table: Any, command: str) -> list[WebTable]:
    """Servers of 25 channels, a table of 3 players in each, and its spectators (members
    of its server) so that the pages come to ``viewers``."""
    guilds = [fake.world.guild]
    tables = []
    spectators = config.viewers - SEATS * config.tables
    for n in range(config.tables):
        g = n // TABLES_PER_GUILD
        while len(guilds) <= g:
            guilds.append(fake.add_guild(f"club{len(guilds)}"))
        channel = fake.world.add_channel(f"table{n}", guild=guilds[g])
        users = [fake.add_user(f"t{n}p{k}", guilds=[guilds[g]]) for k in range(SEATS)]
        players = load_table(fake, channel, users, config.game, command, clicks,
                             random.Random(rng.random()), pictures=config.pictures)
        watching = spectators // config.tables + (n < spectators % config.tables)
        tables.append(WebTable(players, [fake.add_user(f"t{n}s{k}", guilds=[guilds[g]])
                                         for k in range(watching)]))
    return tables


async def gather(jobs: Any, at_once: int = AT_ONCE) -> list[Any]:
    """Every job's result, ``at_once`` in flight."""
    gate = asyncio.Semaphore(at_once)

    async def one(job: Any) -> Any:
        async with gate:
            return await job

    return list(await asyncio.gather(*(one(j) for j in jobs)))


async def links(fake: Any, tables: list[WebTable], how: str, secret: bytes) -> None:
    """Each page's link: its user's click on the table message (Open table for a seat,
    Watch for a spectator), or signed here with the bot's secret (``how`` "mint")."""
    from testkit.harness import table_message
    from web.tokens import Signer

    signer = Signer(secret)

    async def link(table: WebTable, viewer: Viewer) -> None:
        message = table_message(fake, table.players.channel)
        assert message is not None, "no table message"
        kind = "open" if viewer.role == "seat" else "watch"
        custom_id = next(str(c["custom_id"]) for c in message.leaf_components()
                         if WEB_ID.match(str(c.get("custom_id", "")))
                         and str(c["custom_id"]).endswith(f":{kind}"))
        table.table_id = WEB_ID.match(custom_id)[1]  # type: ignore[index]
        if how == "mint":
            viewer.token = signer.link(viewer.user.id, table.table_id,
                                       "seat" if viewer.role == "seat" else "watch",
                                       time.time())
            return
        ix = await fake.click(viewer.user, message, custom_id)
        await ix.wait_until(lambda i: _url(i) is not None, timeout=LINK_PATIENCE)
        viewer.token = str(_url(ix)).partition("#")[2]

    for table in tables:
        table.viewers = [Viewer(u, "seat", table) for u in table.players.users] + [
            Viewer(u, "watch", table) for u in table.spectators]
    await gather(link(t, v) for t in tables for v in t.viewers)


def _url(ix: Any) -> str | None:
    message = ix.message
    if message is None or message.loading:
        return None
    return next((str(b["url"]) for b in message.buttons() if b.get("url")), None)


async def redeem(base: str, tables: list[WebTable]) -> None:
    """Each page's link for a session, ten pages to a loopback address."""
    import aiohttp

    from testkit.webtable import Page

    viewers = [v for t in tables for v in t.viewers]
    groups = [viewers[k:k + PER_ADDRESS] for k in range(0, len(viewers), PER_ADDRESS)]
    gate = asyncio.Semaphore(AT_ONCE)

    async def group(k: int, members: list[Viewer]) -> None:
        address = f"127.1.{k // 250}.{k % 250 + 1}"
        connector = aiohttp.TCPConnector(local_addr=(address, 0), limit=0)
        async with aiohttp.ClientSession(connector=connector) as http:
            for viewer in members:
                async with gate:
                    page = Page(base, http)
                    status, body = await page.redeem(viewer.token)
                if status != 200:
                    raise AssertionError(f"a link was refused ({status}): {body}")
                viewer.session = page.session

    await asyncio.gather(*(group(k, g) for k, g in enumerate(groups)))


async def connect(base: str, http: Any, tables: list[WebTable]) -> None:
    """Each page's WebSocket, its hello, its first snapshot."""

    async def connect(viewer: Viewer) -> None:
        viewer.ws = await http.ws_connect(f"{base}/ws", headers={"Origin": base})
        await viewer.ws.send_str(json.dumps({"type": "hello", "session": viewer.session}))
        viewer.task = asyncio.create_task(viewer.read())
        await asyncio.wait_for(viewer.first.wait(), 30)

    await gather(connect(v) for t in tables for v in t.viewers)


def frames(tables: list[WebTable]) -> tuple[int, int]:
    """Frames received by every page so far, and their characters."""
    viewers = [v for t in tables for v in t.viewers]
    return sum(v.frames for v in viewers), sum(v.chars for v in viewers)

