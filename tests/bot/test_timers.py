"""Timers: the next deadline of a table, and one sleeping task per table on a fake clock."""

from __future__ import annotations

import asyncio
import random

from bot.table.state import LOBBY, PLAYING, STOPPED, Table
from bot.table.timers import TableTimers, next_due
from engine.jazz import Jazz
from testkit.clock import ManualClock


def table(status: str = PLAYING) -> Table:
    t = Table(table_id="abcd1234", game_id="jazz", engine=Jazz, guild_id=1, channel_id=2,
              host_id=1, created_at=0.0, last_activity=100.0, lobby_idle=900.0,
              options=Jazz.OPTIONS(),
              rng=random.Random(0))
    t.status = status
    return t


def test_next_due_is_the_lobby_expiry_the_reminder_then_the_deadline():
    assert next_due(table(LOBBY)) == (1000.0, "lobby")
    t = table()
    t.reminder_at, t.turn_deadline = 150.0, 300.0
    assert next_due(t) == (150.0, "remind")
    t.reminder_at = None
    assert next_due(t) == (300.0, "expire")
    t.turn_deadline = None  # no timer: only the stop after a month without a step
    assert next_due(t) == (100.0 + 30 * 86400, "idle")
    t.idle_limit = 0
    assert next_due(t) is None
    assert next_due(table(STOPPED)) is None


def test_the_idle_stop_comes_first_when_it_is_sooner_than_the_turn():
    t = table()
    t.idle_limit, t.reminder_at, t.turn_deadline = 3600.0, 150.0, 86400.0
    assert next_due(t) == (150.0, "remind")
    t.reminder_at = None
    assert next_due(t) == (3700.0, "idle")


async def test_a_timer_fires_at_its_deadline_and_not_before():
    clock = ManualClock(start=0.0)
    fired: list[tuple[str, str]] = []

    async def on_due(table_id: str, kind: str) -> None:
        fired.append((table_id, kind))

    timers = TableTimers(clock, on_due)
    t = table()
    t.turn_deadline = 300.0
    timers.schedule(t)
    clock.advance(299)
    await asyncio.sleep(0.01)
    assert fired == []
    clock.advance(1)
    await asyncio.sleep(0.01)
    assert fired == [("abcd1234", "expire")]
    await timers.close()


async def test_rescheduling_replaces_the_old_timer():
    clock = ManualClock(start=0.0)
    fired: list[str] = []

    async def on_due(table_id: str, kind: str) -> None:
        fired.append(kind)

    timers = TableTimers(clock, on_due)
    t = table()
    t.turn_deadline = 100.0
    timers.schedule(t)
    t.turn_deadline = 500.0  # a move was made: a new turn, a new deadline
    timers.schedule(t)
    clock.advance(200)
    await asyncio.sleep(0.01)
    assert fired == []
    clock.advance(300)
    await asyncio.sleep(0.01)
    assert fired == ["expire"]
    await timers.close()


async def test_a_timer_may_reschedule_its_own_table_while_it_runs():
    clock = ManualClock(start=0.0)
    t = table()
    t.reminder_at, t.turn_deadline = 10.0, 20.0
    fired: list[str] = []

    async def on_due(table_id: str, kind: str) -> None:
        fired.append(kind)
        if kind == "remind":
            t.reminder_at = None
            timers.schedule(t)  # must not cancel the task running this very callback
            await asyncio.sleep(0)
            fired.append("after")

    timers = TableTimers(clock, on_due)
    timers.schedule(t)
    clock.advance(20)
    for _ in range(5):
        await asyncio.sleep(0.01)
    assert fired == ["remind", "after", "expire"]
    await timers.close()


async def test_a_failing_callback_does_not_escape():
    clock = ManualClock(start=0.0)

    async def on_due(table_id: str, kind: str) -> None:
        raise RuntimeError("boom")

    timers = TableTimers(clock, on_due)
    t = table(LOBBY)
    timers.schedule(t)
    clock.advance(2000)
    await asyncio.sleep(0.01)
    assert not timers.pending("abcd1234")
    await timers.close()
