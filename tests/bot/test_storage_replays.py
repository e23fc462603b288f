"""bot.storage: the game a table recorded (``Store.game_of_table``), which the Replay
button under a game's result finds at its click, on SQLite and PostgreSQL."""

from __future__ import annotations

import dataclasses

from bot.storage import Store
from tests.bot.test_storage import finished


async def test_a_tables_game_is_found_by_the_table_and_only_by_it(store: Store) -> None:
    first = await store.record_game(dataclasses.replace(finished([(7, 3), (8, 1)]),
                                                        table_id="abcd1234"))
    other = await store.record_game(dataclasses.replace(finished([(7, 1), (8, 3)]),
                                                        table_id="beef5678"))
    await store.record_game(finished([(7, 2), (8, 2)]))  # a game without a table
    assert await store.game_of_table("abcd1234") == first
    assert await store.game_of_table("beef5678") == other != first
    assert await store.game_of_table("0000ffff") is None
