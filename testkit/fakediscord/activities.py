"""Discord Activities on the fake: OAuth2's authorization code grant, Activity instances,
the Entry Point command and the LAUNCH_ACTIVITY response.

What the Embedded App SDK does in a browser is a test's call here: ``authorize`` is the
user agreeing in Discord's dialog (a code for the page), ``start_activity`` /
``join_activity`` / ``leave_activity`` the users opening and closing the Activity in a
channel. What a server does is real HTTP on the fake's API (``fake.api_url``):

* ``POST /oauth2/token`` — form-encoded only (JSON is refused, as Discord does: a
  violation), the client authenticated by ``client_id`` + ``client_secret`` in the form
  or HTTP Basic; ``grant_type=authorization_code``; a code is exchanged once, within
  ``code_lifetime``, by the client it was issued to. Refusals in OAuth2's shape:
  ``401 invalid_client``, ``400 invalid_grant`` / ``unsupported_grant_type`` /
  ``invalid_request``.
* ``GET /users/@me`` with ``Authorization: Bearer <access token>`` (scope ``identify``):
  that user, with their ``locale``; with the bot token it is the bot, as before.
* ``GET /applications/{app}/activity-instances/{instance_id}`` with the bot token only:
  ``{application_id, instance_id, launch_id, location: {id, kind, channel_id, guild_id},
  users}``; an unknown or ended instance (its last user left) is a 404.
"""

from __future__ import annotations

import base64
import binascii
import secrets
import time
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from .interactions import FakeDiscordError
from .rest import MISSING_ACCESS, ApiError, Call, OAuthError, Router
from .world import VIEW_CHANNEL, FakeChannel, FakeUser

if TYPE_CHECKING:
    from .world import World

EMBEDDED = 1 << 17  # the application flag of an app with an Activity
PRIMARY_ENTRY_POINT = 4  # the command type
APP_HANDLER, DISCORD_LAUNCH_ACTIVITY = 1, 2  # an Entry Point command's handler
FORM = "application/x-www-form-urlencoded"
INVALID_CODE = 'Invalid "code" in request.'


@dataclass
class OAuthGrant:
    """An authorization code or an access token: whose, for which client, until when."""

    user: FakeUser
    client_id: str
    scopes: tuple[str, ...]
    expires: float  # time.monotonic()

    @property
    def expired(self) -> bool:
        return time.monotonic() >= self.expires


@dataclass(eq=False)
class ActivityInstance:
    """One running Activity in a channel and the users connected to it."""

    id: str
    launch_id: int
    channel: FakeChannel
    users: list[FakeUser]
    ended: bool = False  # everyone left: the instance's life is over (its id not reused)

    def location(self) -> dict[str, Any]:
        chan = self.channel
        if chan.guild_id is None:
            return {"id": f"pc-{chan.id}", "kind": "pc", "channel_id": str(chan.id)}
        return {"id": f"gc-{chan.guild_id}-{chan.id}", "kind": "gc",
                "channel_id": str(chan.id), "guild_id": str(chan.guild_id)}

    def payload(self, application_id: int) -> dict[str, Any]:
        return {"application_id": str(application_id), "instance_id": self.id,
                "launch_id": str(self.launch_id), "location": self.location(),
                "users": [str(u.id) for u in self.users]}


class Activities:
    """The application's Activity: its OAuth2 codes and tokens, its instances, its Entry
    Point command. Lives as long as the fake (bots come and go); its world is the fake's."""

    def __init__(self, world: World) -> None:
        self.world = world
        self.enabled = False  # "Activities" switched on in the Developer Portal
        self.client_secret = "fake-client-secret"  # the application's OAuth2 secret
        self.code_lifetime = 600.0  # seconds an authorization code may be exchanged in
        self.token_lifetime = 7 * 24 * 3600.0  # an access token's
        self.codes: dict[str, OAuthGrant] = {}
        self.tokens: dict[str, OAuthGrant] = {}
        self.instances: dict[str, ActivityInstance] = {}

    def register(self, router: Router) -> None:
        router.add("POST", "/oauth2/token", self.exchange, auth=False)
        router.add("GET", "/applications/{application_id}/activity-instances/{instance_id}",
                   self.get_instance)

    # ----- the test's side ------------------------------------------------------------
    def enable(self, entry_point: bool = True) -> dict[str, Any] | None:
        """Switch the Activity on; as the Developer Portal does, this creates the default
        Entry Point command ``launch`` (handler DISCORD_LAUNCH_ACTIVITY), unless there is
        one or ``entry_point`` is False. Returns the Entry Point command, if any."""
        self.enabled = True
        found = self.entry_point()
        if found is None and entry_point:
            found = self.add_entry_point()
        return found

    def entry_point(self) -> dict[str, Any] | None:
        """The application's Entry Point command (a global command of type 4), if any."""
        return next((c for c in self.world.commands.get(None, [])
                     if c.get("type") == PRIMARY_ENTRY_POINT), None)

    def add_entry_point(self, name: str = "launch", handler: int = DISCORD_LAUNCH_ACTIVITY,
                        description: str = "Launch the Activity") -> dict[str, Any]:
        """Add an Entry Point command to the global commands, as the Developer Portal
        does (the bot never sent it): a bulk overwrite must keep it (50240)."""
        world = self.world
        if self.entry_point() is not None:
            raise FakeDiscordError("the application has an Entry Point command already")
        self.enabled = True
        key = (None, PRIMARY_ENTRY_POINT, name)
        command = {
            "id": str(world._command_ids.setdefault(key, world.ids.next())),
            "application_id": str(world.application_id), "version": str(world.ids.next()),
            "type": PRIMARY_ENTRY_POINT, "name": name, "description": description,
            "handler": handler, "default_member_permissions": None, "nsfw": False,
            "integration_types": [0, 1], "contexts": [0, 1, 2], "options": [],
        }
        world.commands.setdefault(None, []).append(command)
        return command

    def authorize(self, user: FakeUser, client_id: int | str | None = None,
                  scopes: tuple[str, ...] = ("identify",)) -> str:
        """``user`` agrees to the SDK's ``authorize()`` for ``client_id`` (default: this
        application): the authorization code the page gets."""
        client = str(self.world.application_id if client_id is None else client_id)
        code = secrets.token_urlsafe(22)
        self.codes[code] = OAuthGrant(user, client, tuple(scopes),
                                      time.monotonic() + self.code_lifetime)
        return code

    def start(self, channel: FakeChannel, users: list[FakeUser]) -> ActivityInstance:
        """The Activity launched in ``channel`` by ``users[0]``, the others joining: its
        instance (the running one of that channel, if there is one)."""
        if not self.enabled:
            raise FakeDiscordError("this application has no Activity: call "
                                   "fake.enable_activities() first")
        if not users:
            raise FakeDiscordError("an Activity is launched by someone")
        instance = self.in_channel(channel)
        if instance is None:
            world = self.world
            launch_id = world.ids.next()
            where = instance_location(channel)
            instance = ActivityInstance(f"i-{launch_id}-{where}", launch_id, channel, [])
            self.instances[instance.id] = instance
        for user in users:
            self.join(instance, user)
        return instance

    def in_channel(self, channel: FakeChannel) -> ActivityInstance | None:
        """The running instance in ``channel``, if any (one per application and channel)."""
        return next((i for i in self.instances.values()
                     if i.channel is channel and not i.ended), None)

    def instance(self, instance_id: str) -> ActivityInstance:
        found = self.instances.get(instance_id)
        if found is None:
            raise FakeDiscordError(f"no Activity instance {instance_id!r}")
        return found

    def join(self, instance: ActivityInstance, user: FakeUser) -> None:
        if instance.ended:
            raise FakeDiscordError(f"the Activity instance {instance.id} has ended")
        chan, world = instance.channel, self.world
        visible = (chan.recipient is user if chan.is_dm
                   else bool(world.permissions(chan, user) & VIEW_CHANNEL))
        if not visible:
            raise FakeDiscordError(f"{user.name} cannot see {chan!r}")
        if user not in instance.users:
            instance.users.append(user)

    def leave(self, instance: ActivityInstance, user: FakeUser) -> None:
        """``user`` closes the Activity; once the last one has, the instance is over."""
        if user in instance.users:
            instance.users.remove(user)
            instance.ended = not instance.users

    # ----- OAuth2 ---------------------------------------------------------------------
    async def exchange(self, call: Call) -> dict[str, Any]:
        """``POST /oauth2/token``: an authorization code for an access token, once."""
        if call.content_type != FORM or not isinstance(call.body, dict):
            raise OAuthError(400, "invalid_request", f"The token endpoint takes {FORM} only.",
                             violation=True)
        form: dict[str, str] = call.body
        client_id, client_secret = form.get("client_id", ""), form.get("client_secret", "")
        basic = _basic(call.authorization)
        if basic is not None:
            client_id, client_secret = basic
        world = self.world
        if client_id != str(world.application_id) or not secrets.compare_digest(
                client_secret.encode(), self.client_secret.encode()):
            raise OAuthError(401, "invalid_client")
        if form.get("grant_type") != "authorization_code":
            raise OAuthError(400, "unsupported_grant_type")
        code = form.get("code", "")
        if not code:
            raise OAuthError(400, "invalid_request", 'Missing "code" in request.')
        grant = self.codes.pop(code, None)  # once, whatever happens next
        if grant is None or grant.expired or grant.client_id != client_id:
            raise OAuthError(400, "invalid_grant", INVALID_CODE)
        token = secrets.token_urlsafe(24)
        self.tokens[token] = OAuthGrant(grant.user, client_id, grant.scopes,
                                        time.monotonic() + self.token_lifetime)
        return {"access_token": token, "token_type": "Bearer",
                "expires_in": int(self.token_lifetime),
                "refresh_token": secrets.token_urlsafe(24), "scope": " ".join(grant.scopes)}

    def bearer_user(self, authorization: str, scope: str = "identify") -> FakeUser | None:
        """The user of a ``Bearer`` access token that holds ``scope``; None otherwise."""
        kind, _, token = authorization.partition(" ")
        grant = self.tokens.get(token) if kind == "Bearer" else None
        if grant is None or grant.expired or scope not in grant.scopes:
            return None
        return grant.user

    # ----- instances ------------------------------------------------------------------
    async def get_instance(self, call: Call) -> dict[str, Any]:
        world = self.world
        if call.params["application_id"] != str(world.application_id):
            raise ApiError(*MISSING_ACCESS)
        instance = self.instances.get(call.params["instance_id"])
        if instance is None or instance.ended:
            raise ApiError(404, 0, "404: Not Found")
        return instance.payload(world.application_id)


def instance_location(channel: FakeChannel) -> str:
    if channel.guild_id is None:
        return f"pc-{channel.id}"
    return f"gc-{channel.guild_id}-{channel.id}"


def _basic(authorization: str) -> tuple[str, str] | None:
    """HTTP Basic's client id and secret, if the client authenticated so."""
    kind, _, encoded = authorization.partition(" ")
    if kind != "Basic":
        return None
    try:
        client_id, _, client_secret = base64.b64decode(encoded).decode().partition(":")
    except (binascii.Error, UnicodeDecodeError):
        return None
    return client_id, client_secret
