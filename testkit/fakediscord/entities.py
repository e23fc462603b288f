"""The things of the fake world: users, roles, permission overwrites, messages (every
version of each), channels, guilds; the permission bits and message flags; snowflake ids.

Plain data, no I/O. Each thing's ``payload`` is the JSON shape Discord sends, so
discord.py parses it as it would parse the real thing. ``world.World`` holds them all.
"""

from __future__ import annotations

import itertools
import time
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any, Protocol

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


class Application(Protocol):
    """What a payload needs of the world it is in: the bot's user and application id."""

    @property
    def bot(self) -> FakeUser: ...

    @property
    def application_id(self) -> int: ...


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

    def payload(self, world: Application) -> dict[str, Any]:
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

    def payload(self, world: Application) -> dict[str, Any]:
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
