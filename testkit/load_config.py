"""What a load run is asked (``LoadConfig``: tables, games, pace, backend, shards,
profiling), the launcher and environment of its bot processes' shards, and what it
keeps: the run's world (``World``) and the readings taken at one instant (``Moment``).
``testkit.load`` runs it, ``testkit.load_report`` turns the readings into the report."""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from pathlib import Path

from engine.registry import game_ids
from testkit import procstat, scrape
from testkit.fakediscord import FakeDiscord
from testkit.loadtables import Clicks, LoadTable

GAMES = game_ids()  # every registered game, in the registry's order
UNLIMITED = 1e9
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
