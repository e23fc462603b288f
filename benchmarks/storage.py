"""Storage operations per second, on SQLite and on PostgreSQL.

``python -m benchmarks storage [--backend sqlite|postgres|both] [--seconds S]
[--database-url URL]`` times, one call after the other (each waits for the one
before: the latency a click sees, not the server's throughput):

* **save a table**: ``save_table`` of a realistic 4-player Jazz snapshot, mid-deal;
* **finish a game**: ``record_game`` of a whole 4-player Jazz game, all seats human
  (so ratings move, in the server and globally), among 40 players of one server; each
  call a table of its own (a table records one game: a table id used before would
  time a no-op, so every call takes a fresh one, and the run checks that every call
  recorded a game);
* **a leaderboard page**: ``leaderboard`` of that server, 10 rows, a random page.

SQLite is a file in a temporary folder, as the bot has it (WAL, synchronous NORMAL).
PostgreSQL is a throw-away cluster started for the run (``testkit.pgcluster``:
local TCP, fsync off, so it measures the backend's own cost, not a disk), or the
database at ``--database-url`` (it writes tables, games and ratings there). The last
line is one JSON object.
"""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import random
import secrets
import tempfile
import time
from collections.abc import AsyncIterator, Awaitable, Callable
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

from bot.storage import (
    FinishedGame,
    PostgresStorage,
    SeatResult,
    SQLiteStorage,
    Store,
    TableRow,
)
from bot.table.state import Table
from engine.core import Game
from engine.registry import game_ids, spec
from testkit.pgcluster import PostgresCluster

BACKENDS = ("sqlite", "postgres")
GUILD = 424242424242424242  # a snowflake: more than 32 bits
PLAYERS = 40
GAME = game_ids()[0]  # the registry's first game (Jazz), 4 seats
SEATS = 4


def table_snapshot(seed: int = 1, moves: int = 20) -> dict[str, Any]:
    """A 4-seat table of ``GAME`` as the bot saves it, ``moves`` random moves into its deal."""
    engine = spec(GAME).engine_class
    rng = random.Random(seed)
    table = Table(table_id="bench0001", game_id=GAME, engine=engine, guild_id=GUILD,
                  channel_id=1, host_id=GUILD + 1, created_at=0.0, options=engine.OPTIONS(),
                  rng=random.Random(seed))
    for user in range(1, SEATS + 1):
        table.join(GUILD + user, f"player {user}", 0.0)
    table.start_and_deal(GUILD + 1, 0.0)
    for _ in range(moves):
        if table.to_act is None or table.game is None:
            break
        table.apply(table.to_act, rng.choice(table.game.legal_actions()), 0.0)
    return table.to_data()


def finished_game(rng: random.Random, number: int) -> FinishedGame:
    """A whole 4-seat game of ``GAME`` played with random moves by the server's players."""
    engine: type[Game] = spec(GAME).engine_class
    game = engine(SEATS, None, first_dealer=rng.randrange(SEATS))
    while not game.is_over:
        game.advance(rng)
    users = rng.sample(range(1, PLAYERS + 1), SEATS)
    totals, places, winners = game.totals, game.ranking(), set(game.winners())
    seats = [SeatResult(i, GUILD + u, f"player {u}", totals[i], places[i], i in winners)
             for i, u in enumerate(users)]
    ended = datetime(2026, 1, 1, tzinfo=UTC) + timedelta(minutes=number)
    return FinishedGame(GUILD, 1, GAME, ended - timedelta(minutes=25), ended, True,
                        game.to_record(), seats, table_id=f"g{number:07d}")


async def rate(operation: Callable[[int], Awaitable[object]], seconds: float) -> float:
    """Calls of ``operation`` (given its call number) per second, one after the other."""
    await operation(0)  # warm up (prepared statements, caches)
    calls, start = 1, time.perf_counter()
    deadline = start + seconds
    while True:
        await operation(calls)
        calls += 1
        now = time.perf_counter()
        if now >= deadline:
            return (calls - 1) / (now - start)


async def measure_store(store: Store, seconds: float) -> dict[str, float]:
    snapshot = table_snapshot()
    await store.create_table(TableRow("bench0001", GUILD, 1, GAME, "playing", data=snapshot))
    version = 0

    async def save(_: int) -> None:
        nonlocal version
        version = await store.save_table("bench0001", "playing", snapshot, version)

    rng = random.Random(3)
    games = [finished_game(rng, n) for n in range(50)]  # played once, recorded again and again
    run = secrets.token_hex(4)  # table ids of this run only (--database-url may hold others')
    finished: list[int] = []  # the game id each call recorded

    async def finish(n: int) -> None:
        game = dataclasses.replace(games[n % len(games)], table_id=f"bench-{run}-{n}")
        finished.append(await store.record_game(game))

    async def page(n: int) -> None:
        await store.leaderboard(GAME, GUILD, offset=10 * (n % 4), limit=10)

    figures: dict[str, float] = {"save_table_per_s": round(await rate(save, seconds)),
                                 "record_game_per_s": round(await rate(finish, seconds))}
    if len(set(finished)) != len(finished):  # a call that found its game timed a no-op
        raise RuntimeError(f"{len(finished)} finishes recorded {len(set(finished))} games")
    figures["leaderboard_per_s"] = round(await rate(page, seconds))
    return figures


@contextlib.asynccontextmanager
async def opened(backend: str, database_url: str | None = None) -> AsyncIterator[Store]:
    """A store on an empty database of ``backend``, removed afterwards (or the database
    at ``database_url``, for PostgreSQL)."""
    if backend == "sqlite":
        with tempfile.TemporaryDirectory() as folder:
            async with await SQLiteStorage.open(Path(folder) / "bench.db") as store:
                yield store
        return
    if database_url:
        async with await PostgresStorage.open(database_url) as store:
            yield store
        return
    with PostgresCluster() as cluster:
        async with await PostgresStorage.open(cluster.create_database("bench")) as store:
            yield store


async def measure(backends: tuple[str, ...], seconds: float,
                  database_url: str | None = None) -> dict[str, Any]:
    result: dict[str, Any] = {"benchmark": "storage", "seconds": seconds}
    for backend in backends:
        async with opened(backend, database_url) as store:
            figures = await measure_store(store, seconds)
        result.update({f"{backend}_{key}": value for key, value in figures.items()})
    return result


def run(backend: str = "both", seconds: float = 3.0,
        database_url: str | None = None) -> dict[str, Any]:
    backends = BACKENDS if backend == "both" else (backend,)
    return asyncio.run(measure(backends, seconds, database_url))
