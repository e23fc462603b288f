"""A click on a table another process drives: answered here, the owner told.

Discord sends every DM event to the process of shard 0, so a click on a DM hand
may reach a process that does not drive that table. That process applies the
move itself on the table as stored (``TableManager.visit``: read at its version,
saved only at that version), posts the result of a deal it ended, answers the
click, and announces the change (``Store.announce``). The owner then shows the
rest — the table message, the next player's hand — and drives timers and AI
seats from the new version (``Croupier.caught_up``): one process draws each
table message, so its edits stay in order and are merged as usual.
"""

from __future__ import annotations

import discord

from bot.storage import Store, TableChange
from bot.table.step import Outcome
from bot.ui.presenter import Presenter


class Visits:
    def __init__(self, store: Store, presenter: Presenter):
        self.store = store
        self.presenter = presenter

    async def move(self, interaction: discord.Interaction, outcome: Outcome) -> None:
        """Answer a move on a visited table (the clicked hand redrawn, or collapsed to one
        line as the owner would), then tell the owner."""
        # A deal's result is posted here, before the answer, as the owner would: once,
        # even if the owner is down (then it has nobody to tell until it is back).
        answered = await self.presenter.answer(interaction, outcome)
        if answered is None:
            return
        clicked = interaction.message.id if interaction.message else None
        await self.announce(outcome, clicked if answered.collapsed else None)

    async def announce(self, outcome: Outcome, collapsed: int | None = None) -> None:
        """Tell the table's owner of a step saved here."""
        await self.store.announce(TableChange(
            outcome.table.table_id, outcome.table.version, seat=outcome.seat,
            collapsed=collapsed))
