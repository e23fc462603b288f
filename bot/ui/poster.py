"""Talking to Discord without ever letting an error crash a table, within its budget.

``Poster`` sends and edits channel messages and DMs: a 403/404/429/5xx, and a
request that never got an answer (a dropped connection, a timeout: ``TROUBLE``), is
logged and reported as a result (None / ``Gone`` / ``DMClosed``), never raised into a
table's step — a step already saved goes on (the next hand, the driver). Every
request it makes waits for its turn in the bot's ``Pacer`` (Discord's global limit).
``EditCoalescer`` merges table edits that come faster than once per interval into one
edit that draws the latest state.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Awaitable, Callable
from typing import Any, Protocol

import aiohttp
import discord

from bot.ui.attachments import for_edit, for_send
from bot.ui.pacer import EDIT, MESSAGE, Pacer

log = logging.getLogger(__name__)

CANNOT_DM = 50007  # Discord: "Cannot send messages to this user"
UNKNOWN_MESSAGE = 10008


# What a request to Discord may end in besides its answer: a refusal (4xx/5xx), or no
# answer at all (the connection dropped, a timeout, the network).
TROUBLE: tuple[type[Exception], ...] = (discord.HTTPException, aiohttp.ClientError,
                                        TimeoutError, OSError)


def once(kind: str, table_id: str) -> str:
    """A nonce that makes a message of a table's end be posted once: Discord returns the
    message already made with it (enforce_nonce, which discord.py sets with a nonce)
    instead of a second, if a restart shows the end again within minutes. Discord takes
    up to 25 characters."""
    return f"{kind}:{table_id}"[:25]


class Gone(Exception):
    """The message to edit no longer exists (deleted): post a new one."""


class DMClosed(Exception):
    """The user does not accept DMs from the bot."""


class Poster:
    def __init__(self, client: discord.Client, pacer: Pacer | None = None):
        self.client = client
        self.pacer = pacer if pacer is not None else Pacer()

    def channel(self, channel_id: int, guild_id: int | None) -> discord.PartialMessageable:
        return self.client.get_partial_messageable(channel_id, guild_id=guild_id)

    async def send(self, channel_id: int, guild_id: int | None, **kwargs: Any
                   ) -> discord.Message | None:
        """Post a message; None if Discord refused (logged)."""
        await self.pacer.acquire(MESSAGE)
        try:
            return await self.channel(channel_id, guild_id).send(**for_send(kwargs))
        except TROUBLE as error:
            log.warning("cannot post in channel %s: %s", channel_id, error)
            return None

    async def edit(self, channel_id: int, guild_id: int | None, message_id: int, *,
                   paid: bool = False, **kwargs: Any) -> bool:
        """Edit a message; raises ``Gone`` if it was deleted, False on other refusals.
        ``paid``: the caller already took this request's turn (a coalesced table edit)."""
        message = self.channel(channel_id, guild_id).get_partial_message(message_id)
        if not paid:
            await self.pacer.acquire(MESSAGE)
        try:
            await message.edit(**for_edit(kwargs))
            return True
        except discord.NotFound as error:
            if error.code in (UNKNOWN_MESSAGE, 0):
                raise Gone() from None
            log.warning("cannot edit message %s: %s", message_id, error)
        except TROUBLE as error:
            log.warning("cannot edit message %s: %s", message_id, error)
        return False

    async def fetch(self, channel_id: int, guild_id: int | None, message_id: int
                    ) -> discord.Message | None:
        """One message as it is now; None if it is gone or cannot be read (logged)."""
        await self.pacer.acquire(MESSAGE)
        try:
            return await self.channel(channel_id, guild_id).fetch_message(message_id)
        except discord.NotFound:
            return None
        except TROUBLE as error:
            log.warning("cannot read message %s: %s", message_id, error)
            return None

    async def delete(self, channel_id: int, guild_id: int | None, message_id: int) -> bool:
        """Delete one of the bot's messages; True if it is gone (also when it already was)."""
        message = self.channel(channel_id, guild_id).get_partial_message(message_id)
        await self.pacer.acquire(MESSAGE)
        try:
            await message.delete()
            return True
        except discord.NotFound:
            return True
        except TROUBLE as error:
            log.warning("cannot delete message %s: %s", message_id, error)
            return False

    async def dm_channel(self, user_id: int, known: int | None) -> discord.abc.Messageable:
        if known is not None:
            return self.client.get_partial_messageable(known, type=discord.ChannelType.private)
        await self.pacer.acquire(MESSAGE)  # opening a DM channel is a request too
        return await self.client.create_dm(discord.Object(user_id))

    async def dm(self, user_id: int, known_channel: int | None, **kwargs: Any
                 ) -> discord.Message | None:
        """DM a user; ``DMClosed`` if they do not accept DMs, None on other errors."""
        try:
            channel = await self.dm_channel(user_id, known_channel)
            await self.pacer.acquire(MESSAGE)
            return await channel.send(**for_send(kwargs))
        except discord.Forbidden as error:
            # 50007 is the documented answer for closed DMs; any 403 on a DM means the same.
            log.info("DMs to %s are closed (%s)", user_id, error.code)
            raise DMClosed() from None
        except TROUBLE as error:
            log.warning("cannot DM %s: %s", user_id, error)
            return None


class Clock(Protocol):
    def now(self) -> float: ...
    async def sleep_until(self, when: float) -> None: ...


class MonotonicClock:
    """Real time that never goes back (the default: edits are about Discord's rate)."""

    def now(self) -> float:
        return time.monotonic()

    async def sleep_until(self, when: float) -> None:
        await asyncio.sleep(max(0.0, when - time.monotonic()))


class EditCoalescer:
    """At most one edit per interval per key; requests inside it are merged.

    ``request`` edits at once when the last edit is old enough and the pacer has a
    turn free; otherwise one edit waits (for the end of the interval, then for a table
    edit's turn in the pacer) and draws the state of that moment, so every request in
    between is covered by it. A request may ask for a longer interval (``interval``):
    a later one with a shorter interval brings the waiting edit forward. ``state``
    (kept until the edit runs, the newest replacing the older) is what to draw, for the
    edit callback to take with ``take_state``.
    """

    def __init__(self, interval: float, edit: Callable[[str], Awaitable[None]],
                 clock: Clock | None = None, pacer: Pacer | None = None):
        self.clock = clock if clock is not None else MonotonicClock()
        self.interval = interval
        self.pacer = pacer
        self._edit = edit
        self._last: dict[str, float] = {}
        self._due: dict[str, float] = {}
        self._states: dict[str, Any] = {}
        self._wakes: dict[str, asyncio.Event] = {}
        self._pending: dict[str, asyncio.Task[None]] = {}
        self._drawing = 0  # edits of waiting tasks on their way to Discord

    async def request(self, key: str, interval: float | None = None,
                      state: Any = None) -> None:
        if state is not None:
            self._states[key] = state
        due = self._last.get(key, float("-inf")) + max(interval or 0.0, self.interval)
        if key in self._pending:  # the waiting edit will draw this change too
            if due < self._due[key]:
                self._due[key] = due
                self._wakes[key].set()
            return
        if due <= self.clock.now() and (self.pacer is None or self.pacer.try_acquire(EDIT)):
            await self._run(key)
            return
        self._due[key] = due
        self._wakes[key] = asyncio.Event()
        self._pending[key] = asyncio.create_task(self._later(key))

    def take_state(self, key: str) -> Any:
        """The state the last request gave for the edit now running (None if none)."""
        return self._states.pop(key, None)

    async def now(self, key: str) -> None:
        """Edit at once, dropping a scheduled edit (the final state of a table)."""
        self.cancel(key)
        if self.pacer is not None:
            await self.pacer.acquire(EDIT)
        await self._run(key)

    def pending(self) -> bool:
        """Whether an edit is due or on its way. One still merging moves for its interval
        is not: nothing is left to do before then (``flush`` makes it due)."""
        now = self.clock.now()
        return self._drawing > 0 or any(not task.done() and self._due[key] <= now
                                        for key, task in self._pending.items())

    def waiting(self) -> bool:
        """Whether any edit waits, due or not."""
        return any(not task.done() for task in self._pending.values())

    def flush(self) -> None:
        """Every waiting edit due now (shutting down: draw the last states first)."""
        for key in self._pending:
            self._due[key] = float("-inf")
            self._wakes[key].set()

    def cancel(self, key: str) -> None:
        self._states.pop(key, None)
        self._due.pop(key, None)
        self._wakes.pop(key, None)
        task = self._pending.pop(key, None)
        if task is not None and task is not asyncio.current_task():
            task.cancel()

    def forget(self, key: str) -> None:
        self.cancel(key)
        self._last.pop(key, None)

    async def close(self) -> None:
        for key in list(self._pending):
            self.cancel(key)

    async def _later(self, key: str) -> None:
        wake = self._wakes[key]
        while self._due[key] > self.clock.now() >= self._last.get(key, float("-inf")):
            # (A clock that went back draws at once rather than wait for it.)
            wake.clear()
            sleep = asyncio.ensure_future(self.clock.sleep_until(self._due[key]))
            woken = asyncio.ensure_future(wake.wait())
            try:
                await asyncio.wait((sleep, woken), return_when=asyncio.FIRST_COMPLETED)
            finally:
                sleep.cancel()
                woken.cancel()
        if self.pacer is not None:
            await self.pacer.acquire(EDIT)  # requests meanwhile still merge into this one
        # (No longer waiting: a request from here on may have changed what is drawn.)
        del self._pending[key], self._due[key], self._wakes[key]
        self._drawing += 1
        try:
            await self._run(key)
        finally:
            self._drawing -= 1

    async def _run(self, key: str) -> None:
        self._last[key] = self.clock.now()
        try:
            await self._edit(key)
        except Exception:  # an edit must never break the step that asked for it
            log.exception("table edit %s failed", key)
