"""What the web table does to tables: read them to show, and play moves through the kernel.

A move from the page goes through the same step kernel as a DM click
(``bot.table.step``): the table's lock, the check of seat, turn and step, one save
with its version. What follows the save is ``after_move``: in the bot's own process
the Discord front shows it (the channel's table, the next player's DM) and the bot
plays on; in a web process of its own (``python -m web``) the table's owner is told
(``Store.announce``) and shows it.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable

from bot.storage import Store, TableChange
from bot.table.manager import TableManager
from bot.table.state import Table
from bot.table.step import Outcome, Steps
from engine.text import T, Text
from locales import say

AfterMove = Callable[[Outcome], Awaitable[None]]

CLOSED = T("This table is closed.")
NOT_SAVED = T("Your move could not be saved just now: nothing was changed. Please try again.")


Rematch = Callable[[int, str], Awaitable[Text | None]]  # (user, finished table) → why not


class WebPlay:
    def __init__(self, manager: TableManager, steps: Steps, after_move: AfterMove,
                 rematch: Rematch | None = None):
        self.manager = manager
        self.steps = steps
        self.after_move = after_move
        # The host's Rematch from the page (the bot's own process only: it posts the new
        # table in Discord); None: not offered.
        self.rematch = rematch
        # Which tables have viewers (the hub's): only theirs are copied at each save.
        self.watched: Callable[[str], bool] = lambda table_id: True
        self._saved: dict[str, Table] = {}  # this process's tables as last saved

    def saved(self, table_id: str) -> None:
        """Called by the table bus right after a write of this process: a copy of the
        table as saved, for its viewers. Never the live table itself: between a step's
        change and its save (or a failed save, rolled back) it holds what was not saved."""
        table = self.manager.get(table_id)
        if table is None or not self.watched(table_id):
            self._saved.pop(table_id, None)
            return
        self._saved[table_id] = table.clone()

    def forget(self, table_id: str) -> None:
        """Nobody views the table any more."""
        self._saved.pop(table_id, None)

    async def read(self, table_id: str) -> Table | None:
        """The table as last saved (any status): the copy made at its last save here, or
        as stored."""
        copy = self._saved.get(table_id)
        return copy if copy is not None else await self.manager.read(table_id)

    async def move(self, user_id: int, table_id: str, step: int, code: str,
                   language: str) -> str | None:
        """Play ``code`` for ``user_id`` from a hand drawn at ``step``: None once saved and
        shown, else the sentence that says why nothing changed (in ``language``)."""
        table = self.manager.get(table_id) or await self.manager.visit(table_id)
        if table is None:
            return say(CLOSED, language)
        try:
            async with self.steps.hold(table) as live:
                if not live:
                    return say(CLOSED, language)
                outcome = await self.steps.move(table, user_id, step, code)
                if outcome.refusal is not None:
                    return say(outcome.refusal, language)
                if outcome.failed:
                    return say(NOT_SAVED, language)
                await self.after_move(outcome)
                return None
        finally:
            self.manager.leave(table)


def announcer(store: Store) -> AfterMove:
    """``after_move`` of a web process with no Discord: the owner shows the move and posts
    the results of the deals it finished."""

    async def announce(outcome: Outcome) -> None:
        # No seat: nobody's click was answered in Discord, so whoever is to act next is
        # told there, the mover too (as in the bot's own process: Croupier.web_moved).
        await store.announce(TableChange(
            outcome.table.table_id, outcome.table.version,
            deals=tuple(outcome.deal_reports) or None))

    return announce
