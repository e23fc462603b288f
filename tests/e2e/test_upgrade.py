"""A bot upgraded in place keeps its server: the database an older bot left behind.

``tests/fixtures/legacy-schema3.sql`` was written by the code of commit 43848af (schema
version 3, before the table machinery was split and before a table's posts had their
own column): a Jacko game finished and rated, a Jazz game ten moves in with hands by
DM, and an AttackJack lobby with two seated. The fixture's ids are those of the fake
Discord it ran on (``legacy-schema3.json``); they are mapped to this world's ids, then
the new bot opens the file, migrates it, restores both live tables and plays on.

``tests/fixtures/twins-schema6.sql`` was written by the code of commit d7c5e2f (schema 6,
a table closed and its game recorded in two transactions) through the failure that
recorded games twice (``twins-schema6.py`` made it): a Jazz game and an AttackJack deal
with stakes, each closed with a failed save, recorded anyway, then restored after a
crash and recorded again. The new bot's migration keeps each table's first game and takes
back what the second moved.
"""

from __future__ import annotations

import json
import random
import sqlite3
from datetime import UTC, datetime
from pathlib import Path

import pytest

from bot.storage import MIGRATIONS, STARTING_CHIPS, FinishedGame, SeatResult
from engine.records import replay
from testkit.fakediscord import FakeDiscord
from testkit.harness import GameDriver, idle, make_bot, table_message
from testkit.tables import actions_played

FIXTURES = Path(__file__).resolve().parent.parent / "fixtures"
T0 = datetime(2026, 1, 1, tzinfo=UTC)
EXTENSIONS: dict[str, str | None] = {"cogs.help": None, "cogs.jazz": "jazz",
                                     "cogs.jacko": "jacko", "cogs.attackjack": "attackjack",
                                     "cogs.history": None}


def legacy_database(fake: FakeDiscord, path: Path, fixture: str = "legacy-schema3"
                    ) -> dict[str, object]:
    """The old database with its ids mapped onto ``fake``'s world; returns the new ids."""
    old = json.loads((FIXTURES / f"{fixture}.json").read_text())
    users = {name: fake.add_user(name) for name in old["users"]}
    channels = {name: fake.channel(name) if name == "general" else fake.world.add_channel(name)
                for name in old["channels"]}
    ids = {old["guild"]: fake.world.guild.id}
    ids |= {old["users"][n]: u.id for n, u in users.items()}
    ids |= {old["channels"][n]: c.id for n, c in channels.items()}
    sql = (FIXTURES / f"{fixture}.sql").read_text()
    # The old DM channels: this world's DM channel of the same user.
    conn = sqlite3.connect(":memory:")
    conn.executescript(sql)
    by_id = {old["users"][name]: user for name, user in users.items()}
    for (data,) in conn.execute("SELECT data FROM live_tables"):
        for seat in json.loads(data)["seats"]:
            if seat.get("dm_channel_id") is not None:  # in the snapshot before schema 4
                ids[seat["dm_channel_id"]] = fake.dm(by_id[seat["user_id"]]).id
    if ("posts",) in conn.execute("SELECT name FROM pragma_table_info('live_tables')"):
        for (posts,) in conn.execute("SELECT posts FROM live_tables WHERE posts IS NOT NULL"):
            for user, channel in json.loads(posts)["dm_channels"].items():
                ids[channel] = fake.dm(by_id[int(user)]).id
    conn.close()
    for before, after in ids.items():
        sql = sql.replace(str(before), str(after))
    conn = sqlite3.connect(path)
    conn.executescript(sql)
    conn.close()
    return {"users": users, "channels": channels, "played": old.get("jazz_actions_played"),
            "tables": old.get("tables")}


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


def raw(path: Path, sql: str) -> list[tuple]:
    conn = sqlite3.connect(path)
    try:
        return conn.execute(sql).fetchall()
    finally:
        conn.close()


@pytest.mark.slow
async def test_games_recorded_twice_by_an_older_bot_are_mended(fake, tmp_path):
    path = tmp_path / "twins.sqlite"
    world = legacy_database(fake, path, "twins-schema6")
    users, channels, tables = world["users"], world["channels"], world["tables"]
    general, duel = channels["general"], channels["duel"]
    guild = fake.world.guild.id
    # As the older bot left it: each table's game twice, counts and chips moved twice.
    games = raw(path, "SELECT game_id, table_id FROM games ORDER BY game_id")
    assert [t for _, t in games] == [tables["jazz"], tables["attackjack"]] * 2
    first = {table: min(g for g, t in games if t == table) for table in tables.values()}
    seats = raw(path, "SELECT g.table_id, g.game, r.user_id, r.won, r.points, r.chips"
                      " FROM results r JOIN games g USING (game_id)"
                      f" WHERE g.game_id IN ({', '.join(map(str, first.values()))})")
    ratings_before = {(scope, game, user): (mu, sigma) for scope, game, user, mu, sigma
                      in raw(path, "SELECT scope, game, user_id, mu, sigma FROM ratings")}
    assert {balance for (balance,) in raw(path, "SELECT balance FROM chips")} == {
        STARTING_CHIPS + 2 * chips for *_, chips in seats if chips}

    bot = await make_bot(path, extensions=EXTENSIONS)
    async with fake.running(bot):
        await idle(bot)
        store = bot.store
        assert (await store.info()).schema_version == len(MIGRATIONS)
        assert sorted(g.game_id for g in await store.history(None)) == sorted(first.values())
        for _table, game, user, won, points, chips in seats:
            for scope in (guild, None):
                row = await store.rank_of(game, scope, user)
                assert row is not None and (row.games, row.wins, row.points) == (
                    1, won, points), (game, scope, user)
                # The rating stays as the second record left it (no exact undo exists).
                key = (scope or 0, game, user)
                assert (row.mu, row.sigma) == ratings_before[key]
            if game == "attackjack":
                assert await store.chips(guild, user) == STARTING_CHIPS + chips
        # Recording a table's game again changes nothing now.
        jazz = [s for s in seats if s[0] == tables["jazz"]]
        again = FinishedGame(guild, general.id, "jazz", T0, T0, True,
                             await store.game_record(first[tables["jazz"]]),
                             [SeatResult(n, u, "x", p, 0, bool(w)) for n, (_, _, u, w, p, _)
                              in enumerate(jazz)], table_id=tables["jazz"])
        assert await store.record_game(again) == first[tables["jazz"]]
        assert len(await store.history(None)) == 2

        # Both channels are usable: a new Jazz table opens in #general, and the series'
        # second deal still waits in #duel.
        opened = await (await fake.slash(users["bob"], general, "jazz start")).wait_answered()
        assert "table is open" in opened.text()
        assert bot.croupier.manager.in_channel(general.id).status == "lobby"
        waiting = bot.croupier.manager.in_channel(duel.id)
        assert waiting is not None and waiting.series_deal == 2
