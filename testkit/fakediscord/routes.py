"""REST handlers: users, application, commands, channels, messages, DMs.

Building, storing and announcing messages lives in messages.py (``Messages``, shared
with webhooks.py); interaction callbacks and webhook (follow-up) routes in webhooks.py.
"""

from __future__ import annotations

import time
from typing import TYPE_CHECKING, Any

from .activities import APP_HANDLER, DISCORD_LAUNCH_ACTIVITY, EMBEDDED, PRIMARY_ENTRY_POINT
from .messages import Messages, invalid_form
from .rest import MISSING_ACCESS, MISSING_PERMISSIONS, ApiError, Call, Router, unknown
from .validate import Problem, check_commands
from .world import (
    ATTACH_FILES,
    CREATE_PRIVATE_THREADS,
    CREATE_PUBLIC_THREADS,
    EMBED_LINKS,
    EPHEMERAL_FLAG,
    MANAGE_MESSAGES,
    PRIVATE_THREAD,
    PUBLIC_THREAD,
    READ_MESSAGE_HISTORY,
    SEND_MESSAGES,
    SEND_MESSAGES_IN_THREADS,
    TEXT,
    VIEW_CHANNEL,
    FakeChannel,
    FakeGuild,
    FakeMessage,
    FakeUser,
)

if TYPE_CHECKING:
    from .state import FakeState
    from .world import World

NONCE_LENGTH = 25  # Create Message's nonce: up to 25 characters
NONCE_WINDOW_S = 300.0  # "the past few minutes": five, here


class Api:
    """Bot-token routes."""

    def __init__(self, fake: FakeState, messages: Messages) -> None:
        self.fake = fake
        self.msgs = messages

    @property
    def world(self) -> World:
        return self.fake.world

    def register(self, router: Router) -> None:
        add = router.add
        add("GET", "/users/@me", self.get_me, auth=False)  # the bot's token, or a Bearer
        add("GET", "/users/{user_id}", self.get_user)
        add("POST", "/users/@me/channels", self.open_dm)
        add("GET", "/oauth2/applications/@me", self.get_application)
        add("GET", "/applications/@me", self.get_application)
        add("GET", "/gateway/bot", self.get_gateway_bot)
        add("GET", "/gateway", self.get_gateway, auth=False)
        for scope in (
            "/applications/{application_id}",
            "/applications/{application_id}/guilds/{guild_id}",
        ):
            add("PUT", f"{scope}/commands", self.put_commands)
            add("GET", f"{scope}/commands", self.get_commands)
        add("GET", "/guilds/{guild_id}", self.get_guild)
        add("GET", "/guilds/{guild_id}/channels", self.get_guild_channels)
        add("GET", "/guilds/{guild_id}/roles", self.get_roles)
        add("GET", "/guilds/{guild_id}/members/{user_id}", self.get_member)
        add("GET", "/channels/{channel_id}", self.get_channel)
        add("POST", "/channels/{channel_id}/typing", self.typing)
        add("POST", "/channels/{channel_id}/threads", self.start_thread)
        add("GET", "/channels/{channel_id}/messages", self.list_messages)
        add("POST", "/channels/{channel_id}/messages", self.post_message)
        add("GET", "/channels/{channel_id}/messages/{message_id}", self.get_message)
        add("PATCH", "/channels/{channel_id}/messages/{message_id}", self.edit_message)
        add("DELETE", "/channels/{channel_id}/messages/{message_id}", self.delete_message)
        add("GET", "/attachments/{attachment_id}/{filename}", self.get_attachment, auth=False)

    # ----- users, application, gateway ------------------------------------------------
    async def get_me(self, call: Call) -> dict[str, Any]:
        """The bot (its token), or the user of an OAuth2 access token (``Bearer``, scope
        ``identify``), with their client's language."""
        if call.authorization == f"Bot {self.fake.token}":
            return self.world.bot.payload() | {"verified": True, "mfa_enabled": False,
                                               "flags": 0}
        user = self.fake.activities.bearer_user(call.authorization)
        if user is None:
            raise ApiError(401, 0, "401: Unauthorized")
        return user.payload() | {"mfa_enabled": False, "locale": user.locale, "flags": 0,
                                 "premium_type": 0}

    async def get_user(self, call: Call) -> dict[str, Any]:
        return self._user(call.params["user_id"]).payload()

    def _user(self, raw_id: str) -> FakeUser:
        user = self.world.users.get(_int(raw_id))
        if user is None:
            raise unknown("User", 10013)
        return user

    async def open_dm(self, call: Call) -> dict[str, Any]:
        raw = (call.body or {}).get("recipient_id")
        user = self.world.users.get(_int(raw))
        if user is None or user.bot:
            raise invalid_form([("recipient_id", f"Value {raw!r} is not a known user.")])
        return self.world.dm_channel(user).payload(self.world)

    async def get_application(self, call: Call) -> dict[str, Any]:
        world = self.world
        owner = world.owner
        return {
            "id": str(world.application_id),
            "name": world.bot.name,
            "icon": None,
            "description": "A card table (fake)",
            "bot_public": True,
            "bot_require_code_grant": False,
            "owner": owner.payload(),
            "verify_key": "0" * 64,
            "team": None,
            "flags": EMBEDDED if self.fake.activities.enabled else 0,
            "bot": world.bot.payload(),
            "interactions_endpoint_url": None,
            "redirect_uris": [],
            "tags": [],
            "approximate_guild_count": len(world.guilds),
        }

    async def get_gateway_bot(self, call: Call) -> dict[str, Any]:
        limit = {"total": 1000, "remaining": 999, "reset_after": 0, "max_concurrency": 1}
        return {
            "url": self.fake.gateway_url,
            "shards": self.fake.shard_count,
            "session_start_limit": limit,
        }

    async def get_gateway(self, call: Call) -> dict[str, Any]:
        return {"url": self.fake.gateway_url}

    # ----- application commands -------------------------------------------------------
    def _scope(self, call: Call) -> int | None:
        if _int(call.params["application_id"]) != self.world.application_id:
            raise ApiError(*MISSING_ACCESS)
        if "guild_id" not in call.params:
            return None
        guild_id = _int(call.params["guild_id"])
        if guild_id not in self.world.guilds:
            raise ApiError(*MISSING_ACCESS)
        return guild_id

    async def put_commands(self, call: Call) -> list[dict[str, Any]]:
        scope = self._scope(call)
        body = call.body
        if not isinstance(body, list):
            raise invalid_form([("_root", "Expected an array of commands")])
        problems = check_commands(body)
        problems += self._entry_point_problems(scope, body)
        if problems:
            raise invalid_form(problems)
        kept = self.fake.activities.entry_point() if scope is None else None
        if kept is not None and not any(
                c.get("type") == PRIMARY_ENTRY_POINT for c in body):
            raise ApiError(400, 50240, "You cannot remove this app's Entry Point command in "
                           "a bulk update operation. Please include the Entry Point command "
                           "in your update request or delete it separately.", violation=True)
        stored = [self._store_command(scope, cmd) for cmd in body]
        self.world.commands[scope] = stored
        self.fake.syncs += 1
        return stored

    def _entry_point_problems(self, scope: int | None,
                              body: list[dict[str, Any]]) -> list[Problem]:
        """An Entry Point command (type 4): global, one at most, only for an app with an
        Activity; ``handler`` is its field alone."""
        problems: list[Problem] = []
        entry_points = 0
        for i, cmd in enumerate(body):
            if cmd.get("type") != PRIMARY_ENTRY_POINT:
                if "handler" in cmd:
                    problems.append((f"{i}.handler", "Only Entry Point commands have a "
                                                     "handler"))
                continue
            entry_points += 1
            if scope is not None:
                problems.append((f"{i}.type", "Entry Point commands can only be global"))
            if not self.fake.activities.enabled:
                problems.append((f"{i}.type", "The application has no Activity (EMBEDDED)"))
            if cmd.get("handler", 1) not in (APP_HANDLER, DISCORD_LAUNCH_ACTIVITY):
                problems.append((f"{i}.handler", f"Value {cmd.get('handler')!r} is not a "
                                                 f"valid handler"))
        if entry_points > 1:
            problems.append(("_root", "An application has one Entry Point command at most"))
        return problems

    def _store_command(self, scope: int | None, cmd: dict[str, Any]) -> dict[str, Any]:
        key = (scope, int(cmd.get("type", 1)), cmd["name"])
        cmd_id = self.world._command_ids.setdefault(
            key, self.world.ids.next()
        )  # stable, as Discord
        stored = dict(cmd) | {
            "id": str(cmd_id),
            "application_id": str(self.world.application_id),
            "version": str(self.world.ids.next()),
            "type": int(cmd.get("type", 1)),
            "options": cmd.get("options") or [],
            "default_member_permissions": cmd.get("default_member_permissions"),
        }
        if scope is not None:
            stored["guild_id"] = str(scope)
        stored.setdefault("description", "")
        return stored

    async def get_commands(self, call: Call) -> list[dict[str, Any]]:
        return self.world.commands.get(self._scope(call), [])

    # ----- guild ----------------------------------------------------------------------
    def _guild(self, call: Call) -> FakeGuild:
        guild = self.world.guilds.get(_int(call.params["guild_id"]))
        if guild is None:
            raise unknown("Guild", 10004)
        return guild

    async def get_guild(self, call: Call) -> dict[str, Any]:
        data = self.world.guild_payload(self._guild(call))
        for key in ("members", "channels", "threads", "presences", "voice_states"):
            data.pop(key)
        return data

    async def get_guild_channels(self, call: Call) -> list[dict[str, Any]]:
        channels = self.world.channels_of(self._guild(call))
        return [c.payload(self.world) for c in channels if not c.is_thread]

    async def get_roles(self, call: Call) -> list[dict[str, Any]]:
        return self.world.role_payloads(self._guild(call))

    async def get_member(self, call: Call) -> dict[str, Any]:
        guild = self._guild(call)
        user = self.world.users.get(_int(call.params["user_id"]))
        if user is None or user.id not in guild.member_roles:
            raise unknown("Member", 10007)
        return self.world.member_payload(user, guild=guild)

    # ----- channels and messages ------------------------------------------------------
    def channel(self, call: Call, *needs: int) -> FakeChannel:
        """The channel, if the bot may see it and has every permission in `needs`."""
        chan = self.world.channels.get(_int(call.params["channel_id"]))
        if chan is None:
            raise unknown("Channel", 10003)
        if chan.is_dm:
            return chan
        perms = self.world.permissions(chan, self.world.bot)
        if not perms & VIEW_CHANNEL:
            raise ApiError(*MISSING_ACCESS)
        for need in needs:
            if not perms & need:
                raise ApiError(*MISSING_PERMISSIONS)
        return chan

    def message(self, call: Call, chan: FakeChannel) -> FakeMessage:
        msg = self.world.messages.get(_int(call.params["message_id"]))
        if msg is None or msg.deleted or msg.ephemeral or msg.channel_id != chan.id:
            raise unknown("Message", 10008)
        return msg

    async def get_channel(self, call: Call) -> dict[str, Any]:
        return self.channel(call).payload(self.world)

    async def typing(self, call: Call) -> None:
        self.channel(call, self._send_perm(call))

    def _send_perm(self, call: Call) -> int:
        chan = self.world.channels.get(_int(call.params["channel_id"]))
        return SEND_MESSAGES_IN_THREADS if chan is not None and chan.is_thread else SEND_MESSAGES

    async def list_messages(self, call: Call) -> list[dict[str, Any]]:
        chan = self.channel(call)
        if (
            not chan.is_dm
            and not self.world.permissions(chan, self.world.bot) & READ_MESSAGE_HISTORY
        ):
            return []  # Discord answers an empty history without Read Message History
        limit = _int(call.query.get("limit", "50"))
        if not 1 <= limit <= 100:
            raise invalid_form([("limit", "Must be between 1 and 100.")])
        msgs = sorted(chan.history(), key=lambda m: m.id, reverse=True)
        if "before" in call.query:
            msgs = [m for m in msgs if m.id < _int(call.query["before"])]
        if "after" in call.query:
            msgs = [m for m in msgs if m.id > _int(call.query["after"])][-limit:]
        if "around" in call.query:
            around = _int(call.query["around"])
            older = [m for m in msgs if m.id <= around][: (limit + 1) // 2]
            newer = [m for m in msgs if m.id > around][-(limit // 2) :] if limit > 1 else []
            msgs = newer + older
        return self.world.message_payloads(msgs[:limit])

    async def post_message(self, call: Call) -> dict[str, Any]:
        body = call.body if isinstance(call.body, dict) else {}
        needs = [self._send_perm(call)]
        if body.get("embeds"):
            needs.append(EMBED_LINKS)
        if call.files:
            needs.append(ATTACH_FILES)
        chan = self.channel(call, *needs)
        if chan.is_dm and chan.recipient is not None and chan.recipient.dms_closed:
            raise ApiError(403, 50007, "Cannot send messages to this user")
        nonce = body.get("nonce")
        if nonce is not None and len(str(nonce)) > NONCE_LENGTH:
            raise invalid_form([("nonce", f"Must be {NONCE_LENGTH} or fewer in length.")])
        if nonce is not None and body.get("enforce_nonce"):
            # "If another message was created by the same author with the same nonce [in
            # the past few minutes], that message will be returned and no new message
            # will be created." (Discord's Create Message)
            seen = self.msgs.by_nonce.get(str(nonce))
            if seen is not None and time.monotonic() - seen[1] < NONCE_WINDOW_S:
                return seen[0].payload(self.world)
        version = self.msgs.build_version(call.body, call.files)
        version["flags"] &= ~EPHEMERAL_FLAG  # only interaction responses can be ephemeral
        msg = self.msgs.create(chan, version)
        if nonce is not None:
            self.msgs.by_nonce[str(nonce)] = (msg, time.monotonic())
        await self.msgs.announce("MESSAGE_CREATE", msg)
        return msg.payload(self.world)

    async def start_thread(self, call: Call) -> dict[str, Any]:
        """Start Thread without Message: a public (11) or private (12, the default) thread
        of a text channel; Create Public/Private Threads needed; THREAD_CREATE is sent."""
        body = call.body if isinstance(call.body, dict) else {}
        kind = int(body.get("type") or PRIVATE_THREAD)
        chan = self.channel(
            call, CREATE_PUBLIC_THREADS if kind == PUBLIC_THREAD else CREATE_PRIVATE_THREADS
        )
        if chan.type != TEXT:
            raise ApiError(400, 50024, "Cannot execute action on this channel type")
        name = body.get("name")
        problems: list[Problem] = []
        if not isinstance(name, str) or not 1 <= len(name) <= 100:
            problems.append(("name", "Must be between 1 and 100 in length."))
        if kind not in (PUBLIC_THREAD, PRIVATE_THREAD):
            problems.append(("type", f"Value {kind!r} is not a valid thread type."))
        archive = body.get("auto_archive_duration")
        if archive is not None and archive not in (60, 1440, 4320, 10080):
            problems.append(("auto_archive_duration", f"Value {archive!r} is not valid."))
        if problems:
            raise invalid_form(problems)
        thread = self.world.add_thread(str(name), chan, private=kind == PRIVATE_THREAD)
        data = thread.payload(self.world)
        await self.msgs.gateway.dispatch(
            "THREAD_CREATE", data | {"newly_created": True}, thread.guild_id
        )
        return data

    async def get_attachment(self, call: Call) -> bytes:
        """The bytes of an uploaded file, as Discord's CDN serves an attachment's url."""
        data = self.fake.uploads.get(call.params["attachment_id"])
        if data is None:
            raise ApiError(404, 0, "404: Not Found")
        return data

    async def get_message(self, call: Call) -> dict[str, Any]:
        chan = self.channel(call)
        if (
            not chan.is_dm
            and not self.world.permissions(chan, self.world.bot) & READ_MESSAGE_HISTORY
        ):
            raise ApiError(*MISSING_ACCESS)
        return self.message(call, chan).payload(self.world)

    async def edit_message(self, call: Call) -> dict[str, Any]:
        body = call.body if isinstance(call.body, dict) else {}
        chan = self.channel(call, *([EMBED_LINKS] if body.get("embeds") else []))
        msg = self.message(call, chan)
        if msg.author is not self.world.bot:
            raise ApiError(403, 50005, "Cannot edit a message authored by another user")
        msg.versions.append(self.msgs.build_version(body, call.files, base=msg.latest))
        await self.msgs.announce("MESSAGE_UPDATE", msg)
        return msg.payload(self.world)

    async def delete_message(self, call: Call) -> None:
        chan = self.channel(call)
        msg = self.message(call, chan)
        if msg.author is not self.world.bot and not (
            self.world.permissions(chan, self.world.bot) & MANAGE_MESSAGES
        ):
            raise ApiError(*MISSING_PERMISSIONS)
        msg.deleted = True
        await self.msgs.announce("MESSAGE_DELETE", msg)


def _int(raw: Any) -> int:
    """Snowflakes arrive as strings; a malformed one is Discord's 50035."""
    try:
        return int(raw)
    except (TypeError, ValueError):
        raise invalid_form([("_root", f"Value {raw!r} is not snowflake.")]) from None
