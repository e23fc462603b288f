"""The bot's permissions in a channel, and the ones a table needs that it lacks."""

from __future__ import annotations

import discord

from engine.text import T
from locales import say

# (Discord shows permission names in the reader's language; ours match its English ones.)
REQUIRED_PERMISSIONS = (("view_channel", T("View Channel")),
                        ("send_messages", T("Send Messages")),
                        ("embed_links", T("Embed Links")))


def bot_permissions(interaction: discord.Interaction) -> discord.Permissions:
    """The bot's permissions in the interaction's channel."""
    # Discord computes the bot's permissions in the channel (threads included) and sends
    # them with every interaction; the cache is only a fallback if they are missing.
    perms = interaction.app_permissions
    channel, guild = interaction.channel, interaction.guild
    if perms.value == 0 and guild is not None and isinstance(
            channel, discord.abc.GuildChannel | discord.Thread):
        perms = channel.permissions_for(guild.me)
    return perms


def can_attach(interaction: discord.Interaction) -> bool:
    return bot_permissions(interaction).attach_files


def missing_permissions(interaction: discord.Interaction, threaded: bool = False) -> list[str]:
    """The permissions a table needs that the bot lacks in the interaction's channel
    (``threaded``: in a thread it opens there)."""
    perms, channel = bot_permissions(interaction), interaction.channel
    needed = list(REQUIRED_PERMISSIONS)
    if isinstance(channel, discord.Thread) or threaded:
        needed[1] = ("send_messages_in_threads", T("Send Messages in Threads"))
    if threaded:
        needed.append(("create_public_threads", T("Create Public Threads")))
    return [say(label) for attr, label in needed if not getattr(perms, attr)]


def may_schedule(guild: discord.Guild | None) -> bool:
    """Whether the bot may make the server's events (a scheduled table's): Create Events,
    a server-wide permission (Discord gave it to every role that had Manage Events when
    it split the two; an Administrator has it too)."""
    return guild is not None and guild.me.guild_permissions.create_events
