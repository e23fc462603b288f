"""Which process drives a table, over one real PostgreSQL (``TableManager`` of two stores).

Each store is one bot process. A table is driven by the process that claimed it: a
second process that starts while the first still runs (a restart overlap) restores
nothing it cannot claim, takes the tables over once the first is gone, and keeps to
its own shards. A click's copy of another process's table (``visit``) is saved only at
its version: a stale one is read again, never overwritten.
"""

from __future__ import annotations

import random
from collections.abc import AsyncIterator

import pytest

from bot.config.settings import Shards
from bot.storage import PostgresStorage, TableRow, VersionConflict
from bot.table.manager import TableManager
from bot.table.state import StaleClick, Table
from bot.table.step import Steps
from engine.core import Game, action_code
from engine.jazz import Jazz
from testkit.clock import ManualClock

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
