"""Talking to Discord without ever letting an error crash a table.

``Poster`` sends and edits channel messages and DMs: a 403/404/429/5xx is
logged and reported as a result (None / ``Gone`` / ``DMClosed``), never raised
into a table's step. ``EditCoalescer`` merges table edits that come faster than
once per interval into one edit that draws the latest state.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Awaitable, Callable
from typing import Any

import discord

from bot.attachments import for_edit, for_send

log = logging.getLogger(__name__)

CANNOT_DM = 50007  # Discord: "Cannot send messages to this user"
UNKNOWN_MESSAGE = 10008


class Gone(Exception):
    """The message to edit no longer exists (deleted): post a new one."""


class DMClosed(Exception):
    """The user does not accept DMs from the bot."""


class Poster:
    def __init__(self, client: discord.Client):
        self.client = client

    def channel(self, channel_id: int, guild_id: int | None) -> discord.PartialMessageable:
        return self.client.get_partial_messageable(channel_id, guild_id=guild_id)

    async def send(self, channel_id: int, guild_id: int | None, **kwargs: Any
                   ) -> discord.Message | None:
        """Post a message; None if Discord refused (logged)."""
        try:
            return await self.channel(channel_id, guild_id).send(**for_send(kwargs))
        except discord.HTTPException as error:
            log.warning("cannot post in channel %s: %s", channel_id, error)
            return None

    async def edit(self, channel_id: int, guild_id: int | None, message_id: int,
                   **kwargs: Any) -> bool:
        """Edit a message; raises ``Gone`` if it was deleted, False on other refusals."""
        message = self.channel(channel_id, guild_id).get_partial_message(message_id)
        try:
            await message.edit(**for_edit(kwargs))
            return True
        except discord.NotFound as error:
            if error.code in (UNKNOWN_MESSAGE, 0):
                raise Gone() from None
            log.warning("cannot edit message %s: %s", message_id, error)
        except discord.HTTPException as error:
            log.warning("cannot edit message %s: %s", message_id, error)
        return False

    async def fetch(self, channel_id: int, guild_id: int | None, message_id: int
                    ) -> discord.Message | None:
        """One message as it is now; None if it is gone or cannot be read (logged)."""
        try:
            return await self.channel(channel_id, guild_id).fetch_message(message_id)
        except discord.NotFound:
            return None
        except discord.HTTPException as error:
            log.warning("cannot read message %s: %s", message_id, error)
            return None

    async def delete(self, channel_id: int, guild_id: int | None, message_id: int) -> bool:
        """Delete one of the bot's messages; True if it is gone (also when it already was)."""
        message = self.channel(channel_id, guild_id).get_partial_message(message_id)
        try:
            await message.delete()
            return True
        except discord.NotFound:
            return True
        except discord.HTTPException as error:
            log.warning("cannot delete message %s: %s", message_id, error)
            return False

    async def dm_channel(self, user_id: int, known: int | None) -> discord.abc.Messageable:
        if known is not None:
            return self.client.get_partial_messageable(known, type=discord.ChannelType.private)
        return await self.client.create_dm(discord.Object(user_id))

    async def dm(self, user_id: int, known_channel: int | None, **kwargs: Any
                 ) -> discord.Message | None:
        """DM a user; ``DMClosed`` if they do not accept DMs, None on other errors."""
        try:
            channel = await self.dm_channel(user_id, known_channel)
            return await channel.send(**for_send(kwargs))
        except discord.Forbidden as error:
            # 50007 is the documented answer for closed DMs; any 403 on a DM means the same.
            log.info("DMs to %s are closed (%s)", user_id, error.code)
            raise DMClosed() from None
        except discord.HTTPException as error:
            log.warning("cannot DM %s: %s", user_id, error)
            return None


class EditCoalescer:
    """At most one edit per ``interval`` per key; a request inside it is merged.

    ``request`` edits at once when the last edit is old enough, otherwise it
    schedules one edit at the end of the interval (the edit draws the state of
    that moment, so every request in between is covered by it).
    """

    def __init__(self, interval: float, edit: Callable[[str], Awaitable[None]],
                 now: Callable[[], float] = time.monotonic):
        self._now = now  # real time: this is about Discord's rate of edits, not game time
        self.interval = interval
        self._edit = edit
        self._last: dict[str, float] = {}
        self._pending: dict[str, asyncio.Task[None]] = {}

    async def request(self, key: str) -> None:
        if key in self._pending:
            return  # the scheduled edit will draw this change too
        wait = self._last.get(key, float("-inf")) + self.interval - self._now()
        if wait <= 0:
            await self._run(key)
        else:
            self._pending[key] = asyncio.create_task(self._later(key, wait))

    async def now(self, key: str) -> None:
        """Edit at once, dropping a scheduled edit (the final state of a table)."""
        self.cancel(key)
        await self._run(key)

    def pending(self) -> bool:
        return any(not t.done() for t in self._pending.values())

    def cancel(self, key: str) -> None:
        task = self._pending.pop(key, None)
        if task is not None and task is not asyncio.current_task():
            task.cancel()

    def forget(self, key: str) -> None:
        self.cancel(key)
        self._last.pop(key, None)

    async def close(self) -> None:
        for key in list(self._pending):
            self.cancel(key)

    async def _later(self, key: str, wait: float) -> None:
        await asyncio.sleep(wait)
        self._pending.pop(key, None)
        await self._run(key)

    async def _run(self, key: str) -> None:
        self._last[key] = self._now()
        try:
            await self._edit(key)
        except Exception:  # an edit must never break the step that asked for it
            log.exception("table edit %s failed", key)
