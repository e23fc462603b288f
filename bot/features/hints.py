"""The Hint button: a player asks, on their turn, what the Normal AI would play.

**Decisions** (issue #18):

* Hints are offered in games that change no rating anyway (a table with an AI
  seat, or fewer than two people: ``would_be_rated`` mirrors storage's
  ``is_rated``), and in rated games only where the server allows them
  (``Table.hints_allowed``, from ``/settings``). A table that is rated and does
  not allow them shows no button, and refuses a forged click politely.
* The answer is private (ephemeral, to the clicker only): the Normal AI's action
  (``render.label``, the reader's language) and, when the ``easy`` rule of thumb
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

The button's custom_id: ``ct:hint:<table>:<version>`` (the hand's step, like its menu).
"""

from __future__ import annotations

import asyncio
import logging
import re
from typing import TYPE_CHECKING, Any, Protocol, cast

import discord

from bot.table.ai_pool import Dropped
from bot.table.state import MAX_EVENTS, StaleClick, Table, TableError
from bot.ui import answers, custom_ids, markup, replies
from engine.ai.reasons import easy_reason
from engine.core import action_code
from engine.text import T
from locales import _, say

if TYPE_CHECKING:  # wired by the croupier; imported for the types only (no cycle)
    from bot.actions.clicks import Clicks
    from bot.table.ai_runner import AIRunner
    from bot.table.step import Outcome, Steps


class TableEdits(Protocol):
    """What the hint needs of the table message (``bot.ui.board.Board``; named by its shape,
    since the board draws this module's button)."""

    async def request_edit(self, table: Table) -> None: ...


class Announcer(Protocol):
    """Tells a table's owner of a step saved on it here (``bot.actions.visits.Visits``): a hint
    asked from a DM may reach a process that does not drive the table."""

    async def announce(self, outcome: Outcome, collapsed: int | None = None) -> None: ...


log = logging.getLogger(__name__)

HINT_TEMPLATE = r"ct:hint:(?P<table>[0-9a-f]{6,16}):(?P<version>\d{1,12})"
HINT_LEVEL = "normal"  # whose suggestion a hint is

REFUSED = T("Hints are not allowed at this table: its game is rated, and this server keeps "
            "hints out of rated games. Nothing was changed.")
NO_HINT = T("I could not work out a hint just now. Please try again; nothing was changed.")
# Translators: a line on the table message: a player used the Hint button (said once a seat)
ASKED = T("💡 {player} asked the AI for a hint.")


def hint_id(table_id: str, step: int) -> str:
    return custom_ids.checked(f"ct:hint:{table_id}:{step}", HINT_TEMPLATE)


# ------------------------------------------------------------------------ the rules


def would_be_rated(table: Table) -> bool:
    """Whether the table's game would change ratings if nobody asked for a hint: every
    seat a person, two or more (storage's ``results.is_rated``, before the game ends)."""
    humans = sum(1 for s in table.seats if not s.is_ai)
    return humans >= 2 and humans == len(table.seats)


def allowed(table: Table) -> bool:
    """Hints at this table: in a game that is not rated, or where the server allows them."""
    return table.hints_allowed or not would_be_rated(table)


def offered(table: Table, seat: int) -> bool:
    """Whether the seat's hand shows the Hint button now: its turn, hints allowed."""
    return (allowed(table) and table.to_act == seat and table.automation() is None
            and not table.seats[seat].is_ai)


def check_hint(table: Table, user_id: int, step: int) -> int:
    """The seat of a Hint click drawn at ``step``, or ``TableError``/``StaleClick`` with
    the same polite sentences as a move's; changes nothing."""
    game = table.require_playing()
    seat = table.seated(user_id)
    if not allowed(table):
        raise TableError(REFUSED)
    if step != table.step:
        raise StaleClick(T("That menu is out of date: the table has moved on."))
    to_act = game.to_act
    if to_act is None:
        raise TableError(T("It is not your turn: it is nobody's."))
    if to_act != seat:
        raise TableError(T("It is not your turn: it is {player}'s.",
                           player=table.seats[to_act].name_text))
    return seat


def mark(table: Table, seat: int) -> None:
    """The game is hinted from now on (a new list: clones share the old one); the table
    says who asked, the first time a seat does. No step: nobody's menu goes stale."""
    if seat in table.hinted:
        return
    table.hinted = sorted({*table.hinted, seat})
    table.events.append(ASKED.filled(player=table.seats[seat].name_text))
    del table.events[:-MAX_EVENTS]


def hint_text(action: int, reason_said: str | None, newly_unrated: bool) -> str:
    """The private answer, in the current language."""
    lines = [_("💡 The Normal AI would play **{action}**.", action=markup.label(
        action_code(action)))]
    if reason_said:
        # Translators: a hint's reason follows ({reason} is one sentence)
        lines.append(_("Why: {reason}", reason=reason_said))
    if newly_unrated:
        lines.append(_("A hint was used, so this game will not change anyone's rating."))
    return "\n".join(lines)


def note_on_result(embed: discord.Embed) -> None:
    """The final result of a hinted game says so (in the current language)."""
    note = "💡 " + _("Hints were used in this game, so it changed no ratings.")
    footer = embed.footer.text
    embed.set_footer(text=f"{footer}\n{note}" if footer else note)


# ------------------------------------------------------------------------ the button


class _HintHandler(Protocol):
    async def hint_click(self, interaction: discord.Interaction, table_id: str,
                         step: int) -> None: ...


class _ClientWithHints(Protocol):
    @property
    def croupier(self) -> _HintHandler: ...


def handler_of(interaction: discord.Interaction) -> _HintHandler:
    # Components are only registered by CardTableBot (bot.app.client), which has a croupier.
    return cast(_ClientWithHints, interaction.client).croupier


class HintButton(discord.ui.DynamicItem[discord.ui.Button], template=HINT_TEMPLATE):
    def __init__(self, table_id: str, step: int):
        super().__init__(discord.ui.Button(
            # Translators: a button on a player's hand: ask what the AI would play now
            style=discord.ButtonStyle.secondary, label=_("Hint"), emoji="💡",
            custom_id=hint_id(table_id, step)))
        self.table_id, self.step = table_id, step

    @classmethod
    async def from_custom_id(cls, interaction: discord.Interaction, item: discord.ui.Item[Any],
                             match: re.Match[str], /) -> HintButton:
        return cls(match["table"], int(match["version"]))

    async def callback(self, interaction: discord.Interaction) -> None:
        replies.answers_with_new_message(interaction)  # a new private message, not an edit
        await answers.run_click(interaction, lambda: handler_of(interaction).hint_click(
            interaction, self.table_id, self.step))


# ------------------------------------------------------------------------ the click


class Hints:
    def __init__(self, clicks: Clicks, steps: Steps, board: TableEdits, ai: AIRunner,
                 owner: Announcer):
        self.clicks = clicks
        self.owner = owner
        self.steps = steps
        self.board = board
        self.ai = ai

    async def click(self, interaction: discord.Interaction, table_id: str, step: int) -> None:
        user = interaction.user.id
        async with self.clicks.table(interaction, table_id, channel_bound=False) as table:
            if table is None:
                return
            try:
                seat = check_hint(table, user, step)
            except TableError as error:
                await replies.reply(interaction, say(error))
                return
            assert table.game is not None
            game = table.game.clone()  # the AI reads a copy: the table may move meanwhile
            asked_at = table
            # Another process's table, read for this click: it is checked again below.
            visited = self.steps.manager.is_visiting(table)
        await replies.defer(interaction)  # a private "thinking…": the search takes a moment
        try:
            # Urgent: a person waits for it, so it goes before the bots' moves in the queue.
            action = await self.ai.choose(game, seat, HINT_LEVEL, table_id, urgent=True,
                                          live=lambda: (visited or self.steps.manager.is_live(
                                              asked_at)) and asked_at.step == step)
        except asyncio.CancelledError:
            raise
        except Dropped:  # not searched: the table closed or moved on (answered below)
            action = None
        except Exception:
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
                await replies.reply(interaction, say(error))
                return
            if action is None:  # dropped though the table is where it was: the AI stopped
                await replies.reply(interaction, say(NO_HINT))
                return
            first = seat not in table.hinted
            newly_unrated = not table.hinted and would_be_rated(table)
            if first:
                outcome = await self.steps.apply(table, lambda t: mark(t, seat))
                if not outcome.saved:  # a hint must never go unmarked
                    await replies.reply(interaction, say(answers.SOMETHING_WRONG))
                    return
                if self.steps.manager.is_visiting(table):
                    await self.owner.announce(outcome)  # its owner draws the mark
            await replies.reply(interaction, hint_text(
                action, say(reason) if reason is not None else None, newly_unrated))
        if first:
            await self.board.request_edit(table)
