"""FakeDiscord: the server (REST + gateway on 127.0.0.1), simulated users, inspection."""

from __future__ import annotations

import asyncio
import contextlib
import os
import sys
import time
from collections import Counter
from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import discord
from aiohttp import web

from .gateway import Gateway
from .interactions import (
    APPLICATION_COMMAND,
    MESSAGE_COMPONENT,
    MODAL_SUBMIT,
    FakeDiscordError,
    Interaction,
    check_component_use,
    check_select_values,
    resolve_slash,
)
from .patch import ENV_URL, FAST_GUILD_READY, gateway_url_for, patch_discord
from .rest import API_PREFIX, Call, Failure, Router
from .routes import Api, Messages
from .webhooks import Webhooks
from .world import VIEW_CHANNEL, FakeChannel, FakeGuild, FakeMessage, FakeUser, World

REPO_ROOT = Path(__file__).resolve().parents[2]
SELECT_TYPES = (3, 5, 6, 7, 8)


@dataclass
class Violation:
    """Something real Discord would refuse or flag; the fixture fails the test on any."""

    kind: str  # "rest", "late", "unanswered", "gateway"
    detail: str

    def __str__(self) -> str:
        return f"[{self.kind}] {self.detail}"


class FakeDiscord:
    """A fake Discord on loopback that the real discord.py client talks to.

    Use `async with FakeDiscord() as fake:` (or the `fake_discord` fixture).
    """

    def __init__(
        self,
        *,
        token: str = "fake-token",
        shard_count: int = 1,
        response_deadline: float = 3.0,
        token_lifetime: float = 15 * 60,
        privileged_intents: int = 0,
    ) -> None:
        self.world = World(shard_count=shard_count)
        self.token = token
        self.response_deadline = response_deadline  # seconds for the first response
        self.token_lifetime = token_lifetime  # follow-ups and @original edits
        self.privileged_intents = privileged_intents  # intents "enabled in the portal"
        self.gateway = Gateway(self)
        self.calls: list[Call] = []
        self.errors: list[Call] = []  # every non-2xx answer
        self.uploads: dict[str, bytes] = {}  # attachment id -> the file's bytes
        self.violations: list[Violation] = []
        self.allow_violations = False  # opt out of the teardown check
        self.interactions: dict[int, Interaction] = {}
        self.by_token: dict[str, Interaction] = {}
        self.syncs = 0  # command bulk overwrites received
        self.resumes = 0
        self.base_url = ""
        self.gateway_url = ""
        self._failures: list[Failure] = []
        self._runner: web.AppRunner | None = None
        self._restore: Callable[[], None] | None = None
        self._bots: dict[discord.Client, asyncio.Task[None]] = {}
        self._tasks: set[asyncio.Task[Any]] = set()
        self._event = asyncio.Event()
        self._last_change = time.monotonic()
        self._messages = Messages(self)
        self._router = Router(self)
        Api(self, self._messages).register(self._router)
        Webhooks(self, self._messages).register(self._router)

    # ----- lifecycle ------------------------------------------------------------------
    async def __aenter__(self) -> FakeDiscord:
        await self.start()
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.close()

    async def start(self, patch: bool = True) -> None:
        app = web.Application()
        app.router.add_get("/gateway", self.gateway.handle)
        app.router.add_route("*", API_PREFIX + "/{tail:.*}", self._router.handle)
        app.router.add_route("*", "/{tail:.*}", self._router.handle)  # outside the API: 404
        self._runner = web.AppRunner(app, access_log=None)
        await self._runner.setup()
        site = web.TCPSite(self._runner, "127.0.0.1", 0)
        await site.start()
        port = self._runner.addresses[0][1]
        self.base_url = f"http://127.0.0.1:{port}"
        self.gateway_url = gateway_url_for(self.base_url)
        if patch:
            self._restore = patch_discord(self.base_url)

    async def close(self) -> None:
        """Stop bots still running, the server, undo the patch; flag unanswered interactions."""
        for bot in list(self._bots):
            await self._stop_bot(bot)
        self.check_unanswered(at_teardown=True)
        await self.gateway.close()
        if self._runner is not None:
            await self._runner.cleanup()
            self._runner = None
        if self._restore is not None:
            self._restore()
            self._restore = None

    # ----- the world ------------------------------------------------------------------
    @property
    def shard_count(self) -> int:
        """The shard count of `GET /gateway/bot`, the one IDENTIFY must use."""
        return self.world.shard_count

    @shard_count.setter
    def shard_count(self, count: int) -> None:
        self.world.shard_count = count

    def shard_of(self, where: FakeGuild | FakeChannel | int | None) -> int:
        """The shard Discord sends a guild's (or channel's) events to: ``(guild_id >> 22)
        % shard_count``; 0 for DMs (None, a DM channel)."""
        if isinstance(where, FakeChannel):
            where = where.guild_id
        elif isinstance(where, FakeGuild):
            where = where.id
        return 0 if where is None else (where >> 22) % self.shard_count

    def add_guild(
        self,
        name: str,
        shard: int | None = None,
        shard_count: int | None = None,
        *,
        members: list[FakeUser] | None = None,
    ) -> FakeGuild:
        """Another guild (before the bot connects) with a `general` channel; `shard`:
        its id is on that shard (see World.add_guild)."""
        return self.world.add_guild(name, shard, shard_count, members=members)

    def guild(self, name: str | int | None = None) -> FakeGuild:
        """A guild by name or id; None: the default guild."""
        return self.world.get_guild(name)

    def add_user(self, name: str, *, dms_closed: bool = False, locale: str = "en-US",
                 guilds: list[FakeGuild] | None = None) -> FakeUser:
        """A user whose Discord client speaks ``locale`` (sent with each interaction), a
        member of ``guilds`` (default: every guild)."""
        return self.world.add_user(name, dms_closed=dms_closed, locale=locale, guilds=guilds)

    def user(self, name: str) -> FakeUser:
        return self.world.user(name)

    def channel(self, name: str, guild: FakeGuild | str | int | None = None) -> FakeChannel:
        """A channel by name: the default guild's, or ``guild``'s (a guild, name or id)."""
        return self.world.channel(name, guild)

    def dm(self, user: FakeUser) -> FakeChannel:
        """The bot's DM channel with `user` (its messages are what the user got by DM)."""
        return self.world.dm_channel(user)

    def set_bot_permissions(self, channel: FakeChannel, **perms: bool) -> None:
        """Restrict/allow the bot in a channel, e.g. send_messages=False, embed_links=False.

        Set it before the bot connects (GUILD_CREATE carries it), or the bot only learns
        it from a later CHANNEL_UPDATE — which the fake sends if a bot is connected.
        """
        self.world.set_permissions(channel, self.world.bot, **perms)
        target = channel
        if channel.is_thread:
            assert channel.parent_id is not None
            target = self.world.channels[channel.parent_id]
        if self.gateway.sessions:  # a disconnected session gets it on RESUME
            data = target.payload(self.world)
            task = asyncio.get_running_loop().create_task(
                self.gateway.dispatch("CHANNEL_UPDATE", data, target.guild_id)
            )
            self._tasks.add(task)  # keep a reference until it is done
            task.add_done_callback(self._tasks.discard)

    async def delete_message(self, message: FakeMessage) -> None:
        """A moderator deletes a message (MESSAGE_DELETE is sent to the bot)."""
        message.deleted = True
        await self._messages.announce("MESSAGE_DELETE", message)
        self._changed()

    # ----- simulated users ------------------------------------------------------------
    async def slash(
        self,
        user: FakeUser,
        channel: FakeChannel,
        command: str,
        options: dict[str, Any] | None = None,
        **kwargs: Any,
    ) -> Interaction:
        """`user` types `/command` ("jazz start") with options in `channel`."""
        self._check_can_use(user, channel)
        data = resolve_slash(self.world, channel, command, {**(options or {}), **kwargs})
        return await self._dispatch(APPLICATION_COMMAND, user, channel, data)

    async def click(
        self,
        user: FakeUser,
        message: FakeMessage,
        custom_id: str | None = None,
        *,
        label: str | None = None,
    ) -> Interaction:
        """`user` presses a button (by custom_id, or by its label) on the message's latest
        version; the message can be a channel message, a DM or the user's ephemeral."""
        custom_id = custom_id or self._button_id(message, label)
        check_component_use(message, user, custom_id, (2,))
        data = {"custom_id": custom_id, "component_type": 2}
        return await self._component(user, message, data)

    async def select(
        self, user: FakeUser, message: FakeMessage, custom_id: str, values: list[str]
    ) -> Interaction:
        """`user` picks `values` in a select menu (the values must be its options)."""
        comp = check_component_use(message, user, custom_id, SELECT_TYPES)
        check_select_values(comp, values)
        data = {"custom_id": custom_id, "component_type": comp["type"], "values": list(values)}
        return await self._component(user, message, data)

    async def forge(
        self,
        user: FakeUser,
        message: FakeMessage,
        custom_id: str,
        *,
        component_type: int = 2,
        values: list[str] | None = None,
    ) -> Interaction:
        """A click a modified client sends: any custom_id and values on `message`, with
        no check that the message shows such a component (only that `user` sees it)."""
        data: dict[str, Any] = {"custom_id": custom_id, "component_type": component_type}
        if values is not None:
            data["values"] = list(values)
        return await self._component(user, message, data)

    async def submit_modal(self, ix: Interaction, values: dict[str, Any]) -> Interaction:
        """The user of `ix` fills the modal the bot answered with and submits it:
        `values` maps custom_id -> text (text inputs) or list of values (selects)."""
        if ix.modal is None:
            raise FakeDiscordError(f"{ix!r} was not answered with a modal")
        components = [_submitted(c, values) for c in ix.modal.get("components") or []]
        data = {"custom_id": ix.modal["custom_id"], "components": components}
        return await self._dispatch(MODAL_SUBMIT, ix.user, ix.channel, data, ix.source)

    def _button_id(self, message: FakeMessage, label: str | None) -> str:
        if label is None:
            raise FakeDiscordError("click() needs a custom_id or a label")
        found = [b for b in message.buttons() if b.get("label") == label]
        if len(found) != 1:
            labels = [b.get("label") for b in message.buttons()]
            raise FakeDiscordError(
                f"{len(found)} buttons labelled {label!r} on {message!r}: {labels}"
            )
        return found[0]["custom_id"]

    async def _component(
        self, user: FakeUser, message: FakeMessage, data: dict[str, Any]
    ) -> Interaction:
        channel = self.world.channels[message.channel_id]
        if channel.is_dm and channel.recipient is not user:
            raise FakeDiscordError(f"{user.name} cannot see the DMs of {channel.recipient}")
        self._check_can_use(user, channel)
        return await self._dispatch(MESSAGE_COMPONENT, user, channel, data, message)

    def _check_can_use(self, user: FakeUser, channel: FakeChannel) -> None:
        if channel.is_dm:
            if channel.recipient is not user:
                raise FakeDiscordError(f"{user.name} is not the recipient of {channel!r}")
        elif not self.world.permissions(channel, user) & VIEW_CHANNEL:
            raise FakeDiscordError(f"{user.name} cannot see {channel!r}")

    async def _dispatch(
        self,
        kind: int,
        user: FakeUser,
        channel: FakeChannel,
        data: dict[str, Any],
        source: FakeMessage | None = None,
    ) -> Interaction:
        ix = Interaction(
            id=self.world.ids.next(),
            token=Interaction.new_token(),
            type=kind,
            user=user,
            channel=channel,
            data=data,
            source=source,
        )
        if not self.gateway.live_for(channel.guild_id):
            shard = self.shard_of(channel)
            raise FakeDiscordError(
                f"no bot is connected to the fake gateway for shard {shard} of "
                f"{self.shard_count}, which gets the events of {channel!r}"
            )
        ix._changed = self._changed
        self.interactions[ix.id] = ix
        self.by_token[ix.token] = ix
        ix.dispatched_at = time.monotonic()  # before sending: the bot may answer at once
        payload = self._interaction_payload(ix)
        await self.gateway.dispatch("INTERACTION_CREATE", payload, channel.guild_id)
        self._changed()  # settle() then waits for the bot's reaction
        return ix

    def _interaction_payload(self, ix: Interaction) -> dict[str, Any]:
        world, chan, user = self.world, ix.channel, ix.user
        guild = world.guild_of(chan) or world.guild
        payload: dict[str, Any] = {
            "id": str(ix.id),
            "application_id": str(world.application_id),
            "type": ix.type,
            "data": ix.data,
            "token": ix.token,
            "version": 1,
            "locale": user.locale,
            "app_permissions": str(world.permissions(chan, world.bot)),
            "entitlements": [],
            "attachment_size_limit": 10 * 1024 * 1024,
            "authorizing_integration_owners": {"0": str(guild.id)},
            "channel_id": str(chan.id),
            "channel": chan.payload(world),
        }
        if chan.is_dm:
            payload |= {"user": user.payload(), "context": 1}
        else:
            perms = str(world.permissions(chan, user))
            payload["channel"]["permissions"] = perms
            payload |= {
                "guild_id": str(guild.id),
                "guild_locale": guild.preferred_locale,
                "guild": {"id": str(guild.id), "locale": guild.preferred_locale,
                          "features": []},
                "member": world.member_payload(user, guild=guild) | {"permissions": perms},
                "context": 0,
            }
        if ix.source is not None:
            payload["message"] = ix.source.payload(world)
        return payload

    # ----- failure injection ----------------------------------------------------------
    def fail_next(
        self,
        method: str,
        path_pattern: str,
        status: int,
        code: int = 0,
        retry_after: float | None = None,
        *,
        message: str | None = None,
        times: int = 1,
    ) -> None:
        """The next `times` requests matching answer `status`/`code` instead.

        `path_pattern` is an fnmatch glob on the path after /api/v10 or on the route
        template: "/channels/*/messages", "/channels/{channel_id}/messages/{message_id}".
        429s carry Via/Retry-After/X-RateLimit-* so discord.py retries after `retry_after`
        (default 0.05 s). discord.py retries 500/502/504 itself after 1 s: use 503 for a
        server error the bot sees at once.
        """
        text = message or {
            403: "Missing Permissions",
            404: "Unknown Message",
            429: "You are being rate limited.",
        }.get(status, f"{status}: Injected")
        self._failures.append(
            Failure(method.upper(), path_pattern, status, code, text, retry_after, times)
        )

    def _take_failure(self, method: str, path: str, route: str) -> Failure | None:
        for failure in self._failures:
            if failure.matches(method, path, route):
                failure.times -= 1
                if failure.times <= 0:
                    self._failures.remove(failure)
                return failure
        return None

    # ----- violations -----------------------------------------------------------------
    def violation(self, kind: str, detail: str) -> None:
        self.violations.append(Violation(kind, detail))

    def take_violations(self) -> list[Violation]:
        """Return and clear the violations (for tests that provoke them on purpose)."""
        taken, self.violations = self.violations, []
        return taken

    def check_unanswered(self, at_teardown: bool = False) -> list[Interaction]:
        """Flag interactions not answered within the deadline (all of them at teardown)."""
        flagged = []
        for ix in self.interactions.values():
            if ix.answered or ix.late or ix.flagged:
                continue
            if at_teardown or ix.age > self.response_deadline:
                ix.flagged = True
                self.violation("unanswered", f"{ix!r} never answered ({ix.age:.2f}s)")
                flagged.append(ix)
        return flagged

    def assert_no_violations(self) -> None:
        if self.violations and not self.allow_violations:
            lines = "\n  ".join(str(v) for v in self.violations)
            raise AssertionError(
                f"fake Discord recorded {len(self.violations)} violation(s):\n  {lines}"
            )

    # ----- inspection -----------------------------------------------------------------
    def mark(self) -> int:
        """A position in the call log, for calls_since()/call_counts(since=...)."""
        return len(self.calls)

    def calls_since(self, mark: int = 0) -> list[Call]:
        return self.calls[mark:]

    def call_counts(self, since: int = 0) -> Counter[str]:
        """Calls per route template ("PATCH /channels/{channel_id}/messages/{message_id}")."""
        return Counter(c.route for c in self.calls[since:])

    def messages(self, where: FakeChannel | FakeUser) -> list[FakeMessage]:
        """Live public messages of a channel, or of the bot's DM with a user."""
        chan = self.dm(where) if isinstance(where, FakeUser) else where
        return chan.history()

    def ephemerals(self, user: FakeUser) -> list[FakeMessage]:
        """Every ephemeral message `user` received, oldest first."""
        found = [m for c in self.world.channels.values() for m in c.ephemerals]
        return sorted((m for m in found if m.ephemeral_for is user), key=lambda m: m.id)

    def seen_by(self, user: FakeUser) -> list[FakeMessage]:
        """Live messages `user` can see: guild channels they view, their DMs, ephemerals."""
        out = []
        for chan in self.world.channels.values():
            if chan.is_dm and chan.recipient is not user:
                continue
            if not chan.is_dm and not self.world.permissions(chan, user) & VIEW_CHANNEL:
                continue
            out += chan.history()
            out += [m for m in chan.ephemerals if m.ephemeral_for is user and not m.deleted]
        return sorted(out, key=lambda m: m.id)

    def visible_components(self, user: FakeUser) -> list[tuple[FakeMessage, dict[str, Any]]]:
        """(message, component) for every enabled button/select `user` can use now."""
        return [
            (m, c)
            for m in self.seen_by(user)
            for c in m.leaf_components()
            if c.get("custom_id") and not c.get("disabled")
        ]

    def download(self, attachment: dict[str, Any]) -> bytes:
        """The bytes of a file the bot attached (an entry of a version's ``attachments``)."""
        return self.uploads[str(attachment["id"])]

    def find_message(
        self,
        where: FakeChannel | FakeUser | None = None,
        *,
        custom_id: str | None = None,
        custom_id_prefix: str | None = None,
        label: str | None = None,
        text: str | None = None,
        user: FakeUser | None = None,
    ) -> FakeMessage | None:
        """The latest live message matching: in a channel / a user's DM (or anywhere
        `user` can see, ephemerals included), with such a component or text."""
        if where is None and user is not None:
            pool = self.seen_by(user)
        elif where is None:
            pool = [m for c in self.world.channels.values() for m in c.history()]
        else:
            pool = self.messages(where)
            if user is not None and isinstance(where, FakeChannel):
                pool += [m for m in where.ephemerals if m.ephemeral_for is user and not m.deleted]
        for msg in sorted(pool, key=lambda m: m.id, reverse=True):
            if _matches(msg, custom_id, custom_id_prefix, label, text):
                return msg
        return None

    # ----- waiting --------------------------------------------------------------------
    def _changed(self) -> None:
        self._last_change = time.monotonic()
        self._event.set()
        self._event = asyncio.Event()

    async def wait_for(self, predicate: Callable[[], Any], timeout: float = 3.0) -> Any:
        """Wait until predicate() is truthy (re-checked on every API call); returns it."""
        deadline = time.monotonic() + timeout
        while not (result := predicate()):
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                raise FakeDiscordError(f"timed out after {timeout}s waiting for {predicate}")
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self._event.wait(), min(remaining, 0.05))
        return result

    async def settle(self, quiet: float = 0.05, timeout: float = 5.0) -> None:
        """Wait until every running bot is done and no API call came for `quiet` seconds.

        A bot with a ``busy()`` method (cardtable's) is asked: work it does off the event
        loop (a picture drawn in a worker) makes no API call for a while, so a quiet
        spell alone can end before the bot is done. Both must hold twice in a row (a
        timer that just woke gets to take its lock). A bot without ``busy`` is judged by
        the quiet spell alone."""
        deadline = time.monotonic() + timeout
        idle_once = False
        while True:
            still = quiet - (time.monotonic() - self._last_change)
            if still <= 0 and not self._bots_busy():
                if idle_once:
                    return
                idle_once = True
            else:
                idle_once = False
            if time.monotonic() > deadline:
                raise FakeDiscordError(f"the bot was still busy after {timeout}s")
            await asyncio.sleep(max(still, 0.001))

    def _bots_busy(self) -> bool:
        """Whether a running bot that can tell says it is at work."""
        return any(callable(busy := getattr(bot, "busy", None)) and busy()
                   for bot in self._bots)

    # ----- running bots ---------------------------------------------------------------
    @contextlib.asynccontextmanager
    async def running(
        self, bot: discord.Client, *, token: str | None = None, timeout: float = 10.0
    ) -> AsyncIterator[discord.Client]:
        """Start `bot.start(token)` in a task, wait for READY (and the command sync if
        the bot syncs after READY), yield it, close it cleanly at the end."""
        await self.start_bot(bot, token=token, timeout=timeout)
        try:
            yield bot
        finally:
            await self._stop_bot(bot)

    async def start_bot(
        self, bot: discord.Client, *, token: str | None = None, timeout: float = 10.0
    ) -> None:
        """The first half of running(): you must stop_bot() or kill() it later."""
        conn = bot._connection
        conn.guild_ready_timeout = min(conn.guild_ready_timeout, FAST_GUILD_READY)
        task = asyncio.create_task(bot.start(token or self.token), name=f"bot {bot!r}")
        self._bots[bot] = task
        deadline = time.monotonic() + timeout
        while not bot.is_ready():
            if task.done():
                self._bots.pop(bot, None)
                await bot.close()  # release its HTTP session
                raise task.exception() or RuntimeError("the bot stopped before READY")
            if time.monotonic() > deadline:
                await self._stop_bot(bot)
                raise FakeDiscordError(f"the bot was not READY within {timeout}s")
            await asyncio.sleep(0.01)
        await self._wait_sync(bot, deadline)

    async def _wait_sync(self, bot: discord.Client, deadline: float) -> None:
        tree = getattr(bot, "tree", None)
        if tree is None or self.syncs or not _tree_has_commands(tree):
            return
        with contextlib.suppress(FakeDiscordError):  # a bot that never syncs is its business
            await self.wait_for(lambda: self.syncs, max(0.0, min(2.0, deadline - time.monotonic())))

    async def stop_bot(self, bot: discord.Client) -> None:
        await self._stop_bot(bot)

    async def _stop_bot(self, bot: discord.Client) -> None:
        task = self._bots.pop(bot, None)
        if not bot.is_closed():
            await bot.close()
        if task is not None:
            with contextlib.suppress(asyncio.CancelledError, TimeoutError):
                await asyncio.wait_for(task, 5.0)

    async def kill(self, bot: discord.Client) -> None:
        """Stop `bot` abruptly, as a crash would: its close() and cog unloads do not run,
        the gateway socket just dies (its session stays resumable on the fake)."""
        task = self._bots.pop(bot, None)
        bot._closing_task = asyncio.create_task(asyncio.sleep(0))  # is_closed(): no reconnects
        for shard in getattr(bot, "_AutoShardedClient__shards", {}).values():
            shard._cancel_task()
            if shard.ws is not None and shard.ws._keep_alive is not None:
                shard.ws._keep_alive.stop()
        ws = getattr(bot, "ws", None)
        if ws is not None and getattr(ws, "_keep_alive", None) is not None:
            ws._keep_alive.stop()
        if task is not None:
            task.cancel()
            with contextlib.suppress(BaseException):
                await task
        await bot.http.close()  # drops the sockets without a close frame

    async def drop_connections(self, code: int = 4000) -> None:
        """Close every gateway socket server-side; discord.py will RESUME."""
        await self.gateway.drop(code)

    def invalidate_sessions(self) -> None:
        """Forget gateway sessions: a client that reconnects must IDENTIFY again."""
        self.gateway.invalidate()

    # ----- subprocesses ---------------------------------------------------------------
    def subprocess_env(self, base: dict[str, str] | None = None) -> dict[str, str]:
        """Environment for `python -m testkit.fakediscord.run bot` to use this fake."""
        env = dict(os.environ if base is None else base)
        paths = [str(REPO_ROOT), *filter(None, [env.get("PYTHONPATH")])]
        env.update(
            {
                ENV_URL: self.base_url,
                "DISCORD_TOKEN": self.token,
                "PYTHONPATH": os.pathsep.join(paths),
            }
        )
        return env

    def subprocess_command(self, target: str = "bot", *args: str) -> list[str]:
        """argv running a module (or a .py script) against this fake."""
        return [sys.executable, "-m", "testkit.fakediscord.run", target, *args]


def _submitted(comp: dict[str, Any], values: dict[str, Any]) -> dict[str, Any]:
    """A modal component as the client submits it (rows and labels keep their shape)."""
    if comp.get("type") == 1:
        return {"type": 1, "components": [_submitted(c, values) for c in comp["components"]]}
    if comp.get("type") == 18:
        return {"type": 18, "component": _submitted(comp["component"], values)}
    cid: Any = comp.get("custom_id")
    if comp.get("type") == 4:
        value = values.get(cid, comp.get("value") or "")
        if comp.get("required", True) and not value:
            raise FakeDiscordError(f"modal field {cid!r} is required")
        return {"type": 4, "custom_id": cid, "value": value}
    return {"type": comp.get("type"), "custom_id": cid, "values": list(values.get(cid, []))}


def _tree_has_commands(tree: discord.app_commands.CommandTree) -> bool:
    return bool(tree.get_commands()) or any(
        tree.get_commands(guild=discord.Object(g)) for g in tree._guild_commands
    )


def _matches(
    msg: FakeMessage,
    custom_id: str | None,
    prefix: str | None,
    label: str | None,
    text: str | None,
) -> bool:
    leaves = msg.leaf_components()
    if custom_id is not None and not any(c.get("custom_id") == custom_id for c in leaves):
        return False
    if prefix is not None and not any(
        str(c.get("custom_id", "")).startswith(prefix) for c in leaves
    ):
        return False
    if label is not None and not any(c.get("label") == label for c in leaves):
        return False
    return text is None or text in msg.text()
