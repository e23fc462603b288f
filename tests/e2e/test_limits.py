"""Limits and forgetting on the fake Discord (issue #26): open tables capped per host and
per server (``/settings tables``), threads per game included; a running game nobody moves
on stopped after 30 days, timer or not; the tables of a deleted channel or thread, or of
a server the bot was removed from, stopped and forgotten without a request to the gone
place; closed tables' rows pruned by the running bot, their games kept."""

from __future__ import annotations

import asyncio
import random
from datetime import timedelta
from pathlib import Path

from bot.actions import table_setup
from bot.app.client import CardTableBot
from bot.config.settings import DAY, Settings
from bot.storage import Storage, TableRow
from testkit.clock import FakeClock, ManualClock
from testkit.fakediscord import FakeChannel, FakeDiscord, FakeUser
from testkit.fakediscord.departures import delete_channel, remove_bot
from testkit.games.jazz import JAZZ_ONLY
from testkit.harness import FAST, cheap_ai, choose, idle, is_move, live_menu, table_message
from testkit.tables import live, player_to_act, start_jazz
from tests.e2e.test_settings import answer, manager, settle

EXTENSIONS = {"cogs.help": None, "cogs.jazz": "jazz", "cogs.jacko": "jacko",
              "cogs.settings": None}
OPEN = "table is open"


def hosted(bot: CardTableBot, user: FakeUser) -> list[str]:
    return [t.table_id for t in bot.croupier.manager.all() if t.host_id == user.id]


# ------------------------------------------------------------------ the caps


async def test_a_host_has_three_open_tables_at_most_and_a_fourth_start_changes_nothing(
        fake, run_bot):
    alice, bob = fake.add_user("alice"), fake.add_user("bob")
    rooms = [fake.channel(n) for n in ("general", "games", "table-thread")]
    more, spare = fake.world.add_channel("more"), fake.world.add_channel("spare")
    bot = await run_bot(extensions=EXTENSIONS)
    for room, game in zip(rooms, ("jazz", "jacko", "jazz"), strict=True):
        assert OPEN in (await answer(fake, alice, room, f"{game} start")).response.content
    calls = fake.mark()
    refused = await answer(fake, alice, more, "jacko start")
    await settle(fake, bot)
    assert refused.response.ephemeral
    said = refused.response.content
    assert "You already host 3 open tables on this server" in said, said
    assert "stop" in said and "Nothing was opened." in said
    assert all(f"/{room.id}/" in said for room in rooms)  # a link to each of them
    assert bot.croupier.manager.in_channel(more.id) is None and more.messages == []
    assert [c.route for c in fake.calls_since(calls)
            if not c.route.startswith(("POST /interactions", "GET /"))] == []
    assert len(hosted(bot, alice)) == 3
    # Another host is not held to alice's cap; alice's place comes back when she stops one.
    assert OPEN in (await answer(fake, bob, more, "jazz start")).response.content
    stopped = await answer(fake, alice, rooms[0], "jazz stop")
    assert "stopped the Jazz table" in stopped.response.content
    assert OPEN in (await answer(fake, alice, spare, "jacko start")).response.content
    assert len(hosted(bot, alice)) == 3


async def test_a_server_sets_its_caps_under_the_bots_and_a_start_over_them_is_refused(
        fake, run_bot):
    boss, alice, bob, cy = manager(fake), *(fake.add_user(n) for n in ("alice", "bob", "cy"))
    general, games = fake.channel("general"), fake.channel("games")
    more = fake.world.add_channel("more")
    bot = await run_bot(extensions=EXTENSIONS)
    shown = (await answer(fake, boss, general, "settings show")).text()
    assert "at most 50 on this server, and 3 per host" in shown
    changed = await answer(fake, boss, general, "settings tables", per_server=2)
    assert changed.response.content == ("✅ Open tables at once, lobbies included: at most 2 "
                                        "on this server, and 2 per host.")
    for options, refusal in (({"per_server": 51}, "This bot allows at most 50 open tables "
                                                  "per server. Nothing was changed."),
                             ({"per_host": 3}, "A host cannot have more open tables than "
                                               "the server allows: at most 2.")):
        refused = await answer(fake, boss, general, "settings tables", **options)
        assert refusal in refused.response.content
    stored = await bot.store.server_settings(fake.world.guild.id)
    assert (stored["tables_per_server"], stored["tables_per_host"]) == (2, None)

    assert OPEN in (await answer(fake, alice, general, "jazz start")).response.content
    assert OPEN in (await answer(fake, bob, games, "jacko start")).response.content
    refused = await answer(fake, cy, more, "jazz start")
    await settle(fake, bot)
    assert refused.response.ephemeral
    assert "This server already has 2 open tables (lobbies included)" in (
        refused.response.content)
    assert bot.croupier.manager.in_channel(more.id) is None and more.messages == []
    back = await answer(fake, boss, general, "settings tables", per_server=0, per_host=1)
    assert "at most 50 on this server, and 1 per host" in back.response.content
    assert OPEN in (await answer(fake, cy, more, "jazz start")).response.content


async def test_with_threads_per_game_a_host_gets_three_threads_however_fast_they_start(
        fake, run_bot, monkeypatch):
    """The report: twelve lobbies in a row. Six starts at once, each thread made only once
    every start has been checked (so none is counted from a table already open), then six
    more one by one: three tables, three threads, and the rest refused."""
    boss, alice = manager(fake), fake.add_user("alice")
    general = fake.channel("general")
    fake.set_bot_permissions(general, create_public_threads=True)
    bot = await run_bot(extensions=EXTENSIONS)
    await answer(fake, boss, general, "settings threads", enabled=True)
    making, checked = [], asyncio.Event()
    real = table_setup.open_thread

    async def held(interaction, title):
        making.append(interaction.id)
        await checked.wait()
        return await real(interaction, title)

    monkeypatch.setattr(table_setup, "open_thread", held)
    at_once = await asyncio.gather(*(fake.slash(alice, general, "jazz start")
                                     for _ in range(6)))

    def refused() -> int:
        return sum(ix.response is not None and "You already host" in ix.text()
                   for ix in at_once)

    await fake.wait_for(lambda: len(making) + refused() == 6)  # every start checked
    checked.set()
    for ix in at_once:
        await ix.wait_done()
    one_by_one = [await answer(fake, alice, general, "jazz start") for _ in range(6)]
    await settle(fake, bot)
    said = [ix.text() for ix in at_once + one_by_one]
    assert sum(OPEN in s for s in said) == 3, said
    assert sum("You already host 3 open tables" in s for s in said) == 9, said
    assert len(making) == 3  # a refused start made no thread
    threads = [c for c in fake.world.channels.values() if c.parent_id == general.id]
    assert len(threads) == 3
    assert sorted(live(bot, t).table_id for t in threads) == sorted(hosted(bot, alice))


async def test_a_table_being_stored_counts_once_for_a_start_meanwhile(fake, run_bot,
                                                                      monkeypatch):
    """The manager holds a new table before storage has it: a start checked in between
    counts it once (at a server cap of 2, a second table still opens)."""
    boss, alice, bob = manager(fake), fake.add_user("alice"), fake.add_user("bob")
    general, games = fake.channel("general"), fake.channel("games")
    bot = await run_bot(extensions=EXTENSIONS)
    await answer(fake, boss, general, "settings tables", per_server=2)
    storing, stored = asyncio.Event(), asyncio.Event()
    real = bot.store.create_table

    async def slow(row):
        if row.channel_id == general.id:
            storing.set()
            await stored.wait()
        return await real(row)

    monkeypatch.setattr(bot.store, "create_table", slow)
    first = await fake.slash(alice, general, "jazz start")
    await storing.wait()  # alice's table: held by the manager, not stored yet
    second = await answer(fake, bob, games, "jazz start")
    stored.set()
    await first.wait_done()
    assert OPEN in second.text() and OPEN in first.text(), (second.text(), first.text())
    assert live(bot, general) is not None and live(bot, games) is not None


# ------------------------------------------------------------------ a game nobody moves on


async def test_a_game_nobody_moves_on_stops_after_30_days_even_without_a_timer(
        fake, users, general, jazz_bot, clock):
    bot = jazz_bot
    await start_jazz(fake, general, users, turn_timer="off")
    await idle(bot)
    table = live(bot, general)
    assert table is not None and table.turn_timer == 0
    footer = table_message(fake, general).embeds[0]["footer"]["text"]
    assert "stopped after 30 days without a move" in footer
    clock.advance(20 * DAY)
    await idle(bot)
    mover = player_to_act(fake, bot, general, users)
    message, _ = live_menu(fake, mover)
    await (await choose(fake, mover, message, random.Random(1))).wait_answered()
    await idle(bot)
    clock.advance(30 * DAY - 1)  # 50 days open, but 30 less a second since the move
    await idle(bot)
    assert live(bot, general) is table
    clock.advance(1)
    await idle(bot)
    assert live(bot, general) is None
    row = await bot.store.load_table(table.table_id)
    assert isinstance(row, TableRow) and row.status == "stopped"
    [summary] = await bot.store.history(fake.world.guild.id)  # recorded as stopped:
    assert not summary.completed  # it counts for nobody, as a host's stop
    assert await bot.store.leaderboard("jazz", fake.world.guild.id) == []
    # (Told once the table is closed: the fake sees it come.)
    await fake.wait_for(lambda: "so I stopped it" in general.last_message.content)
    notice = general.last_message
    assert "Nobody moved at the Jazz table for 30 days, so I stopped it" in notice.content
    assert all(f"<@{u.id}>" in notice.content for u in users)
    board = fake.find_message(general, text="Nobody moved for 30 days, so the table was "
                                            "stopped.")
    assert board is not None and table_message(fake, general) is None  # no My hand left


async def test_an_idle_stop_storage_refuses_is_tried_again_later_not_in_a_loop(
        fake, users, general, jazz_bot, clock, monkeypatch):
    bot = jazz_bot
    await start_jazz(fake, general, users, turn_timer="off")
    await idle(bot)
    table = live(bot, general)
    real, tries = bot.store.finish_table, []

    async def failing_once(*args, **kwargs):
        tries.append(args[0])
        if len(tries) == 1:
            raise RuntimeError("database is locked")
        return await real(*args, **kwargs)

    monkeypatch.setattr(bot.store, "finish_table", failing_once)
    clock.advance(30 * DAY)
    await idle(bot)
    assert len(tries) == 1 and live(bot, general) is table  # as it was, still playing
    assert table.status == "playing" and table.lines != []
    clock.advance(600 - 1)
    await idle(bot)
    assert len(tries) == 1  # no second try at once
    clock.advance(1)
    await idle(bot)
    assert len(tries) == 2 and live(bot, general) is None
    await fake.wait_for(lambda: "so I stopped it" in general.last_message.content)


async def test_a_game_left_idle_while_the_bot_was_down_is_stopped_when_it_comes_back(
        fake, users, general, run_bot, clock):
    bot = await run_bot(extensions=JAZZ_ONLY, clock=clock)
    await start_jazz(fake, general, users, turn_timer="off")
    await idle(bot)
    table_id = live(bot, general).table_id
    await fake.stop_bot(bot)
    clock.advance(31 * DAY)
    again = await run_bot(extensions=JAZZ_ONLY, clock=clock)
    await idle(again)
    assert live(again, general) is None
    assert (await again.store.load_table(table_id)).status == "stopped"
    await fake.wait_for(lambda: "so I stopped it" in general.last_message.content)


# ------------------------------------------------------------------ places that go away


def requests_to(fake: FakeDiscord, since: int, *channels: FakeChannel) -> list[str]:
    ids = {str(c.id) for c in channels}
    return [f"{c.method} {c.path}" for c in fake.calls_since(since)
            if any(part in ids for part in c.path.split("/"))]


async def test_a_deleted_channel_ends_its_game_quietly_and_tells_the_players_by_dm(
        fake, users, general, jazz_game):
    bot = jazz_game
    await idle(bot)
    table = live(bot, general)
    since = fake.mark()
    await delete_channel(fake, general)
    await fake.wait_for(lambda: live(bot, general) is None)
    await idle(bot)
    assert requests_to(fake, since, general) == []
    assert [c for c in fake.calls_since(since) if c.status >= 400] == []
    row = await bot.store.load_table(table.table_id)
    assert isinstance(row, TableRow) and row.status == "stopped"
    assert await bot.store.history(fake.world.guild.id) == []  # nothing recorded
    for user in users:  # each live hand is now the one line, its menu gone
        assert not any(is_move(c) for _, c in fake.visible_components(user))
        assert any("The Jazz table ended: its channel was deleted." in m.content
                   for m in fake.messages(user)), user


async def test_a_deleted_thread_and_a_channel_deleted_with_its_game_threads(fake, run_bot):
    boss, alice, bob = manager(fake), fake.add_user("alice"), fake.add_user("bob")
    general, games = fake.channel("general"), fake.channel("games")
    thread = fake.channel("table-thread")
    fake.set_bot_permissions(general, create_public_threads=True)
    bot = await run_bot(extensions=EXTENSIONS)
    await answer(fake, alice, thread, "jazz start")
    await answer(fake, bob, games, "jazz start")  # (the thread's parent: its own table)
    await answer(fake, boss, general, "settings threads", enabled=True)
    await answer(fake, alice, general, "jacko start")
    made = fake.channel("Jacko · Alice")
    assert live(bot, thread) is not None and live(bot, made) is not None
    since = fake.mark()
    await delete_channel(fake, thread)
    await fake.wait_for(lambda: live(bot, thread) is None)
    assert live(bot, games) is not None and live(bot, made) is not None
    await delete_channel(fake, general)  # its game thread goes with it
    await fake.wait_for(lambda: live(bot, made) is None)
    await idle(bot)
    assert requests_to(fake, since, general, thread, made) == []
    assert live(bot, games) is not None  # the parent channel of a deleted thread plays on
    assert hosted(bot, alice) == []


async def test_a_server_the_bot_is_removed_from_has_its_tables_ended_and_forgotten(
        fake, run_bot):
    alice, bob = fake.add_user("alice"), fake.add_user("bob")
    other = fake.add_guild("Other Club")
    general, games = fake.channel("general"), fake.channel("games")
    elsewhere = fake.channel("general", guild=other)
    bot = await run_bot(extensions=EXTENSIONS)
    await start_jazz(fake, general, [alice, bob, fake.add_user("cy")])
    await answer(fake, bob, games, "jacko start")
    await answer(fake, alice, elsewhere, "jazz start")
    await idle(bot)
    ids = [live(bot, c).table_id for c in (general, games)]
    since = fake.mark()
    await remove_bot(fake, fake.world.guild)
    await fake.wait_for(lambda: live(bot, general) is None and live(bot, games) is None)
    await idle(bot)
    assert requests_to(fake, since, general, games) == []
    assert [(await bot.store.load_table(i)).status for i in ids] == ["stopped", "stopped"]
    assert await bot.store.history(fake.world.guild.id) == []
    assert live(bot, elsewhere) is not None  # another server's table plays on
    assert any("I was removed from its server" in m.content for m in fake.messages(alice))


# ------------------------------------------------------------------ closed tables pruned


async def test_the_bot_prunes_closed_tables_and_their_games_stay_in_the_history(
        fake, users, general, tmp_path: Path):
    stamps = FakeClock()  # storage's clock, moved by days; the bot's is moved by hand
    clock = ManualClock()
    store = await Storage.open(tmp_path / "db.sqlite", clock=stamps)
    settings = Settings(token="fake-token", database_path=tmp_path / "db.sqlite",
                        dev_guild_id=None, log_level=20, timing=FAST)
    bot = CardTableBot(settings, store=store, clock=clock, timing=FAST, extensions=JAZZ_ONLY,
                       seed=7, ai=cheap_ai())
    try:
        async with fake.running(bot):
            await start_jazz(fake, general, users)
            await idle(bot)
            table_id = live(bot, general).table_id
            await answer(fake, users[0], general, "jazz stop")  # recorded, as stopped
            await idle(bot)
            [game] = await store.history(fake.world.guild.id)
            every = settings.limits.prune_every
            stamps.now += timedelta(days=29)
            clock.advance(every)
            await idle(bot)  # (a pass is a task of the bot's: idle once it is done)
            assert isinstance(await store.load_table(table_id), TableRow)  # 29 days: kept
            stamps.now += timedelta(days=2)
            clock.advance(every)
            await idle(bot)
            assert await store.load_table(table_id) is None
            assert [g.game_id for g in await store.history(fake.world.guild.id)] == [
                game.game_id]
            assert await store.game_record(game.game_id) is not None
    finally:
        await store.close()


# ------------------------------------------------------------------ /settings says safely


async def test_settings_say_what_was_typed_and_the_servers_name_without_markup(fake, run_bot):
    """A refusal repeats what a manager typed, and the settings name the server: neither
    can make a link, a mention or markdown (both are said to that manager alone, still)."""
    boss = manager(fake)
    general = fake.channel("general")
    fake.world.guild.name = "Club](https://evil.example/login) [x"
    bot = await run_bot(extensions=EXTENSIONS)
    for command, options in (
            ("settings timer", {"time": "[free nitro](https://evil.example/x) @everyone"}),
            ("settings rules", {"game": "jazz", "options": "[nitro](https://evil.example)=1"}),
            ("settings rules", {"game": "jazz", "options": "@everyone=1"})):
        refused = (await answer(fake, boss, general, command, **options)).response.content
        assert "](" not in refused and "@everyone" not in refused, refused
        assert "nitro" in refused or "everyone" in refused, refused  # still said
    shown = await answer(fake, boss, general, "settings show")
    title = shown.response.embeds[0]["title"]
    assert "](" not in title and "Club" in title, title
    assert await bot.store.server_settings(fake.world.guild.id) is None  # nothing changed
