"""The preamble of every click on a table, written once.

Find the table the component names → is it still open → is the click in the
table's channel (where that matters) → take the table's lock, deferring the
answer if it is busy → is the table still live now that it is ours. Any "no"
is answered politely here, and the caller gets None.

A click from a DM on a table another process drives (Discord sends DM events to
shard 0's process only) finds the table in storage (``TableManager.visit``): the
caller then works on that copy, at its stored version, and ``bot.actions.visits`` tells
the owner.
"""

from __future__ import annotations

import contextlib
from collections.abc import AsyncIterator

import discord

from bot.table.manager import TableManager
from bot.table.state import Table
from bot.table.step import Steps
from bot.ui import replies
from engine.text import T
from locales import say

OTHER_CHANNEL = T("That button belongs to a table in another channel.")


class Clicks:
    def __init__(self, manager: TableManager, steps: Steps):
        self.manager = manager
        self.steps = steps

    @contextlib.asynccontextmanager
    async def table(self, interaction: discord.Interaction, table_id: str | None, *,
                    channel_bound: bool, table: Table | None = None
                    ) -> AsyncIterator[Table | None]:
        """The clicked table, locked and live; None once the click was answered here.

        ``channel_bound``: the click must come from the table's own channel (lobby
        buttons; My hand in a server). ``table``: already found (a slash command)."""
        found = table if table is not None else (
            self.manager.get(table_id) if table_id is not None else None)
        if found is None and table_id is not None and interaction.guild_id is None \
                and not channel_bound:
            found = await self.manager.visit(table_id)
        if found is None:
            await replies.closed(interaction)
            yield None
            return
        if channel_bound and interaction.channel_id != found.channel_id:
            await replies.reply(interaction, say(OTHER_CHANNEL))
            yield None
            return
        try:
            async with self.steps.hold(found, replies.deferrer(interaction)) as live:
                if not live:
                    await replies.closed(interaction)
                    yield None
                    return
                yield found
        finally:
            self.manager.leave(found)
