"""Moves per second with the bot as one process, and as two shard processes.

``python -m benchmarks shards [--tables N] [--seconds S]`` starts a throw-away
PostgreSQL cluster and the tests' fake Discord with two shards and a server on each,
opens N Jazz tables (3 players each, half in each server), and lets every table's
players move as fast as their menus arrive (from their DMs, as most players do) for S
seconds — first with one ``python -m bot`` holding both shards, then with two, shard 0
and shard 1 (Discord sends every DM click to shard 0's process; each table's owner
draws it and sends the hands). It prints the moves per second and the answer latency
of each, and their ratio, as one JSON line last.
"""

from __future__ import annotations

import asyncio
import random
import statistics
import tempfile
from pathlib import Path
from typing import Any

from testkit.fakediscord import FakeDiscord, Interaction
from testkit.pgcluster import PostgresCluster
from testkit.processes import LAUNCHER, BotProcess, Players, open_jazz

SHARD_COUNT = "2"


async def measure(processes: int, tables: int, seconds: float, url: str, folder: Path
                  ) -> dict[str, Any]:
    launcher = folder / "launch_bot.py"
    launcher.write_text(LAUNCHER)
    layout = ["0-1"] if processes == 1 else ["0", "1"]
    async with FakeDiscord(shard_count=2) as fake:
        second = fake.add_guild("second", shard=1)
        channels = [fake.world.add_channel(f"table{n}", guild=second if n % 2 else None)
                    for n in range(tables)]
        trios = [[fake.add_user(f"p{n}x{seat}") for seat in range(3)] for n in range(tables)]
        bots = [BotProcess(fake, folder / "unused.db", launcher,
                           folder / f"bot{processes}-{shards}.log", url=url,
                           environment={"SHARD_COUNT": SHARD_COUNT, "SHARD_IDS": shards})
                for shards in layout]
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

            started = loop.time()
            await asyncio.gather(*(play(p) for p in players))
            took = loop.time() - started
        finally:
            for bot in bots:
                await bot.stop()
        fake.allow_violations = True  # a late answer shows in the latency below
    acks = sorted(ix.responded_at - ix.dispatched_at for ix in clicks
                  if ix.responded_at is not None)
    moves = sum(len(p.moves) for p in players)
    return {"processes": processes, "moves": moves, "moves_per_s": round(moves / took, 1),
            "ack_p50_ms": round(statistics.median(acks) * 1000, 1),
            "ack_p99_ms": round(acks[int(len(acks) * 0.99)] * 1000, 1),
            "asked_my_hand": sum(p.asked for p in players)}


def _all_up(fake: FakeDiscord, bots: list[BotProcess]) -> bool:
    for bot in bots:
        bot.check_running()
    return fake.gateway.live_shards == {0, 1} and fake.syncs > 0


async def _run(tables: int, seconds: float) -> dict[str, Any]:
    with PostgresCluster() as cluster, tempfile.TemporaryDirectory() as folder:
        one = await measure(1, tables, seconds, cluster.create_database(), Path(folder))
        two = await measure(2, tables, seconds, cluster.create_database(), Path(folder))
    return {"benchmark": "shards", "tables": tables, "seconds": seconds,
            "one_process": one, "two_processes": two,
            "ratio": round(two["moves_per_s"] / one["moves_per_s"], 2)}


def run(tables: int, seconds: float) -> dict[str, Any]:
    return asyncio.run(_run(tables, seconds))
