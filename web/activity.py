"""The web table as a Discord Activity: who the page's user is, from Discord alone.

Inside Discord the page (``@discord/embedded-app-sdk``) calls ``ready()``, then
``authorize()`` with the scope ``identify``, and sends the code it got here with the
SDK's instance id:

    POST /api/token   {"code": "<code>", "instance_id": "<the SDK's instanceId>"}
    200 {"access_token": "<Discord's, for the SDK's authenticate()>",
         "session": "<session>", "table": "<table id>", "role": "seat" | "watch",
         "language": "en"}
    403 / 429 / 503 {"error": "<one sentence>"}

The server exchanges the code for the user's access token (``POST /oauth2/token`` with
the application's client id and secret: the secret never leaves the server), asks
Discord whose token it is (``GET /users/@me`` with it), then asks Discord, with the
bot's token, about the instance (``GET /applications/{app}/activity-instances/{id}``):
the user must be connected to it, and the table live in its channel is the one the
session is for — a seat if the user is seated there, else watching (a spectator is a
connected participant without a seat). Nothing the browser says about who it is
counts: a ``user_id`` in the body is never read. The session is the web table's own
(``web.tokens``), used as in ``docs/web-protocol.md``.

No discord.py here (the web process may run without it): aiohttp's client.
"""

from __future__ import annotations

import contextlib
import json
import logging
import re
import secrets
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Protocol
from urllib.parse import quote

import aiohttp
from aiohttp import web

import locales
from engine.text import T
from locales import say
from web.answers import refused
from web.limits import RateLimit
from web.tokens import SESSION_SECONDS, Grant, Role, Signer

if TYPE_CHECKING:
    from bot.config.web_settings import WebSettings

log = logging.getLogger(__name__)

DEFAULT_API = "https://discord.com/api/v10"
ROUTE = "/api/token"
TIMEOUT = 10.0  # seconds for each request to Discord
MOST_BODY = 4096  # bytes of a request to /api/token (a code and an instance id)
INSTANCE_ID = re.compile(r"^[A-Za-z0-9-]{1,128}$")  # i-<launch>-gc-<guild>-<channel>
CODE = re.compile(r"^[A-Za-z0-9._~-]{1,256}$")

NOT_CONFIRMED = T("Discord did not confirm who you are: close the activity and open it "
                  "again.")
NOT_IN_ACTIVITY = T("You are not in this activity: open it from Discord to join.")
NO_TABLE = T("No table is open in this activity's channel: start a game there first.")
DISCORD_DOWN = T("Discord did not answer just now: please try again in a moment.")
TOO_MANY = T("Too many tries: please wait a minute.")  # web.server's sentence


class DiscordRefused(Exception):
    """Discord said no: a forged, used or expired code, a token that is not a user's."""


class DiscordDown(Exception):
    """Discord could not be asked, or refused the application itself (its client id or
    secret, or the bot's token): nothing the user can mend."""


@dataclass(frozen=True)
class DiscordUser:
    id: int
    locale: str  # their Discord client's language ("" if Discord did not say)


@dataclass(frozen=True)
class Instance:
    """An Activity instance as Discord tells it: where it runs and who is connected."""

    instance_id: str
    channel_id: int
    guild_id: int | None
    users: frozenset[int]


class ActivityAuth:
    """Discord's side of an Activity's sign-in, over aiohttp's client."""

    def __init__(self, *, client_id: str, client_secret: str, bot_token: str,
                 api: str = DEFAULT_API, session: aiohttp.ClientSession | None = None,
                 timeout: float = TIMEOUT):
        self.client_id = client_id
        self._client_secret = client_secret
        self._bot_token = bot_token
        self.api = api.rstrip("/")
        self._session = session
        self._owns_session = session is None
        self._timeout = aiohttp.ClientTimeout(total=timeout)

    @classmethod
    def from_settings(cls, settings: WebSettings, bot_token: str,
                      session: aiohttp.ClientSession | None = None) -> ActivityAuth:
        return cls(client_id=settings.client_id, client_secret=settings.client_secret,
                   bot_token=bot_token, api=settings.discord_api, session=session)

    def __repr__(self) -> str:  # never the secret nor the token
        return f"ActivityAuth(client_id={self.client_id!r}, api={self.api!r})"

    def _http(self) -> aiohttp.ClientSession:
        if self._session is None or self._session.closed:
            self._session = aiohttp.ClientSession(timeout=self._timeout)
            self._owns_session = True
        return self._session

    async def close(self) -> None:
        if self._owns_session and self._session is not None:
            await self._session.close()
        self._session = None

    async def _request(self, method: str, path: str, what: str,
                       **options: Any) -> tuple[int, Any]:
        """Status and JSON body of one request; DiscordDown if Discord could not be asked
        or answered other than with JSON (429 and 5xx included)."""
        try:
            async with self._http().request(method, self.api + path,
                                            timeout=self._timeout, **options) as response:
                status = response.status
                text = await response.text()
        except (aiohttp.ClientError, TimeoutError) as error:
            log.warning("Discord could not be asked for %s: %s", what, type(error).__name__)
            raise DiscordDown(what) from None
        if status == 429 or status >= 500:
            log.warning("Discord answered %d to %s", status, what)
            raise DiscordDown(what)
        try:
            return status, json.loads(text)
        except ValueError:
            log.warning("Discord's answer to %s (%d) is not JSON", what, status)
            raise DiscordDown(what) from None

    async def exchange(self, code: str) -> str:
        """The user's access token for an authorization code (which Discord takes once)."""
        form = {"client_id": self.client_id, "client_secret": self._client_secret,
                "grant_type": "authorization_code", "code": code}
        status, body = await self._request("POST", "/oauth2/token", "the token", data=form)
        token = body.get("access_token") if isinstance(body, dict) else None
        if status == 200 and isinstance(token, str) and token:
            return token
        error = body.get("error") if isinstance(body, dict) else None
        if status == 401 or error == "invalid_client":
            log.error("Discord refused the Activity's client id or secret: check "
                      "DISCORD_CLIENT_ID and DISCORD_CLIENT_SECRET")
            raise DiscordDown("the token")
        raise DiscordRefused(f"the code ({status} {error})")

    async def user(self, access_token: str) -> DiscordUser:
        """Whose ``access_token`` this is (it needs the scope ``identify``)."""
        status, body = await self._request(
            "GET", "/users/@me", "the user",
            headers={"Authorization": f"Bearer {access_token}"})
        raw = body.get("id") if isinstance(body, dict) else None
        if status != 200 or not isinstance(raw, str) or not raw.isdigit():
            raise DiscordRefused(f"the user ({status})")
        locale = body.get("locale")
        return DiscordUser(int(raw), locale if isinstance(locale, str) else "")

    async def instance(self, instance_id: str) -> Instance | None:
        """The Activity instance ``instance_id`` of this application, or None if there is
        none running (unknown, ended)."""
        if not INSTANCE_ID.match(instance_id):
            return None
        path = (f"/applications/{quote(self.client_id, safe='')}/activity-instances/"
                f"{quote(instance_id, safe='')}")
        status, body = await self._request("GET", path, "the activity instance",
                                           headers={"Authorization": f"Bot {self._bot_token}"})
        if status in (401, 403):
            log.error("Discord refused the bot's token for an activity instance (%d): "
                      "DISCORD_TOKEN must be the bot of DISCORD_CLIENT_ID", status)
            raise DiscordDown("the activity instance")
        if status != 200 or not isinstance(body, dict):
            return None
        return _instance(instance_id, body)


def _instance(instance_id: str, body: dict[str, Any]) -> Instance | None:
    location = body.get("location")
    users = body.get("users")
    if body.get("instance_id") != instance_id or not isinstance(location, dict) \
            or not isinstance(users, list):
        return None
    channel, guild = location.get("channel_id"), location.get("guild_id")
    if not isinstance(channel, str) or not channel.isdigit():
        return None
    return Instance(instance_id, int(channel),
                    int(guild) if isinstance(guild, str) and guild.isdigit() else None,
                    frozenset(int(u) for u in users if isinstance(u, str) and u.isdigit()))


class ChannelTable(Protocol):
    """What the sign-in reads of a table (``bot.table.state.Table`` is one)."""

    @property
    def table_id(self) -> str: ...

    def seat_of(self, user_id: int) -> int | None: ...


TableInChannel = Callable[[int], Awaitable[ChannelTable | None]]
Clock = Callable[[], float]


class ActivityTokens:
    """``POST /api/token``: an Activity's code and instance for a web table session."""

    def __init__(self, auth: ActivityAuth, signer: Signer, table_in_channel: TableInChannel,
                 clock: Clock = time.time):
        self.auth = auth
        self.signer = signer
        self.table_in_channel = table_in_channel
        self.clock = clock
        self.minting = RateLimit(per_minute=20)  # per address, then per user

    async def token(self, request: web.Request) -> web.Response:
        now = self.clock()
        language = locales.language_of(request.headers.get("Accept-Language", "en")[:2])
        if not self.minting.allow(f"address:{request.remote}", now):
            return refused(429, say(TOO_MANY, language))
        body: Any = None
        if (request.content_length or 0) <= MOST_BODY:
            with contextlib.suppress(ValueError):
                body = await request.json()
        code = body.get("code") if isinstance(body, dict) else None
        instance_id = body.get("instance_id") if isinstance(body, dict) else None
        # Whatever else the body holds (a user_id...) is never read: the user is Discord's.
        if not (isinstance(code, str) and CODE.match(code) and isinstance(instance_id, str)):
            return refused(403, say(NOT_CONFIRMED, language))
        try:
            access_token = await self.auth.exchange(code)
            user = await self.auth.user(access_token)
        except DiscordRefused:
            return refused(403, say(NOT_CONFIRMED, language))
        except DiscordDown:
            return refused(503, say(DISCORD_DOWN, language))
        if user.locale:
            language = locales.language_of(user.locale)
        if not self.minting.allow(f"user:{user.id}", now):
            return refused(429, say(TOO_MANY, language))
        try:
            instance = await self.auth.instance(instance_id)
        except DiscordDown:
            return refused(503, say(DISCORD_DOWN, language))
        if instance is None or user.id not in instance.users:
            return refused(403, say(NOT_IN_ACTIVITY, language))
        table = await self.table_in_channel(instance.channel_id)
        if table is None:
            return refused(403, say(NO_TABLE, language))
        role: Role = "seat" if table.seat_of(user.id) is not None else "watch"
        grant = Grant(user.id, table.table_id, role, now + SESSION_SECONDS,
                      secrets.token_urlsafe(12), language)
        return web.json_response({
            "access_token": access_token, "session": self.signer.session(grant, now),
            "table": table.table_id, "role": role, "language": language},
            headers={"Cache-Control": "no-store"})

    async def close(self, _app: web.Application | None = None) -> None:
        await self.auth.close()


def add_activity_route(app: web.Application, tokens: ActivityTokens) -> None:
    """Serve ``POST /api/token`` on ``app``; the client to Discord closes with it."""
    app.router.add_post(ROUTE, tokens.token)
    app.on_cleanup.append(tokens.close)
