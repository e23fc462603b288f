"""FakeDiscord, the facade tests hold: the server started and stopped (REST + gateway on
127.0.0.1), the world's set-up, bots run, killed and started as subprocesses, and what
they posted looked up. What its parts share is ``state.FakeState``; what the simulated
users do is ``users.SimulatedUsers``."""

from __future__ import annotations

import asyncio
import contextlib
import os
import sys
import time
from collections import Counter
from collections.abc import AsyncIterator, Callable
from pathlib import Path
from typing import Any

import discord
from aiohttp import web

from .activities import DISCORD_LAUNCH_ACTIVITY, ActivityInstance
from .calls import Call
from .events import EventRef, FakeScheduledEvent, ScheduledEvents
from .gateway import Gateway
from .interactions import FakeDiscordError
from .patch import ENV_URL, FAST_GUILD_READY, gateway_url_for, patch_discord
from .rest import API_PREFIX, Router
from .roles import Roles
from .routes import Api, Messages
from .state import Violation
from .users import SimulatedUsers
from .webhooks import Webhooks
from .world import VIEW_CHANNEL, FakeChannel, FakeGuild, FakeMessage, FakeUser

__all__ = ["FakeDiscord", "Violation"]

REPO_ROOT = Path(__file__).resolve().parents[2]


class FakeDiscord(SimulatedUsers):
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
        super().__init__(token=token, shard_count=shard_count,
                         response_deadline=response_deadline, token_lifetime=token_lifetime,
                         privileged_intents=privileged_intents)
        self.gateway = Gateway(self)
        self._runner: web.AppRunner | None = None
        self._restore: Callable[[], None] | None = None
        self._bots: dict[discord.Client, asyncio.Task[None]] = {}
        self._tasks: set[asyncio.Task[Any]] = set()
        self._messages = Messages(self, self.gateway)
        self._router = Router(self)
        Api(self, self._messages).register(self._router)
        Webhooks(self, self._messages).register(self._router)
        self.activities.register(self._router)
        self.scheduled = ScheduledEvents(self, self.gateway, self._dispatch_soon)  # events.py
        self.scheduled.register(self._router)
        self.roles = Roles(self, self._dispatch_soon)  # roles.py: members' roles
        self.roles.register(self._router)

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

    @property
    def api_url(self) -> str:
        """The REST API's base on loopback (``http://127.0.0.1:<port>/api/v10``), what a
        server's own HTTP client is given as Discord's API (``DISCORD_API``)."""
        return self.base_url + API_PREFIX

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

    def set_bot_guild_permissions(self, guild: FakeGuild | None = None, **perms: bool) -> None:
        """Grant (True) or take (False) guild-level permissions of the bot's managed role,
        names as ``discord.Permissions`` (``manage_events=True``, ``create_events=True``):
        what the server's admins change in Server Settings → Roles. A connected bot gets
        GUILD_ROLE_UPDATE."""
        guild = guild or self.world.guild
        role = guild.bot_role
        allow = discord.Permissions(**{k: True for k, v in perms.items() if v}).value
        deny = discord.Permissions(**{k: True for k, v in perms.items() if not v}).value
        role.permissions = (role.permissions & ~deny) | allow
        self._dispatch_soon("GUILD_ROLE_UPDATE",
                            {"guild_id": str(guild.id), "role": role.payload()}, guild.id)

    def _dispatch_soon(self, name: str, data: dict[str, Any], guild_id: int | None,
                       intent: int = 0) -> None:
        """Send a gateway event from a synchronous helper (a task, kept until done)."""
        if not self.gateway.sessions:  # no session, nobody to tell
            return
        task = asyncio.get_running_loop().create_task(
            self.gateway.dispatch(name, data, guild_id, intent))
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    async def delete_message(self, message: FakeMessage) -> None:
        """A moderator deletes a message (MESSAGE_DELETE is sent to the bot)."""
        message.deleted = True
        await self._messages.announce("MESSAGE_DELETE", message)
        self._changed()

    # ----- the Activity (activities.py) -----------------------------------------------
    @property
    def client_secret(self) -> str:
        """The application's OAuth2 client secret (its client id is its application id)."""
        return self.activities.client_secret

    def enable_activities(self, entry_point: bool = True) -> dict[str, Any] | None:
        """Switch the application's Activity on (the EMBEDDED flag); with the default
        Entry Point command ``launch``, as the Developer Portal makes it. Returns it."""
        return self.activities.enable(entry_point)

    def add_entry_point(self, name: str = "launch", handler: int = DISCORD_LAUNCH_ACTIVITY,
                        description: str = "Launch the Activity") -> dict[str, Any]:
        """An Entry Point command (type 4) among the global commands, as if made in the
        Developer Portal (switches the Activity on). A bulk overwrite of the global
        commands that leaves it out is refused with 50240."""
        return self.activities.add_entry_point(name, handler, description)

    def authorize(self, user: FakeUser, client_id: int | str | None = None,
                  scopes: tuple[str, ...] = ("identify",)) -> str:
        """``user`` accepts the Embedded App SDK's ``authorize()`` for ``client_id``
        (default: this application): the one-use authorization code the page gets."""
        return self.activities.authorize(user, client_id, scopes)

    def start_activity(self, channel: FakeChannel, users: list[FakeUser]) -> str:
        """``users[0]`` launches the Activity in ``channel`` and the others join (or all
        join the one running there): its instance id."""
        return self.activities.start(channel, users).id

    def join_activity(self, instance_id: str, user: FakeUser) -> None:
        self.activities.join(self.activities.instance(instance_id), user)

    def leave_activity(self, instance_id: str, user: FakeUser) -> None:
        """``user`` closes the Activity; when the last one has, the instance is over."""
        self.activities.leave(self.activities.instance(instance_id), user)

    def activity(self, instance_id: str) -> ActivityInstance:
        """An Activity instance (``channel``, ``users``, ``ended``)."""
        return self.activities.instance(instance_id)

    # ----- scheduled events (events.py) -----------------------------------------------
    def scheduled_events(self, guild: FakeGuild | str | int | None = None, *,
                         include_deleted: bool = False) -> list[FakeScheduledEvent]:
        """A guild's scheduled events (default guild), every status, oldest first; as of
        ``world.now()`` (Discord's automatic starts and ends applied)."""
        self.scheduled.catch_up()
        return self.scheduled.of(self.world.get_guild(guild), include_deleted)

    def scheduled_event(self, event: EventRef) -> FakeScheduledEvent:
        """One event (by id, or discord.py's ScheduledEvent), deleted ones too."""
        self.scheduled.catch_up()
        return self.scheduled.find(event)

    def mark_interested(self, user: FakeUser, event: EventRef) -> None:
        """``user`` presses "Interested" on the event in Discord's client."""
        self.scheduled.interest(user, event, True)

    def unmark_interested(self, user: FakeUser, event: EventRef) -> None:
        """``user`` takes their interest back."""
        self.scheduled.interest(user, event, False)

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
