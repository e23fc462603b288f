"""The load run: many tables of every game, the bot as its own process (or K shard
processes on one PostgreSQL), the fake Discord and the players in this process.

``run(LoadConfig(...))`` sets up guilds of ``tables_per_guild`` channels (on the shards
in turn), one table per channel with its own players; starts the bot (``BotProcess``:
``python -m bot`` with the product's timing, its request budget lifted unless ``rate``
is given, so that the bot's own costs are measured rather than its pacer); opens the
tables ``burst`` at a time (each burst's ``/start`` clicks sent at once, while the
tables opened before play on), plays a ``warmup``, then measures ``duration`` seconds of
play (a move every ``every`` s at each table), stops the players and checks that the
moves it counted are the moves the bot counted and stored. Returns one report dict.

What is measured where: click answers in this process (the fake's clock, from the
interaction sent to the first response); the bot's CPU, memory and loop lag from the
bot process itself (/proc, and ``cardtable_loop_lag_seconds`` on its /metrics); this
process's own loop lag and CPU beside them, since a harness that cannot keep up makes
the bot look slow; the API calls from the fake's log; the database's size from the
file (SQLite) or ``pg_database_size`` (PostgreSQL). With ``profile`` the first bot
process is profiled during the measured window only: with cProfile (``profiler``
"cprofile": every call counted, which slows the Python code a lot, so figures of such a
run are not the bot's), or by sampling (``profiler`` "sample": the event loop thread's
stack noted at every 5 ms of CPU time, which costs little). With ``timed`` each bot
process times the calls of those methods over the window (wall time: where a click
waits). Both run inside the bot process: ``testkit.loadbot``.

This module runs it; what it is asked and what it reads are ``testkit.load_config``'s,
the report made of the readings ``testkit.load_report``'s (all importable from here).
"""

from __future__ import annotations

import asyncio
import contextlib
import gc
import json
import os
import random
import signal
import sqlite3
import tempfile
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import asyncpg  # type: ignore[import-untyped]  # asyncpg ships no type information

from bot.app.health import LoopLag
from engine.registry import spec
from testkit import loadbot, procstat, scrape
from testkit.fakediscord import FakeDiscord
from testkit.load_config import (
    GAMES,
    LAUNCHER,
    TIMED,
    UNLIMITED,
    LoadConfig,
    Moment,
    World,
    shard_layout,
)
from testkit.load_report import as_json, ms, report, targets, timeline
from testkit.loadtables import Clicks, LoadTable, poll, start_command
from testkit.pgcluster import PostgresCluster
from testkit.processes import BotProcess

__all__ = [
    "GAMES", "LAUNCHER", "TIMED", "UNLIMITED", "Collections", "LoadConfig", "Moment", "World",
    "as_json", "bot_environment", "build_world", "database_bytes", "measure", "moment",
    "player_moves", "postmaster", "records_in_postgres", "records_in_sqlite", "report", "run",
    "shard_layout", "stored_moves", "targets", "timeline", "trim", "window_files",
]


def build_world(fake: FakeDiscord, config: LoadConfig) -> World:
    """Guilds of ``tables_per_guild`` channels, spread over the shards; one table per
    channel, its game taken in turn from ``games``, its own players (members of that
    guild only)."""
    rng = random.Random(config.seed)
    clicks = Clicks()
    sharded = config.shards is not None
    guilds = [fake.world.guild]  # the default guild is on shard 0
    tables = []
    for n in range(config.tables):
        g = n // config.tables_per_guild
        while len(guilds) <= g:
            shard = len(guilds) % config.shard_count if sharded else None
            guilds.append(fake.add_guild(f"club{len(guilds)}", shard=shard))
        game = config.games[n % len(config.games)]
        channel = fake.world.add_channel(f"table{n}", guild=guilds[g])
        users = [fake.add_user(f"t{n}p{k}", guilds=[guilds[g]])
                 for k in range(spec(game).default_players)]
        tables.append(LoadTable(fake, channel, users, game, start_command(game), clicks,
                                random.Random(rng.random()), pictures=config.pictures))
    return World(fake, tables, clicks)


# -- reading the machine -------------------------------------------------------------


async def database_bytes(config: LoadConfig, path: Path, url: str | None) -> int:
    if url is None:
        return sum(p.stat().st_size for p in (path, Path(f"{path}-wal")) if p.exists())
    conn = await asyncpg.connect(url)
    try:
        return int(await conn.fetchval("SELECT pg_database_size(current_database())"))
    finally:
        await conn.close()


async def postmaster(url: str) -> int:
    """The PostgreSQL server's main process: the parent of our own backend."""
    conn = await asyncpg.connect(url)
    try:  # read while connected: the backend process ends with the connection
        parent = procstat.parent(int(await conn.fetchval("SELECT pg_backend_pid()")))
    finally:
        await conn.close()
    assert parent is not None, "the PostgreSQL backend is not on this machine"
    return parent


async def moment(world: World, bots: list[BotProcess], config: LoadConfig, path: Path,
                 url: str | None, pg_pid: int | None) -> Moment:
    pids = [bot.proc.pid for bot in bots if bot.proc is not None]
    ports = [bot.health_port for bot in bots if bot.health_port is not None]
    return Moment(time.monotonic(), [procstat.usage(pid) for pid in pids],
                  list(await asyncio.gather(*(scrape.scrape(port) for port in ports))),
                  procstat.cpu_seconds(os.getpid(), waited_children=False),
                  procstat.run_delay(os.getpid()), world.fake.mark(),
                  await database_bytes(config, path, url),
                  procstat.usage(pg_pid) if pg_pid is not None else None)


async def trim(fake: FakeDiscord, every: float = 2.0) -> None:
    """Forget the bytes of the pictures the bot uploaded (their sizes stay in the call
    log): kept, a long run at a thousand tables would fill this process's memory. And
    freeze what this process keeps (every message, call and click) out of the garbage
    collector's sight: a full collection over all of it took this process's loop away
    for a third of a second now and then, and every answer it timed meanwhile looked
    that much slower."""
    seen = 0
    while True:
        await asyncio.sleep(every)
        calls = fake.calls
        for call in calls[seen:]:
            for upload in call.files:
                upload["data"] = b""
        seen = len(calls)
        fake.uploads.clear()
        gc.freeze()


@dataclass
class Collections:
    """This process's garbage collections: when, how long, which generation."""

    pauses: list[tuple[float, float, int]] = field(default_factory=list)
    _started: float = 0.0

    def __call__(self, phase: str, info: dict[str, int]) -> None:
        if phase == "start":
            self._started = time.perf_counter()
        else:
            self.pauses.append((time.monotonic(), time.perf_counter() - self._started,
                                info["generation"]))

    def within(self, start: float, end: float) -> dict[str, Any]:
        pauses = [(seconds, gen) for at, seconds, gen in self.pauses if start <= at < end]
        return {"collections": len(pauses), "seconds": round(sum(s for s, _ in pauses), 3),
                "max_ms": ms(max((s for s, _ in pauses), default=0.0)),
                "full": sum(1 for _, gen in pauses if gen == 2)}


# -- stored moves ------------------------------------------------------------------


def player_moves(record: dict[str, Any]) -> int:
    """The players' own moves in a game record: every action but the passes, which are
    forced in every game that has them (Jazz, Jacko) and played by the bot."""
    return sum(1 for deal in record.get("deals") or () for _seat, code in deal["actions"]
               if code != "pass")


def records_in_sqlite(path: Path) -> Iterator[dict[str, Any]]:
    conn = sqlite3.connect(f"file:{path}?mode=ro", uri=True, timeout=30)
    try:
        for (data,) in conn.execute("SELECT data FROM live_tables WHERE status = 'playing'"):
            game = json.loads(data).get("game")
            if game is not None:
                yield game
        for (record,) in conn.execute("SELECT record FROM games"):
            yield json.loads(record)
    finally:
        conn.close()


async def records_in_postgres(url: str) -> list[dict[str, Any]]:
    conn = await asyncpg.connect(url)
    try:
        live = await conn.fetch("SELECT data FROM live_tables WHERE status = 'playing'")
        games = await conn.fetch("SELECT record FROM games")
    finally:
        await conn.close()
    found = [json.loads(r["data"]).get("game") for r in live]
    return [g for g in found if g is not None] + [json.loads(r["record"]) for r in games]


async def stored_moves(path: Path, url: str | None) -> int:
    records = (list(records_in_sqlite(path)) if url is None
               else await records_in_postgres(url))
    return sum(player_moves(r) for r in records)


# -- the run -------------------------------------------------------------------------


def run(config: LoadConfig) -> dict[str, Any]:
    return asyncio.run(measure(config))


async def measure(config: LoadConfig) -> dict[str, Any]:
    layout = shard_layout(config)
    with contextlib.ExitStack() as stack:
        folder = Path(stack.enter_context(tempfile.TemporaryDirectory(prefix="load-")))
        url = config.database_url
        if config.backend == "postgres" and url is None:
            url = stack.enter_context(PostgresCluster()).create_database()
        return await _measure(config, layout, folder, url)
    raise AssertionError("unreachable")  # (mypy: ExitStack may swallow exceptions)


async def _measure(config: LoadConfig, layout: list[dict[str, str]], folder: Path,
                   url: str | None) -> dict[str, Any]:
    path = folder / "load.db"
    launcher = folder / "launch_load.py"
    if config.profile is not None:  # an earlier run's (--marginal's first): not this one's
        config.profile.unlink(missing_ok=True)
    launcher.write_text(LAUNCHER)
    count = config.shard_count if config.shards is not None else 1
    async with FakeDiscord(shard_count=count) as fake:
        fake.allow_violations = True  # late answers are counted as failed clicks
        world = build_world(fake, config)
        bots = [BotProcess(fake, path, launcher, folder / f"bot{k}.log", url=url,
                           environment={**shards, **bot_environment(config, folder, k)})
                for k, shards in enumerate(layout)]
        watched = [bot for k, bot in enumerate(bots)
                   if config.timed or (config.profile is not None and k == 0)]
        lag: list[tuple[float, float]] = []
        monitor = LoopLag(lambda seconds: lag.append((time.monotonic(), seconds)))
        trimmer = asyncio.create_task(trim(fake))
        collections = Collections()
        gc.callbacks.append(collections)
        players: list[asyncio.Task[None]] = []
        try:
            for bot in bots:
                await bot.start(wait=False)
            await fake.wait_for(lambda: _all_up(fake, bots, count), timeout=90)
            for bot in bots:
                await bot.idle(timeout=120)
            pg_pid = await postmaster(url) if url is not None else None

            async def now() -> Moment:
                return await moment(world, bots, config, path, url, pg_pid)

            monitor.start()
            start = await now()
            bursts: list[dict[str, Any]] = []
            for begin in range(0, config.tables, config.burst):
                group = world.tables[begin:begin + config.burst]
                sent = time.monotonic()
                opened = await asyncio.gather(*(t.open(burst=len(bursts)) for t in group))
                bursts.append({"tables": len(group), "opened": sum(opened),
                               "seconds": round(time.monotonic() - sent, 2)})
                players += [asyncio.create_task(t.play(config.every)) for t in group]
                if begin + config.burst < config.tables:
                    await asyncio.sleep(config.burst_gap)  # their first moves, then the next
            opened_all = await now()
            await asyncio.sleep(config.warmup)
            for bot in watched:  # the window opens: profiles and timings start
                assert bot.proc is not None
                bot.proc.send_signal(signal.SIGUSR1)
            first = await now()
            await asyncio.sleep(config.duration)
            last = await now()
            for bot in watched:  # ... and end, written to their files
                assert bot.proc is not None
                bot.proc.send_signal(signal.SIGUSR1)
            written = window_files(config, folder, len(bots))
            await poll(lambda: True if all(f.exists() for f in written) else None, timeout=120)
            for table in world.tables:
                table.stopping = True
            await asyncio.gather(*players)
            settled = True
            for bot in bots:
                try:
                    await bot.idle(timeout=180)
                except AssertionError:  # still busy: the figures say so, the run stands
                    settled = False
            ended = await now()
            stored = await stored_moves(path, url)
        finally:
            for task in players:
                task.cancel()
            trimmer.cancel()
            gc.callbacks.remove(collections)
            gc.unfreeze()
            await monitor.stop()
            for bot in bots:
                await bot.stop()
        result = report(config, world, bots, layout, bursts, lag,
                        (start, opened_all, first, last, ended), stored)
        result["consistency"]["bot_idle_at_end"] = settled
        if config.timed:
            for k, process in enumerate(result["bot"]["processes"]):
                timed = folder / f"timed{k}.json"
                process["timed"] = json.loads(timed.read_text()) if timed.exists() else None
        result["harness"]["gc"] = collections.within(first.at, last.at)
        return result


def bot_environment(config: LoadConfig, folder: Path, k: int) -> dict[str, str]:
    """What the k-th bot process is asked (testkit.loadbot)."""
    env = {loadbot.RATE: str(config.rate if config.rate is not None else UNLIMITED)}
    if config.profile is not None and k == 0:
        env |= {loadbot.PROFILE: str(config.profile), loadbot.PROFILER: config.profiler}
    if config.timed:
        env |= {loadbot.TIMED: ",".join(config.timed),
                loadbot.TIMED_OUT: str(folder / f"timed{k}.json")}
    return env


def window_files(config: LoadConfig, folder: Path, processes: int) -> list[Path]:
    """What the bot processes write when the window closes."""
    files = [folder / f"timed{k}.json" for k in range(processes)] if config.timed else []
    return files + ([config.profile] if config.profile is not None else [])


def _all_up(fake: FakeDiscord, bots: list[BotProcess], count: int) -> bool:
    for bot in bots:
        bot.check_running()
    return fake.gateway.live_shards == set(range(count)) and fake.syncs > 0


