"""The Activity's sign-in (web.activity) against the fake Discord over real HTTP.

The page's side is aiohttp's client posting to ``/api/token`` what the Embedded App SDK
would give it: a code from ``authorize()`` (``fake.authorize``) and the instance id.
Discord's side is the fake's loopback API (``fake.api_url``): the OAuth2 exchange,
``/users/@me`` with the user's token, the activity instance with the bot's token.
"""

from __future__ import annotations

import time
from collections.abc import AsyncIterator
from dataclasses import dataclass, field
from typing import Any

import pytest
from aiohttp import web
from aiohttp.test_utils import TestClient, TestServer

from testkit.fakediscord import FakeChannel, FakeDiscord, FakeUser
from web.activity import (
    DISCORD_DOWN,
    NO_TABLE,
    NOT_CONFIRMED,
    NOT_IN_ACTIVITY,
    ActivityAuth,
    ActivityTokens,
    DiscordDown,
    add_activity_route,
)
from web.tokens import Signer

SECRET = b"a-test-secret-of-the-web-table-0123456789"


@dataclass
class SeatedTable:
    """A table as the sign-in reads it: its id and who sits where."""

    table_id: str
    seated: list[int] = field(default_factory=list)

    def seat_of(self, user_id: int) -> int | None:
        return self.seated.index(user_id) if user_id in self.seated else None


@dataclass
class Activity:
    """The served ``/api/token``, the fake behind it and the tables by channel."""

    fake: FakeDiscord
    client: TestClient
    tables: dict[int, SeatedTable]
    signer: Signer

    async def sign_in(self, user: FakeUser | None, instance_id: str, code: str | None = None,
                      **extra: Any) -> tuple[int, dict[str, Any]]:
        """``user`` authorizes in Discord (unless ``code`` is given) and the page posts."""
        if code is None:
            assert user is not None
            code = self.fake.authorize(user)
        body = {"code": code, "instance_id": instance_id, **extra}
        async with self.client.post("/api/token", json=body) as response:
            return response.status, await response.json()


@pytest.fixture
async def activity(fake_discord: FakeDiscord) -> AsyncIterator[Activity]:
    fake = fake_discord
    fake.enable_activities()
    tables: dict[int, SeatedTable] = {}

    async def table_in_channel(channel_id: int) -> SeatedTable | None:
        return tables.get(channel_id)

    auth = ActivityAuth(client_id=str(fake.world.application_id),
                        client_secret=fake.client_secret, bot_token=fake.token,
                        api=fake.api_url)
    signer = Signer(SECRET)
    app = web.Application()
    add_activity_route(app, ActivityTokens(auth, signer, table_in_channel))
    async with TestClient(TestServer(app)) as client:
        yield Activity(fake, client, tables, signer)


@pytest.fixture
def people(fake_discord: FakeDiscord) -> dict[str, FakeUser]:
    names = ("alice", "bob", "cy", "dan", "eve")
    return {name: fake_discord.add_user(name, locale="sv-SE" if name == "bob" else "en-US")
            for name in names}


@pytest.fixture
def general(fake_discord: FakeDiscord) -> FakeChannel:
    return fake_discord.channel("general")


def refusal(status: int, body: dict[str, Any], sentence: str) -> bool:
    return status == 403 and body == {"error": sentence}


async def test_a_seated_participant_gets_a_seat_session_and_discords_token(
        activity: Activity, people: dict[str, FakeUser], general: FakeChannel) -> None:
    alice, bob = people["alice"], people["bob"]
    activity.tables[general.id] = SeatedTable("t1", [bob.id, alice.id])
    instance = activity.fake.start_activity(general, [alice, bob])
    status, body = await activity.sign_in(alice, instance)
    assert status == 200, body
    assert (body["table"], body["role"], body["language"]) == ("t1", "seat", "en")
    grant = activity.signer.read_session(body["session"], time.time())
    assert (grant.user, grant.table, grant.role) == (alice.id, "t1", "seat")
    # The access token is Discord's, for the SDK's authenticate(): alice's.
    assert activity.fake.activities.bearer_user(f"Bearer {body['access_token']}") is alice
    assert activity.fake.client_secret not in str(body)
    status, body = await activity.sign_in(bob, instance)  # in his Discord's language
    assert (status, body["role"], body["language"]) == (200, "seat", "sv")


async def test_a_participant_without_a_seat_watches(
        activity: Activity, people: dict[str, FakeUser], general: FakeChannel) -> None:
    alice, cy = people["alice"], people["cy"]
    activity.tables[general.id] = SeatedTable("t1", [alice.id])
    instance = activity.fake.start_activity(general, [alice])
    activity.fake.join_activity(instance, cy)
    status, body = await activity.sign_in(cy, instance)
    assert status == 200 and body["role"] == "watch" and body["table"] == "t1"
    grant = activity.signer.read_session(body["session"], time.time())
    assert (grant.user, grant.role) == (cy.id, "watch")


async def test_a_user_not_in_the_instance_is_refused(
        activity: Activity, people: dict[str, FakeUser], general: FakeChannel) -> None:
    alice, dan = people["alice"], people["dan"]
    activity.tables[general.id] = SeatedTable("t1", [alice.id, dan.id])  # seated, even
    instance = activity.fake.start_activity(general, [alice])
    assert refusal(*await activity.sign_in(dan, instance), NOT_IN_ACTIVITY)
    activity.fake.join_activity(instance, dan)
    activity.fake.leave_activity(instance, dan)  # gone again
    assert refusal(*await activity.sign_in(dan, instance), NOT_IN_ACTIVITY)
    activity.fake.leave_activity(instance, alice)  # the last one: the instance is over
    assert activity.fake.activity(instance).ended
    assert refusal(*await activity.sign_in(alice, instance), NOT_IN_ACTIVITY)
    assert refusal(*await activity.sign_in(alice, "i-1-gc-2-3"), NOT_IN_ACTIVITY)
    assert refusal(*await activity.sign_in(alice, "../../users/@me"), NOT_IN_ACTIVITY)


async def test_a_participant_of_another_channels_instance_is_refused(
        activity: Activity, people: dict[str, FakeUser], general: FakeChannel) -> None:
    alice, dan = people["alice"], people["dan"]
    activity.tables[general.id] = SeatedTable("t1", [alice.id, dan.id])
    here = activity.fake.start_activity(general, [alice])
    elsewhere = activity.fake.start_activity(activity.fake.channel("games"), [dan])
    # dan's instance is in #games: no table there, whatever he sits at in #general.
    assert refusal(*await activity.sign_in(dan, elsewhere), NO_TABLE)
    # And #general's instance is not his.
    assert refusal(*await activity.sign_in(dan, here), NOT_IN_ACTIVITY)


async def test_forged_and_reused_codes_are_refused(
        activity: Activity, people: dict[str, FakeUser], general: FakeChannel) -> None:
    alice = people["alice"]
    activity.tables[general.id] = SeatedTable("t1", [alice.id])
    instance = activity.fake.start_activity(general, [alice])
    assert refusal(*await activity.sign_in(None, instance, code="forged0code0abc"),
                   NOT_CONFIRMED)
    code = activity.fake.authorize(alice)
    status, _ = await activity.sign_in(None, instance, code=code)
    assert status == 200
    assert refusal(*await activity.sign_in(None, instance, code=code), NOT_CONFIRMED)
    other_app = activity.fake.authorize(alice, client_id=42)  # another application's code
    assert refusal(*await activity.sign_in(None, instance, code=other_app),
                   NOT_CONFIRMED)
    for body in ({}, {"code": 7, "instance_id": instance}, {"code": code}):
        async with activity.client.post("/api/token", json=body) as response:
            assert refusal(response.status, await response.json(), NOT_CONFIRMED)
    exchanges = [c for c in activity.fake.calls if c.route == "POST /oauth2/token"]
    assert [c.status for c in exchanges] == [400, 200, 400, 400]


async def test_a_user_id_sent_by_the_browser_is_ignored(
        activity: Activity, people: dict[str, FakeUser], general: FakeChannel) -> None:
    alice, cy, eve = people["alice"], people["cy"], people["eve"]
    activity.tables[general.id] = SeatedTable("t1", [alice.id])
    instance = activity.fake.start_activity(general, [alice, cy])
    # cy's code, alice's id: cy watches as cy.
    status, body = await activity.sign_in(cy, instance, user_id=str(alice.id),
                                          id=str(alice.id), role="seat")
    assert status == 200 and body["role"] == "watch"
    assert activity.signer.read_session(body["session"], time.time()).user == cy.id
    # eve, not in the activity, claiming to be alice: refused.
    assert refusal(*await activity.sign_in(eve, instance, user_id=alice.id),
                   NOT_IN_ACTIVITY)


async def test_discord_not_answering_is_told_apart_from_a_refusal(
        activity: Activity, people: dict[str, FakeUser], general: FakeChannel) -> None:
    alice = people["alice"]
    activity.tables[general.id] = SeatedTable("t1", [alice.id])
    instance = activity.fake.start_activity(general, [alice])
    activity.fake.fail_next("POST", "/oauth2/token", 503)
    assert await activity.sign_in(alice, instance) == (503, {"error": DISCORD_DOWN})
    activity.fake.fail_next("GET", "/applications/*/activity-instances/*", 503)
    assert await activity.sign_in(alice, instance) == (503, {"error": DISCORD_DOWN})
    status, _ = await activity.sign_in(alice, instance)
    assert status == 200


async def test_the_instance_is_asked_with_the_bots_token_only(
        activity: Activity, people: dict[str, FakeUser], general: FakeChannel) -> None:
    fake = activity.fake
    instance = fake.start_activity(general, [people["alice"]])
    wrong = ActivityAuth(client_id=str(fake.world.application_id),
                         client_secret=fake.client_secret, bot_token="not-the-bot",
                         api=fake.api_url)
    try:
        with pytest.raises(DiscordDown):
            await wrong.instance(instance)
    finally:
        await wrong.close()
    right = ActivityAuth(client_id=str(fake.world.application_id),
                         client_secret=fake.client_secret, bot_token=fake.token,
                         api=fake.api_url)
    try:
        found = await right.instance(instance)
    finally:
        await right.close()
    assert found is not None and found.users == {people["alice"].id}
    assert (found.channel_id, found.guild_id) == (general.id, fake.world.guild.id)
    assert "not-the-bot" not in repr(wrong) and fake.client_secret not in repr(right)


async def test_sign_ins_are_rate_limited(
        activity: Activity, people: dict[str, FakeUser], general: FakeChannel) -> None:
    alice = people["alice"]
    activity.tables[general.id] = SeatedTable("t1", [alice.id])
    instance = activity.fake.start_activity(general, [alice])
    statuses = [(await activity.sign_in(alice, instance))[0] for _ in range(21)]
    assert statuses == [200] * 20 + [429]
