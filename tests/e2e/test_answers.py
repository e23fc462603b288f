"""Every interaction is answered within Discord's 3 seconds, whatever happens.

A slow database (another process holding SQLite's write lock) during a move, a
Join and a Start; a save that fails after the deferral; forged, foreign,
replayed and malformed component ids; exceptions in a component and in a
command; clicks while the bot shuts down. The fake Discord records a violation
for any interaction answered late or never, and the fixture fails the test on
any violation, so "answered in time" is checked for every click below.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import contextlib
import dataclasses
import logging
import random
import time
from pathlib import Path

import pytest

from bot.table.ai_runner import AIRunner
from bot.ui import answer_guard
from bot.ui.presenter import SAVE_FAILED
from testkit.fakediscord import FakeChannel, FakeDiscord, FakeUser
from testkit.games.jazz import JAZZ_ONLY
from testkit.harness import (
    FAST,
    GameDriver,
    MakeBot,
    choose,
    hold_for,
    idle,
    live_menu,
    make_bot,
    table_message,
)
from testkit.tables import actions_played, player_to_act, start_jazz

DEFERRED_UPDATE = 6  # Discord's "deferred update message": nothing shown, message editable


def users_of(fake: FakeDiscord, *names: str):
    return [fake.add_user(n) for n in names]


@contextlib.asynccontextmanager
async def jazz_in_play(fake: FakeDiscord, tmp_path: Path, **bot_options):
    """A 3-seat Jazz game started in #general (database: tmp_path / "db.sqlite"), the bot
    quiet: (bot, channel, users)."""
    users = users_of(fake, "alice", "bob", "cy")
    general = fake.channel("general")
    bot = await make_bot(tmp_path / "db.sqlite", extensions=JAZZ_ONLY, **bot_options)
    async with fake.running(bot):
        await start_jazz(fake, general, users)
        await idle(bot)
        yield bot, general, users


@pytest.mark.slow
async def test_a_move_waiting_on_a_slow_database_is_deferred_then_shown(fake, db_path, tmp_path):
    async with jazz_in_play(fake, tmp_path) as (bot, general, users):
        user = player_to_act(fake, bot, general, users)
        before = actions_played(bot, general)
        holder = asyncio.create_task(hold_for(db_path, 3.2))  # beyond Discord's 3 s
        await asyncio.sleep(0.05)
        ix = await choose(fake, user, live_menu(fake, user)[0], random.Random(1))
        await ix.wait_answered(timeout=3)
        assert ix.response.type == DEFERRED_UPDATE  # the watchdog held the answer open
        await holder
        await ix.wait_until(lambda ix: ix.edits, timeout=4)  # the hand, redrawn after it
        await idle(bot)
        assert actions_played(bot, general) == before + 1  # applied once
        assert not any(f.ephemeral and "wrong" in f.content for f in ix.followups)


@pytest.mark.slow
async def test_a_save_failing_after_the_deferral_says_so_and_changes_nothing(
        fake, db_path, tmp_path):
    async with jazz_in_play(fake, tmp_path, store_wait_ms=2600) as (bot, general, users):
        table = bot.croupier.manager.in_channel(general.id)
        user = player_to_act(fake, bot, general, users)
        before, step = actions_played(bot, general), table.step
        message, _ = live_menu(fake, user)
        menu_versions = len(message.versions)
        holder = asyncio.create_task(hold_for(db_path, 4.0))
        await asyncio.sleep(0.05)
        ix = await choose(fake, user, message, random.Random(1))
        await ix.wait_answered(timeout=3)
        assert ix.response.type == DEFERRED_UPDATE
        await ix.wait_until(lambda ix: ix.followups, timeout=4)
        assert ix.followups[0].ephemeral and ix.followups[0].content == SAVE_FAILED
        assert len(message.versions) == menu_versions  # the hand was not redrawn
        await holder
        assert actions_played(bot, general) == before and table.step == step
        # Nothing was lost or half-done: the same menu plays the move now.
        again = await choose(fake, user, message, random.Random(1))
        await again.wait_answered()
        await idle(bot)
        assert again.response.type == 7 and actions_played(bot, general) == before + 1


@pytest.mark.slow
async def test_join_and_start_on_a_slow_database_leave_the_lobby_true(
        fake, general, db_path, run_bot):
    alice, bob, cy = users_of(fake, "alice", "bob", "cy")
    bot = await run_bot(extensions=JAZZ_ONLY)
    await (await fake.slash(alice, general, "jazz start")).wait_answered()
    lobby = fake.find_message(general, label="Join")
    await (await fake.click(bob, lobby, label="Join")).wait_answered()
    holder = asyncio.create_task(hold_for(db_path, 3.0))
    await asyncio.sleep(0.05)
    join = await fake.click(cy, lobby, label="Join")
    await join.wait_answered(timeout=3)
    assert join.response.type == DEFERRED_UPDATE
    await holder
    await join.wait_until(lambda ix: ix.edits, timeout=4)
    assert "Cy" in lobby.text()  # the public lobby shows the seat taken late
    holder = asyncio.create_task(hold_for(db_path, 3.0))
    await asyncio.sleep(0.05)
    start = await fake.click(alice, lobby, label="Start")
    await start.wait_answered(timeout=3)
    assert start.response.type == DEFERRED_UPDATE
    await holder
    await fake.wait_for(lambda: table_message(fake, general) is not None, timeout=4)
    await idle(bot)
    assert lobby.latest["components"] == []  # no Join/Leave/Start left in the channel
    assert "has started" in lobby.text()


def forgeries(fake, bot, general, games, users):
    """(who, message, custom_id, values, shown) a modified client might send mid-game;
    ``shown``: the message does show a component with that id (a real one, misused)."""
    table = bot.croupier.manager.in_channel(general.id)
    other = bot.croupier.manager.in_channel(games.id)
    user = player_to_act(fake, bot, general, users)
    dm, select = live_menu(fake, user)
    channel_message = table_message(fake, general)
    my_hand = next(b["custom_id"] for b in channel_message.buttons())
    outsider = fake.user("zed")
    tid, step = table.table_id, table.step
    real = select["custom_id"]
    return [
        (user, dm, "garbage", None, False),
        (user, dm, "", None, False),
        (user, dm, "ct:", None, False),
        (user, dm, "ct:play:" + "f" * 90, ["AS"], False),
        (user, dm, "x" * 100, None, False),
        (user, dm, f"ct:act:{tid}:{step + 50}:pass", None, False),  # a version to come
        (user, dm, f"ct:act:{tid}:{step - 1}:pass", None, False),  # an old menu replayed
        (user, dm, "ct:act:abcdef12:1:pass", None, False),  # a table that never existed
        (user, dm, f"ct:hist:u:{user.id}:jazz:0:extra", None, False),
        (outsider, channel_message, f"ct:act:{tid}:{step}:pass", None, False),
        (outsider, channel_message, f"ct:lobby:{other.table_id}:{other.step}:join", None,
         False),  # another table's button
        (user, dm, real, ["ZZ"], True),  # the real menu, a card that does not exist
        (user, dm, real, [], True),  # no value at all
        (user, dm, real, ["AS", "KS"], True),  # two at once
        (outsider, channel_message, my_hand, None, True),  # My hand, not seated
    ]


async def test_forged_foreign_replayed_and_malformed_ids_are_answered_and_change_nothing(
        fake, run_bot):
    users = users_of(fake, "alice", "bob", "cy")
    fake.add_user("zed")
    general, games = fake.channel("general"), fake.channel("games")
    bot = await run_bot(extensions=JAZZ_ONLY)
    await (await fake.slash(users[0], games, "jazz start")).wait_answered()  # foreign
    await start_jazz(fake, general, users)
    await idle(bot)
    table = bot.croupier.manager.in_channel(general.id)
    before, step = actions_played(bot, general), table.step
    sent = []
    for who, message, custom_id, values, shown in forgeries(fake, bot, general, games,
                                                            users):
        kind = 2 if values is None else 3
        ix = await fake.forge(who, message, custom_id, component_type=kind, values=values)
        sent.append((ix, shown))
    for ix, _ in sent:
        await ix.wait_answered(timeout=3)
    await idle(bot)
    assert fake.check_unanswered() == []
    assert all(ix.ephemeral for ix, _ in sent)
    assert actions_played(bot, general) == before and table.step == step
    for ix, shown in sent:  # a component not on its message: "no longer active"
        assert (answer_guard.NO_LONGER_ACTIVE in ix.text()) is not shown, ix.data
    # The game goes on as if nothing had happened.
    driver = GameDriver(fake, bot, general, users, random.Random(2))
    assert await driver.play_one()


@pytest.mark.slow
async def test_three_hundred_random_forgeries_during_a_game_are_all_answered(
        fake, general, new_bot):
    users = users_of(fake, "alice", "bob", "cy")
    bot = await new_bot(extensions=JAZZ_ONLY)
    rng = random.Random(5)
    async with fake.running(bot):
        await start_jazz(fake, general, users)
        driver = GameDriver(fake, bot, general, users, random.Random(3))
        table = bot.croupier.manager.in_channel(general.id)
        sent = []
        while len(sent) < 300 and await driver.play_one():
            for _ in range(6):
                user = rng.choice(users)
                where = live_menu(fake, user)
                message = where[0] if where else table_message(fake, general)
                kind = rng.choice(["lobby", "hand", "play", "act", "junk"])
                tid = rng.choice([table.table_id, "0123456789", "zz"])
                version = rng.choice([table.step, table.step - 1, table.step + 1, 0])
                custom_id = {
                    "lobby": f"ct:lobby:{tid}:{version}:{rng.choice(['join', 'start', 'x'])}",
                    "hand": f"ct:hand:{tid}:{version}",
                    "play": f"ct:play:{tid}:{version}:{rng.randrange(6)}",
                    "act": f"ct:act:{tid}:{version}:{rng.choice(['pass', 'AS', '??'])}",
                    "junk": "".join(rng.choice("ct:0123abc") for _ in range(rng.randrange(40))),
                }[kind]
                values = [rng.choice(["AS", "7H", "ZZ"])] if kind == "play" else None
                sent.append(await fake.forge(user, message, custom_id,
                                             component_type=3 if values else 2, values=values))
        for ix in sent:
            await ix.wait_answered(timeout=3)
        await idle(bot)
        assert len(sent) >= 300 and fake.check_unanswered() == []
        await driver.play_to_end()
        assert bot.croupier.manager.in_channel(general.id) is None  # the game ended


async def test_an_exception_in_a_component_is_answered_and_logged_once(
        fake: FakeDiscord, tmp_path: Path, caplog: pytest.LogCaptureFixture):
    async with jazz_in_play(fake, tmp_path) as (bot, general, users):
        table = bot.croupier.manager.in_channel(general.id)
        user = player_to_act(fake, bot, general, users)
        before = actions_played(bot, general)

        async def broken(*args, **kwargs):
            raise RuntimeError("a bug in the move path")

        bot.croupier.moves.move_click = broken
        caplog.set_level(logging.ERROR)
        ix = await choose(fake, user, live_menu(fake, user)[0], random.Random(1))
        await ix.wait_answered()
        assert ix.ephemeral and ix.content == answer_guard.SOMETHING_WRONG
        logged = [r for r in caplog.records
                  if r.exc_info and "a bug in the move path" in str(r.exc_info[1])]
        assert len(logged) == 1  # once, with its traceback
        line = logged[0].getMessage()
        assert str(user.id) in line and table.table_id in line and str(ix.id) in line
        assert actions_played(bot, general) == before
        assert bot.metrics.errors == 1


@pytest.mark.slow
async def test_an_exception_after_the_deferral_edits_in_a_polite_sentence(fake, tmp_path):
    async with jazz_in_play(fake, tmp_path) as (bot, general, users):
        user = player_to_act(fake, bot, general, users)

        async def slow_then_broken(*args, **kwargs):
            await asyncio.sleep(2.6)
            raise RuntimeError("late failure")

        bot.croupier.moves.hand_click = slow_then_broken
        ix = await fake.click(user, table_message(fake, general), label="My hand")
        await ix.wait_answered(timeout=3)
        assert ix.response.type == 5  # My hand answers with a new message: "thinking…"
        await ix.wait_done(timeout=3)
        assert ix.ephemeral and answer_guard.SOMETHING_WRONG in ix.text()


async def test_an_exception_in_a_command_is_answered_and_logged_once(
        fake: FakeDiscord, alice: FakeUser, general: FakeChannel, run_bot: MakeBot,
        caplog: pytest.LogCaptureFixture):
    bot = await run_bot(extensions=JAZZ_ONLY)
    async def broken(*args, **kwargs):
        raise KeyError("a bug in status")

    bot.croupier.commands.status_command = broken
    caplog.set_level(logging.ERROR)
    ix = await fake.slash(alice, general, "jazz status")
    await ix.wait_answered()
    assert ix.ephemeral and ix.content == answer_guard.SOMETHING_WRONG
    logged = [r for r in caplog.records
              if r.exc_info and "a bug in status" in str(r.exc_info[1])]
    assert len(logged) == 1 and "/jazz status" in logged[0].getMessage()
    # The next command works as usual.
    ok = await fake.slash(alice, general, "jazz rules")
    await ok.wait_answered()
    assert ok.embeds


async def test_while_shutting_down_clicks_and_commands_are_refused_politely(fake, tmp_path):
    async with jazz_in_play(fake, tmp_path) as (bot, general, users):
        user = player_to_act(fake, bot, general, users)
        before = actions_played(bot, general)
        bot.closing = True
        click = await choose(fake, user, live_menu(fake, user)[0], random.Random(1))
        command = await fake.slash(user, general, "jazz status")
        for ix in (click, command):
            await ix.wait_answered()
            assert ix.ephemeral and ix.content == answer_guard.SHUTTING_DOWN
        assert actions_played(bot, general) == before
        bot.closing = False


class SlowAI(AIRunner):
    """The tiny AI of the tests, thinking 3 s per decision (a loaded machine)."""

    asked = 0

    async def choose(self, game, seat, level, table_id, **kwargs):  # type: ignore[override]
        self.asked += 1
        await asyncio.sleep(3.0)
        return await super().choose(game, seat, level, table_id, **kwargs)


@pytest.mark.slow
async def test_clicks_while_a_slow_ai_decides_a_timed_out_turn_are_answered(fake, tmp_path, clock):
    ai = SlowAI(concurrent.futures.ThreadPoolExecutor(max_workers=1), iterations=20,
                time_limit=None, owns_executor=True)
    async with jazz_in_play(fake, tmp_path, clock=clock, ai=ai) as (bot, general, users):
        slow = player_to_act(fake, bot, general, users)
        others = [u for u in users if u is not slow]
        before = actions_played(bot, general)
        menu = live_menu(fake, slow)
        clock.advance(300)  # the turn times out: the AI decides it, the table's lock free
        await fake.wait_for(lambda: ai.asked == 1, timeout=2)
        clicks = [await fake.click(u, table_message(fake, general), label="My hand")
                  for u in others]
        clicks.append(await choose(fake, slow, menu[0], random.Random(1)))  # still in time
        for ix in clicks:
            await ix.wait_answered(timeout=3)
        await idle(bot, timeout=10)
        for ix in clicks:
            await ix.wait_done(timeout=3)
        assert actions_played(bot, general) == before + 1  # the player's move, once
        assert all("Your hand" in ix.text() for ix in clicks[:2])
        # Made while the AI still thought, the move stands and the AI's decision is dropped.
        assert "ran out of time" not in table_message(fake, general).text()


async def test_start_and_clicks_while_slow_ai_seats_think_are_answered_at_once(
        fake, alice, general, run_bot):
    ai = SlowAI(concurrent.futures.ThreadPoolExecutor(max_workers=1), iterations=20,
                time_limit=None, owns_executor=True)
    bot = await run_bot(extensions=JAZZ_ONLY, ai=ai)
    await (await fake.slash(alice, general, "jazz start")).wait_answered()
    lobby = fake.find_message(general, label="Join")
    for _ in range(2):
        await (await fake.click(alice, lobby, label="Add AI: Normal")).wait_answered()
    start = await fake.click(alice, lobby, label="Start")
    await start.wait_answered(timeout=1)  # the AI thinks outside the table's lock
    assert start.response.type == 7
    table = bot.croupier.manager.in_channel(general.id)
    await fake.wait_for(lambda: table_message(fake, general) is not None)
    for _ in range(3):  # whoever is to act, My hand answers while the AI searches
        ix = await fake.click(alice, table_message(fake, general), label="My hand")
        await ix.wait_answered(timeout=1)
        assert "Your hand" in ix.text()
    assert table.status == "playing"


async def test_a_start_that_waits_says_thinking_at_once_and_its_answer_follows(
        fake: FakeDiscord, tmp_path):
    """A /start whose storing waits (a burst of openings, here a held database) shows
    "thinking…" after ``start_answer_within``, not after the watchdog's 2.2 s; its answer
    (the table's link) replaces it, and the table is opened once."""
    alice = fake.add_user("alice")
    general = fake.channel("general")
    db_path = tmp_path / "bot.db"
    timing = dataclasses.replace(FAST, start_answer_within=0.1)
    bot = await make_bot(db_path, timing=timing, extensions=JAZZ_ONLY)
    async with fake.running(bot):
        holder = asyncio.create_task(hold_for(db_path, 1.0))
        await asyncio.sleep(0.05)
        began = time.monotonic()
        ix = await fake.slash(alice, general, "jazz start")
        await ix.wait_answered(timeout=3)
        assert ix.response.type == 5 and ix.response.ephemeral  # "thinking…", privately
        assert time.monotonic() - began < 0.9  # before the database let go: not the watchdog
        await holder
        await ix.wait_done(timeout=3)
        assert "table is open" in ix.text() and not ix.original.loading
        await idle(bot)
        assert len(general.messages) == 1  # the lobby, posted once
        assert bot.croupier.manager.in_channel(general.id) is not None
