"""Which finished games a member may look at: those of channels whose past they can read.

``/history`` lists and hands out only such games (``cogs.history``), and a replay shows
only such a game (``bot.features.replays``): one rule, written once, for a stored game's
guild and channel (``GameSummary``).
"""

from __future__ import annotations

import discord

from bot.storage import GameSummary


def may_see(interaction: discord.Interaction, game: GameSummary) -> bool:
    """Whether the asking member can view the channel the game was played in and read its
    history (without Read Message History Discord shows them only what is posted while
    they look: never a finished game's result); in a DM, only their own games."""
    guild, member = interaction.guild, interaction.user
    played = any(s.user_id == member.id for s in game.players)
    if guild is None or not isinstance(member, discord.Member):
        return played
    if game.channel_id == interaction.channel_id:
        # Asked from that very channel (or a message in it): Discord's own reckoning of
        # the member's permissions there comes with the interaction.
        return reads_history(interaction.permissions)
    channel = guild.get_channel_or_thread(game.channel_id)
    if channel is None:
        return False  # deleted, or a thread the bot no longer holds (archived)
    if not isinstance(channel, discord.Thread):
        return reads_history(channel.permissions_for(member))
    # A thread has its parent's permissions, as on Discord (discord.py's
    # Thread.permissions_for raises when the parent is not cached).
    parent = channel.parent
    if parent is None or not reads_history(parent.permissions_for(member)):
        return False
    # A private thread shows only to its members and to Manage Threads; the bot does
    # not keep thread members, so a seat (or owning the thread) stands for membership.
    return (not channel.is_private() or played or channel.owner_id == member.id
            or parent.permissions_for(member).manage_threads)


def reads_history(permissions: discord.Permissions) -> bool:
    """Whether these permissions show a channel's past messages: View Channel and Read
    Message History."""
    return permissions.view_channel and permissions.read_message_history
