"""Self-tests of the fake Discord (testkit/fakediscord), driven by the real discord.py client."""

from __future__ import annotations

import asyncio
import io
import re
import sys
import time
from collections import Counter
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import aiohttp
import discord
import pytest
import pytest_asyncio
from discord import app_commands
from discord.ext import commands
from discord.http import Route

from testkit.fakediscord import FakeDiscord, FakeDiscordError, FakeUser
from testkit.fakediscord.gateway import Gateway


class PickButton(discord.ui.DynamicItem[discord.ui.Button], template=r"pick:(?P<n>\d+)"):
    """A persistent button: works on any message, also after a restart."""

    def __init__(self, n: int) -> None:
        super().__init__(
            discord.ui.Button(
                label=f"Pick {n}", custom_id=f"pick:{n}", style=discord.ButtonStyle.primary
            )
        )
        self.n = n

    @classmethod
    async def from_custom_id(
        cls, interaction: discord.Interaction, item: discord.ui.Button, match: re.Match[str]
    ) -> PickButton:
        return cls(int(match["n"]))

    async def callback(self, interaction: discord.Interaction) -> None:
        await interaction.response.send_message(f"you picked {self.n}", ephemeral=True)


class CardSelect(discord.ui.DynamicItem[discord.ui.Select], template=r"card:(?P<table>\w+)"):
    def __init__(self, table: str) -> None:
        options = [discord.SelectOption(label=c, value=c) for c in ("AS", "KH", "7D")]
        super().__init__(discord.ui.Select(custom_id=f"card:{table}", options=options))
        self.table = table

    @classmethod
    async def from_custom_id(
        cls, interaction: discord.Interaction, item: discord.ui.Select, match: re.Match[str]
    ) -> CardSelect:
        return cls(match["table"])

    async def callback(self, interaction: discord.Interaction) -> None:
        played = ",".join(self.item.values)
        await interaction.response.edit_message(content=f"played {played}", view=None)


class BumpButton(discord.ui.DynamicItem[discord.ui.Button], template=r"bump"):
    """Deferred update (type 6), then an @original edit of the clicked message."""

    def __init__(self) -> None:
        super().__init__(discord.ui.Button(label="Bump", custom_id="bump"))

    @classmethod
    async def from_custom_id(
        cls, interaction: discord.Interaction, item: discord.ui.Button, match: re.Match[str]
    ) -> BumpButton:
        return cls()

    async def callback(self, interaction: discord.Interaction) -> None:
        await interaction.response.defer()
        await interaction.edit_original_response(content="bumped")


def table_view(*, disabled: bool = False) -> discord.ui.View:
    view = discord.ui.View(timeout=None)
    view.add_item(PickButton(1))
    view.add_item(BumpButton())
    view.add_item(discord.ui.Button(label="Closed", custom_id="closed", disabled=True, row=0))
    view.add_item(CardSelect("t1"))
    return view


def state(interaction: discord.Interaction) -> TinyBot:
    assert isinstance(interaction.client, TinyBot)
    return interaction.client


demo = app_commands.Group(name="demo", description="fake discord self-test commands")


@demo.command(name="post", description="post a table message")
async def demo_post(interaction: discord.Interaction) -> None:
    await interaction.response.send_message("the table", view=table_view())


@demo.command(name="secret", description="an ephemeral reply with a button")
async def demo_secret(interaction: discord.Interaction) -> None:
    view = discord.ui.View(timeout=None)
    view.add_item(PickButton(7))
    await interaction.response.send_message("only you", view=view, ephemeral=True)


@demo.command(name="dm", description="send a DM with a button")
async def demo_dm(interaction: discord.Interaction) -> None:
    view = discord.ui.View(timeout=None)
    view.add_item(PickButton(2))
    try:
        await interaction.user.send("your hand: AS KH", view=view)
    except discord.Forbidden as exc:
        state(interaction).codes.append(exc.code)
        await interaction.response.send_message("your DMs are closed", ephemeral=True)
        return
    await interaction.response.send_message("sent", ephemeral=True)


@demo.command(name="say", description="echo options")
@app_commands.describe(text="what to say", count="how often", loud="shout")
async def demo_say(
    interaction: discord.Interaction,
    text: str,
    count: app_commands.Range[int, 1, 5] = 1,
    loud: bool = False,
    mode: app_commands.Choice[str] | None = None,
) -> None:
    out = " ".join([text.upper() if loud else text] * count)
    await interaction.response.send_message(f"{out} {mode.value if mode else ''}".strip())


demo_say_choices = app_commands.choices(
    mode=[
        app_commands.Choice(name="Fast", value="fast"),
        app_commands.Choice(name="Slow", value="slow"),
    ]
)
demo_say_choices(demo_say)


@demo.command(name="think", description="defer with thinking, then follow up")
async def demo_think(interaction: discord.Interaction) -> None:
    await interaction.response.defer(thinking=True, ephemeral=True)
    await interaction.followup.send("done thinking")
    await interaction.followup.send("and one more")


@demo.command(name="slow", description="answer after a delay")
async def demo_slow(interaction: discord.Interaction, delay_ms: int) -> None:
    await asyncio.sleep(delay_ms / 1000)
    try:
        await interaction.response.send_message("late?")
    except discord.HTTPException as exc:
        state(interaction).codes.append(exc.code)


@demo.command(name="twice", description="answer twice (bypassing discord.py's guard)")
async def demo_twice(interaction: discord.Interaction) -> None:
    await interaction.response.send_message("one")
    route = Route(
        "POST",
        "/interactions/{interaction_id}/{interaction_token}/callback",
        interaction_id=interaction.id,
        interaction_token=interaction.token,
    )
    try:
        await interaction.client.http.request(route, json={"type": 4, "data": {"content": "two"}})
    except discord.HTTPException as exc:
        state(interaction).codes.append(exc.code)


@demo.command(name="keep", description="reply and keep the interaction for later")
async def demo_keep(interaction: discord.Interaction) -> None:
    state(interaction).kept.append(interaction)
    await interaction.response.send_message("kept")


@demo.command(name="whoami", description="who clicked")
async def demo_whoami(interaction: discord.Interaction) -> None:
    user = interaction.user
    await interaction.response.send_message(
        f"{user.name}/{user.display_name}/{type(user).__name__}"
    )


@demo.command(name="silent", description="never answers")
async def demo_silent(interaction: discord.Interaction) -> None:
    return


class NameModal(discord.ui.Modal, title="Name your table"):
    name: discord.ui.TextInput[NameModal] = discord.ui.TextInput(label="Name", custom_id="name")

    async def on_submit(self, interaction: discord.Interaction) -> None:
        await interaction.response.send_message(f"named {self.name.value}")


@demo.command(name="rename", description="answer with a modal")
async def demo_rename(interaction: discord.Interaction) -> None:
    await interaction.response.send_modal(NameModal())


@demo.command(name="webhook", description="every interaction webhook route")
async def demo_webhook(interaction: discord.Interaction) -> None:
    await interaction.response.send_message("original")
    original = await interaction.original_response()  # GET @original
    follow = await interaction.followup.send("follow-up", wait=True)
    await follow.edit(content="follow-up edited")  # PATCH messages/{id}
    extra = await interaction.followup.send("to delete", wait=True)
    await extra.delete()  # DELETE messages/{id}
    await interaction.delete_original_response()  # DELETE @original
    state(interaction).codes.append(original.id)


class TinyBot(commands.AutoShardedBot):
    def __init__(self, intents: discord.Intents | None = None) -> None:
        super().__init__(
            command_prefix=commands.when_mentioned, intents=intents or discord.Intents.default()
        )
        self.codes: list[int] = []  # Discord error codes the bot's commands caught
        self.kept: list[discord.Interaction] = []

    async def setup_hook(self) -> None:
        self.add_dynamic_items(PickButton, CardSelect, BumpButton)
        self.tree.add_command(demo)
        await self.tree.sync()


@pytest_asyncio.fixture
async def bot(fake_discord: FakeDiscord) -> AsyncIterator[TinyBot]:
    async with fake_discord.running(TinyBot()) as running:
        assert isinstance(running, TinyBot)
        yield running


@pytest_asyncio.fixture
async def http(fake_discord: FakeDiscord) -> AsyncIterator[discord.http.HTTPClient]:
    """A bare logged-in HTTP client: the cheapest way to send raw payloads."""
    client = discord.http.HTTPClient(asyncio.get_running_loop())
    await client.static_login(fake_discord.token)
    yield client
    await client.close()


@pytest.fixture
def alice(fake_discord: FakeDiscord) -> FakeUser:
    return fake_discord.add_user("alice")


async def answered(fake: FakeDiscord, user: FakeUser, command: str, **options: Any) -> Any:
    ix = await fake.slash(user, fake.channel("general"), command, **options)
    return await ix.wait_answered()


# ----- the round trip ------------------------------------------------------------------
async def test_round_trip_slash_button_select(
    fake_discord: FakeDiscord, bot: TinyBot, alice: FakeUser
) -> None:
    fake = fake_discord
    general = fake.channel("general")
    ix = await answered(fake, alice, "demo post")
    assert ix.response.type == 4 and not ix.ephemeral
    table = ix.message
    assert table is not None and table.content == "the table" and table in general.history()
    assert fake.find_message(general, custom_id="pick:1") is table
    click = await (await fake.click(alice, table, "pick:1")).wait_answered()
    assert click.response.ephemeral and click.content == "you picked 1"
    assert fake.ephemerals(alice) == [click.message]
    assert click.message not in general.history()  # ephemerals are not channel messages
    pick = await (await fake.select(alice, table, "card:t1", ["KH"])).wait_answered()
    assert pick.response.type == 7 and pick.message is table
    assert [v["content"] for v in table.versions] == ["the table", "played KH"]
    assert table.components == [] and table.versions[0]["components"]


async def test_bot_sees_its_world(fake_discord: FakeDiscord, bot: TinyBot) -> None:
    world = fake_discord.world
    guild = bot.get_guild(world.guild.id)
    assert guild is not None and guild.me is not None and bot.application_id == world.bot.id
    thread = bot.get_channel(world.thread.id)
    assert isinstance(thread, discord.Thread) and thread.parent_id == world.games.id
    assert isinstance(bot.get_channel(world.general.id), discord.TextChannel)
    assert {c["name"] for c in world.commands[None]} == {"demo"}
    await thread.send("in the thread")
    assert [m.content for m in world.thread.history()] == ["in the thread"]


async def test_users_arrive_as_members_in_the_guild_and_users_in_dms(
    fake_discord: FakeDiscord, bot: TinyBot, alice: FakeUser
) -> None:
    assert (await answered(fake_discord, alice, "demo whoami")).content == "alice/Alice/Member"
    in_dm = await fake_discord.slash(alice, fake_discord.dm(alice), "demo whoami")
    assert (await in_dm.wait_answered()).content == "alice/Alice/User"


async def test_ephemeral_message_can_be_clicked_by_its_owner_only(
    fake_discord: FakeDiscord, bot: TinyBot, alice: FakeUser
) -> None:
    bob = fake_discord.add_user("bob")
    secret = (await answered(fake_discord, alice, "demo secret")).message
    assert secret.ephemeral_for is alice
    assert fake_discord.find_message(user=alice, custom_id="pick:7") is secret
    assert fake_discord.find_message(user=bob, custom_id="pick:7") is None
    with pytest.raises(FakeDiscordError, match="ephemeral"):
        await fake_discord.click(bob, secret, "pick:7")
    click = await (await fake_discord.click(alice, secret, "pick:7")).wait_answered()
    assert click.content == "you picked 7"


async def test_dm_and_a_click_in_the_dm(
    fake_discord: FakeDiscord, bot: TinyBot, alice: FakeUser
) -> None:
    ix = await answered(fake_discord, alice, "demo dm")
    assert ix.content == "sent"
    [hand] = fake_discord.messages(alice)
    assert hand.content == "your hand: AS KH" and hand.guild_id is None
    click = await (await fake_discord.click(alice, hand, label="Pick 2")).wait_answered()
    assert click.channel.is_dm and click.content == "you picked 2"
    bob = fake_discord.add_user("bob")
    with pytest.raises(FakeDiscordError):
        await fake_discord.click(bob, hand, "pick:2")


async def test_closed_dms_reach_the_bot_as_forbidden_50007(
    fake_discord: FakeDiscord, bot: TinyBot
) -> None:
    carol = fake_discord.add_user("carol", dms_closed=True)
    ix = await answered(fake_discord, carol, "demo dm")
    assert bot.codes == [50007] and ix.content == "your DMs are closed"
    assert fake_discord.messages(carol) == []
    assert [(c.status, c.code) for c in fake_discord.errors] == [(403, 50007)]


async def test_deferred_update_then_edit_original(
    fake_discord: FakeDiscord, bot: TinyBot, alice: FakeUser
) -> None:
    table = (await answered(fake_discord, alice, "demo post")).message
    bump = await fake_discord.click(alice, table, label="Bump")
    await bump.wait_until(lambda ix: ix.edits)
    assert bump.response.type == 6 and bump.message is table
    assert table.content == "bumped" and len(table.versions) == 2


async def test_thinking_defer_is_replaced_by_the_first_followup(
    fake_discord: FakeDiscord, bot: TinyBot, alice: FakeUser
) -> None:
    ix = await fake_discord.slash(alice, fake_discord.channel("general"), "demo think")
    await ix.wait_followups(1)
    assert ix.response.type == 5 and ix.ephemeral
    assert ix.original.content == "done thinking" and not ix.original.loading
    assert ix.original.versions[0]["content"] == "" and ix.original.ephemeral_for is alice
    assert [m.content for m in ix.followups] == ["and one more"]
    assert "done thinking" in ix.text() and "and one more" in ix.text()


async def test_followups_and_edits_until_the_token_expires(
    fake_discord: FakeDiscord, bot: TinyBot, alice: FakeUser
) -> None:
    await answered(fake_discord, alice, "demo keep")
    [kept] = bot.kept
    await kept.followup.send("still here")
    await kept.edit_original_response(content="edited")
    fake_discord.token_lifetime = 0.0  # as if 15 minutes had passed
    with pytest.raises(discord.HTTPException) as err:
        await kept.followup.send("too late")
    assert (err.value.status, err.value.code) == (401, 50027)
    ix = fake_discord.interactions[kept.id]
    assert [m.content for m in ix.followups] == ["still here"] and ix.content == "edited"


async def test_slash_options_are_resolved_against_registered_commands(
    fake_discord: FakeDiscord, bot: TinyBot, alice: FakeUser
) -> None:
    ix = await answered(fake_discord, alice, "demo say", text="hi", count=2, loud=True, mode="slow")
    assert ix.content == "HI HI slow"
    general = fake_discord.channel("general")
    bad: list[tuple[str, dict[str, Any]]] = [
        ("demo nope", {}),
        ("nope", {}),
        ("demo", {}),
        ("demo say", {}),  # missing the required text
        ("demo say", {"text": "x", "volume": 3}),
        ("demo say", {"text": 5}),
        ("demo say", {"text": "x", "count": 6}),  # Range[int, 1, 5]
        ("demo say", {"text": "x", "count": True}),
        ("demo say", {"text": "x", "mode": "medium"}),  # not a choice
    ]
    for command, options in bad:
        with pytest.raises(FakeDiscordError):
            await fake_discord.slash(alice, general, command, **options)
    assert len(fake_discord.interactions) == 1  # refused ones were never dispatched


async def test_clicks_only_on_enabled_components_of_the_latest_version(
    fake_discord: FakeDiscord, bot: TinyBot, alice: FakeUser
) -> None:
    table = (await answered(fake_discord, alice, "demo post")).message
    with pytest.raises(FakeDiscordError, match="disabled"):
        await fake_discord.click(alice, table, "closed")
    with pytest.raises(FakeDiscordError, match="no component"):
        await fake_discord.click(alice, table, "pick:9")
    with pytest.raises(FakeDiscordError):
        await fake_discord.select(alice, table, "card:t1", ["QS"])  # not an option
    with pytest.raises(FakeDiscordError):
        await fake_discord.select(alice, table, "card:t1", ["AS", "KH"])  # max_values 1
    await (await fake_discord.select(alice, table, "card:t1", ["AS"])).wait_answered()
    with pytest.raises(FakeDiscordError, match="no component"):
        await fake_discord.click(alice, table, "pick:1")  # the update removed the view
    visible = fake_discord.visible_components(alice)
    assert all(c.get("custom_id") != "closed" for _, c in visible)


async def test_api_call_log_counts_per_route(
    fake_discord: FakeDiscord, bot: TinyBot, alice: FakeUser
) -> None:
    table = (await answered(fake_discord, alice, "demo post")).message
    mark = fake_discord.mark()
    await (await fake_discord.click(alice, table, "pick:1")).wait_answered()
    await fake_discord.settle()
    counts = fake_discord.call_counts(since=mark)
    assert counts == Counter({"POST /interactions/{interaction_id}/{token}/callback": 1})
    assert fake_discord.calls_since(mark)[0].ok


async def test_modal_round_trip(fake_discord: FakeDiscord, bot: TinyBot, alice: FakeUser) -> None:
    ix = await answered(fake_discord, alice, "demo rename")
    assert ix.response.type == 9 and ix.modal["title"] == "Name your table"
    assert ix.message is None
    with pytest.raises(FakeDiscordError, match="required"):
        await fake_discord.submit_modal(ix, {})
    submit = await (await fake_discord.submit_modal(ix, {"name": "Blue"})).wait_answered()
    assert submit.content == "named Blue"


async def test_interaction_webhook_routes(
    fake_discord: FakeDiscord, bot: TinyBot, alice: FakeUser
) -> None:
    ix = await answered(fake_discord, alice, "demo webhook")
    await fake_discord.wait_for(lambda: bot.codes)
    assert bot.codes == [ix.original.id] and ix.original.deleted
    follow, extra = ix.followups
    assert [v["content"] for v in follow.versions] == ["follow-up", "follow-up edited"]
    assert extra.deleted and fake_discord.channel("general").history() == [follow]
    counts = fake_discord.call_counts()
    assert counts["GET /webhooks/{application_id}/{token}/messages/{message_id}"] == 1
    assert counts["DELETE /webhooks/{application_id}/{token}/messages/{message_id}"] == 2


async def test_history_fetches_and_users(fake_discord: FakeDiscord, bot: TinyBot) -> None:
    world = fake_discord.world
    channel = bot.get_channel(world.general.id)
    sent = [await channel.send(f"m{i}") for i in range(5)]
    newest_first = [m.content async for m in channel.history(limit=3)]
    assert newest_first == ["m4", "m3", "m2"]
    older = [m.content async for m in channel.history(limit=10, before=sent[2])]
    assert older == ["m1", "m0"]
    assert (await channel.fetch_message(sent[1].id)).content == "m1"
    assert (await bot.fetch_channel(world.games.id)).name == "games"
    dave = fake_discord.add_user("dave")
    assert (await bot.fetch_user(dave.id)).name == "dave"
    member = await channel.guild.fetch_member(dave.id)
    assert member.id == dave.id and channel.guild.get_member(dave.id) is None
    with pytest.raises(discord.NotFound) as err:
        await bot.fetch_user(12345)
    assert err.value.code == 10013


async def test_files_are_uploaded_as_attachments(fake_discord: FakeDiscord, bot: TinyBot) -> None:
    general, games = fake_discord.channel("general"), fake_discord.channel("games")
    channel = bot.get_channel(general.id)
    await channel.send("the record", file=discord.File(io.BytesIO(b"1234"), "game.txt"))
    [msg] = general.history()
    assert [(a["filename"], a["size"]) for a in msg.latest["attachments"]] == [("game.txt", 4)]
    fake_discord.set_bot_permissions(games, attach_files=False)
    with pytest.raises(discord.Forbidden):
        await bot.get_channel(games.id).send(file=discord.File(io.BytesIO(b"x"), "x.txt"))


async def test_guild_commands_are_resolved_with_their_guild(
    fake_discord: FakeDiscord, bot: TinyBot, alice: FakeUser
) -> None:
    guild = discord.Object(fake_discord.world.guild.id)
    bot.tree.copy_global_to(guild=guild)
    await bot.tree.sync(guild=guild)
    ix = await answered(fake_discord, alice, "demo say", text="guild")
    assert ix.data["guild_id"] == str(guild.id) and ix.content == "guild"
    in_dm = await fake_discord.slash(alice, fake_discord.dm(alice), "demo say", text="dm")
    await in_dm.wait_answered()  # in DMs only the global command exists
    assert "guild_id" not in in_dm.data and in_dm.content == "dm"
    assert in_dm.message in fake_discord.dm(alice).history()


async def test_settle_and_visible_components(
    fake_discord: FakeDiscord, bot: TinyBot, alice: FakeUser
) -> None:
    await fake_discord.slash(alice, fake_discord.channel("general"), "demo post")
    await fake_discord.settle()
    table = fake_discord.find_message(fake_discord.channel("general"), text="the table")
    assert table is not None
    ids = {c["custom_id"] for m, c in fake_discord.visible_components(alice) if m is table}
    assert ids == {"pick:1", "bump", "card:t1"}  # not the disabled one


# ----- payload validation: each limit, just below and just above --------------------------
def embed(**fields: Any) -> dict[str, Any]:
    return {"type": "rich", **fields}


def button(custom_id: str | None = "b", label: str | None = "b", **extra: Any) -> dict[str, Any]:
    data = {"type": 2, "style": 1, **extra}
    if custom_id is not None:
        data["custom_id"] = custom_id
    if label is not None:
        data["label"] = label
    return data


def row(*components: dict[str, Any]) -> dict[str, Any]:
    return {"type": 1, "components": list(components)}


def select(n: int = 3, custom_id: str = "s", **extra: Any) -> dict[str, Any]:
    options = [{"label": f"o{i}", "value": f"v{i}"} for i in range(n)]
    return {"type": 3, "custom_id": custom_id, "options": options, **extra}


def option_select(**option: str) -> dict[str, Any]:
    return {"type": 3, "custom_id": "s", "options": [{"label": "l", "value": "v", **option}]}


def buttons(n: int) -> list[dict[str, Any]]:
    return [button(f"b{i}") for i in range(n)]


def fields(n: int, name: str = "n", value: str = "v") -> list[dict[str, str]]:
    return [{"name": name, "value": value}] * n


# (name, accepted payload at the limit, refused payload just over it)
LIMITS: list[tuple[str, dict[str, Any], dict[str, Any]]] = [
    ("content", {"content": "x" * 2000}, {"content": "x" * 2001}),
    ("embed count", {"embeds": [embed(title="t")] * 10}, {"embeds": [embed(title="t")] * 11}),
    ("title", {"embeds": [embed(title="x" * 256)]}, {"embeds": [embed(title="x" * 257)]}),
    (
        "description",
        {"embeds": [embed(description="x" * 4096)]},
        {"embeds": [embed(description="x" * 4097)]},
    ),
    ("field count", {"embeds": [embed(fields=fields(25))]}, {"embeds": [embed(fields=fields(26))]}),
    (
        "field name",
        {"embeds": [embed(fields=fields(1, name="x" * 256))]},
        {"embeds": [embed(fields=fields(1, name="x" * 257))]},
    ),
    (
        "field value",
        {"embeds": [embed(fields=fields(1, value="x" * 1024))]},
        {"embeds": [embed(fields=fields(1, value="x" * 1025))]},
    ),
    (
        "footer",
        {"embeds": [embed(footer={"text": "x" * 2048})]},
        {"embeds": [embed(footer={"text": "x" * 2049})]},
    ),
    (
        "author",
        {"embeds": [embed(author={"name": "x" * 256})]},
        {"embeds": [embed(author={"name": "x" * 257})]},
    ),
    (
        "embed total",
        {"embeds": [embed(description="x" * 4000), embed(description="x" * 2000)]},
        {"embeds": [embed(description="x" * 4000), embed(description="x" * 2000, title="y")]},
    ),
    (
        "rows",
        {"components": [row(button(f"b{i}")) for i in range(5)]},
        {"components": [row(button(f"b{i}")) for i in range(6)]},
    ),
    ("buttons per row", {"components": [row(*buttons(5))]}, {"components": [row(*buttons(6))]}),
    ("select alone", {"components": [row(select())]}, {"components": [row(select(), button())]}),
    (
        "custom_id length",
        {"components": [row(button("x" * 100))]},
        {"components": [row(button("x" * 101))]},
    ),
    (
        "custom_id unique",
        {"components": [row(button("a")), row(select(custom_id="b"))]},
        {"components": [row(button("a")), row(select(custom_id="a"))]},
    ),
    (
        "button label",
        {"components": [row(button(label="x" * 80))]},
        {"components": [row(button(label="x" * 81))]},
    ),
    (
        "button label or emoji",
        {"components": [row(button(label=None, emoji={"name": "🂡"}))]},
        {"components": [row(button(label=None))]},
    ),
    ("button custom_id", {"components": [row(button())]}, {"components": [row(button(None))]}),
    ("option count", {"components": [row(select(25))]}, {"components": [row(select(26))]}),
    ("no options", {"components": [row(select(1))]}, {"components": [row(select(0))]}),
    (
        "option label",
        {"components": [row(option_select(label="x" * 100))]},
        {"components": [row(option_select(label="x" * 101))]},
    ),
    (
        "option value",
        {"components": [row(option_select(value="x" * 100))]},
        {"components": [row(option_select(value="x" * 101))]},
    ),
    (
        "option description",
        {"components": [row(option_select(description="x" * 100))]},
        {"components": [row(option_select(description="x" * 101))]},
    ),
    (
        "placeholder",
        {"components": [row(select(placeholder="x" * 150))]},
        {"components": [row(select(placeholder="x" * 151))]},
    ),
    (
        "unique option values",
        {"components": [row(select(2))]},
        {"components": [row(select(2) | {"options": [{"label": "a", "value": "v"}] * 2})]},
    ),
    (
        "min <= max",
        {"components": [row(select(3, min_values=2, max_values=2))]},
        {"components": [row(select(3, min_values=3, max_values=2))]},
    ),
    (
        "max <= options",
        {"components": [row(select(3, max_values=3))]},
        {"components": [row(select(3, max_values=4))]},
    ),
]


async def post(http: discord.http.HTTPClient, channel_id: int, payload: Any) -> Any:
    route = Route("POST", "/channels/{channel_id}/messages", channel_id=channel_id)
    return await http.request(route, json=payload)


@pytest.mark.parametrize(("name", "ok", "over"), LIMITS, ids=[case[0] for case in LIMITS])
async def test_message_limits(
    fake_discord: FakeDiscord,
    http: discord.http.HTTPClient,
    name: str,
    ok: dict[str, Any],
    over: dict[str, Any],
) -> None:
    channel_id = fake_discord.world.general.id
    await post(http, channel_id, ok)
    assert fake_discord.violations == []
    with pytest.raises(discord.HTTPException) as err:
        await post(http, channel_id, over)
    assert (err.value.status, err.value.code) == (400, 50035)
    assert [v.kind for v in fake_discord.take_violations()] == ["rest"]
    assert len(fake_discord.world.general.history()) == 1  # the refused one was not posted


@pytest.mark.parametrize("payload", [{}, {"content": ""}, {"content": None, "embeds": []}])
async def test_empty_message_is_50006(
    fake_discord: FakeDiscord, http: discord.http.HTTPClient, payload: dict[str, Any]
) -> None:
    with pytest.raises(discord.HTTPException) as err:
        await post(http, fake_discord.world.general.id, payload)
    assert (err.value.status, err.value.code) == (400, 50006)
    assert len(fake_discord.take_violations()) == 1


async def test_edits_are_validated_on_the_merged_message(
    fake_discord: FakeDiscord, http: discord.http.HTTPClient
) -> None:
    channel_id = fake_discord.world.general.id
    sent = await post(http, channel_id, {"content": "hello"})
    route = Route(
        "PATCH",
        "/channels/{channel_id}/messages/{message_id}",
        channel_id=channel_id,
        message_id=sent["id"],
    )
    await http.request(route, json={"embeds": [embed(title="t")]})  # content kept
    await http.request(route, json={"content": None})  # the embed remains: fine
    with pytest.raises(discord.HTTPException) as err:
        await http.request(route, json={"embeds": []})  # now nothing would remain
    assert err.value.code == 50006
    with pytest.raises(discord.HTTPException) as err:
        await http.request(route, json={"content": "x" * 2001})
    assert err.value.code == 50035
    assert len(fake_discord.take_violations()) == 2
    [msg] = fake_discord.world.general.history()
    assert [v["content"] for v in msg.versions] == ["hello", "hello", ""]


async def test_command_registration_is_validated(
    fake_discord: FakeDiscord, http: discord.http.HTTPClient
) -> None:
    app_id = fake_discord.world.application_id
    good = {"name": "jazz", "description": "x" * 100, "type": 1}
    await http.bulk_upsert_global_commands(app_id, [good])
    for bad in (
        good | {"name": "Jazz Game"},
        good | {"description": "x" * 101},
        good | {"options": [{"name": "a", "description": "a", "type": 3}] * 2},
    ):
        with pytest.raises(discord.HTTPException) as err:
            await http.bulk_upsert_global_commands(app_id, [bad])
        assert err.value.code == 50035
    assert len(fake_discord.take_violations()) == 3
    assert [c["name"] for c in fake_discord.world.commands[None]] == ["jazz"]


async def test_unknown_route_is_404_and_a_violation(
    fake_discord: FakeDiscord, http: discord.http.HTTPClient
) -> None:
    route = Route("GET", "/channels/{channel_id}/pins", channel_id=fake_discord.world.general.id)
    with pytest.raises(discord.NotFound):
        await http.request(route)
    [violation] = fake_discord.take_violations()
    assert "/pins" in violation.detail


# ----- interaction rules --------------------------------------------------------------
async def test_second_initial_response_is_40060(
    fake_discord: FakeDiscord, bot: TinyBot, alice: FakeUser
) -> None:
    ix = await answered(fake_discord, alice, "demo twice")
    await fake_discord.wait_for(lambda: bot.codes)
    assert bot.codes == [40060] and ix.content == "one"
    [violation] = fake_discord.take_violations()
    assert "40060" in violation.detail


async def test_response_within_the_deadline_is_accepted(
    fake_discord: FakeDiscord, bot: TinyBot, alice: FakeUser
) -> None:
    fake_discord.response_deadline = 1.0
    ix = await answered(fake_discord, alice, "demo slow", delay_ms=200)
    assert ix.content == "late?" and bot.codes == []


async def test_late_response_is_refused_and_recorded(
    fake_discord: FakeDiscord, bot: TinyBot, alice: FakeUser
) -> None:
    fake_discord.response_deadline = 0.2  # stands for Discord's 3 s
    ix = await fake_discord.slash(alice, fake_discord.channel("general"), "demo slow", delay_ms=400)
    await fake_discord.wait_for(lambda: bot.codes)
    assert bot.codes == [10062] and not ix.answered and ix.late
    assert [v.kind for v in fake_discord.take_violations()] == ["late"]
    assert fake_discord.check_unanswered() == []  # reported once, as late


async def test_unanswered_interaction_is_a_violation(
    fake_discord: FakeDiscord, bot: TinyBot, alice: FakeUser
) -> None:
    fake_discord.response_deadline = 0.4
    ix = await fake_discord.slash(alice, fake_discord.channel("general"), "demo silent")
    assert fake_discord.check_unanswered() == []  # not yet past the deadline
    await asyncio.sleep(0.45)
    assert fake_discord.check_unanswered() == [ix]
    assert [v.kind for v in fake_discord.take_violations()] == ["unanswered"]


async def test_unanswered_at_teardown_fails_the_fixture(alice: FakeUser) -> None:
    async with FakeDiscord() as fake:
        carol = fake.add_user("carol")
        async with fake.running(TinyBot()):
            await fake.slash(carol, fake.channel("general"), "demo silent")
    with pytest.raises(AssertionError, match="never answered"):
        fake.assert_no_violations()


# ----- permissions and deleted messages --------------------------------------------------
@pytest.mark.parametrize(
    ("perms", "code", "embeds"),
    [
        ({"send_messages": False}, 50013, False),
        ({"view_channel": False}, 50001, False),
        ({"embed_links": False}, 50013, True),
    ],
)
async def test_channel_permissions_are_visible_and_enforced(
    fake_discord: FakeDiscord, perms: dict[str, bool], code: int, embeds: bool
) -> None:
    general = fake_discord.channel("general")
    fake_discord.set_bot_permissions(general, **perms)
    async with fake_discord.running(TinyBot()) as bot:
        channel = bot.get_channel(general.id)
        assert isinstance(channel, discord.TextChannel)
        mine = channel.permissions_for(channel.guild.me)
        assert all(getattr(mine, name) is value for name, value in perms.items())
        other = bot.get_channel(fake_discord.channel("games").id)
        await other.send("still fine elsewhere", embed=discord.Embed(title="ok"))
        with pytest.raises(discord.Forbidden) as err:
            await channel.send("x", embed=discord.Embed(title="t") if embeds else None)
        assert err.value.code == code
        if embeds:
            await channel.send("text without an embed is fine")
    assert fake_discord.violations == []


async def test_history_needs_read_message_history_and_responses_need_nothing(
    fake_discord: FakeDiscord, alice: FakeUser
) -> None:
    general = fake_discord.channel("general")
    fake_discord.set_bot_permissions(general, read_message_history=False, send_messages=False)
    async with fake_discord.running(TinyBot()) as bot:
        # An interaction response is a webhook message: no channel permission needed.
        table = (await answered(fake_discord, alice, "demo post")).message
        assert table in general.history()
        channel = bot.get_channel(general.id)
        assert [m async for m in channel.history(limit=10)] == []  # Discord: empty, no error
        with pytest.raises(discord.Forbidden) as err:
            await channel.fetch_message(table.id)
        assert err.value.code == 50001


async def test_threads_need_send_messages_in_threads(fake_discord: FakeDiscord) -> None:
    world = fake_discord.world
    fake_discord.set_bot_permissions(world.thread, send_messages_in_threads=False)
    async with fake_discord.running(TinyBot()) as bot:
        await bot.get_channel(world.games.id).send("the parent is fine")
        with pytest.raises(discord.Forbidden) as err:
            await bot.get_channel(world.thread.id).send("not in the thread")
        assert err.value.code == 50013
    assert world.thread.history() == [] and len(world.games.history()) == 1


async def test_permission_change_while_connected_reaches_the_bot(
    fake_discord: FakeDiscord, bot: TinyBot
) -> None:
    games = fake_discord.channel("games")
    channel = bot.get_channel(games.id)
    assert channel.permissions_for(channel.guild.me).send_messages
    fake_discord.set_bot_permissions(games, send_messages=False)
    await fake_discord.wait_for(
        lambda: not bot.get_channel(games.id).permissions_for(channel.guild.me).send_messages
    )


async def test_editing_a_deleted_message_is_404_10008(
    fake_discord: FakeDiscord, bot: TinyBot
) -> None:
    channel = bot.get_channel(fake_discord.world.general.id)
    sent = await channel.send("table")
    await fake_discord.delete_message(fake_discord.world.messages[sent.id])
    with pytest.raises(discord.NotFound) as err:
        await sent.edit(content="moved on")
    assert err.value.code == 10008
    assert fake_discord.world.general.history() == []


# ----- failure injection ---------------------------------------------------------------
async def test_injected_429_is_retried_quickly(fake_discord: FakeDiscord, bot: TinyBot) -> None:
    channel = bot.get_channel(fake_discord.world.general.id)
    fake_discord.fail_next("POST", "/channels/*/messages", 429, retry_after=0.2)
    start = time.monotonic()
    await channel.send("after the rate limit")
    took = time.monotonic() - start
    assert 0.2 <= took < 1.0
    statuses = [c.status for c in fake_discord.calls if c.method == "POST"]
    assert statuses[-2:] == [429, 200]


@pytest.mark.parametrize(
    ("status", "code", "exc"),
    [
        (403, 50013, discord.Forbidden),
        (404, 10003, discord.NotFound),
        (503, 0, discord.DiscordServerError),
    ],
)
async def test_injected_errors_reach_the_bot(
    fake_discord: FakeDiscord, bot: TinyBot, status: int, code: int, exc: type[Exception]
) -> None:
    channel = bot.get_channel(fake_discord.world.general.id)
    fake_discord.fail_next("POST", "/channels/{channel_id}/messages", status, code)
    with pytest.raises(exc) as err:
        await channel.send("x")
    assert err.value.status == status and err.value.code == code
    await channel.send("the next one works")
    assert [m.content for m in fake_discord.world.general.history()] == ["the next one works"]


async def test_injected_failure_on_an_interaction_response(
    fake_discord: FakeDiscord, bot: TinyBot, alice: FakeUser
) -> None:
    fake_discord.response_deadline = 0.2
    fake_discord.fail_next("POST", "/interactions/*", 404, 10062, message="Unknown interaction")
    ix = await fake_discord.slash(alice, fake_discord.channel("general"), "demo say", text="x")
    await fake_discord.wait_for(lambda: fake_discord.errors)
    assert [(c.route, c.code) for c in fake_discord.errors] == [
        ("POST /interactions/{interaction_id}/{token}/callback", 10062)
    ]
    await asyncio.sleep(0.25)
    assert fake_discord.check_unanswered() == [ix]  # the refused answer did not count
    assert [v.kind for v in fake_discord.take_violations()] == ["unanswered"]


# ----- connections: restarts, crashes, resumes, subprocesses ----------------------------
async def test_two_bot_runs_against_the_same_world(
    fake_discord: FakeDiscord, alice: FakeUser
) -> None:
    general = fake_discord.channel("general")
    async with fake_discord.running(TinyBot()):
        table = (await answered(fake_discord, alice, "demo post")).message
        first_ids = [c["id"] for c in fake_discord.world.commands[None]]
    with pytest.raises(FakeDiscordError, match="no bot"):
        await fake_discord.slash(alice, general, "demo post")
    async with fake_discord.running(TinyBot()):
        assert [c["id"] for c in fake_discord.world.commands[None]] == first_ids
        click = await (await fake_discord.click(alice, table, "pick:1")).wait_answered()
        assert click.content == "you picked 1"  # a persistent item on an old message
    assert fake_discord.syncs == 2


async def test_a_killed_bot_is_replaced_by_a_new_one(
    fake_discord: FakeDiscord, alice: FakeUser
) -> None:
    crashed = TinyBot()
    await fake_discord.start_bot(crashed)
    table = (await answered(fake_discord, alice, "demo post")).message
    await fake_discord.kill(crashed)
    await fake_discord.wait_for(lambda: not fake_discord.gateway.live_sessions)
    async with fake_discord.running(TinyBot()):
        pick = await (await fake_discord.select(alice, table, "card:t1", ["7D"])).wait_answered()
        assert table.content == "played 7D" and pick.response.type == 7


async def test_dropped_connection_resumes_with_missed_events(
    fake_discord: FakeDiscord, bot: TinyBot, alice: FakeUser, monkeypatch: pytest.MonkeyPatch
) -> None:
    games = fake_discord.channel("games")
    resume = Gateway._resume

    async def change_then_resume(gateway: Gateway, conn: Any, data: dict[str, Any]) -> None:
        # The client is between sockets: this event must wait for the RESUME.
        fake_discord.set_bot_permissions(games, send_messages=False)
        await asyncio.sleep(0)
        await resume(gateway, conn, data)

    monkeypatch.setattr(Gateway, "_resume", change_then_resume)
    await fake_discord.drop_connections()
    await fake_discord.wait_for(lambda: fake_discord.resumes, timeout=5)
    assert len(fake_discord.gateway.sessions) == 1  # resumed, not a new IDENTIFY
    channel = bot.get_channel(games.id)
    await fake_discord.wait_for(lambda: not channel.permissions_for(channel.guild.me).send_messages)
    ix = await answered(fake_discord, alice, "demo say", text="back")
    assert ix.content == "back"


class GreedyBot(TinyBot):
    def __init__(self) -> None:
        super().__init__(intents=discord.Intents.all())  # members, presences, content


@pytest.mark.parametrize(
    ("make", "token", "exc"),
    [
        (TinyBot, "not-the-token", discord.LoginFailure),
        (GreedyBot, None, discord.PrivilegedIntentsRequired),
    ],
)
async def test_refused_logins(
    fake_discord: FakeDiscord, make: type[TinyBot], token: str | None, exc: type[Exception]
) -> None:
    with pytest.raises(exc):
        await fake_discord.start_bot(make(), token=token, timeout=5)
    assert not fake_discord.gateway.live_sessions


class QuickBot(TinyBot):
    async def before_identify_hook(self, shard_id: int | None, *, initial: bool = False) -> None:
        return  # discord.py sleeps 5 s before a non-initial IDENTIFY


async def test_invalidated_session_identifies_again(
    fake_discord: FakeDiscord, alice: FakeUser
) -> None:
    async with fake_discord.running(QuickBot()):
        [first] = fake_discord.gateway.sessions
        fake_discord.invalidate_sessions()
        await fake_discord.drop_connections()
        await fake_discord.wait_for(lambda: fake_discord.gateway.live_sessions, timeout=5)
        [second] = fake_discord.gateway.sessions
        assert second != first and fake_discord.resumes == 0
        assert (await answered(fake_discord, alice, "demo say", text="again")).content == "again"


async def test_two_shards_split_guild_and_dms(alice: FakeUser) -> None:
    async with FakeDiscord(shard_count=2) as fake:
        carol = fake.add_user("carol")
        async with fake.running(QuickBot()) as bot:
            await fake.wait_for(lambda: len(fake.gateway.live_sessions) == 2)
            assert bot.shard_count == 2 and sorted(bot.shards) == [0, 1]
            guild_shard = (fake.world.guild.id >> 22) % 2
            assert bot.get_guild(fake.world.guild.id).shard_id == guild_shard
            in_guild = await answered(fake, carol, "demo say", text="guild")
            in_dm = await fake.slash(carol, fake.dm(carol), "demo say", text="dm")
            assert (await in_dm.wait_answered()).content == "dm" and in_guild.content == "guild"
        fake.assert_no_violations()


SUBPROCESS_BOT = """
import os
import discord
from discord import app_commands

class Bot(discord.AutoShardedClient):
    def __init__(self):
        super().__init__(intents=discord.Intents.default())
        self.tree = app_commands.CommandTree(self)

    async def setup_hook(self):
        @self.tree.command(name="ping", description="pong")
        async def ping(interaction: discord.Interaction) -> None:
            await interaction.response.send_message(f"pong from {os.getpid()}")
        await self.tree.sync()

Bot().run(os.environ["DISCORD_TOKEN"], log_handler=None)
"""


async def test_a_bot_in_a_subprocess_connects(
    fake_discord: FakeDiscord, alice: FakeUser, tmp_path: Path
) -> None:
    script = tmp_path / "subprocess_bot.py"
    script.write_text(SUBPROCESS_BOT)
    proc = await asyncio.create_subprocess_exec(
        *fake_discord.subprocess_command(str(script)), env=fake_discord.subprocess_env()
    )
    try:
        await fake_discord.wait_for(
            lambda: fake_discord.syncs and fake_discord.gateway.live_sessions, timeout=20
        )
        ix = await answered(fake_discord, alice, "ping")
        assert ix.content == f"pong from {proc.pid}"
    finally:
        proc.kill()
        await proc.wait()
    assert sys.executable in fake_discord.subprocess_command()


async def test_attached_files_are_kept_and_served(fake_discord):
    """A file the bot attaches to a response can be downloaded by its url, byte for byte."""
    fake = fake_discord
    alice = fake.add_user("alice")
    general = fake.channel("general")
    payload = b'{"format": "cardtable-record/1"}\n'

    class FileBot(commands.Bot):
        async def setup_hook(self) -> None:
            self.tree.command(name="file", description="Sends a file")(send_file)
            await self.tree.sync()

    async def send_file(interaction: discord.Interaction) -> None:
        await interaction.response.send_message(
            "here", file=discord.File(io.BytesIO(payload), filename="game.json"), ephemeral=True)

    bot = FileBot(command_prefix="!", intents=discord.Intents.default())

    async with fake.running(bot):
        ix = await fake.slash(alice, general, "file")
        await ix.wait_answered()
        attachment = ix.message.latest["attachments"][0]
        assert attachment["filename"] == "game.json" and attachment["size"] == len(payload)
        assert fake.download(attachment) == payload
        async with aiohttp.ClientSession() as session, session.get(attachment["url"]) as got:
            assert got.status == 200 and await got.read() == payload
