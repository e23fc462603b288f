"""The bot's own request budget: turns per window, messages before table edits, no
starving, and table edits that wait in it merged into one that draws the latest state."""

from __future__ import annotations

import asyncio

from bot.ui.pacer import EDIT, EDIT_SHARE, MESSAGE, Pacer
from bot.ui.poster import EditCoalescer

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
