"""The host's lobby controls on the fake Discord: remove a player, change the options,
and a lobby that never seats more than the chosen variant allows."""

from __future__ import annotations

import asyncio

import pytest

from testkit.fakediscord import FakeDiscordError
from testkit.games.jazz import JAZZ_ONLY
from testkit.harness import idle

REMOVE, OPTIONS, SET = "ct:host-remove:", "ct:host-options:", "ct:host-set:"


def by_prefix(message, prefix):
    return next(c for c in message.leaf_components()
                if str(c.get("custom_id", "")).startswith(prefix))


def table_of(bot, channel):
    return bot.croupier.manager.in_channel(channel.id)


async def open_lobby(fake, channel, users, **options):
    """/jazz start by the first user, the others join; the lobby message."""
    await (await fake.slash(users[0], channel, "jazz start", **options)).wait_answered()
    lobby = fake.find_message(channel, label="Join")
    for user in users[1:]:
        await (await fake.click(user, lobby, label="Join")).wait_answered()
    return lobby


async def open_options(fake, bot, host, lobby):
    """The host presses Options: the private message of menus."""
    ix = await fake.click(host, lobby, by_prefix(lobby, OPTIONS)["custom_id"])
    await ix.wait_done()
    await idle(bot)
    assert ix.ephemeral
    return ix.original


def option_menu(panel, name):
    return next(c for c in panel.selects() if c["custom_id"].endswith(f":{name}"))


async def test_the_host_removes_a_player_and_an_ai_seat_others_are_refused(
        fake, alice, bob, cy, general, run_bot):
    bot = await run_bot(extensions=JAZZ_ONLY)
    lobby = await open_lobby(fake, general, [alice, bob, cy])
    await (await fake.click(alice, lobby, label="Add AI: Easy")).wait_answered()
    table = table_of(bot, general)
    menu = by_prefix(lobby, REMOVE)
    # Everyone but the host, people and the AI seat alike.
    assert [o["label"] for o in menu["options"]] == ["Bob", "Cy", "🤖 Easy AI"]

    before = (table.step, [s.user_id for s in table.seats])
    refused = await fake.select(bob, lobby, menu["custom_id"], [str(cy.id)])
    await refused.wait_answered()
    assert refused.response.ephemeral and "Only the host" in refused.response.content
    assert (table.step, [s.user_id for s in table.seats]) == before

    # Two choices from the same drawing at once: the first acts, the second finds the
    # lobby changed under it and is refused (nothing more removed).
    removed, stale = await asyncio.gather(
        fake.select(alice, lobby, menu["custom_id"], [str(bob.id)]),
        fake.select(alice, lobby, menu["custom_id"], [str(cy.id)]))
    await removed.wait_answered()
    await stale.wait_answered()
    assert removed.response.type == 7  # the lobby redrawn in the answer
    assert stale.response.ephemeral and "lobby just changed" in stale.response.content
    assert [s.shown for s in table.seats] == ["Alice", "Cy", "🤖 Easy AI"]
    assert "Alice removed Bob from the table." in lobby.text()
    assert "Bob" not in [o["label"] for o in by_prefix(lobby, REMOVE)["options"]]

    menu = by_prefix(lobby, REMOVE)
    ai = next(o["value"] for o in menu["options"] if o["label"] == "🤖 Easy AI")
    await (await fake.select(alice, lobby, menu["custom_id"], [ai])).wait_answered()
    assert [s.name for s in table.seats] == ["Alice", "Cy"]
    assert "Alice removed 🤖 Easy AI from the table." in lobby.text()
    await idle(bot)
    fake.assert_no_violations()


async def test_only_the_host_opens_the_options(fake, alice, bob, cy, general, run_bot):
    bot = await run_bot(extensions=JAZZ_ONLY)
    lobby = await open_lobby(fake, general, [alice, bob, cy])
    table = table_of(bot, general)
    step, options = table.step, table.options
    ix = await fake.click(bob, lobby, by_prefix(lobby, OPTIONS)["custom_id"])
    await ix.wait_done()
    await idle(bot)
    assert ix.ephemeral and "Only the host, Alice, can change the options." in ix.text()
    assert not any(m.selects() for m in fake.ephemerals(bob))
    assert (table.step, table.options) == (step, options)
    fake.assert_no_violations()


async def test_the_host_changes_an_option_and_the_lobby_says_it_in_words(
        fake, alice, bob, cy, general, run_bot):
    bot = await run_bot(extensions=JAZZ_ONLY)
    lobby = await open_lobby(fake, general, [alice, bob, cy])
    text = lobby.text()
    for line in ("Sevens bonus: 10", "Norwegian variant: off", "Play every trick: off",
                 "Hands: by DM", "Turn timer: 5 min"):
        assert line in text
    for key in ("sevens_bonus", "norwegian", "play_out", "turn_timer", "`"):
        assert key not in text
    old_start = next(b["custom_id"] for b in lobby.buttons() if b["label"] == "Start")

    panel = await open_options(fake, bot, alice, lobby)
    menu = option_menu(panel, "sevens_bonus")
    assert [o["label"] for o in menu["options"] if o.get("default")] == ["Sevens bonus: 10"]
    assert "80" in [o["value"] for o in menu["options"]]
    ix = await fake.select(alice, panel, menu["custom_id"], ["80"])
    await ix.wait_answered()
    await idle(bot)
    assert ix.response.type == 7 and "✅ Sevens bonus: 80" in panel.content
    table = table_of(bot, general)
    assert table.options.sevens_bonus == 80
    assert "Sevens bonus: 80" in lobby.text()
    assert "Alice set Sevens bonus to 80." in lobby.text()
    # A switch, from the refreshed menu: said on/off.
    switch = option_menu(panel, "play_out")
    await (await fake.select(alice, panel, switch["custom_id"], ["on"])).wait_answered()
    await idle(bot)
    assert table.options.play_out and "Play every trick: on" in lobby.text()

    # The lobby was redrawn at a new step: a Start drawn before the change is stale.
    assert old_start not in [b["custom_id"] for b in lobby.buttons()]
    stale = await fake.forge(alice, lobby, old_start)
    await stale.wait_answered()
    assert stale.response.ephemeral and table.game is None
    await (await fake.click(alice, lobby, label="Start")).wait_answered()
    await idle(bot)
    assert table.game.options.sevens_bonus == 80 and table.game.options.play_out
    fake.assert_no_violations()


async def test_an_invalid_option_value_is_refused_with_the_engines_reason(
        fake, alice, bob, cy, general, run_bot):
    bot = await run_bot(extensions=JAZZ_ONLY)
    lobby = await open_lobby(fake, general, [alice, bob, cy])
    table = table_of(bot, general)
    step = table.step
    panel = await open_options(fake, bot, alice, lobby)
    menu = option_menu(panel, "sevens_bonus")
    for value, reason in (("-5", "The option 'sevens_bonus' must be at least 0."),
                          ("500", "The option 'sevens_bonus' must be at most 200."),
                          ("lots", "That is not a value of this option.")):
        ix = await fake.forge(alice, panel, menu["custom_id"], component_type=3,
                              values=[value])
        await ix.wait_answered()
        shown = ix.response.content.replace("\\_", "_")  # (names are said escaped)
        assert ix.response.ephemeral and reason in shown
    assert (table.options.sevens_bonus, table.step) == (10, step)
    assert "Sevens bonus: 10" in lobby.text()
    fake.assert_no_violations()


async def test_a_norwegian_lobby_seats_at_most_five(fake, general, run_bot):
    users = [fake.add_user(n) for n in ("alice", "bob", "cy", "dee", "eve", "fay")]
    bot = await run_bot(extensions=JAZZ_ONLY)
    lobby = await open_lobby(fake, general, users[:5], norwegian=True)
    table = table_of(bot, general)
    assert "Players (5, 3 to 5 needed)" in lobby.text()
    assert "Norwegian variant: on" in lobby.text()
    joined = await fake.click(users[5], lobby, label="Join")
    await joined.wait_answered()
    assert joined.response.ephemeral
    assert "With the options chosen, Jazz seats at most 5 players." in joined.response.content
    add_ai = next(b for b in lobby.buttons() if b["label"] == "Add AI: Easy")
    assert add_ai.get("disabled")  # the lobby shows it is full
    forced = await fake.forge(users[0], lobby, add_ai["custom_id"])
    await forced.wait_answered()
    assert "seats at most 5 players" in forced.response.content
    assert len(table.seats) == 5
    fake.assert_no_violations()


async def test_switching_to_norwegian_with_six_seated_is_refused(fake, general, run_bot):
    users = [fake.add_user(n) for n in ("alice", "bob", "cy", "dee", "eve", "fay")]
    bot = await run_bot(extensions=JAZZ_ONLY)
    lobby = await open_lobby(fake, general, users)
    table = table_of(bot, general)
    assert "Players (6, 3 to 7 needed)" in lobby.text()
    panel = await open_options(fake, bot, users[0], lobby)
    menu = option_menu(panel, "norwegian")
    ix = await fake.select(users[0], panel, menu["custom_id"], ["on"])
    await ix.wait_answered()
    assert ix.response.ephemeral
    assert ("With that option, Jazz seats at most 5 players and 6 are seated: remove "
            "players first.") in ix.response.content
    assert not table.options.norwegian and "Norwegian variant: off" in lobby.text()

    remove = by_prefix(lobby, REMOVE)
    await (await fake.select(users[0], lobby, remove["custom_id"], [str(users[5].id)])
           ).wait_answered()
    again = await fake.select(users[0], panel, menu["custom_id"], ["on"])
    await again.wait_answered()
    await idle(bot)
    assert table.options.norwegian and "Players (5, 3 to 5 needed)" in lobby.text()
    fake.assert_no_violations()


async def test_the_start_command_offers_the_bounds_and_refuses_beyond_them(
        fake, alice, general, run_bot):
    bot = await run_bot(extensions=JAZZ_ONLY)
    commands = [c for scope in fake.world.commands.values() for c in scope]
    jazz = next(c for c in commands if c["name"] == "jazz")
    start = next(o for o in jazz["options"] if o["name"] == "start")
    bonus = next(o for o in start["options"] if o["name"] == "sevens_bonus")
    assert (bonus["min_value"], bonus["max_value"]) == (0, 200)
    with pytest.raises(FakeDiscordError):  # a Discord client refuses it: never sent
        await fake.slash(alice, general, "jazz start", sevens_bonus=-5)
    assert table_of(bot, general) is None
    fake.assert_no_violations()
