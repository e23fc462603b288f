"""Tournaments in storage, on SQLite and PostgreSQL: the state saved with its version, one
active tournament a channel, sign-ups in the order they came."""

from __future__ import annotations

import asyncio

import pytest

from bot.storage import ChannelBusy, Store, TableExists, VersionConflict
from bot.storage.tournaments import TournamentRow


def row(tid: str = "t1", channel: int = 5, status: str = "signup") -> TournamentRow:
    return TournamentRow(tid, guild_id=1, channel_id=channel, status=status,
                         data={"name": "Spring cup", "rounds": 3})


async def test_a_tournament_is_saved_at_its_version(store: Store):
    await store.create_tournament(row())
    loaded = await store.load_tournament("t1")
    assert loaded is not None and loaded.version == 0 and loaded.data["name"] == "Spring cup"
    assert loaded.created_at is not None and loaded.status == "signup"
    assert await store.save_tournament("t1", "running", {"name": "x", "n": [1, 2]}, 0) == 1
    with pytest.raises(VersionConflict) as stale:
        await store.save_tournament("t1", "running", {"name": "lost"}, 0)
    assert (stale.value.expected, stale.value.actual) == (0, 1)
    with pytest.raises(VersionConflict) as missing:
        await store.save_tournament("nope", "running", {}, 0)
    assert missing.value.actual is None
    loaded = await store.load_tournament("t1")
    assert loaded is not None and (loaded.status, loaded.version) == ("running", 1)
    assert loaded.data == {"name": "x", "n": [1, 2]}
    assert await store.load_tournament("nope") is None
    with pytest.raises(ValueError):
        await store.save_tournament("t1", "paused", {}, 1)


async def test_one_active_tournament_a_channel(store: Store):
    await store.create_tournament(row("t1"))
    with pytest.raises(TableExists):
        await store.create_tournament(row("t1", channel=6))
    with pytest.raises(ChannelBusy):
        await store.create_tournament(row("t2"))
    await store.create_tournament(row("t3", channel=6))
    assert [t.tournament_id for t in await store.active_tournaments()] == ["t1", "t3"]
    await store.save_tournament("t1", "finished", {}, 0)
    await store.create_tournament(row("t2"))  # the channel is free again
    assert [t.tournament_id for t in await store.active_tournaments()] == ["t3", "t2"]


async def test_sign_ups_in_order(store: Store):
    await store.create_tournament(row())
    assert await store.sign_up("t1", 30, "Cy")
    assert await store.sign_up("t1", 10, "Alice")
    assert not await store.sign_up("t1", 30, "Cy again")
    assert not await store.sign_up("nope", 1, "x")  # no such tournament
    results = await asyncio.gather(*(store.sign_up("t1", 100 + i, f"p{i}") for i in range(5)))
    assert all(results)
    assert (await store.signups("t1"))[:2] == [(30, "Cy"), (10, "Alice")]
    assert await store.withdraw("t1", 30) and not await store.withdraw("t1", 30)
    signed = [u for u, _ in await store.signups("t1")]
    assert signed[0] == 10 and sorted(signed[1:]) == [100, 101, 102, 103, 104]
    assert await store.sign_up("t1", 30, "Cy")  # back, at the end
    assert (await store.signups("t1"))[-1] == (30, "Cy")
    assert await store.signups("nope") == []
