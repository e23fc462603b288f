"""A bot upgraded in place keeps its server: the database an older bot left behind.

``tests/fixtures/legacy-schema3.sql`` was written by the code of commit 43848af (schema
version 3, before the table machinery was split and before a table's posts had their
own column): a Jacko game finished and rated, a Jazz game ten moves in with hands by
DM, and an AttackJack lobby with two seated. The fixture's ids are those of the fake
Discord it ran on (``legacy-schema3.json``); they are mapped to this world's ids, then
the new bot opens the file, migrates it, restores both live tables and plays on.
"""

from __future__ import annotations

import json
import random
import sqlite3
from pathlib import Path

import pytest

from engine.records import replay
from testkit.fakediscord import FakeDiscord
from testkit.harness import GameDriver, idle, make_bot, table_message
from testkit.tables import actions_played

FIXTURES = Path(__file__).resolve().parent.parent / "fixtures"
EXTENSIONS: dict[str, str | None] = {"cogs.help": None, "cogs.jazz": "jazz",
                                     "cogs.jacko": "jacko", "cogs.attackjack": "attackjack",
                                     "cogs.history": None}


def legacy_database(fake: FakeDiscord, path: Path) -> dict[str, object]:
    """The old database with its ids mapped onto ``fake``'s world; returns the new ids."""
    old = json.loads((FIXTURES / "legacy-schema3.json").read_text())
    users = {name: fake.add_user(name) for name in old["users"]}
    channels = {"general": fake.channel("general"), "duel": fake.world.add_channel("duel"),
                "lobby": fake.world.add_channel("lobby")}
    ids = {old["guild"]: fake.world.guild.id}
    ids |= {old["users"][n]: u.id for n, u in users.items()}
    ids |= {old["channels"][n]: c.id for n, c in channels.items()}
    sql = (FIXTURES / "legacy-schema3.sql").read_text()
    # The old DM channels: this world's DM channel of the same user.
    conn = sqlite3.connect(":memory:")
    conn.executescript(sql)
    for (data,) in conn.execute("SELECT data FROM live_tables"):
        for seat in json.loads(data)["seats"]:
            if seat["dm_channel_id"] is not None:
                user = next(u for n, u in users.items() if old["users"][n] == seat["user_id"])
                ids[seat["dm_channel_id"]] = fake.dm(user).id
    conn.close()
    for before, after in ids.items():
        sql = sql.replace(str(before), str(after))
    conn = sqlite3.connect(path)
    conn.executescript(sql)
    conn.close()
    return {"users": users, "channels": channels, "played": old["jazz_actions_played"]}


@pytest.mark.slow
async def test_an_old_database_is_migrated_and_its_tables_play_on(fake, tmp_path):
    path = tmp_path / "old.sqlite"
    world = legacy_database(fake, path)
    users, channels = world["users"], world["channels"]
    general, lobby = channels["general"], channels["lobby"]
    bot = await make_bot(path, extensions=EXTENSIONS)
    async with fake.running(bot):
        await idle(bot)
        assert (await bot.store.info()).schema_version >= 4
        jazz = bot.croupier.manager.in_channel(general.id)
        assert jazz is not None and jazz.game_id == "jazz"
        assert actions_played(bot, general) == world["played"]
        # Its message id came from the old snapshot; that message is not in this world,
        # so the table was posted anew, saying that the game resumed.
        assert any("resumed" in t for t in table_message(fake, general).all_texts())
        waiting = bot.croupier.manager.in_channel(lobby.id)
        assert waiting is not None and waiting.status == "lobby"
        assert [s.name for s in waiting.seats] == ["Cy", "Alice"]
        assert waiting.options.to_dict() == {**waiting.options.to_dict(), "stake": 0,
                                             "choice": True}
        # The posts now have their own column.
        row = await bot.store.active_table_in_channel(general.id)
        assert row.posts is not None and row.posts["message_id"] == jazz.posts.message_id

        people = [users["alice"], users["bob"], users["cy"]]
        driver = GameDriver(fake, bot, general, people, random.Random(11))
        await driver.play_to_end()
        await idle(bot)
        assert fake.find_message(general, text="final result") is not None
        history = await bot.store.history(fake.world.guild.id)
        assert [g.game for g in history] == ["jazz", "jacko"]
        record = await bot.store.game_record(history[0].game_id)
        result = replay(record, summary=True)
        assert result["complete"] and result["totals"] == [p.points for p in history[0].players]
        board = await bot.store.leaderboard("jacko", fake.world.guild.id)
        assert len(board) == 2  # the old game's ratings are still there
