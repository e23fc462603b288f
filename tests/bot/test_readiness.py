"""Readiness (bot.app.readiness): set up, every local shard connected, the database
answering in time."""

from __future__ import annotations

import asyncio

from bot.app.readiness import Readiness


def readiness(set_up=True, shards=(0, 1), ping=None, timeout=0.05):
    async def answers() -> None:
        return None

    return Readiness(lambda: set_up, lambda: shards, ping or answers, timeout)


async def test_ready_when_set_up_connected_and_the_database_answers():
    ready = readiness()
    ready.shard_connected(0)
    ready.shard_connected(1)
    assert await ready.why_not() is None and await ready.ready()


async def test_not_ready_while_starting_or_before_any_shard():
    assert await readiness(set_up=False).why_not() == "starting"
    assert await readiness(shards=()).why_not() == "no gateway connection yet"


async def test_a_disconnected_shard_is_named_until_it_connects_again():
    ready = readiness()
    ready.shard_connected(0)
    ready.shard_connected(1)
    ready.shard_disconnected(1)
    assert await ready.why_not() == "shard(s) 1 not connected to the gateway"
    ready.shard_connected(1)
    assert await ready.ready()


async def test_a_database_that_fails_or_hangs_is_not_ready():
    async def refused() -> None:
        raise ConnectionRefusedError()

    async def hangs() -> None:
        await asyncio.Event().wait()

    for ping, name in ((refused, "ConnectionRefusedError"), (hangs, "TimeoutError")):
        ready = readiness(ping=ping)
        ready.shard_connected(0)
        ready.shard_connected(1)
        assert await ready.why_not() == f"the database does not answer: {name}"
