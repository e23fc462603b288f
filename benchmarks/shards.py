"""Moves per second with the bot as one process, and as two shard processes.

``python -m benchmarks shards [--tables N] [--seconds S]`` starts a throw-away
PostgreSQL cluster and the tests' fake Discord with two shards and a server on each,
opens N Jazz tables (3 players each, half in each server), and lets every table's
players move as fast as their menus arrive (from their DMs, as most players do) for S
seconds — first with one ``python -m bot`` holding both shards, then with two, shard 0
and shard 1 (Discord sends every DM click to shard 0's process; each table's owner
draws it and sends the hands). It prints the moves per second and the answer latency
of each, and their ratio, as one JSON line last.

Those two runs leave the request budget out (as the tests do), to measure the bot's own
speed. A third run, ``shared_budget``, plays the two shard processes again with the
product's budget (``Timing.request_rate``, of which each process takes its shards'
share), every move's table edit asked for at once, and each process also posting in a
channel of its own server as fast as its pacer lets it (so that each wants more than
its share, as on a busy day): it reports the requests per second of each process and of
both together, and their busiest second, which Discord counts against the token's 50/s.
Every run reports them (``requests``): each process logs the requests it starts
(discord.py's ``HTTPClient.request``: every call but the interaction responses and the
interaction webhook, which Discord does not count), and the fake Discord's count of
the same calls checks the sum.
"""

from __future__ import annotations

import asyncio
import random
import statistics
import tempfile
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from bot.config.settings import Timing
from testkit.fakediscord import FakeDiscord, Interaction
from testkit.pgcluster import PostgresCluster
from testkit.processes import LAUNCHER, BotProcess, Players, open_jazz

SHARD_COUNT = "2"
EXEMPT = ("/interactions/", "/webhooks/")  # what Discord's global limit does not count
CALL_LOG_SETTING = "CARDTABLE_BENCH_CALL_LOG"
FLOOD_SETTING = "CARDTABLE_BENCH_FLOOD"  # "<channel id>:<guild id>" to post in non-stop
# Before the launcher: each request the process starts, as a line "<monotonic> <method>
# <route>" in the file CARDTABLE_BENCH_CALL_LOG names (the same clock as this process's).
CALL_LOG = f"""
import os
import time

import discord.http

_request = discord.http.HTTPClient.request
_calls = open(os.environ["{CALL_LOG_SETTING}"], "a", buffering=1)


async def _logged(self, route, **kwargs):
    _calls.write(f"{{time.monotonic():.6f}} {{route.method}} {{route.path}}\\n")
    return await _request(self, route, **kwargs)

discord.http.HTTPClient.request = _logged
"""
# The product's request budget (each process its shards' share of it), no pauses before
# the bot's own moves, and every move's table edit asked for at once (edit_interval 0);
# once ready, the bot also posts in the channel CARDTABLE_BENCH_FLOOD names, through its
# own poster (and so its pacer), as fast as it may: the budget holds the requests back.
PACED_LAUNCHER = f"""
import asyncio
import dataclasses
import os
import runpy

import bot.app.client
import bot.config.settings

PACED = bot.config.settings.Timing(pause=0, edit_interval=0, request_rate=RATE)
_load = bot.config.settings.load_settings
bot.config.settings.load_settings = lambda *a, **k: dataclasses.replace(
    _load(*a, **k), timing=PACED)
_set_up = bot.app.client.CardTableBot.setup_hook


async def _flood(self, channel_id, guild_id):
    await self.wait_until_ready()
    while not self.is_closed():
        await self.croupier.poster.send(channel_id, guild_id, content="one more request")


async def _set_up_and_flood(self):
    await _set_up(self)
    channel_id, guild_id = map(int, os.environ["{FLOOD_SETTING}"].split(":"))
    self.bench_flood = [asyncio.create_task(_flood(self, channel_id, guild_id))
                        for _ in range(2)]

bot.app.client.CardTableBot.setup_hook = _set_up_and_flood
runpy.run_module("bot", run_name="__main__", alter_sys=True)
"""


async def measure(processes: int, tables: int, seconds: float, url: str, folder: Path,
                  paced: bool = False, rate: float = Timing().request_rate
                  ) -> dict[str, Any]:
    """``paced``: the product's budget (``rate``: the token's, shared by the processes),
    and every process wanting more than its share."""
    run = f"{processes}{'-paced' if paced else ''}"
    launcher = folder / f"launch_bot_{run}.py"
    launcher.write_text(CALL_LOG + (PACED_LAUNCHER.replace("RATE", repr(rate)) if paced
                                    else LAUNCHER))
    layout = ["0-1"] if processes == 1 else ["0", "1"]
    async with FakeDiscord(shard_count=2) as fake:
        second = fake.add_guild("second", shard=1)
        channels = [fake.world.add_channel(f"table{n}", guild=second if n % 2 else None)
                    for n in range(tables)]
        trios = [[fake.add_user(f"p{n}x{seat}") for seat in range(3)] for n in range(tables)]
        floods = [fake.world.add_channel(f"flood{n}", guild=second if n else None)
                  for n in range(len(layout))]  # a channel of each process's own server
        call_logs = [folder / f"calls{run}-{shards}.log" for shards in layout]
        bots = [BotProcess(fake, folder / "unused.db", launcher,
                           folder / f"bot{run}-{shards}.log", url=url,
                           environment={"SHARD_COUNT": SHARD_COUNT, "SHARD_IDS": shards,
                                        CALL_LOG_SETTING: str(calls),
                                        FLOOD_SETTING: f"{flood.id}:{flood.guild_id}"})
                for shards, calls, flood in zip(layout, call_logs, floods, strict=True)]
        try:
            for bot in bots:
                await bot.start(wait=False)
            await fake.wait_for(lambda: _all_up(fake, bots), timeout=60)
            await asyncio.gather(*(open_jazz(fake, ch, trio)
                                   for ch, trio in zip(channels, trios, strict=True)))
            players = [Players(fake, ch, trio, random.Random(n))
                       for n, (ch, trio) in enumerate(zip(channels, trios, strict=True))]
            loop = asyncio.get_running_loop()
            end = loop.time() + seconds
            clicks: list[Interaction] = []

            async def play(p: Players) -> None:
                while loop.time() < end:
                    ix = await p.move()
                    if ix is None:
                        return
                    clicks.append(ix)

            mark, started = fake.mark(), loop.time()
            await asyncio.gather(*(play(p) for p in players))
            ended = loop.time()
            took = ended - started
            seen = [c for c in fake.calls_since(mark)
                    if c.at <= ended and not any(part in c.route for part in EXEMPT)]
        finally:
            for bot in bots:
                await bot.stop()
        fake.allow_violations = True  # a late answer shows in the latency below
    acks = sorted(ix.responded_at - ix.dispatched_at for ix in clicks
                  if ix.responded_at is not None)
    moves = sum(len(p.moves) for p in players)
    sent = {shards: requests_in(calls, started, ended)
            for shards, calls in zip(layout, call_logs, strict=True)}
    return {"processes": processes, "moves": moves, "moves_per_s": round(moves / took, 1),
            "ack_p50_ms": round(statistics.median(acks) * 1000, 1),
            "ack_p99_ms": round(acks[int(len(acks) * 0.99)] * 1000, 1),
            "asked_my_hand": sum(p.asked for p in players),
            "requests": budget_report(sent, [c.at for c in seen], took,
                                      sum(1 for c in seen if c.status == 429))}


def requests_in(call_log: Path, start: float, end: float) -> list[float]:
    """When the process started each request Discord's global limit counts, in [start, end]."""
    times = []
    for line in call_log.read_text().splitlines():
        at, _, rest = line.partition(" ")
        if start <= float(at) <= end and not any(part in rest for part in EXEMPT):
            times.append(float(at))
    return times


def busiest_second(times: Sequence[float]) -> int:
    """The most requests started in any one second (a sliding window)."""
    ordered, most, first = sorted(times), 0, 0
    for last, at in enumerate(ordered):
        while at - ordered[first] >= 1.0:
            first += 1
        most = max(most, last - first + 1)
    return most


def budget_report(sent: dict[str, list[float]], seen: list[float], took: float,
                  rate_limited: int) -> dict[str, Any]:
    """Requests/s of each process (by its SHARD_IDS) and of all together, the busiest
    second of each and of all together, as the processes logged them; the fake
    Discord's count of the same (``seen``) and its 429 answers."""
    everything = [at for times in sent.values() for at in times]
    return {"per_process_per_s": {ids: round(len(t) / took, 1) for ids, t in sent.items()},
            "per_process_busiest_second": {ids: busiest_second(t) for ids, t in sent.items()},
            "sum_per_s": round(len(everything) / took, 1),
            "sum_busiest_second": busiest_second(everything),
            "seen_by_discord_per_s": round(len(seen) / took, 1),
            "seen_busiest_second": busiest_second(seen), "http_429": rate_limited}


def _all_up(fake: FakeDiscord, bots: list[BotProcess]) -> bool:
    for bot in bots:
        bot.check_running()
    return fake.gateway.live_shards == {0, 1} and fake.syncs > 0


async def _run(tables: int, seconds: float) -> dict[str, Any]:
    with PostgresCluster() as cluster, tempfile.TemporaryDirectory() as folder:
        one = await measure(1, tables, seconds, cluster.create_database(), Path(folder))
        two = await measure(2, tables, seconds, cluster.create_database(), Path(folder))
        shared = await measure(2, tables, seconds, cluster.create_database(), Path(folder),
                               paced=True)
    return {"benchmark": "shards", "tables": tables, "seconds": seconds,
            "one_process": one, "two_processes": two,
            "ratio": round(two["moves_per_s"] / one["moves_per_s"], 2),
            "shared_budget": {"request_rate": Timing().request_rate, **shared}}


def run(tables: int, seconds: float) -> dict[str, Any]:
    return asyncio.run(_run(tables, seconds))
