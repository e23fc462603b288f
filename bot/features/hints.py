"""The Hint button: a player asks, on their turn, what the Normal AI would play.

**Decisions** (issue #18):

* Hints are offered in games that change no rating anyway (a table with an AI
  seat, or fewer than two people: ``would_be_rated`` mirrors storage's
  ``is_rated``), and in rated games only where the server allows them
  (``Table.hints_allowed``, from ``/settings``). A table that is rated and does
  not allow them shows no button, and refuses a forged click politely.
* The answer is private (ephemeral, to the clicker only): the Normal AI's action
  (``markup.label``, the reader's language) and, when the ``easy`` rule of thumb
  picks the same action, that rule's reason (``engine.ai.reasons``). The search
  runs off the event loop like an AI seat's (``bot.table.ai_runner.AIRunner``), *outside* the
  table's lock, so the table goes on meanwhile; the answer is deferred first.
  If the table moved on while the AI thought, the hint is not given (the click is
  answered as a stale menu) and nothing is marked.
* A hint given marks the game: the seat goes into ``Table.hinted`` (saved in the
  snapshot, without a new step, so nobody's menu goes stale) and the table says
  once per seat who asked. The finished game's record gets a ``hinted`` key (the
  seats; ``records.md`` lets a record carry other keys), and storage counts a
  hinted game like one against AI seats: games, wins and points, no rating
  (``FinishedGame.hinted``). The final result says hints were used.
* Clicks cannot multiply searches (hardening, point 2; ``hint_rules.HintSearches``):
  one search per table and step, which every click on that step shares (each still
  answered privately, after its own deferral), its answer kept until the table moves
  on; and one new search per person every ``hint_rules.COOLDOWN`` seconds, across all
  tables (a click within it that needs a new search is refused politely, saying when).
  The search's urgent lane has a bounded share of the AI's workers
  (``bot.table.ai_pool``), so a flood of hints never stops the AI seats' moves.

The rules (who may ask, when, the mark) are ``bot.table.hint_rules``; the button is
``bot.ui.feature_buttons.HintButton``; this module answers its click.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Coroutine
from typing import TYPE_CHECKING, Any, Protocol

import discord

from bot.table.ai_pool import Dropped
from bot.table.hint_rules import (
    COOLDOWN,
    HINT_LEVEL,
    HintSearches,
    check_hint,
    mark,
    would_be_rated,
)
from bot.table.state import Table, TableError
from bot.ui import answer_guard, markup, replies
from bot.ui.hint_text import hint_text
from engine.ai.reasons import easy_reason
from engine.text import T
from locales import say

if TYPE_CHECKING:  # wired by the croupier; imported for the types only (no cycle)
    from bot.actions.clicks import Clicks
    from bot.table.ai_runner import AIRunner
    from bot.table.step import Outcome, Steps
    from bot.table.timers import Clock


class TableEdits(Protocol):
    """What the hint needs of the table message (``bot.ui.board.Board``)."""

    async def request_edit(self, table: Table) -> None: ...


class Announcer(Protocol):
    """Tells a table's owner of a step saved on it here (``bot.actions.visits.Visits``): a
    hint asked from a DM may reach a process that does not drive the table."""

    async def announce(self, outcome: Outcome, collapsed: int | None = None) -> None: ...


log = logging.getLogger(__name__)

NO_HINT = T("I could not work out a hint just now. Please try again; nothing was changed.")


class Hints:
    def __init__(self, clicks: Clicks, steps: Steps, board: TableEdits, ai: AIRunner,
                 owner: Announcer, clock: Clock | None = None, cooldown: float = COOLDOWN):
        self.clicks = clicks
        self.owner = owner
        self.steps = steps
        self.board = board
        self.ai = ai
        self.searches = HintSearches(self._current, clock, cooldown)

    def _current(self, table_id: str, step: int) -> bool:
        """Whether a hint's answer for the table at ``step`` may still be asked for."""
        table = self.steps.manager.get(table_id)
        if table is not None:
            return table.step == step
        # Not driven here: closed, or (several processes) another one's, not told apart.
        return self.steps.manager.store.shared

    async def click(self, interaction: discord.Interaction, table_id: str, step: int) -> None:
        user = interaction.user.id
        async with self.clicks.table(interaction, table_id, channel_bound=False) as table:
            if table is None:
                return
            try:
                seat = check_hint(table, user, step)
            except TableError as error:
                await replies.reply(interaction, markup.say_safe(error))
                return
            assert table.game is not None
            game = table.game.clone()  # the AI reads a copy: the table may move meanwhile
            asked_at = table
            # Another process's table, read for this click: it is checked again below.
            visited = self.steps.manager.is_visiting(table)

            def search() -> Coroutine[Any, Any, int]:
                # Urgent: a person waits for it, so it goes before the bots' moves (up to
                # its share of the workers). Dropped unrun if the table moves on meanwhile.
                return self.ai.choose(game, seat, HINT_LEVEL, table_id, urgent=True,
                                      live=lambda: (visited or self.steps.manager.is_live(
                                          asked_at)) and asked_at.step == step)
            try:  # this step's search (running or answered), else a new one if not too soon
                ticket = self.searches.ask(table_id, step, user, search, markup.relative_time)
            except TableError as error:
                await replies.reply(interaction, markup.say_safe(error))
                return
        try:
            await replies.defer(interaction)  # a private "thinking…": the search takes a moment
        except BaseException:
            ticket.release()  # this click no longer waits for the search
            raise
        try:
            action = await ticket.answer()
        except asyncio.CancelledError:
            raise
        except Dropped:  # not searched: the table closed or moved on (answered below)
            action = None
        except Exception:
            if ticket.new:  # said once, by the click that started the search
                log.exception("the hint's AI failed at table %s", table_id)
            await replies.reply(interaction, say(NO_HINT))
            return
        reason = easy_reason(game, seat, action) if action is not None else None
        async with self.clicks.table(interaction, table_id, channel_bound=False) as table:
            if table is None:
                return
            try:  # the table may have moved on while the AI thought: then no hint
                seat = check_hint(table, user, step)
            except TableError as error:
                await replies.reply(interaction, markup.say_safe(error))
                return
            if action is None:  # dropped though the table is where it was: the AI stopped
                await replies.reply(interaction, say(NO_HINT))
                return
            first = seat not in table.hinted
            newly_unrated = not table.hinted and would_be_rated(table)
            if first:
                outcome = await self.steps.apply(table, lambda t: mark(t, seat))
                if not outcome.saved:  # a hint must never go unmarked
                    await replies.reply(interaction, say(answer_guard.SOMETHING_WRONG))
                    return
                if self.steps.manager.is_visiting(table):
                    await self.owner.announce(outcome)  # its owner draws the mark
            await replies.reply(interaction, hint_text(
                action, say(reason) if reason is not None else None, newly_unrated))
        if first:
            await self.board.request_edit(table)
