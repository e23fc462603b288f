"""The web table under load: many pages open at once, moves made from the browser.

``python -m benchmarks web [--viewers 1000] [--tables 200] [--moves 10] [--every 4]
[--links click|mint] [--pictures on|off] [--profile PATH --profiler sample|cprofile]
[--timed [METHODS]] [--json PATH]``

The bot runs as its own process (``python -m bot`` on the tests' fake Discord with the
web table on, as the load benchmark runs it: ``testkit.loadbot``, the product's timing,
its request budget lifted); the fake Discord, the players and every page (aiohttp's
client speaking ``docs/web-protocol.md``) run in this one, so the pages' CPU is not
the server's. Steps, each run to its end (nothing here waits for a clock but the pace):

1. ``--tables`` tables of 3-player Jazz are opened on the fake (/jazz start, joins,
   Start; 25 to a server).
2. **DM moves**: each table makes ``--moves`` moves from its players' DM hands, one
   every ``--every`` s (±25 %), with no page open: the Discord calls and the bot's CPU
   of a move as Discord alone makes it.
3. **Links**: each table's 3 players click **Open table** on its table message and
   spectators (members of its server) click **Watch** until ``--viewers`` pages in all;
   each page redeems its link (``POST /api/session``; each ten pages from their own
   loopback address, 127.1.x.y, as a thousand browsers would come from many: the server
   allows 20 sessions a minute per address) and opens its WebSocket. ``--links mint``
   signs the links in this process instead of clicking (``web.tokens.Signer``, the
   bot's secret): the same redeeming and sockets, without 1,000 interactions.
4. **Browser moves**: each table makes ``--moves`` moves again, at the same pace, now
   from the page: the seat whose snapshot says ``your_turn`` sends ``{type: "move"}``
   with a legal action of it.

Measured: for each browser move and **every** page of its table, the time from sending
the move to that page receiving a snapshot of the version the move made (or newer: a
push may merge versions), p50 / p99 / max, and the (move, page) pairs that never got
one; frames received (the server's frames sent: loopback loses none); the bot's CPU per
move in both steps, the difference (what the web adds to a move) and that per page; its
RSS per open connection ((RSS with the pages open − RSS before they connected) / pages);
its event-loop lag; and the Discord API calls per DM move and per browser move (all, and
those Discord's 50/s counts: interaction answers are exempt), by route. The targets:
the pages and tables asked, p99 under 100 ms, no more Discord calls per browser move
than per DM move. ``--profile PATH`` profiles the bot over the browser moves
(``--profiler sample``: its loop thread's stacks every 5 ms of CPU, cheap; ``cprofile``:
every call, slow) and prints the top; ``--timed`` the wall time of the calls on a browser
move's path (the lock, the save, SQLite's connection, Discord's requests, the push). The
last line is the run's JSON.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import gc
import json
import os
import random
import re
import signal
import tempfile
import time
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

MOVE_PATIENCE = 15.0  # seconds a table waits for its seat to act (a bot step, a push)
ANSWER_PATIENCE = 10.0  # seconds a move waits for its mover's new snapshot
LATE = 10.0  # seconds after the last move for the last frames to come
LINK_PATIENCE = 15.0  # seconds a link click waits for its answer
PER_ADDRESS = 10  # pages redeemed from one loopback address (the server allows 20/min)
AT_ONCE = 50  # clicks, redeems and connections in flight
TABLES_PER_GUILD = 25
SEATS = 3
EXEMPT = ("/interactions/", "/webhooks/")  # not counted by Discord's 50 requests/s
P99_TARGET_MS = 100.0
# Where a browser move's time goes, as wall time (``--timed``): the move as the server
# takes it (the lock, the versioned save, what Discord is shown after it), and the push.
TIMED = ("web.play:WebPlay.move", "bot.table.step:Steps.hold",
         "bot.table.manager:TableManager.save", "bot.app.croupier:Croupier.web_moved",
         "web.hub:Hub.send_all", "discord.http:HTTPClient.request",
         "bot.storage.sqlite:SQLiteStorage._turn", "bot.storage.sqlite:SQLiteStorage._statement")
VERSION = re.compile(r'"version":(\d+)')
SNAPSHOT = '{"type":"snapshot"'
WEB_ID = re.compile(r"^ct:web:([0-9a-f]+):(open|watch)$")


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--viewers", type=int, default=1000,
                        help="pages in all: each table's 3 players, then spectators")
    parser.add_argument("--tables", type=int, default=200)
    parser.add_argument("--moves", type=int, default=10,
                        help="moves each table makes from DMs, then again from the page")
    parser.add_argument("--every", type=float, default=4.0,
                        help="seconds between two moves of a table (±25 %%)")
    parser.add_argument("--links", choices=("click", "mint"), default="click",
                        help="links from the Open table / Watch buttons, or signed here")
    parser.add_argument("--pictures", choices=("on", "off"), default="on")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--profile", type=Path, default=None,
                        help="profile the bot over the browser moves, written here")
    parser.add_argument("--profiler", choices=("cprofile", "sample"), default="sample")
    parser.add_argument("--timed", nargs="?", const="default", default=None,
                        help="time the calls of these methods in the bot over the browser "
                             "moves (module:Class.method,...; without a list: the move's "
                             "path, its save, its push and every HTTP request)")
    parser.add_argument("--json", type=Path, default=None, help="write the results here")


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
    timed: tuple[str, ...] = ()  # methods whose calls the bot times (TIMED)


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


# -- the run ---------------------------------------------------------------------------


def run(config: WebConfig) -> dict[str, Any]:
    return asyncio.run(measure(config))


async def measure(config: WebConfig) -> dict[str, Any]:
    if config.viewers < SEATS * config.tables:
        raise SystemExit(f"--viewers must be at least {SEATS} × --tables (each table's "
                         "players open their pages)")
    with tempfile.TemporaryDirectory(prefix="web-") as folder:
        return await _measure(config, Path(folder))


async def _measure(config: WebConfig, folder: Path) -> dict[str, Any]:
    import aiohttp

    from bot.app.health import LoopLag
    from testkit import loadbot, procstat, scrape
    from testkit.fakediscord import FakeDiscord
    from testkit.load import trim
    from testkit.load_config import LAUNCHER, UNLIMITED
    from testkit.loadtables import Clicks, LoadTable, start_command
    from testkit.processes import BotProcess
    from testkit.webtable import SECRET, free_port

    rng = random.Random(config.seed)
    port = free_port()
    base = f"http://127.0.0.1:{port}"
    launcher = folder / "launch_web.py"
    launcher.write_text(LAUNCHER)
    if config.profile is not None:
        config.profile.unlink(missing_ok=True)
    env = {loadbot.RATE: str(UNLIMITED), "WEB_PORT": str(port), "PUBLIC_URL": base,
           "WEB_HOST": "127.0.0.1", "WEB_SECRET": SECRET.decode()}
    if config.profile is not None:
        env |= {loadbot.PROFILE: str(config.profile), loadbot.PROFILER: config.profiler}
    timed_out = folder / "timed.json"
    if config.timed:
        env |= {loadbot.TIMED: ",".join(config.timed), loadbot.TIMED_OUT: str(timed_out)}
    window = config.profile is not None or bool(config.timed)
    async with FakeDiscord() as fake:
        fake.allow_violations = True  # a late answer is the figures', not an error
        tables = _world(fake, config, rng, Clicks(), LoadTable, start_command("jazz"))
        bot = BotProcess(fake, folder / "web.db", launcher, folder / "bot.log",
                         environment=env)
        lag: list[tuple[float, float]] = []
        monitor = LoopLag(lambda seconds: lag.append((time.monotonic(), seconds)))
        trimmer = asyncio.create_task(trim(fake))
        http = aiohttp.ClientSession(connector=aiohttp.TCPConnector(limit=0))
        marks: dict[str, Any] = {}
        try:
            await bot.start()
            await bot.idle(timeout=120)
            assert bot.proc is not None and bot.health_port is not None
            pid = bot.proc.pid

            async def moment() -> dict[str, Any]:
                await bot.idle(timeout=180)
                return {"at": time.monotonic(), "bot": procstat.usage(pid),
                        "metrics": await scrape.scrape(bot.health_port),  # type: ignore
                        "calls": fake.mark(),
                        "harness": procstat.cpu_seconds(os.getpid(), waited_children=False)}

            monitor.start()
            opened = await _gather(t.players.open() for t in tables)
            if not all(opened):
                raise AssertionError(f"{opened.count(False)} tables did not open")
            marks["opened"] = await moment()
            await asyncio.gather(*(t.play_from_dms(config.moves, config.every,
                                                   random.Random(rng.random()))
                                   for t in tables))
            marks["dm_done"] = await moment()
            # The pages: links, sessions, sockets.
            began = time.monotonic()
            await _links(fake, tables, config.links, SECRET)
            marks["links_done"] = await moment()
            links_s = time.monotonic() - began
            await _redeem(base, tables)
            marks["redeemed"] = await moment()
            await _connect(base, http, tables)
            marks["connected"] = await moment()
            connect_s = time.monotonic() - began - links_s
            if window:
                bot.proc.send_signal(signal.SIGUSR1)  # the window opens
            frames_before = _frames(tables)
            await asyncio.gather(*(t.play_from_pages(config.moves, config.every,
                                                     random.Random(rng.random()))
                                   for t in tables))
            moves_end = time.monotonic()
            while any(t.open for t in tables) and time.monotonic() < moves_end + LATE:
                await asyncio.sleep(0.05)
            marks["web_done"] = await moment()
            frames_after = _frames(tables)
            if window:
                bot.proc.send_signal(signal.SIGUSR1)  # ... and closes: written
                deadline = time.monotonic() + 60
                while time.monotonic() < deadline and not (
                        (config.profile is None or config.profile.exists())
                        and (not config.timed or _whole_json(timed_out) is not None)):
                    await asyncio.sleep(0.1)
            timed = _whole_json(timed_out)
            calls = fake.calls
        finally:
            trimmer.cancel()
            await monitor.stop()
            for table in tables:
                for viewer in table.viewers:
                    if viewer.task is not None:
                        viewer.task.cancel()
            await http.close()
            await bot.stop()
            gc.unfreeze()
    result = report(config, tables, marks, calls, lag, frames_before, frames_after,
                    links_s, connect_s, fake)
    result["bot"]["timed"] = timed
    return result


def _whole_json(path: Path) -> Any:
    """The JSON a bot process wrote to ``path`` once it is whole (it is not written
    atomically), else None."""
    try:
        return json.loads(path.read_text())
    except (OSError, ValueError):
        return None


def _world(fake: Any, config: WebConfig, rng: random.Random, clicks: Any,
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
        players = load_table(fake, channel, users, "jazz", command, clicks,
                             random.Random(rng.random()), pictures=config.pictures)
        watching = spectators // config.tables + (n < spectators % config.tables)
        tables.append(WebTable(players, [fake.add_user(f"t{n}s{k}", guilds=[guilds[g]])
                                         for k in range(watching)]))
    return tables


async def _gather(jobs: Any, at_once: int = AT_ONCE) -> list[Any]:
    """Every job's result, ``at_once`` in flight."""
    gate = asyncio.Semaphore(at_once)

    async def one(job: Any) -> Any:
        async with gate:
            return await job

    return list(await asyncio.gather(*(one(j) for j in jobs)))


async def _links(fake: Any, tables: list[WebTable], how: str, secret: bytes) -> None:
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
    await _gather(link(t, v) for t in tables for v in t.viewers)


def _url(ix: Any) -> str | None:
    message = ix.message
    if message is None or message.loading:
        return None
    return next((str(b["url"]) for b in message.buttons() if b.get("url")), None)


async def _redeem(base: str, tables: list[WebTable]) -> None:
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


async def _connect(base: str, http: Any, tables: list[WebTable]) -> None:
    """Each page's WebSocket, its hello, its first snapshot."""

    async def connect(viewer: Viewer) -> None:
        viewer.ws = await http.ws_connect(f"{base}/ws", headers={"Origin": base})
        await viewer.ws.send_str(json.dumps({"type": "hello", "session": viewer.session}))
        viewer.task = asyncio.create_task(viewer.read())
        await asyncio.wait_for(viewer.first.wait(), 30)

    await _gather(connect(v) for t in tables for v in t.viewers)


def _frames(tables: list[WebTable]) -> tuple[int, int]:
    """Frames received by every page so far, and their characters."""
    viewers = [v for t in tables for v in t.viewers]
    return sum(v.frames for v in viewers), sum(v.chars for v in viewers)


# -- the report ------------------------------------------------------------------------


def _calls(calls: list[Any], moves: int, fake: Any) -> dict[str, Any]:
    budgeted = [c for c in calls if not any(part in c.route for part in EXEMPT)]
    routes: Counter[str] = Counter()
    for call in calls:
        channel = fake.world.channels.get(int(call.params.get("channel_id") or 0))
        routes[call.route + (" (DM)" if channel is not None and channel.is_dm else "")] += 1
    per = max(moves, 1)
    return {"moves": moves, "calls": len(calls), "per_move": round(len(calls) / per, 3),
            "budgeted_per_move": round(len(budgeted) / per, 3),
            "by_route_per_move": {r: round(n / per, 3) for r, n in routes.most_common()}}


def report(config: WebConfig, tables: list[WebTable], marks: dict[str, Any],
           calls: list[Any], lag: list[tuple[float, float]], frames_before: tuple[int, int],
           frames_after: tuple[int, int], links_s: float, connect_s: float, fake: Any
           ) -> dict[str, Any]:
    from testkit import scrape
    from testkit.figures import ms, quantiles

    viewers = sum(len(t.viewers) for t in tables)
    applied = [m for t in tables for m in t.moves if not m.refused and not m.unanswered]
    latencies = [s for m in applied for s in m.got.values()]
    missing = sum(len(t.viewers) - len(m.got) for t in tables for m in t.moves
                  if not m.refused and not m.unanswered)
    movers = [m.got[m.mover] for m in applied if m.mover in m.got]
    dm_moves = sum(t.players.moves for t in tables)
    dm_clicks = tables[0].players.clicks.within(marks["opened"]["at"], marks["dm_done"]["at"],
                                                "move")
    opened, dm_done = marks["opened"], marks["dm_done"]
    links_done, redeemed = marks["links_done"], marks["redeemed"]
    connected, web_done = marks["connected"], marks["web_done"]
    dm_calls = _calls(calls[opened["calls"]:dm_done["calls"]], dm_moves, fake)
    web_calls = _calls(calls[connected["calls"]:web_done["calls"]], len(applied), fake)
    dm_cpu = (dm_done["bot"].cpu - opened["bot"].cpu) / max(dm_moves, 1)
    web_cpu = (web_done["bot"].cpu - connected["bot"].cpu) / max(len(applied), 1)
    per_table = viewers / max(len(tables), 1)
    web_seconds = web_done["at"] - connected["at"]
    buckets = scrape.between(connected["metrics"].histogram("cardtable_loop_lag_seconds"),
                             web_done["metrics"].histogram("cardtable_loop_lag_seconds"))
    harness_lag = [s for at, s in lag if connected["at"] <= at < web_done["at"]]
    extra = round(web_calls["per_move"] - dm_calls["per_move"], 3)
    extra_budgeted = round(web_calls["budgeted_per_move"] - dm_calls["budgeted_per_move"], 3)
    figures = quantiles(latencies)
    frames = frames_after[0] - frames_before[0]
    result: dict[str, Any] = {
        "benchmark": "web", "viewers": viewers, "tables": len(tables),
        "viewers_per_table": round(per_table, 2), "links": config.links,
        "pictures": config.pictures, "every_s": config.every,
        "offered_moves_per_s": round(len(tables) / config.every, 1),
        "web": {
            "moves": len(applied), "refused": sum(m.refused for t in tables for m in t.moves),
            "unanswered": sum(m.unanswered for t in tables for m in t.moves),
            "stuck": sum(t.stuck for t in tables), "seconds": round(web_seconds, 1),
            "moves_per_s": round(len(applied) / max(web_seconds, 1e-9), 1),
            "move_to_frame": {**figures, "samples": len(latencies), "missing": missing},
            "mover_to_frame": quantiles(movers),
            "frames": frames,
            "frames_per_move": round(frames / max(len(applied), 1), 2),
            "frame_kb": round((frames_after[1] - frames_before[1]) / 1024 / max(frames, 1), 2),
            "refusals_received": sum(v.refusals for t in tables for v in t.viewers),
        },
        "dm": {"moves": dm_moves, "refused": sum(t.players.refused for t in tables),
               "answers": quantiles([c.answer for c in dm_clicks if c.answer is not None]),
               "applied": quantiles([c.done for c in dm_clicks if c.done is not None])},
        "bot": {
            "cpu_ms_per_dm_move": ms(dm_cpu, 2), "cpu_ms_per_web_move": ms(web_cpu, 2),
            "web_cpu_ms_per_move": ms(web_cpu - dm_cpu, 2),
            "web_cpu_ms_per_move_per_viewer": ms((web_cpu - dm_cpu) / per_table, 3),
            "cpu_ms_per_web_move_per_viewer": ms(web_cpu / per_table, 3),
            "cpu_percent_web": round(100 * (web_done["bot"].cpu - connected["bot"].cpu)
                                     / max(web_seconds, 1e-9), 1),
            "rss_mb": {k: round(marks[k]["bot"].rss / 2**20, 1)
                       for k in ("opened", "dm_done", "links_done", "redeemed", "connected",
                                 "web_done")},
            "rss_kb_per_connection": round((connected["bot"].rss - redeemed["bot"].rss)
                                           / 1024 / max(viewers, 1), 1),
            "rss_kb_per_viewer_with_link": round((connected["bot"].rss - dm_done["bot"].rss)
                                                 / 1024 / max(viewers, 1), 1),
            "loop_lag": {"p50_ms_at_most": ms(scrape.quantile_bound(buckets, 0.5)),
                         "p99_ms_at_most": ms(scrape.quantile_bound(buckets, 0.99))},
        },
        "api": {"dm": dm_calls, "web": web_calls,
                "extra_per_browser_move": extra,
                "extra_budgeted_per_browser_move": extra_budgeted,
                "link_calls": links_done["calls"] - dm_done["calls"]},
        "setup": {"links_s": round(links_s, 1), "redeem_and_connect_s": round(connect_s, 1)},
        "harness": {"cpu_percent": round(100 * (web_done["harness"] - connected["harness"])
                                         / max(web_seconds, 1e-9), 1),
                    "loop_lag": quantiles(harness_lag)},
        "machine": {"cores": os.cpu_count(), "load": os.getloadavg()[0]},
    }
    p99 = figures["p99_ms"]
    result["targets"] = {
        "1000 viewers over 200 tables": viewers >= 1000 and len(tables) >= 200,
        "every page got every move": missing == 0 and bool(applied),
        "p99 < 100 ms": p99 is not None and p99 < P99_TARGET_MS,
        "0 extra Discord calls a browser move": extra <= 0 and extra_budgeted <= 0,
    }
    return result


def _n(value: Any) -> str:
    if value is None:
        return "-"
    if isinstance(value, float):
        return f"{value:,.2f}" if abs(value) < 10 else f"{value:,.1f}"
    return f"{value:,}" if isinstance(value, int) else str(value)


def _q(f: dict[str, Any]) -> str:
    return f"p50 {_n(f['p50_ms'])} ms, p99 {_n(f['p99_ms'])} ms, max {_n(f['max_ms'])} ms"


def render(r: dict[str, Any]) -> str:
    web, bot, api = r["web"], r["bot"], r["api"]
    latency = web["move_to_frame"]
    rss = bot["rss_mb"]
    lines: list[str | tuple[str, str]] = [
        f"web: {r['viewers']} pages over {r['tables']} tables of 3-player Jazz "
        f"({r['viewers_per_table']} a table), a move every {r['every_s']:g} s a table "
        f"(offered {_n(r['offered_moves_per_s'])} moves/s), links by "
        f"{'clicks on the fake Discord' if r['links'] == 'click' else 'signing here'}, "
        f"pictures {'on' if r['pictures'] else 'off'}",
        ("machine", f"{r['machine']['cores']} cores, load {r['machine']['load']:.1f}"),
        ("setup", f"links {_n(r['setup']['links_s'])} s, sessions and sockets "
                  f"{_n(r['setup']['redeem_and_connect_s'])} s"),
        ("browser moves", f"{_n(web['moves'])} in {_n(web['seconds'])} s "
                          f"({_n(web['moves_per_s'])}/s); {_n(web['refused'])} refused, "
                          f"{_n(web['unanswered'])} unanswered, {_n(web['stuck'])} turns "
                          "with no seat to act"),
        ("move → frame", f"{_q(latency)} ({_n(latency['samples'])} page×move, "
                         f"{_n(latency['missing'])} missing)"),
        ("  the mover's", _q(web["mover_to_frame"])),
        ("DM moves", f"{_n(r['dm']['moves'])}: answered {_q(r['dm']['answers'])}; "
                     f"applied {_q(r['dm']['applied'])} (no page open)"),
        ("frames", f"{_n(web['frames'])} ({_n(web['frames_per_move'])} a move, "
                   f"{_n(web['frame_kb'])} KB each)"),
        ("bot CPU", f"{_n(bot['cpu_ms_per_dm_move'])} ms a DM move (no page open), "
                    f"{_n(bot['cpu_ms_per_web_move'])} ms a browser move "
                    f"({_n(bot['cpu_ms_per_web_move_per_viewer'])} ms a page); the web's "
                    f"share {_n(bot['web_cpu_ms_per_move'])} ms a move, "
                    f"{_n(bot['web_cpu_ms_per_move_per_viewer'])} ms a move a page; "
                    f"{_n(bot['cpu_percent_web'])} % of a core"),
        ("bot RSS", f"{_n(rss['dm_done'])} MB before the links, {_n(rss['redeemed'])} MB "
                    f"with the sessions, {_n(rss['connected'])} MB with the pages open: "
                    f"{_n(bot['rss_kb_per_connection'])} KB a connection "
                    f"({_n(bot['rss_kb_per_viewer_with_link'])} KB with its link); "
                    f"{_n(rss['web_done'])} MB at the end"),
        *((f"  {method.rpartition(':')[2]}",
           f"{_n(t['calls'])} calls, p50 {_n(t['p50_ms'])} ms, p99 {_n(t['p99_ms'])} ms, "
           f"max {_n(t['max_ms'])} ms") for method, t in (bot.get("timed") or {}).items()),
        ("bot loop lag", f"p50 ≤ {_n(bot['loop_lag']['p50_ms_at_most'])} ms, p99 ≤ "
                         f"{_n(bot['loop_lag']['p99_ms_at_most'])} ms (browser moves)"),
        ("API calls", f"{_n(api['dm']['per_move'])} a DM move "
                      f"({_n(api['dm']['budgeted_per_move'])} budgeted), "
                      f"{_n(api['web']['per_move'])} a browser move "
                      f"({_n(api['web']['budgeted_per_move'])} budgeted): extra "
                      f"{_n(api['extra_per_browser_move'])} "
                      f"({_n(api['extra_budgeted_per_browser_move'])} budgeted)"),
    ]
    for name in ("dm", "web"):
        for route, n in api[name]["by_route_per_move"].items():
            lines.append((f"  {name}", f"{n:.3f}  {route}"))
    lines += [
        ("harness", f"CPU {_n(r['harness']['cpu_percent'])} %, loop lag "
                    f"{_q(r['harness']['loop_lag'])}"),
        ("targets", ", ".join(f"{name} {'yes' if met else 'no'}"
                              for name, met in r["targets"].items())),
    ]
    return "\n".join(line if isinstance(line, str) else f"  {line[0]:<14} {line[1]}"
                     for line in lines)


def main(args: argparse.Namespace) -> int:
    from benchmarks.load import profile_top, samples_top

    config = WebConfig(viewers=args.viewers, tables=args.tables, moves=args.moves,
                       every=args.every, links=args.links, pictures=args.pictures == "on",
                       seed=args.seed, profile=args.profile, profiler=args.profiler,
                       timed=(() if args.timed is None else TIMED if args.timed == "default"
                              else tuple(args.timed.split(","))))
    result = run(config)
    print(render(result))
    if config.profile is not None and config.profile.exists():
        shown = samples_top if config.profiler == "sample" else profile_top
        print(shown(config.profile))
    text = json.dumps(result)
    if args.json is not None:
        args.json.write_text(text + "\n")
    print(text)
    return 0
