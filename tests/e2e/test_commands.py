"""Commands and bad input on the fake Discord: each answered clearly, changing nothing."""

from __future__ import annotations

import random

from testkit.games.jazz import JAZZ_ONLY
from testkit.harness import GameDriver, idle, table_message
from testkit.tables import ALL_GAMES, actions_played


async def test_missing_permissions_are_named_at_start(fake, alice, general, run_bot):
    fake.set_bot_permissions(general, send_messages=False, embed_links=False)
    bot = await run_bot(extensions=JAZZ_ONLY)
    ix = await fake.slash(alice, general, "jazz start")
    await ix.wait_answered()
    assert ix.response.ephemeral
    assert "Send Messages, Embed Links" in ix.response.content
    assert "View Channel" not in ix.response.content
    assert bot.croupier.manager.in_channel(general.id) is None
    assert general.messages == []


async def test_options_reach_the_engine_and_refusals_name_the_rule(fake, general, run_bot):
    users = [fake.add_user(n) for n in ("alice", "bob", "cy", "dee", "eve", "fay")]
    bot = await run_bot(extensions=JAZZ_ONLY)
    ix = await fake.slash(users[0], general, "jazz start", norwegian=True,
                          sevens_bonus=80, turn_timer="2")
    await ix.wait_answered()
    lobby = fake.find_message(general, label="Join")
    assert "Sevens bonus: 80" in lobby.text() and "Turn timer: 2 minutes" in lobby.text()
    for user in users[1:5]:
        await (await fake.click(user, lobby, label="Join")).wait_answered()
    # Norwegian Jazz seats at most 5: the sixth is refused at Join, not at Start.
    full = await fake.click(users[5], lobby, label="Join")
    await full.wait_answered()
    assert "at most 5 players" in full.response.content and full.response.ephemeral
    await (await fake.click(users[0], lobby, label="Start")).wait_answered()
    await idle(bot)
    table = bot.croupier.manager.in_channel(general.id)
    assert table.game.options.norwegian and table.game.options.sevens_bonus == 80
    assert table.turn_timer == 120


async def test_stop_by_host_or_moderator_only_and_recorded_as_stopped(
        fake, users, general, jazz_game):
    mod = fake.add_user("mod")
    fake.world.set_permissions(general, mod, manage_messages=True)
    bot = jazz_game
    driver = GameDriver(fake, bot, general, users, random.Random(8))
    for _ in range(4):
        assert await driver.play_one()
    refused = await fake.slash(users[1], general, "jazz stop")
    await refused.wait_answered()
    assert "Only the host" in refused.response.content
    assert bot.croupier.manager.in_channel(general.id) is not None
    stop = await fake.slash(mod, general, "jazz stop")
    await stop.wait_answered()
    await idle(bot)
    assert not stop.response.ephemeral and "stopped" in stop.response.content
    assert bot.croupier.manager.in_channel(general.id) is None
    history = await bot.store.history(fake.world.guild.id)
    assert len(history) == 1 and not history[0].completed
    record = await bot.store.game_record(history[0].game_id)
    assert sum(len(d["actions"]) for d in record["deals"]) == 4
    assert table_message(fake, general) is None  # no buttons left on a stopped table


async def test_status_rules_help_and_a_cancelled_lobby(fake, alice, bob, general, run_bot):
    bot = await run_bot(extensions=ALL_GAMES)
    nothing = await fake.slash(alice, general, "jacko status")
    await nothing.wait_answered()
    assert "no table in this channel" in nothing.response.content
    helped = await fake.slash(alice, general, "help")
    await helped.wait_answered()
    assert helped.response.ephemeral
    assert all(f"/{c}" in helped.text() for c in ("jazz", "jacko", "attackjack",
                                                   "californiajack"))
    await (await fake.slash(alice, general, "jacko start", target=50)).wait_answered()
    rules = await fake.slash(bob, general, "jacko rules")
    await rules.wait_answered()
    assert "Target: 50" in rules.text() and "`target`" not in rules.text()
    other = await fake.slash(bob, general, "jazz join")
    await other.wait_answered()
    assert "plays Jacko" in other.response.content
    joined = await fake.slash(bob, general, "jacko join")
    await joined.wait_answered()
    status = await fake.slash(bob, general, "jacko status")
    await status.wait_answered()
    assert "2 seated" in status.response.content
    lobby = fake.find_message(general, label="Join")
    not_host = await fake.click(bob, lobby, label="Cancel")
    await not_host.wait_answered()
    assert "Only the host" in not_host.response.content
    await (await fake.click(alice, lobby, label="Cancel")).wait_answered()
    await idle(bot)
    assert bot.croupier.manager.in_channel(general.id) is None
    assert lobby.buttons() == [] and "cancelled" in lobby.text()


async def test_attackjack_refuses_a_stake_above_someones_chips(fake, alice, bob, general, run_bot):
    bot = await run_bot(extensions=ALL_GAMES)
    await (await fake.slash(alice, general, "attackjack start", stake=1500)).wait_answered()
    lobby = fake.find_message(general, label="Join")
    await (await fake.click(bob, lobby, label="Join")).wait_answered()
    start = await fake.click(alice, lobby, label="Start")
    await start.wait_answered()
    assert "The stake is 1500 chips" in start.response.content
    assert "has 1000" in start.response.content
    assert bot.croupier.manager.in_channel(general.id).status == "lobby"


async def test_a_deleted_table_message_is_posted_again(fake, users, general, jazz_game):
    bot = jazz_game
    await idle(bot)
    old = table_message(fake, general)
    await fake.delete_message(old)
    driver = GameDriver(fake, bot, general, users, random.Random(9))
    assert await driver.play_one()
    await idle(bot)
    new = table_message(fake, general)
    assert new is not None and new.id != old.id
    assert any(c.code == 10008 for c in fake.errors)
    assert bot.croupier.manager.in_channel(general.id).posts.message_id == new.id
    for _ in range(3):  # and the game goes on around the new message
        assert await driver.play_one()


async def test_discord_errors_never_crash_the_table(fake, users, general, jazz_game):
    bot = jazz_game
    driver = GameDriver(fake, bot, general, users, random.Random(10))
    faults = [("PATCH", "/channels/*/messages/*", 403, 50013, None),
              ("POST", "/channels/*/messages", 429, 0, 0.05),
              ("PATCH", "/channels/*/messages/*", 503, 0, None),
              ("POST", "/channels/*/messages", 503, 0, None)]
    for method, path, status, code, retry in faults:
        before = actions_played(bot, general)
        fake.fail_next(method, path, status, code, retry_after=retry)
        assert await driver.play_one()
        await idle(bot)
        assert actions_played(bot, general) == before + 1
    assert {c.status for c in fake.errors} >= {403, 429, 503}
    for _ in range(6):  # every player can still move: nobody is stuck
        assert await driver.play_one()
    assert bot.croupier.manager.in_channel(general.id) is not None


async def test_hand_command_and_a_click_on_a_closed_table(fake, users, general, jazz_game):
    bot = jazz_game
    await idle(bot)
    table = bot.croupier.manager.in_channel(general.id)
    user = next(u for u in users if u.id == table.seats[table.to_act].user_id)
    ix = await fake.slash(user, general, "jazz hand")
    await ix.wait_answered()
    assert ix.response.ephemeral and "Your turn" in ix.text()
    assert any(str(c.get("custom_id", "")).startswith("ct:play:")
               for row in ix.response.components for c in row.get("components", []))
    menu = ix.message
    await (await fake.slash(users[0], general, "jazz stop")).wait_answered()
    await idle(bot)
    select = menu.selects()[0]
    late = await fake.select(user, menu, select["custom_id"],
                             [select["options"][0]["value"]])
    await late.wait_answered()
    assert late.response.ephemeral and "table is closed" in late.response.content


async def test_in_a_thread_send_messages_in_threads_is_what_counts(fake, alice, run_bot):
    thread = fake.channel("table-thread")
    fake.set_bot_permissions(thread, send_messages_in_threads=False)
    await run_bot(extensions=JAZZ_ONLY)
    ix = await fake.slash(alice, thread, "jazz start")
    await ix.wait_answered()
    assert "missing the permission Send Messages in Threads" in ix.response.content


async def test_leaving_a_running_game_keeps_the_others_menus_valid(fake, users, general, jazz_game):
    bot = jazz_game
    await idle(bot)
    table = bot.croupier.manager.in_channel(general.id)
    to_act = table.seats[table.to_act].user_id
    leaver = next(u for u in users if u.id != to_act)
    left = await fake.slash(leaver, general, "jazz leave")
    await left.wait_answered()
    assert "I will play your seat" in left.response.content
    assert table.seats[table.seat_of(leaver.id)].away
    before = actions_played(bot, general)
    driver = GameDriver(fake, bot, general, users, random.Random(11))
    assert await driver.play_one()  # the player to act still plays from their menu
    await idle(bot)
    assert actions_played(bot, general) >= before + 1
    assert not driver.answered[-1].response.ephemeral  # applied, not refused as stale
