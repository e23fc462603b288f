"""Role rewards and season posts, on Discord: whether the bot may manage a role (and why
not, in words), roles given and taken, and the posts in a server's season channel.

A role is managed only when Discord would allow it: the bot has Manage Roles and its
highest role is above the role (``guild.me.top_role > role``); a role that is a bot's,
an integration's or ``@everyone`` can be given by nobody. A role with moderator or admin
permissions (``DANGEROUS``) is never given either, whoever chose it: winning a game must
not make anyone a moderator. When the bot may not, nothing is
asked of Discord: the caller posts the reason instead (``why_not``). Each request goes
through the poster's pacing; a refusal or a lost answer is logged and reported as a
result, never raised into a season's end or a game's.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass
from typing import Any

import discord

from bot.ui import markup
from bot.ui.pacer import MESSAGE
from bot.ui.poster import TROUBLE, Poster
from engine.text import T, Text

log = logging.getLogger(__name__)

UNKNOWN_MEMBER = 10007
# not for players: the audit log's reason for a role change
REASON = "cardtable: season and rating rewards (/settings rewards, /settings tier)"
# The permissions a reward role may not carry: whoever wins a game would gain power over
# the server or its members. Discord's "elevated" permissions (those its 2FA requirement
# guards: administrator, server, roles, channels, messages, threads, webhooks,
# expressions, kicks, bans, timeouts) and the few others that act on other members or
# reach everyone (nicknames, events, the audit log, @everyone, voice moderation).
DANGEROUS = discord.Permissions(
    administrator=True, manage_guild=True, manage_roles=True, manage_channels=True,
    manage_messages=True, manage_threads=True, manage_webhooks=True,
    manage_expressions=True, kick_members=True, ban_members=True, moderate_members=True,
    manage_nicknames=True, manage_events=True, view_audit_log=True,
    mention_everyone=True, mute_members=True, deafen_members=True, move_members=True)


def dangerous(role: discord.Role) -> bool:
    """Whether a role carries a permission no reward may hand out (``DANGEROUS``)."""
    return bool(role.permissions.value & DANGEROUS.value)


def why_dangerous(role_id: int) -> Text:
    return T("{role} has moderator or admin permissions (such as Manage Messages, Kick "
             "Members or Administrator), so I never give it as a reward: choose another "
             "role with /settings, or remove those permissions from it.",
             role=markup.role_mention(role_id))


def why_not(guild: discord.Guild, role_id: int) -> Text | None:
    """Why the bot cannot give or take ``role_id`` on ``guild`` (None: it can), said to
    the server's managers: what to change, and where."""
    role = guild.get_role(role_id)
    shown = markup.role_mention(role_id)
    if role is None:
        return T("The role {role} no longer exists: choose another with /settings.",
                 role=shown)
    if role.is_default() or role.managed:
        return T("{role} belongs to Discord or to an app, so no bot can give it: choose "
                 "another role with /settings.", role=shown)
    if dangerous(role):  # checked at each change: its permissions may have grown since
        return why_dangerous(role_id)
    if not guild.me.guild_permissions.manage_roles:
        return T("I need the Manage Roles permission to give or take {role}: an admin can "
                 "grant it to my role in Server Settings → Roles.", role=shown)
    if not guild.me.top_role > role:
        return T("My highest role must be above {role} to give or take it: an admin can "
                 "drag my role above it in Server Settings → Roles.", role=shown)
    return None


@dataclass(frozen=True)
class Change:
    """A role given or taken back (``done``), or not changed (``why``: the reason)."""

    user_id: int
    role_id: int
    give: bool
    why: Text | None = None
    gone: bool = False  # the member left the server: nothing to take back

    @property
    def done(self) -> bool:
        return self.why is None and not self.gone


class Rewards:
    """The Discord side of role rewards and season posts."""

    def __init__(self, client: discord.Client, poster: Poster):
        self.client = client
        self.poster = poster

    def guild(self, guild_id: int) -> discord.Guild | None:
        return self.client.get_guild(guild_id)

    async def roles_of(self, guild: discord.Guild, user_id: int) -> set[int] | None:
        """The roles a member holds now (fetched: the bot has no Members intent); None
        when they left the server or Discord did not answer (logged)."""
        await self.poster.pacer.acquire(MESSAGE)
        try:
            member = await guild.fetch_member(user_id)
        except discord.NotFound:
            return None
        except TROUBLE as error:
            log.warning("cannot read the roles of %s on guild %s: %s", user_id, guild.id,
                        error)
            return None
        return {role.id for role in member.roles}

    async def change(self, guild: discord.Guild, user_id: int, role_id: int,
                     give: bool) -> Change:
        """Give (or take back) a role; checked first (``why_not``): a role the bot cannot
        manage is never asked for."""
        why = why_not(guild, role_id)
        if why is not None:
            return Change(user_id, role_id, give, why)
        route = self.client.http.add_role if give else self.client.http.remove_role
        await self.poster.pacer.acquire(MESSAGE)
        try:
            await route(guild.id, user_id, role_id, reason=REASON)
        except discord.NotFound as error:
            if error.code == UNKNOWN_MEMBER:
                return Change(user_id, role_id, give, gone=True)
            log.warning("cannot change role %s of %s: %s", role_id, user_id, error)
            return Change(user_id, role_id, give, T("Discord refused it just now."))
        except discord.Forbidden:  # changed since we looked: say what Discord checks
            return Change(user_id, role_id, give, why_not(guild, role_id) or T(
                "Discord refused it: check my Manage Roles permission and that my role "
                "is above {role}.", role=markup.role_mention(role_id)))
        except TROUBLE as error:
            log.warning("cannot change role %s of %s: %s", role_id, user_id, error)
            return Change(user_id, role_id, give, T("Discord did not answer just now."))
        log.info("role %s %s %s on guild %s", role_id, "given to" if give else "taken from",
                 user_id, guild.id)
        return Change(user_id, role_id, give)

    def may_post(self, guild: discord.Guild, channel_id: int) -> bool:
        """Whether the bot can post embeds in the channel (as far as its cache says)."""
        channel = guild.get_channel(channel_id)
        if channel is None or not isinstance(channel, discord.abc.Messageable):
            return False
        perms = channel.permissions_for(guild.me)
        return perms.view_channel and perms.send_messages and perms.embed_links

    async def post(self, guild: discord.Guild, channel_id: int, **kwargs: Any
                   ) -> discord.Message | None:
        """A message in the server's season channel; None if Discord refused (logged)."""
        return await self.poster.send(channel_id, guild.id, **kwargs)
