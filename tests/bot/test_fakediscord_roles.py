"""Self-tests of the fake Discord's member roles (testkit/fakediscord/roles.py), driven
through discord.py's own API from a bot running on the fake: Manage Roles and the role
hierarchy checked as Discord does, the roles made and moved seen by a connected bot."""

from __future__ import annotations

import discord
import pytest

from testkit.fakediscord import FakeDiscord

from .test_fakediscord_events import Host, guild_of


async def test_the_bot_gives_and_takes_a_role_below_its_own_with_manage_roles(
        fake_discord: FakeDiscord) -> None:
    fake = fake_discord
    alice = fake.add_user("alice")
    champion = fake.roles.add("Champion")
    fake.set_bot_guild_permissions(manage_roles=True)
    bot = Host()
    async with fake.running(bot):
        guild = guild_of(fake, bot)
        role = guild.get_role(champion.id)
        assert role is not None and guild.me.guild_permissions.manage_roles
        assert guild.me.top_role > role  # what a bot checks before it asks
        member = await guild.fetch_member(alice.id)
        await member.add_roles(role, reason="Season 1 champion")
        assert fake.roles.has(alice, champion)
        await member.add_roles(role)  # held already: a 204 that changes nothing
        assert [r.name for r in fake.roles.of(alice)] == ["Champion"]
        assert [r.id for r in (await guild.fetch_member(alice.id)).roles[1:]] == [role.id]
        await member.remove_roles(role)
        await member.remove_roles(role)  # not held: no harm
        assert not fake.roles.has(alice, champion)
    assert "GUILD_MEMBER_UPDATE" not in bot.received  # (no Guild Members intent)
    puts = [c for c in fake.calls if c.route.endswith("/roles/{role_id}")]
    assert [(c.method, c.status) for c in puts] == [("PUT", 204), ("PUT", 204),
                                                    ("DELETE", 204), ("DELETE", 204)]


@pytest.mark.parametrize("why", ["no manage roles", "role above the bot", "managed role"])
async def test_what_discord_refuses_is_403_50013_and_changes_nothing(
        fake_discord: FakeDiscord, why: str) -> None:
    fake = fake_discord
    alice = fake.add_user("alice")
    role = fake.roles.add("Gold", above_bot=why == "role above the bot")
    if why == "managed role":
        role = fake.world.guild.bot_role
    if why != "no manage roles":
        fake.set_bot_guild_permissions(manage_roles=True)
    bot = Host()
    async with fake.running(bot):
        guild = guild_of(fake, bot)
        member = await guild.fetch_member(alice.id)
        with pytest.raises(discord.Forbidden) as refused:
            await member.add_roles(discord.Object(role.id))
        assert (refused.value.status, refused.value.code) == (403, 50013)
        fake.roles.give(alice, role)  # a moderator's hand: the bot still cannot take it
        with pytest.raises(discord.Forbidden):
            await member.remove_roles(discord.Object(role.id))
    assert fake.roles.has(alice, role) and fake.violations == []


async def test_unknown_members_and_roles_and_everyone_are_404(
        fake_discord: FakeDiscord) -> None:
    fake = fake_discord
    alice = fake.add_user("alice")
    outsider = fake.add_user("outsider", guilds=[])
    fake.set_bot_guild_permissions(manage_roles=True)
    gold = fake.roles.add("Gold")
    bot = Host()
    async with fake.running(bot):
        http = bot.http
        guild_id = fake.world.guild.id
        for user, role, code in ((outsider, gold.id, 10007), (alice, 12345, 10011),
                                 (alice, guild_id, 10011)):
            with pytest.raises(discord.NotFound) as missing:
                await http.add_role(guild_id, user.id, role)
            assert missing.value.code == code


async def test_a_connected_bot_sees_roles_made_and_moved(fake_discord: FakeDiscord) -> None:
    fake = fake_discord
    bot = Host()
    async with fake.running(bot):
        guild = guild_of(fake, bot)
        made = fake.roles.add("Silver")
        await fake.wait_for(lambda: guild.get_role(made.id) is not None)
        silver = guild.get_role(made.id)
        assert silver is not None and guild.me.top_role > silver
        fake.roles.move(made, above_bot=True)
        await fake.wait_for(lambda: silver.position > guild.me.top_role.position)
        assert not guild.me.top_role > silver
        fake.roles.move(made, above_bot=False)
        await fake.wait_for(lambda: guild.me.top_role > silver)
    positions = sorted((r.position, r.name) for r in fake.world.guild.roles.values())
    assert positions == [(0, "@everyone"), (1, "Silver"), (2, "cardtable")]
