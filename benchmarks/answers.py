"""How fast a click is answered while the database is slow.

``python -m benchmarks answers [GAME] [--moves N] [--hold S] [--every S]
[--pictures thread|process] [--picture-workers N]`` runs the real bot on the fake
Discord of the tests (loopback, no network), plays the game's moves through the
players' DM menus, and meanwhile a second connection — another process, a backup —
takes SQLite's write lock for ``--hold`` seconds every ``--every`` seconds. It prints
the answer latency of the move clicks (from the click to the bot's first response, as
Discord times it) p50 / p95 / p99 / max, how many were deferred, answered late (over
3 s) or told their save failed, the event loop's lag (a task sleeps 10 ms again and
again: how late it wakes, p50 / p99 / max; every click waits as long), the pictures
drawn and where (``--pictures``: the painter's kind, the bot's default if not given),
as one JSON line last.
"""

from __future__ import annotations

import asyncio
import random
import statistics
import tempfile
from pathlib import Path
from typing import Any

from bot.images.painter import Kind, Painter
from bot.ui.presenter import SAVE_FAILED
from engine.registry import spec
from testkit.fakediscord import FakeDiscord
from testkit.harness import GameDriver, hold_for, idle, make_bot

COMPONENT = 3  # an interaction of a button or select
DEFERRED_UPDATE = 6


async def hold_now_and_then(path: Path, hold: float, every: float, stop: asyncio.Event) -> int:
    """Take the database's write lock for ``hold`` s every ``every`` s; how many times."""
    times, gap = 0, 0.2  # the first hold comes at once
    while not stop.is_set():
        try:
            await asyncio.wait_for(stop.wait(), gap)
            break
        except TimeoutError:
            pass
        await hold_for(path, hold)
        times += 1
        gap = every - hold
    return times


LAG_TICK = 0.01  # the lag probe's sleep


async def probe_lag(stop: asyncio.Event, lags: list[float]) -> None:
    """Sleep ``LAG_TICK`` again and again; how late the loop woke each time."""
    loop = asyncio.get_running_loop()
    while not stop.is_set():
        began = loop.time()
        await asyncio.sleep(LAG_TICK)
        lags.append(loop.time() - began - LAG_TICK)


async def measure(game_id: str, moves: int, hold: float, every: float, seed: int = 1,
                  pictures: Kind | None = None, picture_workers: int | None = None
                  ) -> dict[str, Any]:
    game = spec(game_id)
    lags: list[float] = []
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "bench.db"
        async with FakeDiscord() as fake:
            users = [fake.add_user(f"player{n}") for n in range(game.default_players)]
            general = fake.channel("general")
            bot = await make_bot(path, extensions={str(game.cog): game_id})
            if pictures is not None or picture_workers is not None:
                bot.painter = Painter(picture_workers, kind=pictures)
            async with fake.running(bot):
                stop = asyncio.Event()
                holder = asyncio.create_task(hold_now_and_then(path, hold, every, stop))
                prober = asyncio.create_task(probe_lag(stop, lags))
                clicks = await _play(fake, bot, game_id, general, users, moves,
                                     random.Random(seed))
                stop.set()
                holds = await holder
                await prober
                await idle(bot, timeout=30)
                painter = bot.croupier.painter
            fake.allow_violations = True  # late answers are counted below, not raised
    acks = sorted(ix.responded_at - ix.dispatched_at for ix in clicks
                  if ix.responded_at is not None)
    lags.sort()
    return {"benchmark": "answers", "game": game_id, "clicks": len(clicks),
            "hold_s": hold, "every_s": every, "storage_holds": holds,
            "ack_p50_ms": _ms(statistics.median(acks)),
            "ack_p95_ms": _ms(acks[int(len(acks) * 0.95)]),
            "ack_p99_ms": _ms(acks[int(len(acks) * 0.99)]),
            "ack_max_ms": _ms(acks[-1]),
            "deferred": sum(ix.response.type == DEFERRED_UPDATE for ix in clicks),
            "late_over_3s": sum(bool(ix.late) for ix in clicks) + len(clicks) - len(acks),
            "told_save_failed": sum(any(SAVE_FAILED in f.text() for f in ix.followups)
                                    for ix in clicks),
            "loop_lag_p50_ms": _ms(statistics.median(lags)),
            "loop_lag_p99_ms": _ms(lags[int(len(lags) * 0.99)]),
            "loop_lag_max_ms": _ms(lags[-1]),
            "pictures": painter.kind, "picture_workers": painter.workers,
            "pictures_drawn": painter.drawn}


async def _open_table(fake: FakeDiscord, bot: Any, game_id: str, channel: Any,
                      users: list[Any]) -> None:
    """/<game> start by the first player, the others join, the host starts."""
    command = bot.game_uis[game_id].COMMAND
    await (await fake.slash(users[0], channel, f"{command} start")).wait_answered()
    # (Answered late, while storage is held, the command was deferred: the lobby follows.)
    lobby = await fake.wait_for(lambda: fake.find_message(channel, label="Join"), timeout=30)
    for user in users[1:]:
        await (await fake.click(user, lobby, label="Join")).wait_answered()
    await (await fake.click(users[0], lobby, label="Start")).wait_answered()


async def _play(fake: FakeDiscord, bot: Any, game_id: str, general: Any, users: list[Any],
                moves: int, rng: random.Random) -> list[Any]:
    """Move clicks until ``moves`` were sent; a new game whenever one ends."""
    clicks: list[Any] = []
    while len(clicks) < moves:
        await _open_table(fake, bot, game_id, general, users)
        driver = GameDriver(fake, bot, general, users, rng)
        while len(driver.answered) < moves - len(clicks) and await driver.play_one():
            pass
        clicks += driver.answered
        await idle(bot, timeout=30)
        if bot.croupier.manager.in_channel(general.id) is not None:
            break  # the game is still on: enough clicks
    return clicks


def _ms(seconds: float) -> float:
    return round(seconds * 1000, 1)


def run(game_id: str, moves: int = 600, hold: float = 3.5, every: float = 5.0,
        pictures: Kind | None = None, picture_workers: int | None = None
        ) -> dict[str, Any]:
    return asyncio.run(measure(game_id, moves, hold, every, pictures=pictures,
                               picture_workers=picture_workers))
