"""How long a person's click waits while many tables' AI seats think.

``python -m benchmarks ai-pool [--tables 8] [--workers N] [--level normal] [--seconds S]``
runs the real bot on the fake Discord of the tests (loopback, real clock, the real
AI process pool at the level's own search budget). Every table but one is a person
who plays at once and three AI seats of ``--level``. The busy table has two AI
seats, a *clicker* who presses My hand every 0.2 s, asks a Hint on their turn and
then plays, and a *sleeper* whose turns always run out (the AI plays them: the case
that held the table's lock for a whole search before the AI pool). It prints the
clicker's answer times (the first response, as Discord times it: p50 / p99 / max
and how many were deferred), the hints' times until the answer text, the time-outs
and the AI decisions per second, for ``--workers`` 1 and N (default: the machine's
cores less one), as one JSON line last. Pictures are off: the AI is measured here
(``benchmarks images`` measures the pictures).

Then the same again with a **flood** of hints beside it (``flood``, the default
workers): four more tables of three people (a rated game where the server allows
hints) whose player to act clicks Hint every 0.1 s for 2 s before playing. It prints
the same figures, the flood's clicks and the hint searches that actually ran, and the
AI seats' own decisions per second (``bot_decisions_per_s``, hints not counted): what
a flood leaves the tables' play.
"""

from __future__ import annotations

import asyncio
import contextlib
import random
import statistics
import tempfile
import time
from pathlib import Path
from typing import Any

from bot.app.client import CardTableBot
from bot.config.settings import Settings, Timing
from bot.storage import Storage
from bot.table.ai_runner import AIRunner, default_workers
from bot.table.timers import SystemClock
from engine.core import Game
from engine.registry import game_ids, spec
from testkit.fakediscord import FakeChannel, FakeDiscord, FakeMessage, FakeUser
from testkit.harness import choose, live_menu, table_message

# The registry's first game (Jazz: 4 seats, one DM per turn), named by the registry.
GAME = spec(game_ids()[0])
GAME_ONLY: dict[str, str | None] = {str(GAME.cog): GAME.id}
FLOOD_TABLES = 4  # tables of people flooding Hint, in the flood run
EXPLICIT = 4  # first response types: 4 a message, 7 an update; 5 and 6 are deferrals


def _table(fake: FakeDiscord, channel: FakeChannel) -> FakeMessage:
    table = table_message(fake, channel)
    assert table is not None, "no table message"
    return table


class CountingRunner(AIRunner):
    """The bot's runner, counting the decisions it returned (and the hints among them)."""

    decided = 0
    hinted = 0

    async def choose(self, game: Game, seat: int, level: str, table_id: str,
                     **options: Any) -> int:
        action = await super().choose(game, seat, level, table_id, **options)
        self.decided += 1
        self.hinted += bool(options.get("urgent"))
        return action


async def _bot(path: Path, timing: Timing, ai: AIRunner) -> CardTableBot:
    store = await Storage.open(path)
    settings = Settings(token="fake-token", database_path=path, dev_guild_id=None,
                        log_level=30, timing=timing)
    bot = CardTableBot(settings, store=store, clock=SystemClock(), timing=timing,
                       extensions=GAME_ONLY, seed=1, ai=ai)
    bot._owns_store = True
    return bot


async def _open(fake: FakeDiscord, channel: FakeChannel, host: FakeUser,
                others: list[FakeUser], ai_seats: int, level: str) -> None:
    await (await fake.slash(host, channel, f"{GAME.id} start", images=False)).wait_answered()
    lobby = fake.find_message(channel, label="Join")
    assert lobby is not None
    for user in others:
        await (await fake.click(user, lobby, label="Join")).wait_answered()
    for _ in range(ai_seats):
        await (await fake.click(host, lobby, label=f"Add AI: {level.capitalize()}")
               ).wait_answered()
    await (await fake.click(host, lobby, label="Start")).wait_answered()


async def _open_rated(fake: FakeDiscord, bot: CardTableBot, channel: FakeChannel,
                      people: list[FakeUser]) -> None:
    """A table of people whose server allows hints in rated games."""
    host = people[0]
    await (await fake.slash(host, channel, f"{GAME.id} start", images=False)).wait_answered()
    table = bot.croupier.manager.in_channel(channel.id)
    assert table is not None
    table.hints_allowed = True  # as /settings would have set it, before the hands are drawn
    lobby = fake.find_message(channel, label="Join")
    assert lobby is not None
    for user in people[1:]:
        await (await fake.click(user, lobby, label="Join")).wait_answered()
    await (await fake.click(host, lobby, label="Start")).wait_answered()


async def _flooder(fake: FakeDiscord, bot: CardTableBot, channel: FakeChannel,
                   people: list[FakeUser], stop: asyncio.Event, rng: random.Random,
                   flood: list[Any]) -> None:
    """Whoever is to act clicks Hint every 0.1 s for 2 s (never waiting for the answers),
    then plays."""
    while not stop.is_set():
        await asyncio.sleep(0.1)
        table = bot.croupier.manager.in_channel(channel.id)
        if table is None:
            return
        user = next((u for u in people if _turn(bot, channel, u)), None)
        if user is None or live_menu(fake, user) is None:
            continue
        step = table.step
        for _ in range(20):
            hint = _hint_button(fake, user, table.table_id, step)
            if stop.is_set() or hint is None or table.step != step:
                break
            flood.append(await fake.click(user, hint[0], hint[1]))
            await asyncio.sleep(0.1)
        menu = live_menu(fake, user)
        if menu is not None and table.step == step:
            with contextlib.suppress(Exception):  # a stale menu: the next turn's is used
                await (await choose(fake, user, menu[0], rng)).wait_answered(timeout=30)


def _turn(bot: CardTableBot, channel: FakeChannel, user: FakeUser) -> bool:
    table = bot.croupier.manager.in_channel(channel.id)
    return (table is not None and table.to_act is not None
            and table.to_act == table.seat_of(user.id) and table.automation() is None)


async def _autoplay(fake: FakeDiscord, bot: CardTableBot, channel: FakeChannel,
                    user: FakeUser, stop: asyncio.Event, rng: random.Random) -> None:
    """A person at an AI table who plays as soon as it is their turn."""
    while not stop.is_set():
        await fake.wait_for(lambda: stop.is_set() or (
            _turn(bot, channel, user) and live_menu(fake, user) is not None), timeout=600)
        if stop.is_set():
            return
        menu = live_menu(fake, user)
        assert menu is not None
        with contextlib.suppress(Exception):  # a stale menu: the next one is used
            await (await choose(fake, user, menu[0], rng)).wait_answered(timeout=30)
        await asyncio.sleep(0.05)


async def _sleeper(fake: FakeDiscord, bot: CardTableBot, channel: FakeChannel,
                   user: FakeUser, stop: asyncio.Event) -> None:
    """Never plays: every turn runs out. Marked away after three, they come back at once
    (My hand), so their turns keep timing out."""
    while not stop.is_set():
        await asyncio.sleep(0.1)
        table = bot.croupier.manager.in_channel(channel.id)
        seat = table.seat_of(user.id) if table is not None else None
        if table is not None and seat is not None and table.seats[seat].away:
            with contextlib.suppress(Exception):
                await (await fake.click(user, _table(fake, channel), label="My hand")
                       ).wait_answered(timeout=30)


async def _clicker(fake: FakeDiscord, bot: CardTableBot, channel: FakeChannel,
                   user: FakeUser, stop: asyncio.Event, rng: random.Random,
                   clicks: list[Any], hints: list[float]) -> None:
    """My hand every 0.2 s; on their turn a Hint (timed until its text), then a move."""
    while not stop.is_set():
        await asyncio.sleep(0.2)
        table = bot.croupier.manager.in_channel(channel.id)
        if table is None:
            return
        if _turn(bot, channel, user) and (menu := live_menu(fake, user)) is not None:
            hint = _hint_button(fake, user, table.table_id, table.step)
            if hint is not None:
                began = time.monotonic()
                ix = await fake.click(user, hint[0], hint[1])
                await ix.wait_done(timeout=60)
                hints.append(time.monotonic() - began)
            with contextlib.suppress(Exception):  # a stale menu (the turn ran out meanwhile)
                ix = await choose(fake, user, menu[0], rng)
                await ix.wait_answered(timeout=60)
                clicks.append(ix)
            continue
        ix = await fake.click(user, _table(fake, channel), label="My hand")
        await ix.wait_answered(timeout=60)
        clicks.append(ix)


def _hint_button(fake: FakeDiscord, user: FakeUser, table_id: str,
                 step: int) -> tuple[Any, str] | None:
    wanted = f"ct:hint:{table_id}:{step}"
    return next(((m, c["custom_id"]) for m, c in fake.visible_components(user)
                 if c.get("custom_id") == wanted), None)


async def measure(tables: int, workers: int, level: str, seconds: float, pause: float,
                  turn_timer: int, seed: int = 1, flood: int = 0) -> dict[str, Any]:
    timing = Timing(pause=pause, edit_interval=1.0, turn_timer=turn_timer, lobby_idle=900,
                    retire_after=3000, lock_patience=2.0)
    ai = CountingRunner(workers=workers)
    rng = random.Random(seed)
    clicks: list[Any] = []
    hints: list[float] = []
    flooded: list[Any] = []
    with tempfile.TemporaryDirectory() as folder:
        async with FakeDiscord() as fake:
            channels = [fake.world.add_channel(f"table-{n}") for n in range(tables)]
            clicker, sleeper = fake.add_user("clicker"), fake.add_user("sleeper")
            players = [fake.add_user(f"player{n}") for n in range(1, tables)]
            rooms = [fake.world.add_channel(f"flood-{n}") for n in range(flood)]
            flooders = [[fake.add_user(f"flooder{n}-{k}") for k in range(3)]
                        for n in range(flood)]
            bot = await _bot(Path(folder) / "bench.db", timing, ai)
            async with fake.running(bot):
                await _open(fake, channels[0], clicker, [sleeper], 2, level)
                for channel, player in zip(channels[1:], players, strict=True):
                    await _open(fake, channel, player, [], 3, level)
                for room, people in zip(rooms, flooders, strict=True):
                    await _open_rated(fake, bot, room, people)
                stop = asyncio.Event()
                decided, hinted, began = ai.decided, ai.hinted, time.monotonic()
                tasks = [asyncio.create_task(_autoplay(fake, bot, ch, p, stop, rng))
                         for ch, p in zip(channels[1:], players, strict=True)]
                tasks.append(asyncio.create_task(_sleeper(fake, bot, channels[0], sleeper,
                                                          stop)))
                tasks.append(asyncio.create_task(_clicker(fake, bot, channels[0], clicker,
                                                          stop, rng, clicks, hints)))
                tasks += [asyncio.create_task(_flooder(fake, bot, room, people, stop, rng,
                                                       flooded))
                          for room, people in zip(rooms, flooders, strict=True)]
                await asyncio.sleep(seconds)
                stop.set()
                elapsed = time.monotonic() - began
                decisions = ai.decided - decided
                hint_searches = ai.hinted - hinted
                await asyncio.gather(*tasks, return_exceptions=True)
                # The flood's last clicks are answered before the bot stops (or given up).
                await asyncio.gather(*(ix.wait_done(timeout=30) for ix in flooded),
                                     return_exceptions=True)
                time_outs = sum("Time ran out" in m.text() for m in fake.messages(sleeper))
                # The AI tables never go quiet: stop their moves, or closing waits 20 s.
                stopped = bot.croupier.tasks.cancel_all() + bot.croupier.timers.cancel_all()
                await asyncio.gather(*stopped, return_exceptions=True)
            fake.allow_violations = True  # late answers are counted below, not raised
    waits = sorted(ix.responded_at - ix.dispatched_at for ix in clicks
                   if ix.responded_at is not None)
    flood_figures: dict[str, Any] = {}
    if flood:
        flood_figures = {
            "flood_tables": flood, "flood_clicks": len(flooded),
            "flood_answered": sum(ix.response is not None for ix in flooded),
            "flood_refused": sum("moment ago" in ix.text() for ix in flooded),
            "hint_searches": hint_searches,
            "bot_decisions_per_s": round((decisions - hint_searches) / elapsed, 2)}
    return {"workers": workers, "clicks": len(clicks),
            "click_wait_p50_ms": _ms(statistics.median(waits)),
            "click_wait_p99_ms": _ms(waits[int(len(waits) * 0.99)]),
            "click_wait_max_ms": _ms(waits[-1]),
            "deferred": sum(ix.response is not None and ix.response.type not in (EXPLICIT, 7)
                            for ix in clicks),
            "hints": len(hints),
            "hint_p50_ms": _ms(statistics.median(hints)) if hints else None,
            "hint_max_ms": _ms(max(hints)) if hints else None,
            "time_outs": time_outs,
            "decisions_per_s": round(decisions / elapsed, 2), **flood_figures}


def _ms(seconds: float) -> float:
    return round(seconds * 1000, 1)


def run(tables: int = 8, workers: int | None = None, level: str = "normal",
        seconds: float = 60.0, pause: float = 1.5, turn_timer: int = 3) -> dict[str, Any]:
    default = default_workers()
    counts = sorted({1, workers if workers is not None else default})
    runs = [asyncio.run(measure(tables, n, level, seconds, pause, turn_timer))
            for n in counts]
    flood = asyncio.run(measure(tables, counts[-1], level, seconds, pause, turn_timer,
                                flood=FLOOD_TABLES))
    return {"benchmark": "ai-pool", "tables": tables, "level": level, "seconds": seconds,
            "pause_s": pause, "turn_timer_s": turn_timer, "default_workers": default,
            "runs": runs, "flood": flood}
