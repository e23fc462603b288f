"""Table edits faster than the interval are merged into one that draws the latest state."""

from __future__ import annotations

import asyncio

from bot.ui.poster import EditCoalescer


async def test_edits_inside_the_interval_are_merged():
    drawn: list[int] = []
    state = {"n": 0}

    async def edit(key: str) -> None:
        drawn.append(state["n"])

    coalescer = EditCoalescer(0.05, edit)
    for n in range(1, 6):
        state["n"] = n
        await coalescer.request("t")
    assert drawn == [1]  # the first at once, the rest wait
    await asyncio.sleep(0.08)
    assert drawn == [1, 5]  # one more edit, with the latest state
    await coalescer.close()


async def test_with_no_interval_every_request_edits():
    drawn: list[str] = []

    async def edit(key: str) -> None:
        drawn.append(key)

    coalescer = EditCoalescer(0, edit)
    for _ in range(3):
        await coalescer.request("t")
    assert drawn == ["t", "t", "t"]


async def test_now_drops_a_scheduled_edit_and_a_failing_edit_is_contained():
    calls: list[str] = []

    async def edit(key: str) -> None:
        calls.append(key)
        raise RuntimeError("Discord said no")

    coalescer = EditCoalescer(0.05, edit)
    await coalescer.request("t")
    await coalescer.request("t")  # scheduled
    await coalescer.now("t")  # the final state: at once, the scheduled one dropped
    await asyncio.sleep(0.08)
    assert calls == ["t", "t"] and not coalescer.pending()
