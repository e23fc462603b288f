"""The web table under load: many pages open at once, moves made from the browser.

``python -m benchmarks web [--game ID] [--viewers 1000] [--tables 200] [--moves 10]
[--every 4] [--links click|mint] [--pictures on|off] [--profile PATH --profiler
sample|cprofile] [--timed [METHODS]] [--json PATH]``

The bot runs as its own process (``python -m bot`` on the tests' fake Discord with the
web table on, as the load benchmark runs it: ``testkit.loadbot``, the product's timing,
its request budget lifted); the fake Discord, the players and every page (aiohttp's
client speaking ``docs/web-protocol.md``) run in this one, so the pages' CPU is not
the server's. Steps, each run to its end (nothing here waits for a clock but the pace):

1. ``--tables`` 3-player tables of ``--game`` (by default the registry's first game) are
   opened on the fake (its start command, joins, Start; 25 to a server).
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

This module is the command and the run; the pages, the tables and the links are
``benchmarks.web_pages``; the figures and their text ``benchmarks.web_report``.
"""

from __future__ import annotations

import argparse
import asyncio
import gc
import json
import os
import random
import signal
import tempfile
import time
from pathlib import Path
from typing import Any

from benchmarks.web_pages import (
    SEATS,
    WebConfig,
    build_tables,
    connect,
    frames,
    gather,
    links,
    redeem,
)
from benchmarks.web_report import render, report
from engine.registry import game_ids, spec

LATE = 10.0  # seconds after the last move for the last frames to come
# Where a browser move's time goes, as wall time (``--timed``): the move as the server
# takes it (the lock, the versioned save, what Discord is shown after it), and the push.
TIMED = ("web.play:WebPlay.move", "bot.table.step:Steps.hold",
         "bot.table.manager:TableManager.save", "bot.app.croupier:Croupier.web_moved",
         "web.hub:Hub.send_all", "discord.http:HTTPClient.request",
         "bot.storage.sqlite:SQLiteStorage._turn", "bot.storage.sqlite:SQLiteStorage._statement")


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--game", choices=game_ids(), default=game_ids()[0],
                        help="the game of the tables (default: the registry's first)")
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


# -- the run ---------------------------------------------------------------------------


def run(config: WebConfig) -> dict[str, Any]:
    return asyncio.run(measure(config))


async def measure(config: WebConfig) -> dict[str, Any]:
    if config.viewers < SEATS * config.tables:
        raise SystemExit(f"--viewers must be at least {SEATS} × --tables (each table's "
                         "players open their pages)")
    game = spec(config.game)
    if not game.min_players <= SEATS <= game.max_players:
        raise SystemExit(f"--game: {config.game} is not played by {SEATS} (the tables' "
                         "seats)")
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
        tables = build_tables(fake, config, rng, Clicks(), LoadTable, start_command(config.game))
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
            opened = await gather(t.players.open() for t in tables)
            if not all(opened):
                raise AssertionError(f"{opened.count(False)} tables did not open")
            marks["opened"] = await moment()
            await asyncio.gather(*(t.play_from_dms(config.moves, config.every,
                                                   random.Random(rng.random()))
                                   for t in tables))
            marks["dm_done"] = await moment()
            # The pages: links, sessions, sockets.
            began = time.monotonic()
            await links(fake, tables, config.links, SECRET)
            marks["links_done"] = await moment()
            links_s = time.monotonic() - began
            await redeem(base, tables)
            marks["redeemed"] = await moment()
            await connect(base, http, tables)
            marks["connected"] = await moment()
            connect_s = time.monotonic() - began - links_s
            if window:
                bot.proc.send_signal(signal.SIGUSR1)  # the window opens
            frames_before = frames(tables)
            await asyncio.gather(*(t.play_from_pages(config.moves, config.every,
                                                     random.Random(rng.random()))
                                   for t in tables))
            moves_end = time.monotonic()
            while any(t.open for t in tables) and time.monotonic() < moves_end + LATE:
                await asyncio.sleep(0.05)
            marks["web_done"] = await moment()
            frames_after = frames(tables)
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



def main(args: argparse.Namespace) -> int:
    from benchmarks.load import profile_top, samples_top

    config = WebConfig(viewers=args.viewers, tables=args.tables, moves=args.moves,
                       every=args.every, links=args.links, pictures=args.pictures == "on",
                       seed=args.seed, profile=args.profile, profiler=args.profiler,
                       game=args.game,
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
