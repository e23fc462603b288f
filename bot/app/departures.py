"""Discord's events of a place going away, handed to ``bot.features.departures``.

``on_guild_remove`` (the bot kicked, banned or the server deleted; not an outage: an
unavailable server is ``on_guild_unavailable``, and its tables wait for it),
``on_guild_channel_delete`` and ``on_raw_thread_delete`` (a thread deleted, or one of a
deleted channel's: discord.py sends both for the threads it knows). Each event only
reaches the process that runs the server's shard, the one that drives its tables. The
work runs as a task of the tables (``TableTasks.spawn``), so shutdown and the tests see
the bot busy until it is done.
"""

from __future__ import annotations

import discord
from discord.ext import commands

from bot.app.croupier import Croupier
from bot.features.departures import Departures


def listen(bot: commands.Bot | commands.AutoShardedBot, croupier: Croupier) -> Departures:
    """Listen to the events on ``bot`` for ``croupier``'s tables; the handler."""
    departures = Departures(croupier.manager, croupier.steps, croupier.endings,
                            croupier.hands)
    tasks = croupier.tasks

    async def on_guild_remove(guild: discord.Guild) -> None:
        tasks.spawn(departures.server_left(guild.id), f"left-{guild.id}")

    async def on_guild_channel_delete(channel: discord.abc.GuildChannel) -> None:
        tasks.spawn(departures.channel_deleted(channel.id), f"deleted-{channel.id}")

    async def on_raw_thread_delete(payload: discord.RawThreadDeleteEvent) -> None:
        tasks.spawn(departures.channel_deleted(payload.thread_id, thread=True),
                    f"deleted-{payload.thread_id}")

    bot.add_listener(on_guild_remove, "on_guild_remove")
    bot.add_listener(on_guild_channel_delete, "on_guild_channel_delete")
    bot.add_listener(on_raw_thread_delete, "on_raw_thread_delete")
    return departures
