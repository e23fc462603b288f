"""Two bot processes, shard 0 and shard 1 of 2, on the fake Discord and one real PostgreSQL.

Each process runs ``python -m bot`` (through the fake's runner) with ``SHARD_COUNT=2``,
its own ``SHARD_IDS`` and the same ``DATABASE_URL``. The fake routes as Discord does:
a server's events to its shard's process, and every DM event — so every click on a DM
hand — to shard 0's process only. So the Jazz table in the shard-1 server is played
through the shard-0 process (it applies each DM move on the stored version, answers,
and tells the owner), while its owner draws the table and sends the hands.
"""

from __future__ import annotations

import asyncio
import random
from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from bot.storage.postgres_ownership import table_key
from testkit.fakediscord import FakeChannel, FakeDiscord, FakeUser
from testkit.processes import (
    LAUNCHER,
    BotProcess,
    Players,
    open_jazz,
    pg_rows,
    played,
    seat_users,
)

pytestmark = pytest.mark.slow  # every test here runs the bot as a process

STARTING_CHIPS = 1000
END_SERIES = "ct:endseries:"


class Shards:
    """The two shard processes of one test, on one PostgreSQL database."""

    def __init__(self, fake: FakeDiscord, url: str, tmp_path: Path):
        launcher = tmp_path / "launch_bot.py"
        launcher.write_text(LAUNCHER)
        self.fake, self.url = fake, url
        self.processes = [
            BotProcess(fake, tmp_path / "unused.db", launcher, tmp_path / f"shard{n}.log",
                       url=url, environment={"SHARD_COUNT": "2", "SHARD_IDS": str(n)})
            for n in (0, 1)]

    async def start(self, shard: int) -> None:
        await self.processes[shard].start(wait=False)
        await self.fake.wait_for(lambda: self._up(shard), timeout=30)
        await self.processes[shard].idle()  # its tables restored and resumed

    async def idle(self) -> None:
        """Every running shard process says it has nothing left to do."""
        for process in self.processes:
            if process.proc is not None and process.proc.returncode is None:
                await process.idle()

    def _up(self, shard: int) -> bool:
        self.processes[shard].check_running()
        return shard in self.fake.gateway.live_shards and self.fake.syncs > 0

    async def kill(self, shard: int) -> None:
        await self.processes[shard].kill(wait=False)
        await self.fake.wait_for(lambda: shard not in self.fake.gateway.live_shards,
                                 timeout=5)

    async def stop(self) -> None:
        for process in self.processes:
            await process.stop()

    def logs(self) -> str:
        return "\n".join(p.output() for p in self.processes)


@pytest.fixture
async def fake2() -> AsyncIterator[FakeDiscord]:
    async with FakeDiscord(shard_count=2) as fake:
        yield fake
    fake.assert_no_violations()


@pytest.fixture
async def shards(fake2: FakeDiscord, postgres_url: str, tmp_path: Path
                 ) -> AsyncIterator[Shards]:
    both = Shards(fake2, postgres_url, tmp_path)
    try:
        yield both
    finally:
        await both.stop()


async def lock_holders(url: str, table_ids: list[str]) -> dict[str, list[int]]:
    """The PostgreSQL backends (pids) that hold each table's ownership lock now."""
    rows = await pg_rows(url, "SELECT classid, objid, pid FROM pg_locks"
                              " WHERE locktype = 'advisory' AND granted")
    holders: dict[str, list[int]] = {t: [] for t in table_ids}
    for table_id in table_ids:
        key = table_key(table_id) & (2 ** 64 - 1)
        holders[table_id] = [r["pid"] for r in rows
                             if (r["classid"], r["objid"]) == (key >> 32, key & 0xFFFFFFFF)]
    return holders


async def table_id_in(url: str, channel: FakeChannel) -> str:
    [row] = await pg_rows(url, "SELECT table_id FROM live_tables WHERE channel_id = $1"
                               " AND status = 'playing'", channel.id)
    return str(row["table_id"])


async def finish(players: list[Players]) -> None:
    going = list(players)
    while going:
        await asyncio.gather(*(p.move() for p in going))
        going = [p for p in going if not p.over()]
        assert all(len(p.moves) < 400 for p in going), "a game does not end"


async def test_two_shard_processes_play_on_one_postgres_with_dm_clicks_at_shard_zero(
        fake2: FakeDiscord, shards: Shards) -> None:
    fake = fake2
    second = fake.add_guild("second", shard=1)
    home, away = fake.channel("general"), fake.channel("general", guild=second)
    assert (fake.shard_of(home), fake.shard_of(away)) == (0, 1)
    trio_home = [fake.add_user(n) for n in ("alice", "bob", "cy")]
    trio_away = [fake.add_user(n) for n in ("dan", "eve", "fay")]
    await shards.start(0)
    await shards.start(1)
    await open_jazz(fake, home, trio_home)
    await open_jazz(fake, away, trio_away)
    at_home = Players(fake, home, trio_home, random.Random(3))
    abroad = Players(fake, away, trio_away, random.Random(4))
    tables = [await table_id_in(shards.url, home), await table_id_in(shards.url, away)]

    # Each table is held by one process, each by its own shard's.
    holders = await lock_holders(shards.url, tables)
    assert all(len(h) == 1 for h in holders.values()), holders
    assert holders[tables[0]] != holders[tables[1]]

    # DM moves at both tables: the away table's reach shard 0, which applies them; its
    # owner (shard 1) then draws the table and sends the next hand by DM — nobody needs
    # to press My hand for a menu.
    for _ in range(12):
        await asyncio.gather(at_home.move(), abroad.move())
    assert abroad.asked == 0, "the owner did not send the next hand after a DM move"
    saved = await shards.processes[1].live_table(away.id)
    assert played(saved["game"], seat_users(saved)) == abroad.moves
    table_message = fake.find_message(away, label="My hand")
    assert table_message is not None
    to_act = f"<@{seat_users(saved)[_to_act(saved)]}> to play"
    # The owner redraws it (edits may be merged a moment: the latest state is drawn).
    await fake.wait_for(lambda: to_act in table_message.content, timeout=10)

    # Shard 1's process dies mid-game; shard 0 plays on at home; a new shard-1 process
    # takes the away table over and the game goes on with nothing lost.
    await shards.kill(1)
    for _ in range(4):
        await at_home.move()
    holders = await lock_holders(shards.url, tables)
    assert holders[tables[1]] == [], "a dead process's table stays claimed"
    await shards.start(1)
    holders = await lock_holders(shards.url, tables)
    assert all(len(h) == 1 for h in holders.values()) and \
        holders[tables[0]] != holders[tables[1]], holders
    await finish([at_home, abroad])
    await shards.idle()

    for channel, players in ((home, at_home), (away, abroad)):
        _, record, seats = await shards.processes[0].stored_game(channel.id)
        assert played(record, seats) == players.moves, f"#{channel.name} lost or doubled a move"
        for deal in range(1, 6):
            posts = [m for m in fake.messages(channel) if f"deal {deal} is over" in m.text()]
            assert len(posts) == 1, f"deal {deal}'s result in {channel} posted {len(posts)}x"
    assert await lock_holders(shards.url, tables) == {t: [] for t in tables}, \
        "a finished table is still claimed"


def _to_act(saved: dict) -> int:
    from engine.records import restore
    seat = restore(saved["game"]).to_act
    assert seat is not None
    return seat


async def open_attackjack(fake: FakeDiscord, channel: FakeChannel, pair: list[FakeUser],
                          stake: int) -> None:
    await (await fake.slash(pair[0], channel, "attackjack start", stake=stake)
           ).wait_answered()
    lobby = fake.find_message(channel, label="Join")
    assert lobby is not None
    await (await fake.click(pair[1], lobby, label="Join")).wait_answered()


async def test_games_finishing_at_once_in_both_processes_lose_no_chips_nor_ratings(
        fake2: FakeDiscord, shards: Shards) -> None:
    fake = fake2
    second = fake.add_guild("second", shard=1)
    home, away = fake.channel("general"), fake.channel("general", guild=second)
    pair = [fake.add_user("gus"), fake.add_user("hal")]
    await shards.start(0)
    await shards.start(1)
    for channel in (home, away):
        await open_attackjack(fake, channel, pair, stake=100)
    lobbies = [fake.find_message(ch, label="Start") for ch in (home, away)]
    assert all(lobbies)
    # Both hosts start at the same moment: AttackJack without `choice` plays itself, so
    # both deals end, and both processes record them, together.
    await asyncio.gather(*(fake.click(pair[0], lobby, label="Start")
                           for lobby in lobbies if lobby is not None))
    await fake.wait_for(lambda: all(
        fake.find_message(ch, custom_id_prefix=END_SERIES) is not None for ch in (home, away)),
        timeout=15)
    for channel in (home, away):
        result = fake.find_message(channel, custom_id_prefix=END_SERIES)
        assert result is not None
        [end] = [c["custom_id"] for c in result.leaf_components()
                 if str(c.get("custom_id", "")).startswith(END_SERIES)]
        await (await fake.click(pair[0], result, end)).wait_answered()
    await shards.idle()

    games = await pg_rows(shards.url, "SELECT game_id, guild_id, chips_applied FROM games"
                                      " WHERE game = 'attackjack'")
    assert {g["guild_id"] for g in games} == {fake.world.guild.id, second.id}
    for guild in (fake.world.guild.id, second.id):
        deals = [g for g in games if g["guild_id"] == guild]
        balances = await pg_rows(shards.url, "SELECT balance FROM chips WHERE guild_id = $1",
                                 guild)
        assert sum(b["balance"] for b in balances) == 2 * STARTING_CHIPS, "chips conserved"
        moved = await pg_rows(shards.url, "SELECT SUM(r.chips) AS net, COUNT(*) AS n FROM"
                                          " results r JOIN games g USING (game_id)"
                                          " WHERE g.guild_id = $1", guild)
        assert moved[0]["net"] == 0 and moved[0]["n"] == 2 * len(deals)
    # The global ratings count every deal of both servers once: none lost to a race.
    ratings = await pg_rows(shards.url, "SELECT user_id, games FROM ratings"
                                        " WHERE game = 'attackjack' AND scope = 0")
    assert {r["user_id"]: r["games"] for r in ratings} == \
        {u.id: len(games) for u in pair}


async def test_a_dm_hint_and_the_ai_seat_of_another_shards_table(
        fake2: FakeDiscord, shards: Shards) -> None:
    """Jacko against an AI seat in the shard-1 server, played from a DM: the hint is
    searched and marked by shard 0's process (the DM's), and the owner draws the mark
    and plays the AI seat after each of the person's moves."""
    fake = fake2
    second = fake.add_guild("second", shard=1)
    away = fake.channel("general", guild=second)
    ivy = fake.add_user("ivy")
    await shards.start(0)
    await shards.start(1)
    await (await fake.slash(ivy, away, "jacko start", target=30)).wait_answered()
    lobby = fake.find_message(away, label="Join")
    assert lobby is not None
    await (await fake.click(ivy, lobby, label="Add AI: Easy")).wait_answered()
    await (await fake.click(ivy, lobby, label="Start")).wait_answered()
    player = Players(fake, away, [ivy], random.Random(6))
    await player.play(3)  # each answered at shard 0; the AI's replies come from shard 1

    menu = await fake.wait_for(player.fresh_menu, timeout=10)
    assert menu is not None
    _, dm = menu
    [hint] = [c["custom_id"] for c in dm.leaf_components()
              if str(c.get("custom_id", "")).startswith("ct:hint:")]
    ix = await fake.click(ivy, dm, hint)
    await ix.wait_done()
    assert "The Normal AI would play" in ix.text()
    saved = await shards.processes[0].live_table(away.id)
    assert saved["hinted"] == [seat_users(saved).index(ivy.id)]
    table = fake.find_message(away, label="My hand")
    assert table is not None
    await fake.wait_for(lambda: "Ivy asked the AI for a hint" in table.text(), timeout=10)

    await finish([player])
    assert player.asked == 0, "the owner did not play the AI seat and send the next hand"
    await shards.idle()
    _, record, seats = await shards.processes[0].stored_game(away.id)
    assert [s for s in seats if s is not None] == [ivy.id]
    assert [m for m in played(record, seats) if m[0] == ivy.id] == player.moves
    assert record["hinted"] == [seats.index(ivy.id)]
