"""Bringing people to a table, on Discord: the server's Scheduled Event of a scheduled
table, the call to the server's role, the reminders and the word to invited members.

Each is one request through the ``Poster``'s pacing or discord.py's guild API; a
refusal is logged and reported as a result (None, False), never raised into a
table's step: a table is never lost for an event or a ping.
"""

from __future__ import annotations

import datetime as dt
import logging

import discord

import locales
from bot.table import gathering
from bot.table.state import LOBBY, PLAYING, Table
from bot.ui import markup
from bot.ui.pacer import MESSAGE
from bot.ui.permissions import may_schedule
from bot.ui.poster import TROUBLE, Poster
from locales import _, _n

log = logging.getLogger(__name__)

EVENT_NAME = 100  # Discord: a scheduled event's name, its location
EVENT_DESCRIPTION = 1000
EVENT_LENGTH = 3 * 3600.0  # an external event needs an end: the game's expected length
USERS_READ = 100  # interested members read at a time (the route's most)


def _utc(timestamp: float) -> dt.datetime:
    return dt.datetime.fromtimestamp(timestamp, dt.UTC)


class Gatherings:
    """The Discord side of scheduled tables, role calls and invitations."""

    def __init__(self, client: discord.Client, poster: Poster):
        self.client = client
        self.poster = poster

    # -- the server's Scheduled Event -----------------------------------------------

    def may_schedule(self, guild_id: int | None) -> bool:
        """Whether the bot may create the server's events (``permissions.may_schedule``)."""
        return may_schedule(self.client.get_guild(guild_id) if guild_id is not None else None)

    async def create_event(self, table: Table, title: str, host: str) -> int | None:
        """The table's Scheduled Event on the server (external: its place is the channel);
        its id, or None (no permission, or Discord refused: logged)."""
        guild = self.client.get_guild(table.guild_id) if table.guild_id is not None else None
        if guild is None or table.starts_at is None or not self.may_schedule(table.guild_id):
            return None
        link = markup.jump_url(table.guild_id, table.channel_id, table.posts.message_id)
        with locales.speaking(table.language):  # the server reads it
            # Plain text: an event's name and place show no markdown.
            name = markup.clip(_("{game} · {host}'s table", game=title,
                                 host=markup.safe_name(host, markdown=False)), EVENT_NAME)
            description = markup.clip(
                _("A {game} table for {players} players. Press **Join** on the lobby, or "
                  "**Interested** here, to take a seat: {link}", game=title,
                  players=table.player_range(), link=link), EVENT_DESCRIPTION)
        place = markup.clip(f"#{table.channel_name or table.channel_id}", EVENT_NAME)
        await self.poster.pacer.acquire(MESSAGE)
        try:
            event = await guild.create_scheduled_event(
                name=name, description=description, start_time=_utc(table.starts_at),
                end_time=_utc(table.starts_at + EVENT_LENGTH),
                entity_type=discord.EntityType.external,
                privacy_level=discord.PrivacyLevel.guild_only, location=place)
        except TROUBLE as error:
            log.warning("cannot create the event of table %s: %s", table.table_id, error)
            return None
        return event.id

    async def set_event(self, guild_id: int | None, event_id: int, running: bool) -> bool:
        """Move the event on as its table did: ``running`` (the game started) makes a
        scheduled event active; otherwise (the table closed) it ends an active one and
        cancels one still scheduled. (Discord starts and ends an external event at its
        times by itself, so the event may be there already.) False if Discord refused."""
        guild = self.client.get_guild(guild_id) if guild_id is not None else None
        if guild is None:
            return False
        await self.poster.pacer.acquire(MESSAGE)
        try:
            event = await guild.fetch_scheduled_event(event_id)
            if event.status == discord.EventStatus.scheduled:
                await (event.start() if running else event.cancel())
            elif event.status == discord.EventStatus.active and not running:
                await event.end()
        except TROUBLE as error:
            log.warning("cannot move event %s on: %s", event_id, error)
            return False
        return True

    async def interested(self, guild_id: int | None, event_id: int) -> list[discord.User]:
        """The members who pressed Interested on the event (at most ``USERS_READ``)."""
        guild = self.client.get_guild(guild_id) if guild_id is not None else None
        if guild is None:
            return []
        await self.poster.pacer.acquire(MESSAGE)
        try:
            event = await guild.fetch_scheduled_event(event_id)
            return [user async for user in event.users(limit=USERS_READ) if not user.bot]  # (the
            # bot counts as interested in the events it made)
        except TROUBLE as error:
            log.warning("cannot read who is interested in event %s: %s", event_id, error)
            return []

    # -- messages in the table's channel ----------------------------------------------

    def call_text(self, table: Table, role_id: int) -> str:
        """The call to the server's role: the game, how many more it needs, the lobby."""
        link = markup.jump_url(table.guild_id, table.channel_id, table.posts.message_id)
        with locales.speaking(table.language):
            if table.status == PLAYING:  # the call is answered: no count any more
                return _("📣 The {game} table started: {link}", game=table.title, link=link)
            if table.status != LOBBY:
                return _("📣 The {game} table closed.", game=table.title)
            needed = gathering.needed(table)
            wanted = (_n("needs {n} more player", "needs {n} more players", needed)
                      if needed else _("has players enough, and room for more"))
            when = (" " + _("It starts {when}.", when=markup.start_time(table.starts_at))
                    if table.starts_at is not None else "")
            if len(table.seats) >= table.seat_range[1]:
                wanted = _("is full")
            text = _("📣 <@&{role}> A {game} table {wanted}: {link}.{when}", role=role_id,
                     game=table.title, wanted=wanted, link=link, when=when)
        return markup.content(text)

    async def call(self, table: Table, role_id: int) -> int | None:
        """Ping the role once for this lobby; the message's id (to keep its count up to date)."""
        message = await self.poster.send(
            table.channel_id, table.guild_id, content=self.call_text(table, role_id),
            allowed_mentions=discord.AllowedMentions(everyone=False, users=False,
                                                     roles=[discord.Object(role_id)]))
        return message.id if message is not None else None

    async def update_call(self, table: Table, role_id: int) -> None:
        """The call's "needs N more" again (no second ping: an edit pings nobody)."""
        message_id = table.posts.call_message_id
        if message_id is None:
            return
        try:
            await self.poster.edit(table.channel_id, table.guild_id, message_id,
                                   content=self.call_text(table, role_id),
                                   allowed_mentions=discord.AllowedMentions.none())
        except Exception as error:  # (Gone: deleted by a moderator; nothing to keep up)
            log.info("cannot update the call of table %s: %s", table.table_id, error)

    async def say(self, table: Table, text: str, users: list[int]) -> bool:
        """A message in the table's channel that pings exactly ``users``."""
        mentions = discord.AllowedMentions(everyone=False, roles=False,
                                           users=[discord.Object(u) for u in users])
        sent = await self.poster.send(table.channel_id, table.guild_id,
                                      content=markup.content(text), allowed_mentions=mentions)
        return sent is not None

    def invited_text(self, table: Table, host: str, users: list[int]) -> str:
        link = markup.jump_url(table.guild_id, table.channel_id, table.posts.message_id)
        with locales.speaking(table.language):
            return _("✉️ {players}: {host} keeps you a seat at this {game} table. Press "
                     "**Join** on it to take it: {link}",
                     players=" ".join(markup.mention(u) for u in users),
                     host=markup.safe_name(host), game=table.title, link=link)

    def reminder_text(self, table: Table) -> str:
        link = markup.jump_url(table.guild_id, table.channel_id, table.posts.message_id)
        assert table.starts_at is not None
        with locales.speaking(table.language):
            players = " ".join(markup.mention(s.user_id) for s in table.humans)
            return _("⏰ {players}: the {game} table starts {when}. {link}", players=players,
                     game=table.title, when=markup.start_time(table.starts_at), link=link)

    def called_off_text(self, table: Table) -> str:
        players = " ".join(markup.mention(s.user_id) for s in table.humans)
        with locales.speaking(table.language):
            said = _n("The {game} table was called off: by its time, {seated} of the {n} "
                      "player it needs had joined.",
                      "The {game} table was called off: by its time, {seated} of the {n} "
                      "players it needs had joined.", table.seat_range[0], game=table.title,
                      seated=len(table.seats))
        return f"{players} {said}" if players else said

