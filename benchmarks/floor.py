"""The floor: the least CPU a move can cost in a bot built on discord.py.

``python -m benchmarks floor [--moves-per-second R] [--seconds S] [--clients N]
[--work full|none] [--intents default|no-messages] [--warmup W] [--profile PATH]
[--json PATH]``

No cardtable code runs in the bot: ``testkit.floorbot`` is discord.py alone (an
``AutoShardedBot``, ``Intents.default()``, a ``DynamicItem`` select) doing per move the
Discord work a cardtable move needs, the minimum of it (``full``: the click answered with
an edit of the hand (an embed and a select of 8 cards), the table's channel message
edited (an embed, two buttons), the next player's DM hand edited (an embed, a select);
``none``: the click only deferred, one call). It runs as its own process on the tests'
fake Discord, which this process runs along with the players: ``--clients`` users, four
to a table (a channel each), each with a DM hand. The players pick a card in their DM
hand in turn (round robin over all of them) at a fixed rate of ``--moves-per-second``,
whether or not the bot keeps up: ``--warmup`` s, then ``--seconds`` s measured, then the
clicks stop and the bot's last calls are awaited (bounded). The bot's intents are
``Intents.default()``, so Discord (and the fake) sends it a MESSAGE_UPDATE for each of
its edits, which discord.py parses too; ``--intents no-messages`` leaves out the Guild and
Direct Messages intents, as cardtable's bot does since it asks only for guild events
(``bot.app.client``): the difference is what the echo of its own edits costs.

Measured over the window: the bot process's CPU (utime + stime from /proc, user and
system apart) per move done, with its share of a core and the time it waited for one
(the machine is shared); the clicks' answers (from the interaction sent to the first
response, p50 / p99 / max) and clicks never answered in 3 s; moves done per second; and
over the whole run the gateway events and the API calls per move (exact: every call the
fake logged since the first click, once all are done, by the clicks sent). This
process's CPU is shown too: the fake Discord costs CPU on the same machine. ``--profile
PATH``: the bot's event loop sampled over the window (stacks by CPU time, into PATH) and
the top of it shown, by function (self) and by package (what discord.py, aiohttp,
asyncio... cost). The last line is the JSON.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import math
import os
import signal
import tempfile
import time
from collections import Counter, defaultdict
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from testkit.figures import quantiles

if TYPE_CHECKING:
    from testkit.fakediscord import FakeDiscord, FakeMessage, FakeUser, Interaction

SEATS = 4  # players at a table
CALLS = {"full": 3, "none": 1}  # API calls a move makes, per variant
TARGET_MS = 2.0  # the bot CPU per move
TARGET_RATE = 250.0  # moves/s: 1,000 tables, a move every 4 s each
START_TIMEOUT = 60.0
DRAIN_TIMEOUT = 30.0
TICKS = os.sysconf("SC_CLK_TCK")


@dataclass(frozen=True)
class FloorConfig:
    rate: float = 50.0  # moves (clicks) sent per second
    seconds: float = 20.0  # measured
    clients: int = 40  # users, four to a table
    work: str = "full"  # or "none"
    warmup: float = 3.0  # seconds of clicks before the window
    profile: Path | None = None  # the bot's loop sampled over the window, into this file
    intents: str = "default"  # or "no-messages" (testkit.floorbot.INTENT_SETS)


@dataclass(frozen=True)
class Cpu:
    """A process's own CPU seconds (it starts no children), user and system apart."""

    user: float
    system: float
    waited: float  # its threads ready to run, waiting for a core

    @property
    def total(self) -> float:
        return self.user + self.system


def cpu(pid: int) -> Cpu:
    from testkit import procstat

    text = Path(f"/proc/{pid}/stat").read_text()
    fields = text[text.rindex(")") + 2:].split()
    return Cpu(int(fields[11]) / TICKS, int(fields[12]) / TICKS, procstat.run_delay(pid))


@dataclass(frozen=True)
class Moment:
    at: float
    bot: Cpu
    harness: Cpu
    calls: int
    clicks: int
    load: tuple[float, float, float]


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--moves-per-second", type=float, default=50.0, dest="rate",
                        help="clicks sent per second, whether the bot keeps up or not")
    parser.add_argument("--seconds", type=float, default=20.0, help="seconds measured")
    parser.add_argument("--clients", type=int, default=40,
                        help="players, four to a table, clicking in turn")
    parser.add_argument("--work", choices=tuple(CALLS), default="full",
                        help="full: a move's three calls; none: the click deferred only")
    parser.add_argument("--intents", choices=("default", "no-messages"), default="default",
                        help="the bot's intents: Intents.default(), or without the "
                             "message intents (no MESSAGE_UPDATE per edit)")
    parser.add_argument("--warmup", type=float, default=3.0,
                        help="seconds of clicks before the measured window")
    parser.add_argument("--profile", type=Path, default=None,
                        help="sample the bot's stacks over the window into this file")
    parser.add_argument("--json", type=Path, default=None, help="also write the JSON here")


def main(args: argparse.Namespace) -> int:
    config = FloorConfig(rate=args.rate, seconds=args.seconds, clients=args.clients,
                         work=args.work, warmup=args.warmup, profile=args.profile,
                         intents=args.intents)
    result = run(config)
    print(render(result))
    line = json.dumps(result)
    print(line)
    if args.json is not None:
        args.json.write_text(line + "\n")
    return 0 if result["answers"]["unanswered"] == 0 else 1


def run(config: FloorConfig) -> dict[str, Any]:
    return asyncio.run(measure(config))


async def measure(config: FloorConfig) -> dict[str, Any]:
    from testkit.fakediscord import FakeDiscord

    if config.clients < 2 or config.rate <= 0 or config.seconds <= 0:
        raise ValueError("at least 2 clients, a rate and a window above 0")
    with tempfile.TemporaryDirectory(prefix="floor-") as folder:
        async with FakeDiscord() as fake:
            fake.allow_violations = True  # late or missing answers are counted, not raised
            return await _measure(fake, config, Path(folder))
    raise AssertionError("unreachable")  # (mypy: the context managers may swallow errors)


def tables_of(fake: FakeDiscord, clients: int) -> list[list[FakeUser]]:
    """Users four to a table (the last table may have fewer, never one alone)."""
    users = [fake.add_user(f"player{n}") for n in range(clients)]
    tables = [users[k:k + SEATS] for k in range(0, clients, SEATS)]
    if len(tables) > 1 and len(tables[-1]) == 1:
        tables[-2].append(tables.pop()[0])
    return tables


async def _measure(fake: FakeDiscord, config: FloorConfig, folder: Path) -> dict[str, Any]:
    from testkit import floorbot

    tables = tables_of(fake, config.clients)
    channels = [fake.world.add_channel(f"table{t}") for t in range(len(tables))]
    layout = {"guild": fake.world.guild.id,
              "tables": [{"channel": channel.id, "users": [u.id for u in users]}
                         for channel, users in zip(channels, tables, strict=True)]}
    (folder / "layout.json").write_text(json.dumps(layout))
    ready = folder / "ready"
    log = folder / "bot.log"
    env = fake.subprocess_env() | {floorbot.LAYOUT: str(folder / "layout.json"),
                                   floorbot.WORK: config.work, floorbot.READY: str(ready),
                                   floorbot.INTENTS: config.intents}
    if config.profile is not None:
        config.profile.unlink(missing_ok=True)
        env[floorbot.PROFILE] = str(config.profile)
    with log.open("w") as out:
        proc = await asyncio.create_subprocess_exec(
            *fake.subprocess_command("testkit.floorbot"), env=env, stdout=out, stderr=out)
    try:
        def up() -> bool:
            if proc.returncode is not None:
                raise AssertionError(f"the floor bot exited ({proc.returncode}):\n"
                                     + log.read_text(errors="replace")[-3000:])
            return ready.exists() and bool(fake.gateway.live_sessions)

        await fake.wait_for(up, timeout=START_TIMEOUT)
        players = [user for users in tables for user in users]
        hands = {}
        for user in players:
            hand = fake.find_message(user, custom_id_prefix="fl:hand:")
            assert hand is not None, f"no hand in {user.name}'s DMs"
            hands[user.id] = hand
        result = await play(fake, config, players, hands, proc.pid)
        result["tables"] = len(tables)
        if config.profile is not None:
            profile = config.profile
            await fake.wait_for(profile.exists, timeout=DRAIN_TIMEOUT)
            result["profile"] = summary(profile)
        return result
    finally:
        if proc.returncode is None:
            proc.kill()
        await proc.wait()


async def play(fake: FakeDiscord, config: FloorConfig, players: list[FakeUser],
               hands: dict[int, FakeMessage], pid: int) -> dict[str, Any]:
    loop = asyncio.get_running_loop()
    clicks: list[Interaction] = []

    def now() -> Moment:
        return Moment(time.monotonic(), cpu(pid), cpu(os.getpid()), fake.mark(),
                      len(clicks), os.getloadavg())

    mark, events = fake.mark(), gateway_events(fake)
    begin = loop.time()
    window_start = begin + config.warmup
    window_end = window_start + config.seconds
    moments: dict[str, Moment] = {}

    async def clicker() -> None:
        period, k = 1.0 / config.rate, 0
        while True:
            due = begin + k * period
            if due >= window_end:
                return
            if "first" not in moments and due >= window_start:
                moments["first"] = now()
                if config.profile is not None:  # the profiled window opens
                    os.kill(pid, signal.SIGUSR1)
            delay = due - loop.time()
            if delay > 0:
                await asyncio.sleep(delay)
            user = players[k % len(players)]
            hand = hands[user.id]
            (select,) = hand.selects()  # its latest version
            clicks.append(await fake.select(user, hand, select["custom_id"],
                                            [select["options"][k % len(select["options"])]
                                             ["value"]]))
            k += 1

    before = os.getloadavg()
    await clicker()
    if "first" not in moments:  # (a window shorter than one period)
        moments["first"] = now()
    moments["last"] = now()
    if config.profile is not None:  # ... and closes, the stacks written
        os.kill(pid, signal.SIGUSR1)
    expected = CALLS[config.work] * len(clicks)

    def drained() -> bool:
        return fake.mark() - mark >= expected and all(ix.answered for ix in clicks)

    with contextlib.suppress(AssertionError):  # the report says what never came
        await fake.wait_for(drained, timeout=DRAIN_TIMEOUT)
    await fake.settle(quiet=0.2, timeout=DRAIN_TIMEOUT)
    fake.check_unanswered(at_teardown=True)
    result = report(fake, config, clicks, mark, moments["first"], moments["last"], before)
    result["api"]["gateway_events_per_move"] = round(
        (gateway_events(fake) - events) / max(len(clicks), 1), 3)
    return result


def gateway_events(fake: FakeDiscord) -> int:
    """Events the fake's gateway sent so far (every session's sequence number)."""
    return sum(session.seq for session in fake.gateway.sessions.values())


def summary(path: Path, top: int = 12) -> dict[str, Any]:
    """The sampled stacks: CPU seconds by innermost function, and by package (each
    package counted once per stack it is in: what runs inside it, its callees too)."""
    own: defaultdict[str, float] = defaultdict(float)
    packages: defaultdict[str, float] = defaultdict(float)
    total = 0.0
    for line in path.read_text().splitlines():
        seconds_text, _, stack = line.partition("\t")
        seconds = float(seconds_text)
        frames = stack.split(";")
        total += seconds
        own[frames[-1]] += seconds
        for name in {_package(frame) for frame in frames}:
            packages[name] += seconds
    share = max(total, 1e-9)
    for name in [p for p, s in packages.items() if s >= 0.995 * total]:
        del packages[name]  # the entry chain (runpy, asyncio.run, this bot): every stack
    return {"file": str(path), "cpu_s": round(total, 3),
            "self_percent": {f: round(100 * s / share, 1) for f, s in _top(own, top)},
            "within_percent": {p: round(100 * s / share, 1) for p, s in _top(packages, top)}}


def _top(seconds: dict[str, float], top: int) -> list[tuple[str, float]]:
    return sorted(seconds.items(), key=lambda item: -item[1])[:top]


def _package(frame: str) -> str:
    """"discord/ui/view.py:f" -> "discord"; "json/decoder.py:f" -> "json"."""
    where = frame.partition(":")[0]
    return where.partition("/")[0] if "/" in where else where.removesuffix(".py")


def report(fake: FakeDiscord, config: FloorConfig, clicks: list[Interaction], mark: int,
           first: Moment, last: Moment, load_before: tuple[float, float, float]
           ) -> dict[str, Any]:
    took = last.at - first.at
    calls = fake.calls[mark:]
    per_move = len(calls) / max(len(clicks), 1)
    # The moves the bot did in the window: its calls there over a move's calls (exact
    # over the whole run); moves in flight at the window's edges count by what was done.
    done = (last.calls - first.calls) / max(per_move, 1e-9)
    bot_user = last.bot.user - first.bot.user
    bot_system = last.bot.system - first.bot.system
    bot_cpu = bot_user + bot_system
    ms_per_move = 1000 * bot_cpu / done if done else math.inf
    answered = [ix for ix in clicks if ix.responded_at is not None]
    routes = Counter(str(c.route) for c in calls)
    late = sum(1 for v in fake.violations if v.kind == "late")
    unanswered = sum(1 for ix in clicks if ix.responded_at is None)
    window = clicks[first.clicks:last.clicks]
    result: dict[str, Any] = {
        "benchmark": "floor", "work": config.work, "intents": config.intents,
        "clients": config.clients,
        "offered_moves_per_s": config.rate, "seconds": round(took, 2),
        "sent_moves_per_s": round(len(window) / took, 1) if took else None,
        "moves": round(done, 1), "moves_per_s": round(done / took, 1) if took else None,
        "answers": {**quantiles([ix.responded_at - ix.dispatched_at for ix in window
                                 if ix.responded_at is not None], digits=2),
                    "clicks": len(clicks), "answered": len(answered),
                    "unanswered": unanswered, "late": late},
        "bot": {"cpu_ms_per_move": round(ms_per_move, 3),
                "user_ms_per_move": round(1000 * bot_user / done, 3) if done else None,
                "system_ms_per_move": round(1000 * bot_system / done, 3) if done else None,
                "cpu_percent": round(100 * bot_cpu / took, 1),
                "waited_for_cpu_percent": round(100 * (last.bot.waited - first.bot.waited)
                                                / took, 1)},
        "api": {"calls_per_move": round(per_move, 3),
                "by_route_per_move": {r: round(n / max(len(clicks), 1), 3)
                                      for r, n in routes.most_common()},
                "errors": sum(1 for c in calls if c.status >= 400)},
        "harness": {"cpu_percent": round(100 * (last.harness.total - first.harness.total)
                                         / took, 1),
                    "waited_for_cpu_percent": round(
                        100 * (last.harness.waited - first.harness.waited) / took, 1)},
        "machine": {"cores": os.cpu_count(), "load_before": _load(load_before),
                    "load_end": _load(last.load)},
    }
    result["floor"] = {
        "core_share_at_250_per_s": round(ms_per_move * TARGET_RATE / 1000, 3),
        "moves_per_s_per_core": round(1000 / ms_per_move, 1) if ms_per_move else None,
        "within_2ms": ms_per_move <= TARGET_MS,
    }
    return result


def _load(load: tuple[float, float, float]) -> list[float]:
    return [round(x, 2) for x in load]


def render(result: dict[str, Any]) -> str:
    bot, answers, api = result["bot"], result["answers"], result["api"]
    floor = result["floor"]
    return "\n".join([
        f"floor ({result['work']}, intents {result['intents']}): "
        f"{result['clients']} players, "
        f"{result['offered_moves_per_s']} moves/s offered, {result['seconds']} s measured "
        f"(load {result['machine']['load_before']} -> {result['machine']['load_end']})",
        f"  moves done      {result['moves']} ({result['moves_per_s']}/s; "
        f"sent {result['sent_moves_per_s']}/s)",
        f"  bot CPU / move  {bot['cpu_ms_per_move']} ms (user {bot['user_ms_per_move']}, "
        f"system {bot['system_ms_per_move']}); {bot['cpu_percent']}% of a core, "
        f"waited {bot['waited_for_cpu_percent']}%",
        f"  answers         p50 {answers['p50_ms']} ms, p99 {answers['p99_ms']} ms, "
        f"max {answers['max_ms']} ms; {answers['unanswered']} of {answers['clicks']} "
        f"never answered, {answers['late']} late",
        f"  API calls/move  {api['calls_per_move']} {api['by_route_per_move']}; gateway "
        f"events/move {api.get('gateway_events_per_move')}",
        f"  harness         {result['harness']['cpu_percent']}% of a core (the fake "
        f"Discord), waited {result['harness']['waited_for_cpu_percent']}%",
        f"  at 250 moves/s  {floor['core_share_at_250_per_s']} of a core for discord.py "
        f"alone; {floor['moves_per_s_per_core']} moves/s per core at most",
        *_profile_lines(result.get("profile")),
    ])


def _profile_lines(profile: dict[str, Any] | None) -> list[str]:
    if profile is None:
        return []
    return [f"  profile         {profile['cpu_s']} s sampled ({profile['file']})",
            "    within (%)    " + ", ".join(f"{k} {v}" for k, v in
                                             profile["within_percent"].items()),
            *(f"    self {v:>5}%  {k}" for k, v in profile["self_percent"].items())]
