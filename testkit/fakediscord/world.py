"""The fake world: guilds (one by default), their channels and roles, users, DMs and
every message.

Plain data and pure helpers, no I/O: the REST and gateway layers read and change it,
tests inspect it. Payload builders return the JSON shapes Discord sends, so discord.py
parses them as it would parse the real thing.
"""

from __future__ import annotations

import itertools
import time
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any

import discord

DISCORD_EPOCH_MS = 1420070400000

# Permission bits the fake checks (values from the Discord API documentation).
ADMINISTRATOR = 1 << 3
VIEW_CHANNEL = 1 << 10
SEND_MESSAGES = 1 << 11
MANAGE_MESSAGES = 1 << 13
EMBED_LINKS = 1 << 14
ATTACH_FILES = 1 << 15
READ_MESSAGE_HISTORY = 1 << 16
CREATE_PUBLIC_THREADS = 1 << 35
CREATE_PRIVATE_THREADS = 1 << 36
SEND_MESSAGES_IN_THREADS = 1 << 38
ALL_PERMISSIONS = discord.Permissions.all().value

# What the bot's role gets by default: what an invite link for a card bot would ask for.
BOT_ROLE_PERMISSIONS = (
    VIEW_CHANNEL
    | SEND_MESSAGES
    | EMBED_LINKS
    | ATTACH_FILES
    | READ_MESSAGE_HISTORY
    | SEND_MESSAGES_IN_THREADS
    | discord.Permissions(add_reactions=True, use_external_emojis=True).value
)
EVERYONE_PERMISSIONS = (
    VIEW_CHANNEL
    | SEND_MESSAGES
    | READ_MESSAGE_HISTORY
    | SEND_MESSAGES_IN_THREADS
    | discord.Permissions(use_application_commands=True, add_reactions=True).value
)

TEXT, DM, PUBLIC_THREAD, PRIVATE_THREAD = 0, 1, 11, 12
EPHEMERAL_FLAG = 1 << 6
LOADING_FLAG = 1 << 7
COMPONENTS_V2_FLAG = 1 << 15


def now_iso() -> str:
    return datetime.now(UTC).isoformat()


class Snowflakes:
    """Increasing, realistic snowflakes (timestamp in the high bits) so ordering works."""

    def __init__(self) -> None:
        self._counter = itertools.count(1)
        self._last = 0

    def next(self) -> int:
        ms = int(time.time() * 1000) - DISCORD_EPOCH_MS
        value = (ms << 22) | (next(self._counter) & 0x3FFFFF)
        self._last = max(self._last + 1, value)  # monotonic even if the counter wraps
        return self._last

    def on_shard(self, shard: int, count: int) -> int:
        """The next snowflake on Discord's shard ``shard`` of ``count`` (a guild's shard is
        ``(guild_id >> 22) % count``): its timestamp moved up to ``count - 1`` ms later."""
        value = self.next()
        value += ((shard - (value >> 22)) % count) << 22
        self._last = value
        return value


@dataclass(eq=False)
class FakeUser:
    id: int
    name: str
    bot: bool = False
    dms_closed: bool = False
    dm_channel_id: int | None = None
    locale: str = "en-US"  # the language of this user's Discord client

    @property
    def display_name(self) -> str | None:
        """The global display name ("alice" -> "Alice"), distinct from the username so
        tests notice which one the bot shows; bots have none (discord.py uses the name)."""
        return None if self.bot else self.name.capitalize()

    def payload(self) -> dict[str, Any]:
        return {
            "id": str(self.id),
            "username": self.name,
            "discriminator": "0",
            "global_name": self.display_name,
            "avatar": None,
            "bot": self.bot,
            "public_flags": 0,
        }

    def __repr__(self) -> str:
        return f"<FakeUser {self.name} id={self.id}>"


@dataclass(eq=False)
class FakeRole:
    id: int
    name: str
    permissions: int
    position: int = 0
    managed: bool = False

    def payload(self) -> dict[str, Any]:
        return {
            "id": str(self.id),
            "name": self.name,
            "color": 0,
            "colors": {"primary_color": 0, "secondary_color": None, "tertiary_color": None},
            "hoist": False,
            "icon": None,
            "unicode_emoji": None,
            "position": self.position,
            "permissions": str(self.permissions),
            "managed": self.managed,
            "mentionable": False,
            "flags": 0,
        }


@dataclass
class Overwrite:
    """A channel permission overwrite: type 0 = role, 1 = member."""

    target_id: int
    type: int
    allow: int = 0
    deny: int = 0

    def payload(self) -> dict[str, Any]:
        return {
            "id": str(self.target_id),
            "type": self.type,
            "allow": str(self.allow),
            "deny": str(self.deny),
        }


@dataclass(eq=False)
class FakeMessage:
    """A message with every version it ever had (versions[0] as posted, [-1] now)."""

    id: int
    channel_id: int
    guild_id: int | None
    author: FakeUser
    versions: list[dict[str, Any]]
    timestamp: str = field(default_factory=now_iso)
    ephemeral_for: FakeUser | None = None
    interaction: Any = None  # the fakediscord Interaction that created it, if any
    type: int = 0
    deleted: bool = False

    @property
    def latest(self) -> dict[str, Any]:
        return self.versions[-1]

    @property
    def content(self) -> str:
        return self.latest.get("content") or ""

    @property
    def embeds(self) -> list[dict[str, Any]]:
        return self.latest.get("embeds") or []

    @property
    def components(self) -> list[dict[str, Any]]:
        return self.latest.get("components") or []

    @property
    def flags(self) -> int:
        return int(self.latest.get("flags") or 0)

    @property
    def ephemeral(self) -> bool:
        return self.ephemeral_for is not None

    @property
    def loading(self) -> bool:
        return bool(self.flags & LOADING_FLAG)

    def leaf_components(self, version: dict[str, Any] | None = None) -> list[dict[str, Any]]:
        """Buttons, selects... of a version (latest by default), rows and containers opened."""
        return list(iter_leaves((version or self.latest).get("components") or []))

    def component(self, custom_id: str) -> dict[str, Any] | None:
        return next((c for c in self.leaf_components() if c.get("custom_id") == custom_id), None)

    def buttons(self) -> list[dict[str, Any]]:
        return [c for c in self.leaf_components() if c.get("type") == 2]

    def selects(self) -> list[dict[str, Any]]:
        return [c for c in self.leaf_components() if c.get("type") in (3, 5, 6, 7, 8)]

    def text(self, version: dict[str, Any] | None = None) -> str:
        """All human-visible text of a version: content, embeds, component labels."""
        return "\n".join(version_texts(version or self.latest))

    def all_texts(self) -> list[str]:
        """text() of every version, oldest first (for 'never leaked' scans)."""
        return [self.text(v) for v in self.versions]

    def payload(self, world: World) -> dict[str, Any]:
        v = self.latest
        data: dict[str, Any] = {
            "id": str(self.id),
            "channel_id": str(self.channel_id),
            "author": self.author.payload(),
            "content": v.get("content") or "",
            "timestamp": self.timestamp,
            "edited_timestamp": v.get("edited_timestamp"),
            "tts": False,
            "mention_everyone": False,
            "mentions": [],
            "mention_roles": [],
            "attachments": v.get("attachments") or [],
            "embeds": v.get("embeds") or [],
            "components": v.get("components") or [],
            "pinned": False,
            "type": self.type,
            "flags": self.flags,
        }
        if self.guild_id is not None:
            data["guild_id"] = str(self.guild_id)
        if self.interaction is not None:
            data["webhook_id"] = str(world.application_id)
            data["application_id"] = str(world.application_id)
            data["interaction_metadata"] = {
                "id": str(self.interaction.id),
                "type": self.interaction.type,
                "user": self.interaction.user.payload(),
                "authorizing_integration_owners": {},
            }
        return data

    def __repr__(self) -> str:
        where = f" ephemeral_for={self.ephemeral_for.name}" if self.ephemeral_for else ""
        return f"<FakeMessage id={self.id} v{len(self.versions)}{where} {self.content[:40]!r}>"


def iter_leaves(components: list[dict[str, Any]]) -> Any:
    """Yield interactive leaves from rows (type 1) and v2 containers/sections."""
    for comp in components:
        children = comp.get("components")
        if children is not None:
            yield from iter_leaves(children)
        if comp.get("accessory"):
            yield from iter_leaves([comp["accessory"]])
        if comp.get("type") not in (1, 9, 17):  # rows, sections, containers only group
            yield comp


def version_texts(v: dict[str, Any]) -> list[str]:
    out = [v.get("content") or ""]
    for embed in v.get("embeds") or []:
        out += [embed.get("title") or "", embed.get("description") or ""]
        for f in embed.get("fields") or []:
            out += [f.get("name") or "", f.get("value") or ""]
        out.append((embed.get("footer") or {}).get("text") or "")
        out.append((embed.get("author") or {}).get("name") or "")
    for comp in iter_leaves(v.get("components") or []):
        out += [comp.get("label") or "", comp.get("placeholder") or "", comp.get("content") or ""]
        for opt in comp.get("options") or []:
            out += [opt.get("label") or "", opt.get("description") or ""]
    return [t for t in out if t]


@dataclass(eq=False)
class FakeChannel:
    id: int
    name: str
    type: int
    guild_id: int | None = None
    parent_id: int | None = None
    position: int = 0
    overwrites: dict[int, Overwrite] = field(default_factory=dict)
    recipient: FakeUser | None = None  # DMs
    messages: list[FakeMessage] = field(default_factory=list)  # public, incl. deleted ones
    ephemerals: list[FakeMessage] = field(default_factory=list)  # per-user, shown here

    @property
    def is_dm(self) -> bool:
        return self.type == DM

    @property
    def is_thread(self) -> bool:
        return self.type in (10, 11, 12)

    def history(self, include_deleted: bool = False) -> list[FakeMessage]:
        return [m for m in self.messages if include_deleted or not m.deleted]

    @property
    def last_message(self) -> FakeMessage | None:
        live = self.history()
        return live[-1] if live else None

    def payload(self, world: World) -> dict[str, Any]:
        if self.is_dm:
            assert self.recipient is not None
            return {
                "id": str(self.id),
                "type": DM,
                "last_message_id": None,
                "recipients": [self.recipient.payload()],
                "flags": 0,
            }
        data: dict[str, Any] = {
            "id": str(self.id),
            "type": self.type,
            "guild_id": str(self.guild_id),
            "name": self.name,
            "position": self.position,
            "permission_overwrites": [o.payload() for o in self.overwrites.values()],
            "nsfw": False,
            "rate_limit_per_user": 0,
            "last_message_id": None,
            "flags": 0,
            "parent_id": str(self.parent_id) if self.parent_id else None,
        }
        if self.is_thread:
            data.update(
                owner_id=str(world.bot.id),
                message_count=len(self.messages),
                member_count=1,
                thread_metadata={
                    "archived": False,
                    "auto_archive_duration": 1440,
                    "archive_timestamp": now_iso(),
                    "locked": False,
                },
            )
            if self.type == PRIVATE_THREAD:
                data["thread_metadata"]["invitable"] = True  # sent for private threads only
            data.pop("permission_overwrites")
            data.pop("position")
        else:
            data["topic"] = None
        return data

    def __repr__(self) -> str:
        return f"<FakeChannel #{self.name} id={self.id} type={self.type}>"


@dataclass(eq=False)
class FakeGuild:
    id: int
    name: str
    owner_id: int
    roles: dict[int, FakeRole] = field(default_factory=dict)
    member_roles: dict[int, list[int]] = field(default_factory=dict)  # user id -> role ids
    channel_ids: list[int] = field(default_factory=list)
    joined_at: str = field(default_factory=now_iso)
    preferred_locale: str = "en-US"  # Server Settings → Community → the server's language
    system_channel_id: int | None = None  # its `general` channel

    @property
    def everyone(self) -> FakeRole:
        return self.roles[self.id]

    @property
    def bot_role(self) -> FakeRole:
        return next(r for r in self.roles.values() if r.managed)

    def shard(self, count: int) -> int:
        """Discord's shard of this guild for ``count`` shards: ``(id >> 22) % count``."""
        return (self.id >> 22) % count

    def __repr__(self) -> str:
        return f"<FakeGuild {self.name} id={self.id}>"


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
            "guild_scheduled_events": [],
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
