"""``/settings`` on the fake Discord: who may change them, what they say, what they keep,
and what a new table takes from them (channels, threads, house rules, language, timer,
AI seats)."""

from __future__ import annotations

import discord

import locales
from bot.ui import answer_guard
from engine.text import T
from testkit.fakediscord import FakeDiscord, FakeUser
from testkit.fakediscord.world import FakeRole
from testkit.harness import idle

EXTENSIONS = {"cogs.help": None, "cogs.jazz": "jazz", "cogs.jacko": "jacko",
              "cogs.settings": None}
MANAGE_GUILD = discord.Permissions(manage_guild=True).value


def manager(fake: FakeDiscord, name: str = "manon") -> FakeUser:
    """A member whose role has Manage Server (added before the bot connects)."""
    user = fake.add_user(name)
    guild = fake.world.guild
    role = FakeRole(fake.world.ids.next(), "Managers", MANAGE_GUILD, position=1)
    guild.roles[role.id] = role
    guild.member_roles[user.id].append(role.id)
    return user


async def answer(fake: FakeDiscord, user: FakeUser, where, command: str, /, **options):
    ix = await fake.slash(user, where, command, options)  # ("options" is one of /settings')
    await ix.wait_answered()
    return ix


async def settle(fake: FakeDiscord, bot) -> None:
    await fake.settle()
    await idle(bot)


async def test_settings_are_for_those_who_manage_the_server(fake, general, run_bot):
    member, boss = fake.add_user("alice"), manager(fake)
    owner = fake.user("owner")  # the owner has every permission, Administrator included
    bot = await run_bot(extensions=EXTENSIONS)
    [group] = [c for c in fake.world.commands[None] if c["name"] == "settings"]
    assert int(group["default_member_permissions"]) == MANAGE_GUILD
    assert group.get("contexts") == [0] or group.get("dm_permission") is False
    assert {o["name"] for o in group["options"]} == {
        "show", "language", "timer", "ai", "images", "hints", "channels", "threads",
        "timezone", "role", "rules", "quiet", "pause", "tables",
        "season", "channel", "rewards", "tier",  # (seasons: tests/e2e/test_seasons.py)
        "tournaments"}  # (who may run them: tests/e2e/test_tournaments.py)
    # A server may let others see the command (Integrations): they are still refused.
    for command, options in (("settings show", {}), ("settings threads", {"enabled": True}),
                             ("settings timer", {"time": "2h"})):
        refused = await answer(fake, member, general, command, **options)
        assert refused.response.ephemeral
        assert "Only members with the Manage Server or Administrator permission" in (
            refused.response.content)
    assert await bot.store.server_settings(fake.world.guild.id) is None
    changed = await answer(fake, boss, general, "settings threads", enabled=True)
    assert changed.response.ephemeral
    assert "Each new game opens in a thread of its own." in changed.response.content
    admin = await answer(fake, owner, general, "settings ai", allowed=False)
    assert admin.response.ephemeral and "AI players are not allowed" in admin.response.content
    stored = await bot.store.server_settings(fake.world.guild.id)
    assert stored["threads"] is True and stored["ai_allowed"] is False


async def test_show_says_every_setting_in_words_and_they_survive_a_restart(fake, new_bot):
    boss = manager(fake)
    general, games = fake.channel("general"), fake.channel("games")
    bot = await new_bot(extensions=EXTENSIONS)
    async with fake.running(bot):
        before = await answer(fake, boss, general, "settings show")
        assert before.response.ephemeral
        text = before.text()
        for words in ("speak the server's Discord language (English)",
                      "use the bot's turn timer: 5 minutes", "The host may seat AI players",
                      "Tables show pictures", "Hints are not allowed in rated games",
                      "Games can be opened in any channel",
                      "Games open in the channel where they are started",
                      "None: every game uses its own defaults"):
            assert words in text, words
        for command, options in (("settings language", {"language": "sv"}),
                                 ("settings timer", {"time": "2h"}),
                                 ("settings ai", {"allowed": False}),
                                 ("settings images", {"enabled": False}),
                                 ("settings hints", {"allowed": True}),
                                 ("settings channels", {"action": "add", "channel": games}),
                                 ("settings threads", {"enabled": True}),
                                 ("settings rules", {"game": "jazz",
                                                     "options": "sevens_bonus=20"})):
            ix = await answer(fake, boss, general, command, **options)
            assert ix.response.content.startswith("✅"), (command, ix.response.content)
    bot = await new_bot(extensions=EXTENSIONS)  # a new process, the same database
    async with fake.running(bot):
        after = (await answer(fake, boss, general, "settings show")).text()
    for words in ("New tables speak Svenska.", "2 hours for a move",
                  "AI players are not allowed", "Tables show no pictures",
                  "Hints are allowed in rated games",
                  f"Games can be opened only in: <#{games.id}>",
                  "Each new game opens in a thread of its own",
                  "House rules of Jazz: `sevens_bonus=20`"):
        assert words in after, words
    for key in ("ai_allowed", "hints_allowed", "house_rules", "turn_timer", "None", "True"):
        assert key not in after, key


async def test_a_game_opened_where_games_are_not_allowed_is_refused_and_nothing_made(fake, run_bot):
    boss, alice = manager(fake), fake.add_user("alice")
    general, games, thread = (fake.channel(n) for n in ("general", "games", "table-thread"))
    bot = await run_bot(extensions=EXTENSIONS)
    await answer(fake, boss, games, "settings channels", action="add")  # this channel
    refused = await answer(fake, alice, general, "jazz start")
    await settle(fake, bot)
    assert refused.response.ephemeral
    assert f"games are opened only in: <#{games.id}>" in refused.response.content
    assert bot.croupier.manager.in_channel(general.id) is None
    assert general.messages == []
    # The allowed channel, and a thread of it, open tables.
    for where in (games, thread):
        opened = await answer(fake, alice, where, "jacko start")
        assert "table is open" in opened.response.content
        assert bot.croupier.manager.in_channel(where.id) is not None
    removed = await answer(fake, boss, general, "settings channels", action="remove",
                           channel=games)
    assert "any channel" in removed.response.content
    await answer(fake, alice, general, "jazz start")
    assert bot.croupier.manager.in_channel(general.id) is not None


async def test_house_rules_are_the_defaults_under_the_options_given_at_start(fake, run_bot):
    boss, alice = manager(fake), fake.add_user("alice")
    first, second, third = (fake.world.add_channel(n) for n in ("one", "two", "three"))
    bot = await run_bot(extensions=EXTENSIONS)
    set_ = await answer(fake, boss, first, "settings rules", game="jazz",
                        options="sevens_bonus=20 norwegian=true")
    assert "House rules of Jazz: `sevens_bonus=20 norwegian=true`" in (
        set_.response.content)
    await answer(fake, alice, first, "jazz start")
    table = bot.croupier.manager.in_channel(first.id)
    assert (table.options.sevens_bonus, table.options.norwegian) == (20, True)
    assert "Sevens bonus: 20" in fake.find_message(first, label="Join").text()
    await answer(fake, alice, second, "jazz start", sevens_bonus=80)
    table = bot.croupier.manager.in_channel(second.id)
    assert (table.options.sevens_bonus, table.options.norwegian) == (80, True)
    jacko = await answer(fake, alice, third, "jacko start")  # another game: its own
    assert "table is open" in jacko.response.content
    cleared = await answer(fake, boss, first, "settings rules", game="jazz")
    assert "Jazz has no house rules" in cleared.response.content
    await answer(fake, alice, third, "jacko stop")
    await settle(fake, bot)
    await answer(fake, alice, third, "jazz start")
    table = bot.croupier.manager.in_channel(third.id)
    assert (table.options.sevens_bonus, table.options.norwegian) == (10, False)


async def test_an_invalid_house_rule_is_refused_with_the_engines_reason(fake, general, run_bot):
    boss = manager(fake)
    bot = await run_bot(extensions=EXTENSIONS)
    for options, reason in (("sevens_bonus=lots", "The option 'sevens\\_bonus' must be a "
                                                  "whole number."),  # (escaped: it shows _)
                            ("norwegian=maybe", "The option 'norwegian' must be true or "
                                                "false."),
                            ("colour=red", "There is no option called 'colour'."),
                            ("sevens_bonus", "name=value")):
        refused = await answer(fake, boss, general, "settings rules", game="jazz",
                               options=options)
        assert refused.response.ephemeral and reason in refused.response.content, options
    low = await answer(fake, boss, general, "settings rules", game="jacko",
                       options="target=0")
    assert "The option 'target' must be at least 1." in low.response.content
    assert await bot.store.server_settings(fake.world.guild.id) is None
    bad_time = await answer(fake, boss, general, "settings timer", time="soon")
    assert "as a time" in bad_time.response.content
    assert await bot.store.server_settings(fake.world.guild.id) is None


async def test_the_servers_language_is_the_tables_unless_the_start_says_another(fake, run_bot):
    boss, alice = manager(fake), fake.add_user("alice")  # both read English
    general, games = fake.channel("general"), fake.channel("games")
    bot = await run_bot(extensions=EXTENSIONS)
    said = await answer(fake, boss, general, "settings language", language="sv")
    assert "New tables speak Svenska." in said.response.content
    opened = await answer(fake, alice, general, "jazz start")
    assert "table is open" in opened.response.content  # the answer: its reader's
    assert bot.croupier.manager.in_channel(general.id).language == "sv"
    join = locales.say(T("Join"), "sv")
    assert join != "Join"
    lobby = fake.find_message(general, custom_id_prefix="ct:lobby:")
    assert join in [b.get("label") for b in lobby.buttons()]
    await answer(fake, alice, games, "jazz start", language="da")
    assert bot.croupier.manager.in_channel(games.id).language == "da"
    back = await answer(fake, boss, general, "settings language", language="default")
    assert "the server's Discord language (English)" in back.response.content


async def test_the_default_turn_timer_is_the_servers(fake, run_bot):
    boss, alice = manager(fake), fake.add_user("alice")
    channels = [fake.world.add_channel(n) for n in ("one", "two", "three")]
    bot = await run_bot(extensions=EXTENSIONS)
    for channel, typed, seconds in zip(channels, ("2h", "off", "default"),
                                       (7200, 0, 300), strict=True):
        await answer(fake, boss, channel, "settings timer", time=typed)
        opened = await answer(fake, alice, channel, "jacko start")
        assert "table is open" in opened.response.content
        assert bot.croupier.manager.in_channel(channel.id).turn_timer == seconds, typed


async def test_no_ai_seats_when_the_server_allows_none(fake, run_bot):
    boss, alice = manager(fake), fake.add_user("alice")
    general, games = fake.channel("general"), fake.channel("games")
    bot = await run_bot(extensions=EXTENSIONS)
    await answer(fake, alice, games, "jazz start")  # opened before: keeps Add AI
    await answer(fake, boss, general, "settings ai", allowed=False)
    await answer(fake, alice, general, "jazz start")
    lobby = fake.find_message(general, custom_id_prefix="ct:lobby:")
    ids = [b["custom_id"] for b in lobby.buttons()]
    assert ids and not any(":ai-" in i for i in ids)
    labels = {b["label"] for b in lobby.buttons()}
    assert {"Join", "Leave", "Start", "Cancel"} <= labels and not any("AI" in label
                                                                      for label in labels)
    table = bot.croupier.manager.in_channel(general.id)
    assert not table.ai_allowed
    forged = await fake.forge(alice, lobby, f"ct:lobby:{table.table_id}:{table.step}:ai-easy")
    await forged.wait_answered()
    assert forged.response.ephemeral and "Nothing was changed" in forged.response.content
    assert len(table.seats) == 1
    other = fake.find_message(games, custom_id_prefix="ct:lobby:")
    assert any(":ai-easy" in b["custom_id"] for b in other.buttons())
    assert bot.croupier.manager.in_channel(games.id).ai_allowed


async def test_with_threads_on_each_game_opens_in_a_new_thread(fake, run_bot):
    boss, alice, bob = manager(fake), fake.add_user("alice"), fake.add_user("bob")
    general, games = fake.channel("general"), fake.channel("games")
    thread = fake.channel("table-thread")
    fake.set_bot_permissions(general, create_public_threads=True)
    bot = await run_bot(extensions=EXTENSIONS)
    await answer(fake, boss, general, "settings threads", enabled=True)
    opened = await answer(fake, alice, general, "jazz start")
    await settle(fake, bot)
    made = fake.channel("Jazz · Alice")
    assert made.is_thread and made.parent_id == general.id and made.type == 11
    assert general.messages == []  # the lobby is in the thread, not the channel
    assert opened.response.ephemeral and f"/{made.id}/" in opened.response.content
    table = bot.croupier.manager.in_channel(made.id)
    assert table is not None and table.channel_name == "Jazz · Alice"
    lobby = fake.find_message(made, label="Join")
    await (await fake.click(bob, lobby, label="Join")).wait_answered()
    await settle(fake, bot)
    assert len(table.seats) == 2
    # Another game from the same channel: a thread of its own, no "already a table".
    second = await answer(fake, bob, general, "jacko start")
    assert "table is open" in second.response.content
    assert bot.croupier.manager.in_channel(fake.channel("Jacko · Bob").id) is not None
    # Typed in a thread, the game opens right there.
    await answer(fake, alice, thread, "jacko start")
    assert bot.croupier.manager.in_channel(thread.id) is not None
    # Without Create Public Threads the start says so, and nothing is made.
    channels = len(fake.world.channels)
    refused = await answer(fake, alice, games, "jazz start")
    await settle(fake, bot)
    assert "Create Public Threads" in refused.response.content
    assert len(fake.world.channels) == channels and games.messages == []


async def test_no_table_opens_while_the_settings_cannot_be_read(
        fake, alice, general, run_bot, monkeypatch, caplog):
    """Unreadable settings are not "no settings": the server's restrictions (here: games
    only in #games, no AI seats) would be lifted. The start is refused politely instead,
    and nothing is made, until the settings can be read again."""
    bot = await run_bot(extensions=EXTENSIONS)
    games = fake.channel("games")
    await bot.store.save_server_settings(fake.world.guild.id, {
        "channels": [games.id], "ai_allowed": False})
    real = bot.store.server_settings

    async def broken(guild_id: int) -> None:
        raise RuntimeError("database is locked")

    monkeypatch.setattr(bot.store, "server_settings", broken)
    for where in (general, games):
        refused = await answer(fake, alice, where, "jazz start")
        await settle(fake, bot)
        assert refused.response.ephemeral
        assert refused.response.content == locales.say(answer_guard.SOMETHING_WRONG)
        assert bot.croupier.manager.in_channel(where.id) is None and where.messages == []
    assert "cannot read the settings of guild" in caplog.text

    # A row that is there but damaged (not what the bot writes) is refused the same way.
    async def damaged(guild_id: int) -> dict:
        return {"channels": "all of them", "ai_allowed": "no"}

    monkeypatch.setattr(bot.store, "server_settings", damaged)
    refused = await answer(fake, alice, general, "jazz start")
    await settle(fake, bot)
    assert refused.response.content == locales.say(answer_guard.SOMETHING_WRONG)
    assert bot.croupier.manager.in_channel(general.id) is None
    assert "are corrupt" in caplog.text

    monkeypatch.setattr(bot.store, "server_settings", real)  # storage is back
    refused = await answer(fake, alice, general, "jazz start")
    assert "games are opened only in" in refused.response.content
    opened = await answer(fake, alice, games, "jazz start")
    assert "table is open" in opened.response.content
    assert not bot.croupier.manager.in_channel(games.id).ai_allowed
