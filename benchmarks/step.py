"""The move step's own time: ``Steps.move`` (check, apply, save once) on either backend.

``python -m benchmarks step GAME [--moves N] [--backend sqlite|postgres]
[--database-url URL]`` plays random legal moves at tables of the game's default size
through the step kernel, with storage in a temporary SQLite file as the bot has it, or
on PostgreSQL (a throw-away cluster started for the run, or the database at
``--database-url``, which implies ``--backend postgres``), and prints the step's p50 /
p99 / mean in milliseconds as one JSON line last. No Discord: this is the part of a
click the kernel owns.
"""

from __future__ import annotations

import asyncio
import random
import statistics
import time
from typing import Any

from benchmarks.storage import opened
from bot.storage import Store
from bot.table.manager import TableManager
from bot.table.state import STOPPED, Table
from bot.table.step import Steps
from bot.table.timers import SystemClock
from engine.core import Game, action_code
from engine.registry import spec


def start_game(table: Table) -> None:
    table.start_and_deal(1, 0.0)


async def measure(game_id: str, moves: int, seed: int = 1, backend: str = "sqlite",
                  database_url: str | None = None) -> dict[str, Any]:
    game = spec(game_id)
    times: list[float] = []
    async with opened(backend, database_url) as store:
        await _play(store, game.engine_class, game_id, game.default_players, moves, times,
                    random.Random(seed))
    times.sort()
    return {"benchmark": "step", "backend": backend, "game": game_id,
            "players": game.default_players,
            "moves": len(times), "p50_ms": round(statistics.median(times) * 1000, 3),
            "p99_ms": round(times[int(len(times) * 0.99)] * 1000, 3),
            "mean_ms": round(statistics.fmean(times) * 1000, 3)}


async def _play(store: Store, engine: type[Game], game_id: str, players: int,
                moves: int, times: list[float], rng: random.Random) -> None:
    """Random legal moves at new tables until ``moves`` steps were timed."""
    manager = TableManager(store, lambda _: engine)
    steps = Steps(manager, SystemClock(), patience=2.0)
    number = 0
    while len(times) < moves:
        number += 1
        table = Table(table_id=f"{number:08x}", game_id=game_id, engine=engine, guild_id=1,
                      channel_id=number, host_id=1, created_at=0.0, options=engine.OPTIONS(),
                      rng=random.Random(number))
        for user in range(1, players + 1):
            table.join(user, f"p{user}", 0.0)
        await manager.open(table)
        await steps.apply(table, start_game)
        while table.to_act is not None and table.automation() is None and len(times) < moves:
            assert table.game is not None
            user = table.seats[table.to_act].user_id
            code = action_code(rng.choice(table.game.legal_actions()))
            began = time.perf_counter()
            async with steps.hold(table):
                outcome = await steps.move(table, user, table.step, code)
            times.append(time.perf_counter() - began)
            assert outcome.saved
        table.status = STOPPED
        await manager.close(table)


def run(game_id: str, moves: int = 3000, backend: str = "sqlite",
        database_url: str | None = None) -> dict[str, Any]:
    if database_url:
        backend = "postgres"
    return asyncio.run(measure(game_id, moves, backend=backend, database_url=database_url))
