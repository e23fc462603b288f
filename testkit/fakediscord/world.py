"""The fake world: guilds (one by default), their channels and roles, users, DMs and
every message, kept by ``World`` with the lookups, the permission algorithm and the
guild-wide payloads (GUILD_CREATE, members, roles).

Plain data and pure helpers, no I/O: the REST and gateway layers read and change it,
tests inspect it. The things themselves are ``entities``'s (re-exported here).
"""

from __future__ import annotations

import time
from collections.abc import Callable, Mapping
from typing import Any, Protocol

import discord

from .entities import (
    ADMINISTRATOR,
    ALL_PERMISSIONS,
    ATTACH_FILES,
    BOT_ROLE_PERMISSIONS,
    COMPONENTS_V2_FLAG,
    CREATE_PRIVATE_THREADS,
    CREATE_PUBLIC_THREADS,
    DISCORD_EPOCH_MS,
    DM,
    EMBED_LINKS,
    EPHEMERAL_FLAG,
    EVERYONE_PERMISSIONS,
    LOADING_FLAG,
    MANAGE_MESSAGES,
    PRIVATE_THREAD,
    PUBLIC_THREAD,
    READ_MESSAGE_HISTORY,
    SEND_MESSAGES,
    SEND_MESSAGES_IN_THREADS,
    TEXT,
    VIEW_CHANNEL,
    Application,
    FakeChannel,
    FakeGuild,
    FakeMessage,
    FakeRole,
    FakeUser,
    Overwrite,
    Snowflakes,
    iter_leaves,
    now_iso,
    version_texts,
)

__all__ = [
    "ADMINISTRATOR",
    "ALL_PERMISSIONS",
    "ATTACH_FILES",
    "BOT_ROLE_PERMISSIONS",
    "COMPONENTS_V2_FLAG",
    "CREATE_PRIVATE_THREADS",
    "CREATE_PUBLIC_THREADS",
    "DISCORD_EPOCH_MS",
    "DM",
    "EMBED_LINKS",
    "EPHEMERAL_FLAG",
    "EVERYONE_PERMISSIONS",
    "LOADING_FLAG",
    "MANAGE_MESSAGES",
    "PRIVATE_THREAD",
    "PUBLIC_THREAD",
    "READ_MESSAGE_HISTORY",
    "SEND_MESSAGES",
    "SEND_MESSAGES_IN_THREADS",
    "TEXT",
    "VIEW_CHANNEL",
    "Application",
    "FakeChannel",
    "FakeGuild",
    "FakeMessage",
    "FakeRole",
    "FakeUser",
    "Overwrite",
    "Snowflakes",
    "World",
    "iter_leaves",
    "now_iso",
    "version_texts",
]


class ScheduledEvent(Protocol):
    """What the world reads of a scheduled event (events.py's ``FakeScheduledEvent``):
    GUILD_CREATE lists the unfinished ones."""

    guild_id: int
    deleted: bool

    @property
    def finished(self) -> bool: ...

    def payload(self) -> dict[str, Any]: ...


class World:
    """Everything the fake Discord knows. Survives bot restarts (it is the server).

    ``guild`` is the default guild (on shard 0 of ``shard_count``); ``add_guild`` adds more.
    """

    def __init__(self, guild_name: str = "Card Club", *, shard_count: int = 1) -> None:
        self.ids = Snowflakes()
        self.shard_count = shard_count  # the fake gateway's: add_guild's default count
        self.users: dict[int, FakeUser] = {}
        self.channels: dict[int, FakeChannel] = {}
        self.messages: dict[int, FakeMessage] = {}
        self.guilds: dict[int, FakeGuild] = {}
        self.bot = self._new_user("cardtable", bot=True)
        self.application_id = self.bot.id  # as for every application created since 2020
        self.owner = self._new_user("owner")  # owns every guild
        self.guild = self._make_guild(guild_name, shard=0, shard_count=shard_count)
        self.general = self.add_channel("general")
        self.guild.system_channel_id = self.general.id
        self.games = self.add_channel("games")
        self.thread = self.add_thread("table-thread", self.games)
        # Registered application commands: scope (None = global, else guild id) -> list.
        self.commands: dict[int | None, list[dict[str, Any]]] = {None: []}
        self._command_ids: dict[tuple[int | None, int, str], int] = {}
        # Discord's clock, for what must be "in the future" (scheduled events): a test
        # whose bot runs on a ManualClock sets ``world.now = clock.now``.
        self.now: Callable[[], float] = time.time
        self.scheduled_events: Mapping[int, ScheduledEvent] = {}  # events.py's; by id

    # ----- building -------------------------------------------------------------------
    def _new_user(self, name: str, bot: bool = False) -> FakeUser:
        user = FakeUser(id=self.ids.next(), name=name, bot=bot)
        self.users[user.id] = user
        return user

    def _make_guild(self, name: str, *, shard: int | None, shard_count: int) -> FakeGuild:
        if shard_count < 1 or (shard is not None and not 0 <= shard < shard_count):
            raise ValueError(f"no shard {shard} of {shard_count}")
        guild_id = self.ids.next() if shard is None else self.ids.on_shard(shard, shard_count)
        guild = FakeGuild(id=guild_id, name=name, owner_id=self.owner.id)
        guild.roles[guild.id] = FakeRole(guild.id, "@everyone", EVERYONE_PERMISSIONS)
        bot_role = FakeRole(self.ids.next(), "cardtable", BOT_ROLE_PERMISSIONS, 1, managed=True)
        guild.roles[bot_role.id] = bot_role
        guild.member_roles[self.owner.id] = []
        guild.member_roles[self.bot.id] = [bot_role.id]
        self.guilds[guild.id] = guild
        return guild

    def add_guild(
        self,
        name: str,
        shard: int | None = None,
        shard_count: int | None = None,
        *,
        members: list[FakeUser] | None = None,
    ) -> FakeGuild:
        """Another guild the bot is in (add it before the bot connects), with a `general`
        text channel, the bot's member and role as in the default guild. ``shard``: its id
        is on that shard of ``shard_count`` (default: the fake's count), Discord's
        ``(guild_id >> 22) % shard_count``. ``members``: users who are members (default:
        every user; the owner and the bot always)."""
        if self.find_guild(name) is not None:
            raise ValueError(f"guild {name!r} already exists")
        guild = self._make_guild(name, shard=shard, shard_count=shard_count or self.shard_count)
        humans = [u for u in self.users.values() if not u.bot]
        for user in humans if members is None else members:
            guild.member_roles.setdefault(user.id, [])
        general = self.add_channel("general", guild=guild)
        guild.system_channel_id = general.id
        return guild

    def add_user(self, name: str, *, dms_closed: bool = False, locale: str = "en-US",
                 guilds: list[FakeGuild] | None = None) -> FakeUser:
        """A new user (not a bot), whose client speaks ``locale``: a member of ``guilds``
        (default: every guild, also those added later with ``add_guild``)."""
        if self.find_user(name) is not None:
            raise ValueError(f"user {name!r} already exists")
        user = self._new_user(name)
        user.dms_closed = dms_closed
        user.locale = locale
        for guild in self.guilds.values() if guilds is None else guilds:
            guild.member_roles[user.id] = []
        return user

    def add_channel(
        self,
        name: str,
        *,
        private_to: list[FakeUser] | None = None,
        guild: FakeGuild | None = None,
    ) -> FakeChannel:
        """A text channel of ``guild`` (default: the default guild); ``private_to``: only
        those users (and the bot) can view it."""
        guild = guild or self.guild
        chan = FakeChannel(
            id=self.ids.next(),
            name=name,
            type=TEXT,
            guild_id=guild.id,
            position=len(guild.channel_ids),
        )
        self._register_channel(chan)
        if private_to is not None:
            self.set_permissions(chan, guild.everyone, view_channel=False)
            for user in [*private_to, self.bot]:
                self.set_permissions(chan, user, view_channel=True)
        return chan

    def add_thread(self, name: str, parent: FakeChannel, *, private: bool = False) -> FakeChannel:
        """A thread the bot owns; its permissions are its parent's (thread membership of
        a private thread is not modelled)."""
        chan = FakeChannel(
            id=self.ids.next(),
            name=name,
            type=PRIVATE_THREAD if private else PUBLIC_THREAD,
            guild_id=parent.guild_id,
            parent_id=parent.id,
        )
        return self._register_channel(chan)

    def _register_channel(self, chan: FakeChannel) -> FakeChannel:
        self.channels[chan.id] = chan
        assert chan.guild_id is not None
        self.guilds[chan.guild_id].channel_ids.append(chan.id)
        return chan

    def dm_channel(self, user: FakeUser) -> FakeChannel:
        """The bot's DM channel with a user (created on first use, as Discord does)."""
        if user.dm_channel_id is None:
            chan = FakeChannel(id=self.ids.next(), name=f"dm-{user.name}", type=DM)
            chan.recipient = user
            self.channels[chan.id] = chan
            user.dm_channel_id = chan.id
        return self.channels[user.dm_channel_id]

    # ----- lookups --------------------------------------------------------------------
    def find_user(self, name: str) -> FakeUser | None:
        return next((u for u in self.users.values() if u.name == name), None)

    def user(self, name: str) -> FakeUser:
        found = self.find_user(name)
        if found is None:
            raise KeyError(f"no user named {name!r}")
        return found

    def find_guild(self, name: str) -> FakeGuild | None:
        return next((g for g in self.guilds.values() if g.name == name), None)

    def get_guild(self, guild: FakeGuild | str | int | None = None) -> FakeGuild:
        """A guild by name or id (None: the default guild)."""
        if guild is None:
            return self.guild
        if isinstance(guild, FakeGuild):
            return guild
        found = self.guilds.get(guild) if isinstance(guild, int) else self.find_guild(guild)
        if found is None:
            raise KeyError(f"no guild {guild!r}")
        return found

    def channel(self, name: str, guild: FakeGuild | str | int | None = None) -> FakeChannel:
        """A channel by name: of ``guild`` if given; else the default guild's, or the only
        other channel with that name (another guild's, a DM)."""
        home = self.get_guild(guild)
        for chan in self.channels_of(home):
            if chan.name == name:
                return chan
        if guild is not None:
            raise KeyError(f"no channel named {name!r} in {home!r}")
        others = [c for c in self.channels.values() if c.name == name]
        if len(others) > 1:
            raise KeyError(f"{len(others)} channels named {name!r}: pass guild=")
        if not others:
            raise KeyError(f"no channel named {name!r}")
        return others[0]

    def channels_of(self, guild: FakeGuild) -> list[FakeChannel]:
        return [self.channels[i] for i in guild.channel_ids]

    def guild_of(self, channel: FakeChannel) -> FakeGuild | None:
        """The channel's guild (None for a DM)."""
        return None if channel.guild_id is None else self.guilds[channel.guild_id]

    @property
    def guild_channels(self) -> list[FakeChannel]:
        """The default guild's channels."""
        return self.channels_of(self.guild)

    @property
    def members(self) -> list[FakeUser]:
        """The default guild's members."""
        return self.members_of(self.guild)

    def members_of(self, guild: FakeGuild) -> list[FakeUser]:
        return [self.users[i] for i in guild.member_roles]

    # ----- permissions ----------------------------------------------------------------
    def set_permissions(
        self, channel: FakeChannel, target: FakeUser | FakeRole, **perms: bool
    ) -> None:
        """Add a channel overwrite: True allows, False denies, names as discord.Permissions.

        A member (type 1) or role (type 0) overwrite, sent in GUILD_CREATE and used for
        the interaction's member/channel permissions; the bot is told of a later change
        only through ``FakeDiscord.set_bot_permissions`` (its own overwrites)."""
        if channel.is_thread:
            channel = self.channels[channel.parent_id or 0]  # threads inherit their parent's
        allow = discord.Permissions(**{k: True for k, v in perms.items() if v}).value
        deny = discord.Permissions(**{k: True for k, v in perms.items() if not v}).value
        kind = 0 if isinstance(target, FakeRole) else 1
        ow = channel.overwrites.setdefault(target.id, Overwrite(target.id, kind))
        ow.allow = (ow.allow & ~deny) | allow
        ow.deny = (ow.deny & ~allow) | deny

    def permissions(self, channel: FakeChannel, user: FakeUser) -> int:
        """Discord's permission algorithm: roles, then @everyone/role/member overwrites."""
        if channel.is_dm:
            return VIEW_CHANNEL | SEND_MESSAGES | EMBED_LINKS | ATTACH_FILES | READ_MESSAGE_HISTORY
        guild = self.guilds[channel.guild_id or 0]
        if user.id not in guild.member_roles:
            return 0
        if user.id == guild.owner_id:
            return ALL_PERMISSIONS
        role_ids = guild.member_roles[user.id]
        perms = guild.everyone.permissions
        for rid in role_ids:
            perms |= guild.roles[rid].permissions
        if perms & ADMINISTRATOR:
            return ALL_PERMISSIONS
        base = (
            self.channels[channel.parent_id] if channel.is_thread and channel.parent_id else channel
        )
        perms = _apply_overwrites(perms, base.overwrites, guild.id, role_ids, user.id)
        if not perms & VIEW_CHANNEL:
            return 0
        return perms

    # ----- payloads -------------------------------------------------------------------
    def role_payloads(self, guild: FakeGuild | None = None) -> list[dict[str, Any]]:
        return [r.payload() for r in (guild or self.guild).roles.values()]

    def member_payload(
        self, user: FakeUser, with_user: bool = True, guild: FakeGuild | None = None
    ) -> dict[str, Any]:
        guild = guild or self.guild
        data: dict[str, Any] = {
            "roles": [str(r) for r in guild.member_roles.get(user.id, [])],
            "joined_at": guild.joined_at,
            "deaf": False,
            "mute": False,
            "flags": 0,
            "nick": None,
            "avatar": None,
            "pending": False,
            "communication_disabled_until": None,
        }
        if with_user:
            data["user"] = user.payload()
        return data

    def guild_payload(self, guild: FakeGuild | None = None) -> dict[str, Any]:
        """GUILD_CREATE: without the members intent Discord only sends the bot's member."""
        guild = guild or self.guild
        chans = self.channels_of(guild)
        return {
            "id": str(guild.id),
            "name": guild.name,
            "icon": None,
            "splash": None,
            "discovery_splash": None,
            "owner_id": str(guild.owner_id),
            "afk_channel_id": None,
            "afk_timeout": 300,
            "verification_level": 0,
            "default_message_notifications": 0,
            "explicit_content_filter": 0,
            "roles": self.role_payloads(guild),
            "emojis": [],
            "stickers": [],
            "features": [],
            "mfa_level": 0,
            "system_channel_id": _opt_id(guild.system_channel_id),
            "system_channel_flags": 0,
            "rules_channel_id": None,
            "vanity_url_code": None,
            "description": None,
            "banner": None,
            "premium_tier": 0,
            "premium_subscription_count": 0,
            "preferred_locale": guild.preferred_locale,
            "public_updates_channel_id": None,
            "nsfw_level": 0,
            "premium_progress_bar_enabled": False,
            "joined_at": guild.joined_at,
            "large": False,
            "unavailable": False,
            "member_count": len(guild.member_roles),
            "voice_states": [],
            "members": [self.member_payload(self.bot, guild=guild)],
            "channels": [c.payload(self) for c in chans if not c.is_thread],
            "threads": [c.payload(self) for c in chans if c.is_thread],
            "presences": [],
            "stage_instances": [],
            "guild_scheduled_events": [e.payload() for e in self.scheduled_events.values()
                                       if e.guild_id == guild.id and not e.deleted
                                       and not e.finished],
            "soundboard_sounds": [],
        }

    def message_payloads(self, messages: list[FakeMessage]) -> list[dict[str, Any]]:
        return [m.payload(self) for m in messages]


def _opt_id(snowflake: int | None) -> str | None:
    return None if snowflake is None else str(snowflake)


def _apply_overwrites(
    perms: int, overwrites: dict[int, Overwrite], guild_id: int, role_ids: list[int], user_id: int
) -> int:
    everyone = overwrites.get(guild_id)
    if everyone:
        perms = (perms & ~everyone.deny) | everyone.allow
    allow = deny = 0
    for rid in role_ids:
        ow = overwrites.get(rid)
        if ow:
            allow |= ow.allow
            deny |= ow.deny
    perms = (perms & ~deny) | allow
    member = overwrites.get(user_id)
    if member and member.type == 1:
        perms = (perms & ~member.deny) | member.allow
    return perms
