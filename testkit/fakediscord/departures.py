"""Places going away on the fake Discord: a channel or thread deleted, the bot removed.

Each changes the world as Discord would and sends the gateway event to the sessions of
the guild's shard:

- ``delete_channel(fake, channel)``: a moderator deletes a text channel (CHANNEL_DELETE)
  or a thread (THREAD_DELETE). It is gone, with a channel's threads (Discord sends no
  THREAD_DELETE for those; discord.py tells its listeners of the threads it knew): every
  request to it answers 404 10003 "Unknown Channel".
- ``remove_bot(fake, guild)``: the bot is kicked from a guild (GUILD_DELETE without
  ``unavailable``). It is no longer a member: every request to the guild's channels
  answers 403 50001 "Missing Access", and a new session's READY leaves the guild out.

The channels' messages stay readable in the world (``channel.messages``), as the test's
record of what was there.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from .world import FakeChannel, FakeGuild

if TYPE_CHECKING:
    from .fake import FakeDiscord


async def delete_channel(fake: FakeDiscord, channel: FakeChannel) -> None:
    world = fake.world
    if channel.is_dm or channel.id not in world.channels:
        raise ValueError(f"{channel!r} is not a guild channel of the world")
    guild = world.guilds[channel.guild_id or 0]
    payload = channel.payload(world)
    gone = [channel] + [c for c in world.channels_of(guild) if c.parent_id == channel.id]
    for chan in gone:
        del world.channels[chan.id]
        guild.channel_ids.remove(chan.id)
    if channel.is_thread:
        data = {"id": str(channel.id), "guild_id": str(guild.id),
                "parent_id": str(channel.parent_id), "type": channel.type}
        await fake.gateway.dispatch("THREAD_DELETE", data, guild.id)
    else:
        await fake.gateway.dispatch("CHANNEL_DELETE", payload, guild.id)
    fake._changed()


async def remove_bot(fake: FakeDiscord, guild: FakeGuild) -> None:
    world = fake.world
    if world.bot.id not in guild.member_roles:
        raise ValueError(f"the bot is not in {guild!r}")
    del guild.member_roles[world.bot.id]
    await fake.gateway.dispatch("GUILD_DELETE", {"id": str(guild.id)}, guild.id)
    fake._changed()
