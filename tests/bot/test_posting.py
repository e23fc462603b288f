"""Table edits faster than the interval are merged into one that draws the latest state;
a request Discord never answers is a result, never an exception in a table's step."""

from __future__ import annotations

import asyncio

import aiohttp
import discord
import pytest

from bot.ui.poster import EditCoalescer, Gone, Poster


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


# -- a request that gets no answer (a dropped connection, a timeout) ---------------------

def poster_whose_requests(fail_with: BaseException) -> tuple[Poster, list[str]]:
    """A Poster over a real discord.py client whose HTTP layer fails every request."""
    client = discord.Client(intents=discord.Intents.none())
    tried: list[str] = []

    async def request(route, **kwargs):
        tried.append(f"{route.method} {route.path}")
        raise fail_with

    client.http.request = request  # type: ignore[method-assign]
    return Poster(client), tried


@pytest.mark.parametrize("trouble", [aiohttp.ServerDisconnectedError(),
                                     aiohttp.ClientConnectionError("reset"),
                                     TimeoutError(), ConnectionResetError()])
async def test_no_answer_from_discord_is_reported_as_a_result_never_raised(trouble):
    poster, tried = poster_whose_requests(trouble)
    assert await poster.send(10, 1, content="hi") is None
    assert await poster.edit(10, 1, 20, content="hi") is False
    assert await poster.fetch(10, 1, 20) is None
    assert await poster.delete(10, 1, 20) is False
    assert await poster.dm(30, 40, content="hi") is None
    assert await poster.dm(30, None, content="hi") is None  # opening the DM channel fails
    assert len(tried) == 6


async def test_a_deleted_message_is_still_gone_and_other_errors_still_propagate():
    response = type("R", (), {"status": 404, "reason": "Not Found"})()
    poster, _ = poster_whose_requests(discord.NotFound(response, {"code": 10008,
                                                                  "message": "Unknown"}))
    with pytest.raises(Gone):
        await poster.edit(10, 1, 20, content="hi")
    broken, _ = poster_whose_requests(ValueError("a bug, not Discord"))
    with pytest.raises(ValueError):
        await broken.send(10, 1, content="hi")
