"""Self-tests of the fake Discord's Activity (testkit/fakediscord/activities.py): the
LAUNCH_ACTIVITY response through discord.py, OAuth2's code exchange, ``/users/@me``
with a Bearer token and the activity instances, over real HTTP."""

from __future__ import annotations

import base64
from collections.abc import AsyncIterator
from typing import Any

import aiohttp
import discord
import pytest
from discord import app_commands

from testkit.fakediscord import FakeDiscord, FakeDiscordError


class Launcher(discord.Client):
    def __init__(self) -> None:
        super().__init__(intents=discord.Intents.none())
        self.tree = app_commands.CommandTree(self)
        self.launched: list[str | None] = []
        self.refused: list[int | None] = []

        @self.tree.command(name="play", description="play at the table")
        async def play(interaction: discord.Interaction) -> None:
            try:
                answer = await interaction.response.launch_activity()
            except discord.HTTPException as error:
                self.refused.append(error.code)
                return
            self.launched.append(answer.activity_id)

    async def setup_hook(self) -> None:
        await self.tree.sync()  # no Entry Point in these tests (test_entry_point_sync.py)


@pytest.fixture
async def http() -> AsyncIterator[aiohttp.ClientSession]:
    async with aiohttp.ClientSession() as session:
        yield session


async def test_launch_activity_starts_or_joins_the_channels_instance(
        fake_discord: FakeDiscord) -> None:
    fake = fake_discord
    fake.enable_activities(entry_point=False)
    alice, bob = fake.add_user("alice"), fake.add_user("bob")
    general = fake.channel("general")
    bot = Launcher()
    async with fake.running(bot):
        first = await (await fake.slash(alice, general, "play")).wait_answered()
        second = await (await fake.slash(bob, general, "play")).wait_answered()
    assert first.response is not None and first.response.type == 12
    assert first.activity_instance is not None
    assert second.activity_instance == first.activity_instance  # one instance per channel
    assert bot.launched == [first.activity_instance] * 2
    instance = fake.activity(first.activity_instance)
    assert instance.channel is general and instance.users == [alice, bob]
    assert first.message is None  # no message: the Activity opens


async def test_launch_activity_needs_an_application_with_an_activity(
        fake_discord: FakeDiscord) -> None:
    fake = fake_discord
    alice = fake.add_user("alice")
    bot = Launcher()
    async with fake.running(bot):
        ix = await fake.slash(alice, fake.channel("general"), "play")
        await fake.wait_for(lambda: bot.refused)
    assert bot.refused == [50035] and not ix.answered
    fake.check_unanswered(at_teardown=True)
    assert [v.kind for v in fake.take_violations()] == ["rest", "unanswered"]
    with pytest.raises(FakeDiscordError, match="enable_activities"):
        fake.start_activity(fake.channel("general"), [alice])


async def exchange(fake: FakeDiscord, http: aiohttp.ClientSession, code: str, /,
                   **change: Any) -> tuple[int, dict[str, Any]]:
    form = {"client_id": str(fake.world.application_id), "client_secret": fake.client_secret,
            "grant_type": "authorization_code", "code": code, **change}
    async with http.post(f"{fake.api_url}/oauth2/token", data=form) as r:
        return r.status, await r.json()


async def me(fake: FakeDiscord, http: aiohttp.ClientSession,
             authorization: str) -> tuple[int, dict[str, Any]]:
    async with http.get(f"{fake.api_url}/users/@me",
                        headers={"Authorization": authorization}) as r:
        return r.status, await r.json()


async def test_a_code_buys_one_access_token_that_says_who_the_user_is(
        fake_discord: FakeDiscord, http: aiohttp.ClientSession) -> None:
    fake = fake_discord
    alice = fake.add_user("alice", locale="da")
    code = fake.authorize(alice)
    status, token = await exchange(fake, http, code)
    assert status == 200 and token["token_type"] == "Bearer" and token["scope"] == "identify"
    status, user = await me(fake, http, f"Bearer {token['access_token']}")
    assert status == 200 and (user["id"], user["username"], user["locale"]) == (
        str(alice.id), "alice", "da")
    assert await exchange(fake, http, code) == (
        400, {"error": "invalid_grant", "error_description": 'Invalid "code" in request.'})
    status, bot = await me(fake, http, f"Bot {fake.token}")  # the bot's own, as before
    assert status == 200 and bot["id"] == str(fake.world.bot.id)
    assert (await me(fake, http, "Bearer forged"))[0] == 401
    no_identify = fake.authorize(alice, scopes=("guilds",))
    _, token = await exchange(fake, http, no_identify)
    assert (await me(fake, http, f"Bearer {token['access_token']}"))[0] == 401


@pytest.mark.parametrize(("change", "status", "error"), [
    ({"client_secret": "wrong"}, 401, "invalid_client"),
    ({"client_id": "42"}, 401, "invalid_client"),
    ({"grant_type": "client_credentials"}, 400, "unsupported_grant_type"),
    ({"code": ""}, 400, "invalid_request"),
])
async def test_oauth2_refusals_have_oauth2s_shape(
        fake_discord: FakeDiscord, http: aiohttp.ClientSession, change: dict[str, str],
        status: int, error: str) -> None:
    code = fake_discord.authorize(fake_discord.add_user("alice"))
    got_status, body = await exchange(fake_discord, http, code, **change)
    assert (got_status, body["error"]) == (status, error)


async def test_the_client_may_authenticate_with_http_basic_but_never_send_json(
        fake_discord: FakeDiscord, http: aiohttp.ClientSession) -> None:
    fake = fake_discord
    alice = fake.add_user("alice")
    pair = f"{fake.world.application_id}:{fake.client_secret}".encode()
    basic = {"Authorization": "Basic " + base64.b64encode(pair).decode()}
    form = {"grant_type": "authorization_code", "code": fake.authorize(alice)}
    async with http.post(f"{fake.api_url}/oauth2/token", data=form, headers=basic) as r:
        assert r.status == 200
    form["code"] = fake.authorize(alice)
    async with http.post(f"{fake.api_url}/oauth2/token", json=form, headers=basic) as r:
        assert r.status == 400 and (await r.json())["error"] == "invalid_request"
    [violation] = fake.take_violations()
    assert "x-www-form-urlencoded" in violation.detail


async def test_activity_instances_are_read_with_the_bot_token(
        fake_discord: FakeDiscord, http: aiohttp.ClientSession) -> None:
    fake = fake_discord
    fake.enable_activities()
    alice, bob = fake.add_user("alice"), fake.add_user("bob")
    general = fake.channel("general")
    instance = fake.start_activity(general, [alice, bob])
    url = f"{fake.api_url}/applications/{fake.world.application_id}/activity-instances/"

    async def get(instance_id: str, authorization: str) -> tuple[int, Any]:
        async with http.get(url + instance_id,
                            headers={"Authorization": authorization}) as r:
            return r.status, await r.json()

    status, body = await get(instance, f"Bot {fake.token}")
    assert status == 200 and body["instance_id"] == instance
    assert body["users"] == [str(alice.id), str(bob.id)]
    guild = fake.world.guild.id
    assert body["location"] == {"id": f"gc-{guild}-{general.id}", "kind": "gc",
                                "channel_id": str(general.id), "guild_id": str(guild)}
    assert instance.startswith(f"i-{body['launch_id']}-gc-{guild}-{general.id}")
    token = (await exchange(fake, http, fake.authorize(alice)))[1]["access_token"]
    assert (await get(instance, f"Bearer {token}"))[0] == 401  # not with a user's token
    fake.leave_activity(instance, alice)
    fake.leave_activity(instance, bob)
    assert (await get(instance, f"Bot {fake.token}"))[0] == 404  # over
    again = fake.start_activity(general, [bob])
    assert again != instance and fake.activity(again).users == [bob]
    with pytest.raises(FakeDiscordError, match="ended"):
        fake.join_activity(instance, alice)


async def test_only_who_sees_the_channel_joins_its_activity(fake_discord: FakeDiscord) -> None:
    fake = fake_discord
    fake.enable_activities()
    alice, bob = fake.add_user("alice"), fake.add_user("bob")
    secret = fake.world.add_channel("secret", private_to=[alice])
    with pytest.raises(FakeDiscordError, match="cannot see"):
        fake.start_activity(secret, [alice, bob])
