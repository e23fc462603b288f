"""Every saved step is announced: a whole game (a lobby change, the players' moves, the
AI seat's moves, the deals, the ending) followed by a subscriber of this process's table
bus and, on PostgreSQL, by another store listening to the notices as another process
would — every saved version once, in order, none missing."""

from __future__ import annotations

import asyncio
import random

import pytest

from bot.app.client import CardTableBot
from bot.config.settings import Settings
from bot.storage import CHANGE_KINDS, SQLiteStorage, TableChange, TableRow, open_storage
from bot.table.bus import Change, Saved
from testkit.clock import ManualClock
from testkit.harness import FAST, GameDriver, cheap_ai

WRITES = {"opened": Change.OPENED, "saved": Change.SAVED, "closed": Change.CLOSED}


@pytest.mark.parametrize("backend", ["sqlite", "postgres"])
async def test_every_saved_version_of_a_whole_game_is_announced_once_in_order(
        fake, general, tmp_path, request, backend):
    users = [fake.add_user(name) for name in ("alice", "bob", "cy")]
    listener = None
    heard_elsewhere: list[TableChange] = []
    if backend == "postgres":
        url = request.getfixturevalue("postgres_url")
        store = await open_storage(url=url)
        listener = await open_storage(url=url)  # another process's store: its own origin
        await listener.listen(heard_elsewhere.append, kinds=CHANGE_KINDS)
    else:
        store = await SQLiteStorage.open(tmp_path / "db.sqlite")
    settings = Settings(token="fake-token", database_path=tmp_path / "db.sqlite",
                        dev_guild_id=None, log_level=20, timing=FAST)
    bot = CardTableBot(settings, store=store, clock=ManualClock(), timing=FAST,
                       extensions={"cogs.jazz": "jazz"}, seed=7, ai=cheap_ai())
    bot._owns_store = True
    heard: list[Saved] = []
    try:
        async with fake.running(bot):
            bot.croupier.manager.bus.subscribe(heard.append)
            await (await fake.slash(users[0], general, "jazz start")).wait_answered()
            lobby = fake.find_message(general, label="Join")
            for user in users[1:]:
                await (await fake.click(user, lobby, label="Join")).wait_answered()
            lobby = fake.find_message(general, label="Join")
            await (await fake.click(users[0], lobby, label="Add AI: Easy")).wait_answered()
            lobby = fake.find_message(general, label="Join")
            await (await fake.click(users[0], lobby, label="Start")).wait_answered()
            await GameDriver(fake, bot, general, users, random.Random(4)).play_to_end()
            await fake.settle()
            [table_id] = {s.table_id for s in heard}
            row = await store.load_table(table_id)
            assert isinstance(row, TableRow) and row.status == "finished"

            versions = [s.version for s in heard]
            assert versions == list(range(row.version + 1)), "each version once, in order"
            assert heard[0].change == Change.OPENED and heard[0].status == "lobby"
            assert heard[-1].change == Change.CLOSED and heard[-1].status == "finished"
            assert {s.change for s in heard[1:-1]} == {Change.SAVED}
            assert len(heard) > 60  # the lobby, every move and deal of a whole game

            if listener is not None:
                for _ in range(500):  # NOTIFY arrives at commit, moments later
                    if any(c.kind == "closed" for c in heard_elsewhere):
                        break
                    await asyncio.sleep(0.01)
                writes = [(c.version, WRITES[c.kind], c.status) for c in heard_elsewhere
                          if c.table_id == table_id and c.kind in WRITES]
                assert writes == [(s.version, s.change, s.status) for s in heard]
    finally:
        if listener is not None:
            await listener.close()
