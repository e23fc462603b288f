"""An ``Outcome`` drawn as Discord messages: the answer, the deal results, the table, the DMs.

After a step was saved, in this order: each finished deal's result (a new
message, before anything else, so a crash cannot post it twice), the acting
player's answer (their clicked hand redrawn in the same response), the table
message edit (coalesced), and the hand of whoever is to act next. The presenter
only talks to Discord; what the step did is already decided.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import discord

from bot.table.manager import TableManager
from bot.table.state import PLAYING, StaleClick, Table
from bot.table.step import Outcome
from bot.ui import replies, turn_notices
from bot.ui.board import Board, save_posts
from bot.ui.game_ui import GameUI
from bot.ui.hands import Hands
from bot.ui.markup import say_safe
from bot.ui.poster import Poster
from engine.events import Played
from engine.text import T
from locales import _, say, speaking

SAVE_FAILED = T("Something went wrong while saving your move; nothing was changed. "
                "Please try again.")


@dataclass(frozen=True)
class Answered:
    """How a move's click was answered (``Presenter.answer``)."""

    seat: int
    line: str | None  # the move in one line, if the step played a card or an action
    again: bool  # the same seat acts next
    collapsed: bool  # the clicked DM hand became that one line


class Presenter:
    def __init__(self, poster: Poster, manager: TableManager, uis: dict[str, GameUI],
                 board: Board, hands: Hands):
        self.poster = poster
        self.manager = manager
        self.uis = uis
        self.board = board
        self.hands = hands

    async def move(self, interaction: discord.Interaction, outcome: Outcome) -> None:
        """Everything a player's move shows: the answer to their click first of all."""
        answered = await self.answer(interaction, outcome)
        if answered is None:
            return
        table, seat, line, again = outcome.table, answered.seat, answered.line, answered.again
        in_dm = interaction.guild_id is None
        clicked = interaction.message.id if interaction.message else None
        hand_messages = table.posts.hand_messages
        user = table.seats[seat].user_id
        if hand_messages.get(user) not in (None, clicked):
            # Played elsewhere: one live menu only.
            await self.hands.retire_menu(table, seat, note=line)
        if in_dm and clicked is not None:
            if again:
                hand_messages[user] = clicked  # that DM shows the hand now
            elif hand_messages.get(user) == clicked:
                del hand_messages[user]  # collapsed: no live hand left there
        await self.after_step(table, answered=seat)

    async def played_elsewhere(self, outcome: Outcome) -> None:
        """A saved move made at another front end (the web table), with no click to
        answer: each finished deal's result, then the table and the next player's hand,
        as for a DM click. The mover's DM menu, if they have one, is left as it is (a
        click on it is refused as out of date, with their hand as it is now): retiring it
        would cost a request of the budget that a DM click's answer does not. Nor is the
        mover sent a DM when it is their turn again: their page shows it, as a DM click's
        answer shows it in that DM."""
        await self.deal_reports(outcome)
        await self.after_step(outcome.table, answered=outcome.seat)

    async def answer(self, interaction: discord.Interaction, outcome: Outcome
                     ) -> Answered | None:
        """The answer to a move's click: a refusal or a failed save (None), else each
        finished deal's result, then the clicked hand redrawn in the same response."""
        table, seat = outcome.table, outcome.seat
        if outcome.refusal is not None:
            await self.refusal(interaction, outcome)
            return None
        if outcome.failed or seat is None:
            await replies.reply(interaction, say(SAVE_FAILED))
            return None
        replies.step_saved(interaction)
        await self.deal_reports(outcome)  # before the answer: once, even on a crash
        played = next((e.action for e in outcome.events
                       if isinstance(e, Played) and e.seat == seat), None)
        line = self.hands.move_line(table, seat, played) if played is not None else None
        again = table.to_act == seat and table.automation() is None  # their turn once more
        collapse = interaction.guild_id is None and line is not None and not again
        if collapse and line is not None:
            # The DM hand becomes one line, in this same answer; the next turn's hand comes
            # as a new DM (it notifies). Ephemeral hands keep showing the cards.
            await replies.update(interaction, **self.hands.collapsed(line))
        else:
            await replies.update(interaction, content=None, **await self.hands.parts(table, seat))
        return Answered(seat, line, again, collapse)

    async def refusal(self, interaction: discord.Interaction, outcome: Outcome) -> None:
        """A polite no, changing nothing; a seated player also gets their current hand."""
        table, error = outcome.table, outcome.refusal
        seat = outcome.seat
        if seat is None or table.status != PLAYING or table.game is None:
            await replies.reply(interaction, say_safe(error))
            return
        sentences = [say_safe(error)]  # "it is {player}'s turn": a name people typed
        if not isinstance(error, StaleClick):
            sentences.append(_("Nothing was changed."))
        sentences.append(_("Here is your hand as it is now:"))
        await replies.reply(interaction, " ".join(sentences), **await self.hands.parts(table, seat))

    async def deal_reports(self, outcome: Outcome) -> None:
        """A new message with each finished deal's result (the final one: see the ending)."""
        await self.deal_results(outcome.table, outcome.deal_reports)

    async def deal_results(self, table: Table, deals: Sequence[int]) -> None:
        """A new message with the result of each of ``deals``."""
        ui = self.uis[table.game_id]
        for deal in deals:
            assert table.game is not None
            with speaking(table.language):  # the channel reads the table's language
                embed = ui.deal_result_embed(table, table.game, deal)
            await self.poster.send(table.channel_id, table.guild_id, embed=embed)

    async def after_step(self, table: Table, answered: int | None = None) -> None:
        """The table edit and the next player's hand; where they went is remembered."""
        if table.automation() not in ("deal", "finish"):
            # (A new deal or the end redraws the table in a moment; the deal's result
            # message shows how it ended.)
            await self.board.request_edit(table)
        # Whoever was told of a turn before: that turn is over (they moved, or not). First:
        # when the budget is short the next player's DM is then the last request this
        # step waits for, and their click finds the table free.
        await turn_notices.withdraw(self.poster, table)
        if table.automation() is None:
            seat = table.to_act
            if seat is not None and seat != answered:
                await self.hands.tell_turn(table, seat)  # a DM, or a mention
        await save_posts(self.manager, table)
