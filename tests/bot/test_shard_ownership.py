"""Which process drives a table, over one real PostgreSQL (``TableManager`` of two stores).

Each store is one bot process. A table is driven by the process that claimed it: a
second process that starts while the first still runs (a restart overlap) restores
nothing it cannot claim, takes the tables over once the first is gone, and keeps to
its own shards. A click's copy of another process's table (``visit``) is saved only at
its version: a stale one is read again, never overwritten.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import random
import signal
import sys
from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from bot.config.settings import Shards
from bot.storage import PostgresStorage, TableRow, VersionConflict
from bot.table.manager import TableManager
from bot.table.state import StaleClick, Table
from bot.table.step import Steps
from engine.core import Game, action_code
from engine.jazz import Jazz
from testkit.clock import ManualClock
from tests.bot.test_storage_postgres import eventually, terminate

ON_SHARD_0, ON_SHARD_1 = (6 << 22) | 7, (5 << 22) | 7  # (guild id >> 22) % 2


def engines(game_id: str) -> type[Game] | None:
    return Jazz if game_id == "jazz" else None


def playing_table(table_id: str, guild_id: int, channel_id: int) -> Table:
    table = Table(table_id=table_id, game_id="jazz", engine=Jazz, guild_id=guild_id,
                  channel_id=channel_id, host_id=100, created_at=0.0, last_activity=0.0,
                  options=Jazz.OPTIONS.from_dict({}), rng=random.Random(1), turn_timer=300.0)
    for i in range(3):
        table.join(100 + i, f"p{i}", 0.0)
    table.start(100, 1.0)
    table.run_automation("deal", 1.0)
    return table


@pytest.fixture
async def stores(postgres_url: str) -> AsyncIterator[list[PostgresStorage]]:
    opened = [await PostgresStorage.open(postgres_url) for _ in range(3)]
    try:
        yield opened
    finally:
        for store in opened:
            await store.close()


async def test_a_process_that_starts_while_another_holds_a_table_takes_it_only_once_free(
        stores: list[PostgresStorage]) -> None:
    first, second = TableManager(stores[0], engines), TableManager(stores[1], engines)
    table = playing_table("a0000001", ON_SHARD_1, 11)
    await first.open(table)

    restored, problems = await second.restore()
    assert (restored, problems) == ([], []), "the table is driven twice"
    assert second.get(table.table_id) is None

    await stores[0].close()  # the first process dies: its locks go with its connection
    restored, problems = await second.restore()
    assert [t.table_id for t in restored] == [table.table_id] and problems == []
    again, _ = await second.restore()
    assert again == [], "a table this process drives is not restored a second time"


async def test_each_process_restores_only_its_shards_tables(
        stores: list[PostgresStorage]) -> None:
    maker = TableManager(stores[2], engines)
    for n, guild in enumerate((ON_SHARD_0, ON_SHARD_1, ON_SHARD_0)):
        await maker.open(playing_table(f"b000000{n}", guild, 20 + n))
    await stores[2].close()
    zero, one = Shards(2, (0,)), Shards(2, (1,))
    found_zero, _ = await TableManager(stores[0], engines).restore(zero.owns_guild)
    found_one, _ = await TableManager(stores[1], engines).restore(one.owns_guild)
    assert sorted(t.table_id for t in found_zero) == ["b0000000", "b0000002"]
    assert [t.table_id for t in found_one] == ["b0000001"]


async def test_a_visited_copy_never_overwrites_a_newer_save_and_is_read_again(
        stores: list[PostgresStorage]) -> None:
    owner, visitor = TableManager(stores[0], engines), TableManager(stores[1], engines)
    table = playing_table("c0000001", ON_SHARD_1, 31)
    await owner.open(table)
    copy = await visitor.visit(table.table_id)
    assert copy is not None and visitor.is_visiting(copy) and visitor.is_live(copy)
    assert visitor.get(table.table_id) is None, "a visited table is not driven here"

    # The owner saves a step first (its timer, its AI seat): the copy is now stale.
    seat = table.to_act
    assert seat is not None and table.game is not None
    first_card = table.game.legal_actions()[0]
    table.apply(seat, first_card, 2.0)
    await owner.save(table)
    with pytest.raises(VersionConflict):
        await visitor.save(copy)

    # Through the step kernel: the player's click, legal on the stale copy, is checked
    # anew on the table read again, where that menu is out of date: refused, not applied.
    steps = Steps(visitor, ManualClock(), patience=1.0)
    user = copy.seats[seat].user_id
    assert copy.game is not None
    outcome = await steps.move(copy, user, copy.step, action_code(copy.game.legal_actions()[-1]))
    assert outcome.stale is False and isinstance(outcome.refusal, StaleClick)
    assert not outcome.saved
    assert copy.version == table.version and copy.step == table.step, "read again"
    stored = await stores[2].load_table(table.table_id)
    assert isinstance(stored, TableRow) and stored.version == table.version
    visitor.leave(copy)
    assert not visitor.is_visiting(copy)


# ============================================ ownership lost with the connection, or the lease

async def test_a_process_claims_its_tables_again_after_losing_its_ownership_connection(
        stores: list[PostgresStorage], postgres_url: str) -> None:
    """A database restart ends every connection: the process knows it owns nothing, and
    its next look claims its live tables again (nobody took them) at their stored version."""
    manager = TableManager(stores[0], engines)
    table = playing_table("c0000001", ON_SHARD_0, 31)
    await manager.open(table)
    assert stores[0].owns_table(table.table_id)

    await terminate(postgres_url, stores[0], "owner")
    await eventually(lambda: not stores[0].owns_table(table.table_id))
    assert await stores[1].claim_table("other") is True  # the database answers others

    kept, gone = await manager.recheck()
    assert [(t.table_id, version) for t, version in kept] == [(table.table_id, table.version)]
    assert gone == [] and manager.get(table.table_id) is table
    assert stores[0].owns_table(table.table_id)
    assert await stores[1].claim_table(table.table_id) is False  # held again
    assert await manager.recheck() == ([], [])  # nothing lost: nothing to do


async def test_a_table_another_process_took_meanwhile_is_let_go_not_driven_twice(
        stores: list[PostgresStorage], postgres_url: str) -> None:
    mine, theirs = TableManager(stores[0], engines), TableManager(stores[1], engines)
    taken, closed = playing_table("c0000002", ON_SHARD_0, 32), playing_table("c0000003",
                                                                             ON_SHARD_0, 33)
    await mine.open(taken)
    await mine.open(closed)
    await terminate(postgres_url, stores[0], "owner")
    await eventually(lambda: not stores[0].owns_table(taken.table_id))

    restored, _ = await theirs.restore()  # the other process takes both over
    assert sorted(t.table_id for t in restored) == [taken.table_id, closed.table_id]
    other = theirs.get(closed.table_id)
    assert other is not None
    other.status = "stopped"
    await theirs.finish(other)  # ... and closes one of them (its lock released)
    await eventually(lambda: closed.table_id not in stores[1]._owner.owned)

    kept, gone = await mine.recheck()
    assert kept == [] and sorted(t.table_id for t in gone) == [taken.table_id, closed.table_id]
    assert mine.get(taken.table_id) is None and mine.get(closed.table_id) is None
    await eventually(lambda: not stores[0].owns_table(closed.table_id))  # its claim let go
    assert await stores[2].claim_table(closed.table_id) is True


@pytest.mark.slow
async def test_a_process_that_stands_still_loses_its_tables_after_its_lease(
        postgres_url: str, stores: list[PostgresStorage], tmp_path: Path) -> None:
    """A process that hangs without dying (here: stopped with SIGSTOP) keeps its socket
    open, so PostgreSQL never sees it die; the lease (``idle_session_timeout``) ends its
    session, and another process can take its tables. A running one keeps renewing."""
    script = tmp_path / "owner.py"
    script.write_text(HOLDER.format(url=postgres_url, root=str(ROOT), lease=LEASE))
    holder = await asyncio.create_subprocess_exec(
        sys.executable, str(script), stdout=asyncio.subprocess.PIPE)
    try:
        assert holder.stdout is not None
        assert (await asyncio.wait_for(holder.stdout.readline(), 30)).strip() == b"claimed"
        assert await stores[0].claim_table("d0000001") is False  # held, and renewed
        await asyncio.sleep(LEASE * 2.5)  # over two leases: renewals keep it
        assert await stores[0].claim_table("d0000001") is False

        os.kill(holder.pid, signal.SIGSTOP)  # alive, its socket open, standing still
        loop = asyncio.get_running_loop()
        stopped_at = loop.time()
        while not await stores[0].claim_table("d0000001"):
            assert loop.time() - stopped_at < 30, "the lease never ran out"
            await asyncio.sleep(0.05)
        assert loop.time() - stopped_at >= LEASE / 2  # not before its lease could end
    finally:
        with contextlib.suppress(ProcessLookupError):
            os.kill(holder.pid, signal.SIGKILL)
            os.kill(holder.pid, signal.SIGCONT)
        await holder.wait()


LEASE = 1.0
ROOT = Path(__file__).resolve().parents[2]
HOLDER = """
import asyncio, sys
sys.path.insert(0, {root!r})
from bot.storage import PostgresStorage

async def main():
    store = await PostgresStorage.open({url!r}, lease_s={lease!r})
    assert await store.claim_table("d0000001")
    print("claimed", flush=True)
    await asyncio.sleep(3600)

asyncio.run(main())
"""
