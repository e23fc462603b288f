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
"""

from __future__ import annotations

import asyncio
import contextlib
import gc
import json
import math
import os
import random
import signal
import sqlite3
import statistics
import tempfile
import time
from collections import Counter
from collections.abc import Iterator, Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

import asyncpg  # type: ignore[import-untyped]  # asyncpg ships no type information

from bot.app.health import LoopLag
from engine.registry import spec
from testkit import loadbot, procstat, scrape
from testkit.fakediscord import FakeDiscord
from testkit.loadtables import Click, Clicks, LoadTable, poll, start_command
from testkit.pgcluster import PostgresCluster
from testkit.processes import BotProcess

GAMES = ("jazz", "jacko", "california_jack", "attackjack")
EXEMPT = ("/interactions/", "/webhooks/")  # not counted by Discord's 50 requests/s
UNLIMITED = 1e9
LAG_TARGET = 0.025  # seconds: the loop-lag p99 target is under this bucket
# ``python -m bot`` as in production, with what the benchmark asks of it (testkit.loadbot).
LAUNCHER = "from testkit.loadbot import main\n\nmain()\n"
# Where a click's time goes, as wall time (``--timed``): the click's preamble (find the
# table, wait for its lock), the lock alone, the versioned save, the answer, what follows
# it (deal results, the table's edit, the next hand), a DM, a table edit, and every
# HTTP request discord.py makes (its rate-limit waits included).
TIMED = ("bot.actions.clicks:Clicks.table", "bot.table.step:Steps.hold",
         "bot.table.manager:TableManager.save", "bot.ui.presenter:Presenter.answer",
         "bot.ui.presenter:Presenter.after_step", "bot.ui.hands:Hands.send",
         "bot.ui.poster:Poster.dm", "bot.ui.poster:Poster.edit",
         "discord.http:HTTPClient.request")


@dataclass(frozen=True)
class LoadConfig:
    tables: int = 200
    games: tuple[str, ...] = GAMES
    every: float = 4.0  # seconds between two moves of a table
    burst: int = 50  # tables opened at once
    burst_gap: float = 5.0  # seconds between a burst's tables started and the next burst
    duration: float = 60.0  # seconds measured
    warmup: float = 10.0  # seconds of play after the last opening, not measured
    pictures: bool = True
    backend: str = "sqlite"  # or postgres
    shards: int | None = None  # shard processes (PostgreSQL); None: one plain process
    shard_count: int = 4  # Discord's shards the processes share (K must divide it)
    tables_per_guild: int = 25
    rate: float | None = None  # the bot's requests/s; None: no limit (see the module doc)
    seed: int = 1
    profile: Path | None = None  # the (first) bot's profile over the window, written here
    profiler: str = "cprofile"  # or "sample" (testkit.loadbot)
    timed: tuple[str, ...] = ()  # methods whose calls each bot process times (TIMED)
    database_url: str | None = None  # your own PostgreSQL database (else a throw-away one)


@dataclass
class Moment:
    """Everything read at one instant, to subtract."""

    at: float
    bots: list[procstat.Usage]
    metrics: list[scrape.Scrape]
    harness_cpu: float
    harness_waited: float
    calls: int
    database_bytes: int
    postgres: procstat.Usage | None = None
    load: tuple[float, float, float] = field(default_factory=os.getloadavg)


@dataclass
class World:
    fake: FakeDiscord
    tables: list[LoadTable]
    clicks: Clicks


def shard_layout(config: LoadConfig) -> list[dict[str, str]]:
    """Each bot process's shard settings."""
    if config.shards is None:
        return [{}]
    if config.backend != "postgres":
        raise ValueError("shard processes share one PostgreSQL: use --backend postgres")
    count, processes = config.shard_count, config.shards
    if processes < 1 or count % processes:
        raise ValueError(f"{processes} processes cannot share {count} shards evenly")
    per = count // processes
    return [{"SHARD_COUNT": str(count),
             "SHARD_IDS": ",".join(str(s) for s in range(k * per, (k + 1) * per))}
            for k in range(processes)]


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
                "max_ms": _ms(max((s for s, _ in pauses), default=0.0)),
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


# -- the report ----------------------------------------------------------------------


def _ms(seconds: float | None) -> float | None:
    return None if seconds is None else round(seconds * 1000, 1)


def _quantiles(values: Sequence[float]) -> dict[str, float | None]:
    ordered = sorted(values)
    if not ordered:
        return {"p50_ms": None, "p99_ms": None, "max_ms": None}
    return {"p50_ms": _ms(statistics.median(ordered)),
            "p99_ms": _ms(ordered[min(len(ordered) - 1, int(len(ordered) * 0.99))]),
            "max_ms": _ms(ordered[-1])}


def _clicks(clicks: list[Click]) -> dict[str, Any]:
    return {"clicks": len(clicks), **_quantiles([c.answer for c in clicks if c.answer is not None]),
            "failed": sum(c.failed for c in clicks), "deferred": sum(c.deferred for c in clicks)}


def _lag(before: scrape.Scrape, after: scrape.Scrape) -> dict[str, Any]:
    buckets = scrape.between(before.histogram("cardtable_loop_lag_seconds"),
                             after.histogram("cardtable_loop_lag_seconds"))
    p50, p99 = scrape.quantile_bound(buckets, 0.5), scrape.quantile_bound(buckets, 0.99)
    over = scrape.share_above(buckets, LAG_TARGET)
    return {"samples": int(buckets.get(math.inf, 0)), "p50_ms_at_most": _ms(p50),
            "p99_ms_at_most": _ms(p99),
            "over_25ms_percent": None if over is None else round(over * 100, 2)}


def timeline(moves: list[Click], start: float, end: float, step: float = 5.0
             ) -> list[dict[str, Any]]:
    """The window in slices of ``step`` s: moves sent and their answers' p50 / max, to
    tell a steady slowness from stalls that come now and then (a checkpoint, a burst)."""
    out = []
    at = start
    while at < end:
        answers = sorted(c.answer for c in moves
                         if at <= c.sent < at + step and c.answer is not None)
        out.append({"at_s": round(at - start), "moves": len(answers),
                    "p50_ms": _ms(statistics.median(answers)) if answers else None,
                    "max_ms": _ms(answers[-1]) if answers else None})
        at += step
    return out


def _route(call: Any) -> str:
    return str(call.route)


def report(config: LoadConfig, world: World, bots: list[BotProcess],
           layout: list[dict[str, str]], bursts: list[dict[str, Any]],
           lag: list[tuple[float, float]], moments: tuple[Moment, ...], stored: int
           ) -> dict[str, Any]:
    start, opened, first, last, ended = moments
    took = last.at - first.at
    window = world.clicks.within(first.at, last.at)
    moves = [c for c in window if c.kind == "move"]
    applied = sum(c.applied for c in moves)
    calls = [c for c in world.fake.calls[first.calls:last.calls]]
    budgeted = [c for c in calls if not any(part in c.route for part in EXEMPT)]
    routes = Counter(_route(c) for c in calls)
    uploads = sum(f["size"] for c in calls for f in c.files)
    starts = [c for c in world.clicks.all if c.kind == "start"]
    harness_lag = sorted(s for at, s in lag if first.at <= at < last.at)
    bot_cpu = sum(b.cpu for b in last.bots) - sum(b.cpu for b in first.bots)
    rss_start = sum(b.rss for b in start.bots)
    per_table = config.tables or 1
    processes: list[dict[str, Any]] = []
    for k, shards in enumerate(layout):
        processes.append({
            "shards": shards.get("SHARD_IDS", "all"),
            "cpu_percent": round(100 * (last.bots[k].cpu - first.bots[k].cpu) / took, 1),
            # Ready to run but waiting for a core: the machine's other work held it back.
            "waited_for_cpu_percent": round(
                100 * (last.bots[k].waited - first.bots[k].waited) / took, 1),
            "rss_mb": round(last.bots[k].rss / 2**20, 1),
            "tree_rss_mb": round(last.bots[k].tree_rss / 2**20, 1),
            "interactions": int(last.metrics[k].value("cardtable_interactions_total")
                                - first.metrics[k].value("cardtable_interactions_total")),
            "moves": int(last.metrics[k].value("cardtable_moves_total")
                         - first.metrics[k].value("cardtable_moves_total")),
            "loop_lag": _lag(first.metrics[k], last.metrics[k]),
            "bot_answer_p99_ms_at_most": _ms(scrape.quantile_bound(scrape.between(
                first.metrics[k].histogram("cardtable_interaction_answer_seconds"),
                last.metrics[k].histogram("cardtable_interaction_answer_seconds")), 0.99)),
        })
    counted = sum(t.moves for t in world.tables)
    bot_counted = int(sum(m.value("cardtable_moves_total") for m in ended.metrics)
                      - sum(m.value("cardtable_moves_total") for m in start.metrics))
    result: dict[str, Any] = {
        "benchmark": "load", "tables": config.tables, "games": list(config.games),
        "pictures": config.pictures, "backend": config.backend,
        "shard_processes": config.shards,
        "shard_count": config.shard_count if config.shards is not None else None,
        "every_s": config.every, "burst": config.burst, "seconds": round(took, 1),
        "request_rate": config.rate,
        "machine": {"cores": os.cpu_count(), "load_before": _load(start.load),
                    "load_during": _load(last.load), "load_after": _load(ended.load)},
        "moves": applied, "moves_per_s": round(applied / took, 1),
        "offered_moves_per_s": round(config.tables / config.every, 1),
        "move_answers": _clicks(moves),
        "move_answers_by_game": {game: _clicks([c for c in moves if c.game == game])
                                 for game in config.games},
        "move_done": _quantiles([c.done for c in moves if c.done is not None]),
        "refused_moves": sum(1 for c in moves if c.answer is not None and not c.applied),
        "timeline": timeline(moves, first.at, last.at),
        "hand_wait": _quantiles([s for at, s in world.clicks.hand_waits
                                 if first.at <= at < last.at]),
        "start_answers": {**_clicks(starts), "bursts": bursts,
                          "last_burst": _clicks([c for c in starts
                                                 if c.burst == len(bursts) - 1])},
        "other_clicks": _clicks([c for c in window if c.kind not in ("move", "start")]),
        "bot": {
            "cpu_s_per_move": round(bot_cpu / max(applied, 1), 4),
            "cpu_percent": round(100 * bot_cpu / took, 1),
            "rss_start_mb": round(rss_start / 2**20, 1),
            "rss_opened_mb": round(sum(b.rss for b in opened.bots) / 2**20, 1),
            "rss_end_mb": round(sum(b.rss for b in last.bots) / 2**20, 1),
            "rss_per_table_kb": round((sum(b.rss for b in last.bots) - rss_start)
                                      / per_table / 1024, 1),
            "rss_per_table_opened_kb": round((sum(b.rss for b in opened.bots) - rss_start)
                                             / per_table / 1024, 1),
            "tree_rss_per_table_kb": round((sum(b.tree_rss for b in last.bots)
                                            - sum(b.tree_rss for b in start.bots))
                                           / per_table / 1024, 1),
            "processes": processes,
        },
        "database": {"start_kb": round(start.database_bytes / 1024),
                     "end_kb": round(ended.database_bytes / 1024),
                     "bytes_per_table": round((ended.database_bytes - start.database_bytes)
                                              / per_table)},
        "api": {"calls_per_move": round(len(calls) / max(applied, 1), 3),
                "budgeted_per_move": round(len(budgeted) / max(applied, 1), 3),
                "budgeted_per_s": round(len(budgeted) / took, 1),
                "upload_kb_per_move": round(uploads / max(applied, 1) / 1024, 1),
                "http_429": sum(1 for c in calls if c.status == 429),
                "by_route_per_move": {r: round(n / max(applied, 1), 3)
                                      for r, n in routes.most_common(8)}},
        "harness": {"cpu_percent": round(100 * (last.harness_cpu - first.harness_cpu) / took, 1),
                    "waited_for_cpu_percent": round(
                        100 * (last.harness_waited - first.harness_waited) / took, 1),
                    "loop_lag": _quantiles(harness_lag)},
        "players": {"asked_my_hand": sum(t.asked_my_hand for t in world.tables),
                    "reopened": sum(t.reopened for t in world.tables),
                    "lobbies_filled": sum(t.lobbies_filled for t in world.tables),
                    "rematches": sum(t.rematches for t in world.tables)},
        "consistency": {"moves_counted": counted, "moves_bot_counted": bot_counted,
                        "moves_stored": stored},
    }
    if last.postgres is not None and first.postgres is not None:
        result["postgres"] = {
            "cpu_percent": round(100 * (last.postgres.cpu - first.postgres.cpu) / took, 1),
            "waited_for_cpu_percent": round(
                100 * (last.postgres.waited - first.postgres.waited) / took, 1),
            "processes": last.postgres.processes}
    if config.shards is not None:
        dm = [p["interactions"] for p in processes]
        result["shard0_interaction_share"] = round(dm[0] / max(sum(dm), 1), 3)
    result["targets"] = targets(result)
    return result


def _load(load: tuple[float, float, float]) -> list[float]:
    return [round(x, 2) for x in load]


def targets(result: dict[str, Any]) -> dict[str, bool | None]:
    """The issue's targets, met or not (None: not measured in this run)."""
    answers = result["move_answers"]
    lags = [p["loop_lag"]["over_25ms_percent"] for p in result["bot"]["processes"]]
    last_burst = result["start_answers"]["last_burst"]
    return {
        "no_failed_clicks": answers["failed"] == 0 and result["start_answers"]["failed"] == 0,
        "answer_p99_under_100ms": (answers["p99_ms"] is not None
                                   and answers["p99_ms"] < 100),
        "loop_lag_p99_under_25ms": (None if any(x is None for x in lags)
                                    else all(x < 1.0 for x in lags)),
        "burst_of_200_p99_under_500ms": (
            None if result["burst"] < 200 or last_burst["p99_ms"] is None
            else last_burst["p99_ms"] < 500),
        "rss_per_table_at_most_80kb": result["bot"]["rss_per_table_kb"] <= 80,
    }


def as_json(result: dict[str, Any]) -> str:
    return json.dumps(result, default=lambda o: asdict(o) if hasattr(o, "__dataclass_fields__")
                      else str(o))
