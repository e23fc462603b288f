"""The fake Discord's sharding: several guilds, each on its shard, and several clients
(processes) each holding some shards of one fake, routed as Discord routes events."""

from __future__ import annotations

import re
from collections.abc import AsyncIterator
from dataclasses import dataclass
from pathlib import Path

import discord
import pytest
import pytest_asyncio
from discord import app_commands
from discord.http import Route

from bot.app.client import CardTableBot
from bot.config.settings import Settings
from bot.storage import Storage
from testkit.clock import ManualClock
from testkit.fakediscord import FakeChannel, FakeDiscord, FakeDiscordError, FakeGuild, FakeUser
from testkit.harness import FAST, cheap_ai


def label(interaction: discord.Interaction) -> str:
    client = interaction.client
    assert isinstance(client, ShardClient)
    client.interactions.append(interaction.id)
    return client.label


class WhoButton(discord.ui.DynamicItem[discord.ui.Button], template=r"who"):
    """Answers with the label of the client that received the click."""

    def __init__(self) -> None:
        super().__init__(discord.ui.Button(label="Who", custom_id="who"))

    @classmethod
    async def from_custom_id(
        cls, interaction: discord.Interaction, item: discord.ui.Button, match: re.Match[str]
    ) -> WhoButton:
        return cls()

    async def callback(self, interaction: discord.Interaction) -> None:
        await interaction.response.send_message(label(interaction), ephemeral=True)


def who_view() -> discord.ui.View:
    view = discord.ui.View(timeout=None)
    view.add_item(WhoButton())
    return view


@app_commands.command(name="where", description="which client got this")
async def where(interaction: discord.Interaction) -> None:
    await interaction.response.send_message(label(interaction))


@app_commands.command(name="post", description="a message with a Who button")
async def post(interaction: discord.Interaction) -> None:
    await interaction.response.send_message(f"posted by {label(interaction)}", view=who_view())


@app_commands.command(name="hand", description="a DM with a Who button")
async def hand(interaction: discord.Interaction) -> None:
    await interaction.user.send(f"hand from {label(interaction)}", view=who_view())
    await interaction.response.send_message("sent", ephemeral=True)


@app_commands.command(name="handoff", description="kept unanswered for another client")
async def handoff(interaction: discord.Interaction) -> None:
    label(interaction)
    client = interaction.client
    assert isinstance(client, ShardClient)
    client.kept.append(interaction)


class ShardClient(discord.AutoShardedClient):
    """A minimal client holding ``shard_ids`` of 2 shards (one "process" of the bot)."""

    def __init__(self, label: str, shard_ids: list[int], *, shard_count: int = 2) -> None:
        super().__init__(
            intents=discord.Intents.default(), shard_count=shard_count, shard_ids=shard_ids
        )
        self.label = label
        self.tree = app_commands.CommandTree(self)
        self.interactions: list[int] = []  # ids of the interactions this client received
        self.message_ids: list[int] = []  # MESSAGE_CREATE events this client received
        self.kept: list[discord.Interaction] = []

    async def setup_hook(self) -> None:
        self.add_dynamic_items(WhoButton)
        for command in (where, post, hand, handoff):
            self.tree.add_command(command)
        await self.tree.sync()

    async def before_identify_hook(self, shard_id: int | None, *, initial: bool = False) -> None:
        return  # discord.py sleeps 5 s before a non-initial IDENTIFY

    async def on_message(self, message: discord.Message) -> None:
        self.message_ids.append(message.id)


@dataclass
class Two:
    fake: FakeDiscord
    zero: ShardClient
    one: ShardClient
    second: FakeGuild  # the guild on shard 1
    alice: FakeUser

    @property
    def general(self) -> FakeChannel:
        return self.fake.channel("general")


@pytest_asyncio.fixture
async def two() -> AsyncIterator[Two]:
    """A fake with 2 shards, the default guild on shard 0 and "second" on shard 1, and two
    clients connected at once: "zero" holds shard 0, "one" shard 1."""
    async with FakeDiscord(shard_count=2) as fake:
        second = fake.add_guild("second", shard=1)
        alice = fake.add_user("alice")
        async with fake.running(ShardClient("zero", [0])) as zero, \
                fake.running(ShardClient("one", [1])) as one:
            assert isinstance(zero, ShardClient) and isinstance(one, ShardClient)
            yield Two(fake, zero, one, second, alice)
        fake.assert_no_violations()


async def ask(fake: FakeDiscord, user: FakeUser, channel, command: str) -> str:
    ix = await fake.slash(user, channel, command)
    return (await ix.wait_answered()).content


async def who(fake: FakeDiscord, user: FakeUser, message) -> str:
    return (await (await fake.click(user, message, label="Who")).wait_answered()).content


# ----- guilds --------------------------------------------------------------------------
async def test_guild_ids_land_on_the_asked_shard_and_channels_are_per_guild() -> None:
    async with FakeDiscord(shard_count=3) as fake:
        world = fake.world
        guilds = [fake.add_guild(f"g{i}", shard=i % 3) for i in range(6)]
        assert [(g.id >> 22) % 3 for g in guilds] == [0, 1, 2, 0, 1, 2]
        assert fake.shard_of(world.guild) == 0  # the default guild is on shard 0
        assert fake.add_guild("four", shard=3, shard_count=4).shard(4) == 3
        ids = [world.guild.id, *(g.id for g in guilds)]
        assert len(set(ids)) == len(ids) and world.ids.next() > max(ids)
        bob = fake.add_user("bob", guilds=[guilds[0]])
        later = fake.add_guild("later")  # every user joins a guild added after them
        assert bob.id in later.member_roles and bob.id not in guilds[1].member_roles
        assert fake.add_guild("few", members=[]).member_roles.keys() == {
            world.owner.id, world.bot.id}
        assert fake.channel("general") is world.general  # the default guild's
        assert fake.channel("general", guild=guilds[1]).guild_id == guilds[1].id
        assert fake.channel("general", guild="g2") is fake.channel("general", guilds[2])
        assert fake.guild("g2") is guilds[2] and fake.guild() is world.guild
        lounge = world.add_channel("lounge", guild=guilds[1])
        assert fake.channel("lounge") is lounge  # the only one of that name
        world.add_channel("lounge", guild=guilds[2])
        with pytest.raises(KeyError, match="pass guild="):
            fake.channel("lounge")
        with pytest.raises(FakeDiscordError, match="bob cannot see"):
            await fake.slash(bob, fake.channel("general", guilds[1]), "anything")
        with pytest.raises(ValueError, match="no shard 3 of 3"):
            fake.add_guild("nowhere", shard=3)


async def test_each_shard_client_sees_only_its_guilds(two: Two) -> None:
    fake, zero, one = two.fake, two.zero, two.one
    assert [g.id for g in zero.guilds] == [fake.world.guild.id]
    assert [g.id for g in one.guilds] == [two.second.id]
    assert sorted(zero.shards) == [0] and sorted(one.shards) == [1]
    assert fake.gateway.live_shards == {0, 1} and len(fake.gateway.live_sessions) == 2
    guild = one.get_guild(two.second.id)
    assert guild is not None and guild.shard_id == 1 and guild.me is not None
    assert [c.name for c in guild.text_channels] == ["general"]
    assert guild.system_channel is not None and guild.system_channel.name == "general"
    assert zero.get_channel(fake.channel("general", two.second).id) is None
    shards, _url, _limits = await zero.http.get_bot_gateway()
    assert shards == 2
    member = await guild.fetch_member(two.alice.id)  # users are members of every guild
    assert member.guild.id == two.second.id and member.name == "alice"


# ----- routing -------------------------------------------------------------------------
async def test_guild_events_reach_only_the_client_of_their_shard(two: Two) -> None:
    fake, alice = two.fake, two.alice
    second_general = fake.channel("general", guild=two.second)
    assert await ask(fake, alice, two.general, "where") == "zero"
    assert await ask(fake, alice, second_general, "where") == "one"
    ix = await fake.slash(alice, second_general, "post")
    posted = (await ix.wait_answered()).message
    assert posted is not None and posted.content == "posted by one"
    assert await who(fake, alice, posted) == "one"
    assert len(two.zero.interactions) == 1 and len(two.one.interactions) == 3
    await fake.wait_for(lambda: posted.id in two.one.message_ids)
    await fake.settle()
    assert posted.id not in two.zero.message_ids  # MESSAGE_CREATE: shard 1 only


async def test_a_click_on_a_dm_reaches_only_shard_0(two: Two) -> None:
    fake, alice = two.fake, two.alice
    # Shard 1's client sends the DM (a command in its guild); the click goes to shard 0.
    assert await ask(fake, alice, fake.channel("general", two.second), "hand") == "sent"
    dm = fake.find_message(alice, label="Who")
    assert dm is not None and dm.content == "hand from one"
    assert await who(fake, alice, dm) == "zero"
    assert await ask(fake, alice, fake.dm(alice), "where") == "zero"  # a DM slash too
    await fake.wait_for(lambda: dm.id in two.zero.message_ids)  # MESSAGE_CREATE in a DM
    await fake.settle()
    assert dm.id not in two.one.message_ids and len(two.one.interactions) == 1


async def test_a_dead_shard_is_refused_while_the_other_works_and_a_new_client_takes_it(
    two: Two,
) -> None:
    fake, alice = two.fake, two.alice
    second_general = fake.channel("general", guild=two.second)
    posted = (await (await fake.slash(alice, second_general, "post")).wait_answered()).message
    assert posted is not None
    await fake.kill(two.one)
    await fake.wait_for(lambda: fake.gateway.live_shards == {0})
    with pytest.raises(FakeDiscordError, match=r"no bot .* shard 1 of 2"):
        await fake.click(alice, posted, label="Who")
    with pytest.raises(FakeDiscordError, match="shard 1 of 2"):
        await fake.slash(alice, second_general, "where")
    assert await ask(fake, alice, two.general, "where") == "zero"
    async with fake.running(ShardClient("one again", [1])):
        assert await who(fake, alice, posted) == "one again"
        await fake.kill(two.zero)  # now DMs have nobody: shard 0 is dead
        await fake.wait_for(lambda: fake.gateway.live_shards == {1})
        with pytest.raises(FakeDiscordError, match="shard 0 of 2"):
            await fake.slash(alice, fake.dm(alice), "where")
        assert await ask(fake, alice, second_general, "where") == "one again"


async def test_any_client_may_answer_an_interaction_another_one_received(two: Two) -> None:
    fake, zero = two.fake, two.zero
    ix = await fake.slash(two.alice, fake.channel("general", two.second), "handoff")
    await fake.wait_for(lambda: two.one.kept)
    [kept] = two.one.kept
    assert ix.id == kept.id and not ix.answered and ix.id not in zero.interactions
    callback = Route("POST", "/interactions/{interaction_id}/{interaction_token}/callback",
                     interaction_id=kept.id, interaction_token=kept.token)
    await zero.http.request(callback, json={"type": 5})  # "thinking", from shard 0's client
    assert zero.application_id is not None
    hook = discord.Webhook.partial(zero.application_id, kept.token, client=zero)
    done = await hook.send("answered by zero", wait=True)
    await hook.edit_message(done.id, content="edited by zero")
    await ix.wait_done()
    assert ix.response.type == 5 and ix.content == "edited by zero"
    assert [e["data"]["content"] for e in ix.edits] == ["answered by zero", "edited by zero"]


# ----- refused identifies --------------------------------------------------------------
class PlainClient(discord.Client):
    def __init__(self) -> None:
        super().__init__(intents=discord.Intents.default())


@pytest.mark.parametrize(
    ("make", "code"),
    [
        (PlainClient, 4011),  # no shard while the fake requires 2: sharding required
        (lambda: ShardClient("three", [0], shard_count=3), 4010),  # not the fake's count
        (lambda: ShardClient("out", [2], shard_count=2), 4010),  # no shard 2 of 2
    ],
)
async def test_identify_with_the_wrong_shards_is_closed(make, code: int) -> None:
    async with FakeDiscord(shard_count=2) as fake:
        with pytest.raises(discord.ConnectionClosed) as closed:
            await fake.start_bot(make(), timeout=5)
        assert closed.value.code == code and not fake.gateway.live_sessions


# ----- the cardtable bot ---------------------------------------------------------------
async def test_a_cardtable_bot_on_shard_0_knows_only_the_guilds_of_shard_0(
    tmp_path: Path,
) -> None:
    async with FakeDiscord(shard_count=2) as fake:
        others = [fake.add_guild("zero-too", shard=0), fake.add_guild("one", shard=1)]
        alice = fake.add_user("alice")
        path = tmp_path / "db.sqlite"
        settings = Settings(token=fake.token, database_path=path, dev_guild_id=None,
                            log_level=20, timing=FAST)
        bot = CardTableBot(settings, store=await Storage.open(path), clock=ManualClock(),
                           timing=FAST, extensions={"cogs.help": None}, seed=7,
                           ai=cheap_ai(), shard_count=2, shard_ids=[0])
        bot._owns_store = True
        async with fake.running(bot):
            assert {g.id for g in bot.guilds} == {fake.world.guild.id, others[0].id}
            assert bot.get_guild(others[1].id) is None and fake.gateway.live_shards == {0}
            ix = await fake.slash(alice, fake.channel("general", others[0]), "help")
            assert (await ix.wait_answered()).text()
            with pytest.raises(FakeDiscordError, match="shard 1 of 2"):
                await fake.slash(alice, fake.channel("general", others[1]), "help")
        fake.assert_no_violations()
