"""The bot's own request budget: turns per window, messages before table edits, no
starving, and table edits that wait in it merged into one that draws the latest state."""

from __future__ import annotations

import asyncio
import itertools
import time

import discord
import pytest

from bot.app.croupier import Croupier
from bot.config.settings import Shards, Timing
from bot.storage import Storage
from bot.ui.pacer import EDIT, EDIT_SHARE, MESSAGE, Pacer
from bot.ui.poster import EditCoalescer
from testkit.clock import ManualClock
from testkit.harness import cheap_ai

WINDOW = 0.05  # short windows keep the tests fast; nothing here depends on the speed


def most_in_a_window(times: list[float], window: float) -> int:
    """The most turns that started in any half-open window of that length."""
    times = sorted(times)
    return max(sum(1 for t in times[i:] if t < start + window - 1e-6)
               for i, start in enumerate(times))


async def test_no_more_turns_than_the_limit_in_any_window():
    loop = asyncio.get_running_loop()
    started: list[float] = []
    pacer = Pacer(rate=4 / WINDOW, window=WINDOW,
                  on_turn=lambda kind: started.append(loop.time()))
    assert pacer.limit == 4

    async def request() -> None:
        await pacer.acquire(MESSAGE)

    await asyncio.gather(*(request() for _ in range(30)))
    assert len(started) == 30
    assert most_in_a_window(started, WINDOW) == 4  # the first four at once, then paced
    assert started[-1] - started[0] >= (30 // 4 - 1) * WINDOW  # it cannot be faster


async def test_messages_go_first_and_table_edits_still_get_every_fifth_turn():
    order: list[int] = []
    pacer = Pacer(rate=1 / WINDOW, window=WINDOW, on_turn=order.append)
    assert pacer.limit == 1
    await pacer.acquire(MESSAGE)  # the window is full: everything below waits
    waiting = [asyncio.create_task(pacer.acquire(EDIT)) for _ in range(3)]
    waiting += [asyncio.create_task(pacer.acquire(MESSAGE)) for _ in range(10)]
    await asyncio.gather(*waiting)
    # Messages first, but never more than four in a row while an edit waits.
    assert order[:EDIT_SHARE] == [MESSAGE] * (EDIT_SHARE - 1) + [EDIT]
    assert order.count(EDIT) == 3 and order.count(MESSAGE) == 11
    assert [i for i, kind in enumerate(order) if kind == EDIT] == [4, 9, 13]


async def test_a_request_that_gives_up_waiting_takes_no_turn():
    given: list[int] = []
    pacer = Pacer(rate=1 / WINDOW, window=WINDOW, on_turn=given.append)
    await pacer.acquire(MESSAGE)
    quitter = asyncio.create_task(pacer.acquire(MESSAGE))
    stayer = asyncio.create_task(pacer.acquire(MESSAGE))
    await asyncio.sleep(0)
    quitter.cancel()
    await stayer
    assert quitter.cancelled() and len(given) == 2 and pacer.waiting() == 0


async def test_try_acquire_never_jumps_the_queue():
    pacer = Pacer(rate=2 / WINDOW, window=WINDOW)
    assert pacer.try_acquire(MESSAGE) and pacer.try_acquire(EDIT)
    assert not pacer.try_acquire(MESSAGE)  # the window is full
    edit = asyncio.create_task(pacer.acquire(EDIT))
    await asyncio.sleep(0)
    pacer._started.clear()  # the window frees before the pacer's timer gives the turns
    assert not pacer.try_acquire(EDIT)  # behind the edit that waits
    assert pacer.try_acquire(MESSAGE)  # a message goes before edits anyway
    await edit
    assert pacer.waiting() == 0


async def test_a_turn_counts_from_when_its_waiter_wakes():
    """A waiter that wakes late (the event loop was busy) starts its request late: the
    next turn comes a whole window after that, never two requests in one window."""
    loop = asyncio.get_running_loop()
    pacer = Pacer(rate=1 / WINDOW, window=WINDOW)
    await pacer.acquire(MESSAGE)  # the window is full: the two below wait
    stalls = [WINDOW / 2]

    def stall(kind: int) -> None:  # the loop is busy right after the first turn is given
        if stalls:
            loop.call_soon(time.sleep, stalls.pop())

    pacer.on_turn = stall
    starts: list[float] = []

    async def request() -> None:
        await pacer.acquire(MESSAGE)
        starts.append(loop.time())

    await asyncio.gather(request(), request())
    assert starts[1] - starts[0] >= WINDOW - 1e-3


async def test_table_edits_waiting_for_the_budget_merge_and_draw_the_latest_state():
    """Three tables move ten times each while the budget allows one edit a window: each
    table gets fewer edits than moves, and its last edit draws its last state."""
    pacer = Pacer(rate=1 / WINDOW, window=WINDOW)
    drawn: dict[str, list[int]] = {}

    async def edit(key: str) -> None:
        drawn.setdefault(key, []).append(coalescer.take_state(key))

    coalescer = EditCoalescer(0, edit, pacer=pacer)
    for move in range(1, 11):
        for key in ("a", "b", "c"):
            await coalescer.request(key, state=move)
        await asyncio.sleep(WINDOW / 5)
    while coalescer.pending():
        await asyncio.sleep(WINDOW)
    for key in ("a", "b", "c"):
        assert drawn[key][-1] == 10  # the latest state, never dropped
        assert len(drawn[key]) < 10  # merged
        assert drawn[key] == sorted(drawn[key])  # never an older state after a newer one


async def test_a_longer_interval_merges_more_and_a_shorter_one_brings_the_edit_forward():
    drawn: list[int] = []

    async def edit(key: str) -> None:
        drawn.append(coalescer.take_state(key))

    coalescer = EditCoalescer(0, edit)
    await coalescer.request("t", interval=60, state=1)  # the first edit goes at once
    await coalescer.request("t", interval=60, state=2)  # waits up to a minute...
    await asyncio.sleep(WINDOW)
    assert drawn == [1] and coalescer.waiting() and not coalescer.pending()
    await coalescer.request("t", interval=0, state=3)  # ...until someone needs it now
    while coalescer.waiting():
        await asyncio.sleep(WINDOW / 5)
    assert drawn == [1, 3]


async def test_flush_draws_waiting_edits_at_once():
    drawn: list[str] = []

    async def edit(key: str) -> None:
        drawn.append(key)

    coalescer = EditCoalescer(0, edit)
    await coalescer.request("t", interval=60)
    await coalescer.request("t", interval=60)
    assert coalescer.waiting() and not coalescer.pending()  # nothing to do for a minute
    coalescer.flush()
    assert coalescer.pending()  # (shutting down waits for it)
    while coalescer.waiting():
        await asyncio.sleep(WINDOW / 5)
    assert drawn == ["t", "t"]


# -- one budget for the shard processes of a token ---------------------------------------


@pytest.mark.parametrize(("count", "layout"), [
    (2, [(0,), (1,)]), (3, [(0,), (1,), (2,)]), (4, [(0, 1), (2,), (3,)]),
    (16, [tuple(range(4 * p, 4 * p + 4)) for p in range(4)]),
    (7, [(0, 1, 2), (3, 4), (5,), (6,)]), (45, [(s,) for s in range(45)])])
def test_the_shard_processes_of_a_token_never_start_more_than_its_rate_together(count, layout):
    """Each process paces at its shards' share of the token's rate (croupier.py): in any
    second, all of them together start at most that many requests."""
    rate = Timing().request_rate
    pacers = [Pacer(rate * Shards(count, ids).share) for ids in layout]
    assert sum(p.limit for p in pacers) <= rate
    assert sum(p.limit / p.span for p in pacers) >= rate * 0.8  # and little is lost
    assert Pacer(rate * Shards(count, None).share).limit == Pacer(rate).limit == 45


async def test_a_rate_under_one_turn_a_window_gives_one_turn_per_its_span():
    """A share under one request a second (more than 45 processes of one shard each)
    still paces at its rate on average, one turn at a time."""
    loop = asyncio.get_running_loop()
    started: list[float] = []
    pacer = Pacer(rate=0.5 / WINDOW, window=WINDOW,
                  on_turn=lambda kind: started.append(loop.time()))
    assert pacer.limit == 1 and pacer.span == pytest.approx(2 * WINDOW)
    await asyncio.gather(*(pacer.acquire(MESSAGE) for _ in range(4)))
    gaps = [b - a for a, b in itertools.pairwise(started)]
    assert min(gaps) >= 2 * WINDOW - 1e-3  # never two turns in one span


async def test_a_croupier_paces_at_its_shards_share(tmp_path):
    """The pacer of a process running one shard of two: half the token's rate."""
    store = await Storage.open(tmp_path / "db.sqlite")
    client = discord.Client(intents=discord.Intents.default())
    try:
        for shards, rate in [(Shards(), 45.0), (Shards(2, (1,)), 22.5),
                             (Shards(4, (0, 1, 2)), 33.75)]:
            croupier = Croupier(client, store, {}, Timing(), ManualClock(), ai=cheap_ai(),
                                shards=shards)
            assert croupier.poster.pacer.rate == rate
            assert croupier.poster.pacer.limit == int(rate)
            croupier.ai.close()
    finally:
        await store.close()
        await client.close()
