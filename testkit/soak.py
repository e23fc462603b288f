"""The kill soak (issue #26): tables of all four games played by simulated people on the
fake Discord while the bot process is SIGKILLed at random moments, on SQLite or on
PostgreSQL, which is itself stopped and started under the running bot.

``soak(plan, backend, folder, cluster)`` opens ``plan.tables`` tables (Jazz 3–7 seats,
Jacko 2, California Jack 2, AttackJack 2–17, in turn; a quarter with hands in the channel
only), lets their people play (``testkit.soak_players``) and, in a seeded random order,
makes ``plan.kills`` kills and ``plan.database_restarts`` restarts of PostgreSQL, each
after a random number of moves the bot acknowledged. A kill is one of:

* ``idle``: the players stop clicking, every answer is in, the bot says it is idle;
* ``in flight``: right after a click was sent, before its answer (within 15 ms);
* ``random``: at a random moment up to 250 ms later, whatever the bot is doing then.

A new ``python -m bot`` starts at once on the same database; the people go on clicking
as soon as it is connected. A restart of PostgreSQL stops the cluster (``fast`` or
``immediate``, by lot) for 0.5–3 s with the bot running and the people clicking. While
disruptions remain, a finished game's host presses Rematch; then every table plays its
game to the end. The judge (``testkit.soak_judge``) then compares every answer the
people got with what storage keeps.

Waiting is always for the bot's answers or its /metrics (``BotProcess.idle``); the only
sleeps are the random moments of a kill and the length of a database outage. The
PostgreSQL cluster must be ``crash_safe`` (synchronous commits): the throw-away default
acknowledges commits an immediate stop then loses, which the soak would count as lost.
"""

from __future__ import annotations

import asyncio
import contextlib
import random
import re
import time
from collections import Counter
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from bot.storage import STARTING_CHIPS
from engine.registry import game_ids
from testkit.fakediscord import FakeDiscord, FakeDiscordError
from testkit.games import command, hook, seats
from testkit.pgcluster import PostgresCluster
from testkit.processes import BotProcess
from testkit.soak_judge import Counts, SoakTable, judge
from testkit.soak_players import REMATCH, TablePlayers
from testkit.soak_sabotage import SABOTAGES
from testkit.soak_stage import Stage
from testkit.soak_storage import Where, read
from testkit.tables import open_and_start

GAMES = game_ids()
COMMANDS = {game: command(game) for game in GAMES}
SEATS = {game: seats(game) for game in GAMES}
# The games as people play them (testkit.games: each game's SOAK_OPTIONS, AttackJack
# with its choices and a stake, so that chips move); SHORT: quick games for the test.
FULL: Mapping[str, Mapping[str, Any]] = {
    game: options for game in GAMES if (options := hook(game, "SOAK_OPTIONS")) is not None}
SHORT: Mapping[str, Mapping[str, Any]] = {
    game: options for game in GAMES
    if (options := hook(game, "SOAK_SHORT_OPTIONS")) is not None}
KILLS = ("idle", "in flight", "random")
SERIES_PAUSE = 1.0  # seconds between two deals of an AttackJack series (production: 8)
LAUNCHER = """
import dataclasses
import runpy

import bot.config.settings

SOAK = bot.config.settings.Timing(pause=0, edit_interval=0, request_rate=1e9,
                                  series_pause={pause!r})
_load = bot.config.settings.load_settings
bot.config.settings.load_settings = lambda *a, **k: dataclasses.replace(_load(*a, **k), timing=SOAK)
{sabotage}
runpy.run_module("bot", run_name="__main__", alter_sys=True)
"""
ERROR_LINE = re.compile(r"\b(ERROR|CRITICAL)\b")


@dataclass(frozen=True)
class Plan:
    tables: int = 20
    kills: int = 100
    database_restarts: int = 5  # PostgreSQL only
    seed: int = 1
    options: Mapping[str, Mapping[str, Any]] = field(default_factory=lambda: FULL)
    gap: tuple[int, int] = (4, 30)  # moves acknowledged between two disruptions
    stall: float = 20.0  # seconds without progress (bot up and idle): the table stopped
    channel_hands: float = 0.25  # the share of tables whose hands are shown in the channel
    sabotage: str | None = None  # testkit.soak_sabotage: a broken bot, to see it counted


@dataclass
class Report:
    backend: str
    plan: Plan
    counts: Counts
    seconds: float
    games: int  # recorded in storage
    moves: int  # acknowledged
    clicks: int  # on move menus
    kills: Counter[str]
    kills_with_clicks_in_flight: int
    database_restarts: int
    connect_s: list[float]  # from each kill to the new process connected
    first_move_s: list[float]  # ... to the first move it acknowledged
    my_hand: int
    doubled: int
    retried: int
    unanswered_while_up: int
    late_answers: int
    log_errors: int
    log: Path

    def summary(self) -> dict[str, Any]:
        def p50(values: list[float]) -> float | None:
            return round(sorted(values)[len(values) // 2], 2) if values else None

        return {
            "backend": self.backend, "tables": self.plan.tables, "seed": self.plan.seed,
            **self.counts.as_dict(), "wall_s": round(self.seconds, 1), "games": self.games,
            "moves_acknowledged": self.moves, "move_clicks": self.clicks,
            "kills": dict(self.kills), "kills_with_clicks_in_flight":
                self.kills_with_clicks_in_flight,
            "database_restarts": self.database_restarts,
            "kill_to_connected_s_p50": p50(self.connect_s),
            "kill_to_first_move_s_p50": p50(self.first_move_s),
            "kill_to_first_move_s_max": round(max(self.first_move_s), 2)
            if self.first_move_s else None,
            "my_hand_presses": self.my_hand, "double_clicks": self.doubled,
            "retries_after_kill": self.retried, "unanswered_while_up": self.unanswered_while_up,
            "late_answers": self.late_answers, "log_errors": self.log_errors,
            "sabotage": self.plan.sabotage}


def launcher(plan: Plan) -> str:
    sabotage = SABOTAGES[plan.sabotage] if plan.sabotage else ""
    return LAUNCHER.format(pause=SERIES_PAUSE, sabotage=sabotage)


class Conductor:
    """Opens the tables, runs the disruptions, ends the games and asks the judge."""

    def __init__(self, plan: Plan, fake: FakeDiscord, bot: BotProcess, where: Where,
                 cluster: PostgresCluster | None):
        self.plan, self.fake, self.bot, self.cluster = plan, fake, bot, cluster
        self.rng = random.Random(plan.seed)
        self.stage = Stage(fake, bot, where, plan.stall)
        self.stage.database_up.set()
        self.players: list[TablePlayers] = []
        self.tables: list[SoakTable] = []
        self.kills: Counter[str] = Counter()
        self.in_flight_kills = 0
        self.database_restarts = 0
        self.connect_s: list[float] = []  # from each kill to the new process connected
        self.first_move_s: list[float] = []  # ... to its first move acknowledged
        self._playing: list[asyncio.Task[None]] = []

    def playing(self) -> bool:
        return any(not task.done() for task in self._playing)

    async def open_tables(self) -> None:
        for n in range(self.plan.tables):
            game = GAMES[n % len(GAMES)]
            low, high = SEATS[game]
            seats = self.rng.randint(low, high)
            channel = self.fake.world.add_channel(f"soak{n}")
            users = [self.fake.add_user(f"s{n}p{k}") for k in range(seats)]
            hands = "channel" if self.rng.random() < self.plan.channel_hands else "dm"
            await open_and_start(self.fake, channel, users, COMMANDS[game], turn_timer="off",
                                 images=False, hands=hands, **self.plan.options.get(game, {}))
            self.players.append(TablePlayers(
                self.stage, channel, users, game, hands, random.Random(self.rng.random()),
                series_deals=self.rng.randint(1, 2)))

    async def run(self) -> None:
        events = ["kill"] * self.plan.kills
        if self.cluster is not None:
            events += ["database"] * self.plan.database_restarts
        self.rng.shuffle(events)
        self.stage.up.set()
        playing = self._playing = [
            asyncio.create_task(p.play(), name=f"players of #{p.channel.name}")
            for p in self.players]
        try:
            for event in events:
                if not await self.progress(self.rng.randint(*self.plan.gap), playing):
                    break  # every table is over or stopped: nothing left to disrupt
                if event == "database":
                    await self.restart_database()
                else:
                    await self.kill(self.rng.choices(KILLS, weights=(1, 2, 1))[0])
            self.stage.finishing = True
            await asyncio.gather(*playing)
        finally:
            for task in playing:
                task.cancel()
            await asyncio.gather(*playing, return_exceptions=True)

    async def progress(self, moves: int, playing: list[asyncio.Task[None]]) -> bool:
        """Wait for ``moves`` more acknowledged moves; False if every table is done."""
        target = self.stage.acknowledged + moves
        for task in playing:  # a player that failed fails the soak now
            if task.done() and task.exception() is not None:
                task.result()
        await self.fake.wait_for(lambda: self.stage.acknowledged >= target
                                 or all(t.done() for t in playing), timeout=24 * 3600)
        return self.stage.acknowledged >= target

    async def kill(self, mode: str) -> None:
        if mode == "idle":
            self.stage.up.clear()  # nobody clicks now
            await self.fake.wait_for(lambda: not self.stage.in_flight, timeout=60)
            await self.bot.idle()
        elif mode == "in flight":
            with contextlib.suppress(FakeDiscordError):  # nobody clicked for 10 s: kill anyway
                await self.fake.wait_for(lambda: self.stage.in_flight, timeout=10)
            await asyncio.sleep(self.rng.uniform(0, 0.015))  # the moment of the kill
        else:
            await asyncio.sleep(self.rng.uniform(0, 0.25))  # the moment of the kill
        self.kills[mode] += 1
        self.stage.disrupted(f"kill ({mode}), {len(self.stage.in_flight)} click(s) in flight")
        self.in_flight_kills += bool(self.stage.in_flight)
        self.stage.up.clear()
        await self.bot.kill()
        self.stage.generation += 1
        started = time.monotonic()
        await self.bot.start()
        self.stage.up.set()  # people click again as soon as the bot is connected
        self.stage.disrupted("the new process is connected")
        self.connect_s.append(time.monotonic() - started)
        acknowledged = self.stage.acknowledged
        try:  # the first move the new process acknowledges (it restored the tables)
            await self.fake.wait_for(lambda: self.stage.acknowledged > acknowledged
                                     or not self.playing(), timeout=60)
        except FakeDiscordError:
            return  # no move for a minute: the players' own bound will tell
        if self.stage.acknowledged > acknowledged:
            self.first_move_s.append(time.monotonic() - started)

    async def restart_database(self) -> None:
        assert self.cluster is not None
        mode = self.rng.choice(("fast", "immediate"))
        outage = self.rng.uniform(0.5, 3.0)
        self.stage.database_up.clear()
        self.stage.disrupted(f"PostgreSQL stops ({mode}) for {outage:.1f} s")
        await asyncio.to_thread(self.cluster.halt, mode)
        await asyncio.sleep(outage)  # the outage itself, people clicking meanwhile
        await asyncio.to_thread(self.cluster.resume)
        self.stage.database_up.set()
        self.stage.disrupted("PostgreSQL is back")
        self.database_restarts += 1

    def result_posts(self) -> dict[str, int]:
        """How many messages offer each finished table's Rematch (its final result)."""
        posts: Counter[str] = Counter()
        for p in self.players:
            for message in p.channel.messages:
                for comp in message.leaf_components():
                    custom_id = str(comp.get("custom_id", ""))
                    if custom_id.startswith(REMATCH):
                        posts[custom_id.removeprefix(REMATCH)] += 1
        return dict(posts)


async def soak(plan: Plan, backend: str, folder: Path,
               cluster: PostgresCluster | None = None) -> Report:
    """One soak on ``backend`` ("sqlite", or "postgres" on ``cluster``), in ``folder``
    (the database file, the launcher and the bot's log stay there)."""
    url = None
    if backend == "postgres":
        if cluster is None or not cluster.crash_safe:
            raise ValueError("the postgres soak needs a crash_safe cluster")
        url = cluster.create_database()
    folder.mkdir(parents=True, exist_ok=True)
    script = folder / "launch_soak.py"
    script.write_text(launcher(plan))
    where = Where(folder / "cardtable.db", url)
    began = time.monotonic()
    async with FakeDiscord() as fake:
        fake.allow_violations = True  # a killed process leaves clicks unanswered
        bot = BotProcess(fake, where.path, script, folder / "bot.log", url=url,
                         environment={"CARDTABLE_SOAK_FOLDER": str(folder)})
        conductor = Conductor(plan, fake, bot, where, cluster)
        try:
            await bot.start()
            await bot.idle()
            await conductor.open_tables()
            await conductor.run()
            await bot.idle()
            stored = await read(where)
        finally:
            await bot.stop()
        players = conductor.players
        tables = [SoakTable(p.channel.id, p.channel.name, p.game, tuple(p.stops),
                            tuple(p.unshown)) for p in players]
        clicks = [c for p in players for c in p.clicks]
        counts = judge(clicks, stored, tables, fake.world.guild.id, STARTING_CHIPS,
                       conductor.result_posts())
        late = sum(1 for v in fake.violations if v.kind == "late")
    log = folder / "bot.log"
    errors = sum(1 for line in log.read_text(errors="replace").splitlines()
                 if ERROR_LINE.search(line))
    return Report(
        backend, plan, counts, time.monotonic() - began,
        games=sum(1 for g in stored.games if g.channel_id in {t.channel_id for t in tables}),
        moves=sum(1 for c in clicks if c.outcome == "done"), clicks=len(clicks),
        kills=conductor.kills, kills_with_clicks_in_flight=conductor.in_flight_kills,
        database_restarts=conductor.database_restarts, connect_s=conductor.connect_s,
        first_move_s=conductor.first_move_s,
        my_hand=sum(p.hand_presses for p in players), doubled=sum(p.doubled for p in players),
        retried=sum(p.retried for p in players),
        unanswered_while_up=conductor.stage.unanswered_while_up, late_answers=late,
        log_errors=errors, log=log)
