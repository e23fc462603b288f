"""Discord's global request budget: API calls per move with many busy tables.

``python -m benchmarks budget [--tables 200] [--seconds S] [--every S]`` runs the real
bot on the fake Discord of the tests (loopback, no network) with ``--tables`` tables of
4-seat Jazz, each in its own channel, all seats people. At every fourth table one
player's DMs are closed: they wait for their mention in the channel and play from the
**My hand** ephemeral; everyone else waits for their DM hand and plays from it. Each
table's turn comes about every ``--every`` seconds (±25 %); a player not told yet lets
it pass (``missed_turns``: the budget is short). Over ``--seconds`` of play it counts
the calls that spend the bot's global budget of 50 requests/s (every call but the
interaction callbacks and the interaction webhook, which Discord exempts), per move,
per second (and in the busiest second), by route, and the move answers' latency p50 /
p99; the last line is one JSON object. ``--rate`` and ``--watch-factor`` change the
bot's budget and how far apart a running table's edits may come (``bot.config.settings``).
"""

from __future__ import annotations

import asyncio
import dataclasses
import random
import statistics
import tempfile
import time
from collections import Counter
from pathlib import Path
from typing import Any

from bot.config.settings import Limits, Timing
from bot.table.timers import SystemClock
from engine.registry import game_ids, spec
from testkit.fakediscord import FakeChannel, FakeDiscord, FakeMessage, FakeUser
from testkit.fakediscord.interactions import FakeDiscordError
from testkit.fakediscord.rest import Call
from testkit.harness import choose, idle, is_move, make_bot

# The registry's first game (Jazz: 4 seats, one DM per turn), named by the registry.
GAME = spec(game_ids()[0])
GAME_ONLY: dict[str, str | None] = {str(GAME.cog): GAME.id}
SEATS = 4
CLOSED_EVERY = 4  # every fourth table has one player with closed DMs
# The product's timing, but no pause before the bot's own steps (no AI seats here).
TIMING = Timing(pause=0)
EXEMPT = ("/interactions/", "/webhooks/")
DEFERRED_UPDATE, UPDATE = 6, 7  # interaction responses: the watchdog's, the move's own


def budgeted(call: Call) -> bool:
    """Whether a call counts against the global budget (interactions are exempt)."""
    return not any(part in call.route for part in EXEMPT)


def live_menu(fake: FakeDiscord, channel: FakeChannel, user: FakeUser) -> FakeMessage | None:
    """The user's newest message with an enabled move menu: a DM or their ephemeral in
    the table's channel (only the newest few can hold one)."""
    found = [m for m in reversed(fake.dm(user).messages[-3:]) if not m.deleted]
    found += [m for m in reversed(channel.ephemerals[-8:])
              if m.ephemeral_for is user and not m.deleted]
    for message in sorted(found, key=lambda m: m.id, reverse=True):
        if any(is_move(c) and not c.get("disabled") for c in message.leaf_components()):
            return message
    return None


class Table:
    """One channel, its four players, and the move answers measured there."""

    def __init__(self, fake: FakeDiscord, bot: Any, channel: FakeChannel,
                 users: list[FakeUser], rng: random.Random):
        self.fake, self.bot, self.channel, self.users, self.rng = fake, bot, channel, users, rng
        self.latencies: list[float] = []
        self.moves = 0
        self.misses = 0  # the table's turn came, but its player had not been told yet

    async def open(self) -> None:
        host = self.users[0]
        await (await self.fake.slash(host, self.channel, f"{GAME.id} start")).wait_answered()
        # (The lobby may wait for its turn in the budget behind other tables' DMs.)
        lobby = await self.fake.wait_for(
            lambda: self.fake.find_message(self.channel, label="Join"), timeout=120)
        for user in self.users[1:]:
            await (await self.fake.click(user, lobby, label="Join")).wait_answered()
        await (await self.fake.click(host, lobby, label="Start")).wait_answered()

    def to_act(self) -> FakeUser | None:
        """Whoever's turn it is: what the player knows from their DM or the mention."""
        table = self.bot.croupier.manager.in_channel(self.channel.id)
        if table is None or table.to_act is None or table.automation() is not None:
            return None
        user_id = table.seats[table.to_act].user_id
        return next((u for u in self.users if u.id == user_id), None)

    async def move(self) -> None:
        user = self.to_act()
        if user is None:
            self.misses += 1
            return
        menu = live_menu(self.fake, self.channel, user)
        if menu is None and user.dms_closed and self._mentioned(user):
            menu = await self._my_hand(user)  # the hand is under the table's My hand
        if menu is None:  # their DM (or mention) has not come yet: they wait for it
            self.misses += 1
            return
        ix = await choose(self.fake, user, menu, self.rng)
        try:
            await ix.wait_answered(timeout=10)
            if ix.response is not None and ix.response.type == DEFERRED_UPDATE:
                await ix.wait_until(lambda i: bool(i.edits), timeout=10)  # then applied
        except FakeDiscordError:
            self.misses += 1
            return
        if ix.responded_at is not None:
            self.latencies.append(ix.responded_at - ix.dispatched_at)
        if ix.response is not None and (ix.response.type == UPDATE or ix.edits):  # applied
            self.moves += 1

    def _mentioned(self, user: FakeUser) -> bool:
        """Whether the channel tells the user it is their turn: a live mention, or the
        table naming them (as the message that starts the game does)."""
        return any(f"<@{user.id}>" in m.content and ("your turn" in m.content
                                                     or "to play" in m.content)
                   for m in self.channel.messages[-6:] if not m.deleted)

    async def _my_hand(self, user: FakeUser) -> FakeMessage | None:
        board = self.fake.find_message(self.channel, custom_id_prefix="ct:hand:")
        if board is None:
            return None
        hand = next(c["custom_id"] for c in board.leaf_components()
                    if str(c.get("custom_id", "")).startswith("ct:hand:"))
        try:
            await (await self.fake.click(user, board, hand)).wait_answered(timeout=10)
            found = await self.fake.wait_for(
                lambda: live_menu(self.fake, self.channel, user), timeout=10)
        except FakeDiscordError:
            return None
        return found if isinstance(found, FakeMessage) else None

    async def play(self, every: float, until: float) -> None:
        await asyncio.sleep(self.rng.uniform(0, every))  # tables out of step
        while time.monotonic() < until:
            await self.move()
            pause = every * self.rng.uniform(0.75, 1.25)
            await asyncio.sleep(min(pause, max(0.0, until - time.monotonic())))


async def measure(tables: int, seconds: float, every: float, timing: Timing = TIMING,
                  seed: int = 1) -> dict[str, Any]:
    rng = random.Random(seed)
    with tempfile.TemporaryDirectory() as folder:
        async with FakeDiscord() as fake:
            channels = [fake.world.add_channel(f"table-{n}") for n in range(tables)]
            players = [[fake.add_user(f"p{n}x{k}", dms_closed=(n % CLOSED_EVERY
                                                               == CLOSED_EVERY - 1
                                                               and k == SEATS - 1))
                        for k in range(SEATS)] for n in range(tables)]
            # Every table in the one server: its cap (50 by default) as high as needed.
            room = Limits(tables_per_server=max(tables, Limits().tables_per_server))
            bot = await make_bot(Path(folder) / "bench.db", timing=timing, clock=SystemClock(),
                                 extensions=GAME_ONLY, limits=room)
            async with fake.running(bot):
                seats = [Table(fake, bot, c, u, random.Random(rng.random()))
                         for c, u in zip(channels, players, strict=True)]
                for start in range(0, tables, 20):  # open them twenty at a time
                    await asyncio.gather(*(t.open() for t in seats[start:start + 20]))
                await idle(bot, timeout=120)  # the starts' DMs and edits are out
                await fake.settle(quiet=1.0, timeout=120)
                mark, began = fake.mark(), time.monotonic()
                until = began + seconds
                await asyncio.gather(*(t.play(every, until) for t in seats))
                ended = time.monotonic()
                calls = [c for c in fake.calls_since(mark) if c.at <= ended and budgeted(c)]
                rate_limited = sum(1 for c in fake.calls_since(mark) if c.status == 429)
            violations = len(fake.violations)
            fake.allow_violations = True  # late answers are counted, not raised
    routes = Counter(_where(fake, c) for c in calls)
    return report(seats, calls, routes, ended - began, violations, rate_limited)


def _where(fake: FakeDiscord, call: Call) -> str:
    """The route, and whether it went to a DM or a channel."""
    channel = fake.world.channels.get(int(call.params.get("channel_id") or 0))
    return call.route + (" (DM)" if channel is not None and channel.is_dm else "")


def report(tables: list[Table], calls: list[Call], routes: Counter[str], elapsed: float,
           violations: int, rate_limited: int) -> dict[str, Any]:
    moves = sum(t.moves for t in tables)
    answers = sorted(s for t in tables for s in t.latencies)
    per_second = Counter(int(c.at) for c in calls)
    return {"benchmark": "budget", "tables": len(tables), "seconds": round(elapsed, 1),
            "moves": moves, "moves_per_s": round(moves / elapsed, 1),
            "calls": len(calls), "calls_per_move": round(len(calls) / max(moves, 1), 3),
            "requests_per_s": round(len(calls) / elapsed, 1),
            "busiest_second": max(per_second.values(), default=0),
            "answer_p50_ms": _ms(statistics.median(answers)) if answers else None,
            "answer_p99_ms": _ms(answers[int(len(answers) * 0.99)]) if answers else None,
            "answer_max_ms": _ms(answers[-1]) if answers else None,
            "missed_turns": sum(t.misses for t in tables), "violations": violations,
            "http_429": rate_limited,
            "per_move": {route: round(n / max(moves, 1), 3)
                         for route, n in routes.most_common()}}


def _ms(seconds: float) -> float:
    return round(seconds * 1000, 1)


def run(tables: int = 200, seconds: float = 60.0, every: float = 4.0,
        request_rate: float | None = None, watch_factor: float | None = None
        ) -> dict[str, Any]:
    """``request_rate``, ``watch_factor``: other Timing than the product's."""
    timing = TIMING
    if request_rate is not None:
        timing = dataclasses.replace(timing, request_rate=request_rate)
    if watch_factor is not None:
        timing = dataclasses.replace(timing, watch_factor=watch_factor)
    return {**asyncio.run(measure(tables, seconds, every, timing)),
            "request_rate": getattr(timing, "request_rate", None),
            "watch_factor": getattr(timing, "watch_factor", None)}
