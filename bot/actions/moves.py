"""A player's clicks on a running table: a card or action from a menu, and My hand.

Where a move happens, read top to bottom: ``Clicks.table`` (find, check, lock),
``Steps.move`` (check the turn and the menu, apply, save once), then
``Presenter.move`` (answer, deal results, table, next hand) and the driver for
whatever the bot plays next.
"""

from __future__ import annotations

import discord

from bot.actions.clicks import Clicks
from bot.actions.visits import Visits
from bot.play.driver import Driver
from bot.table.state import Table, TableError
from bot.table.step import Steps
from bot.table.timers import Clock
from bot.ui import replies
from bot.ui.board import Board
from bot.ui.hands import Hands
from bot.ui.markup import say_safe
from bot.ui.presenter import Presenter
from locales import _


class Moves:
    def __init__(self, clicks: Clicks, steps: Steps, presenter: Presenter, board: Board,
                 hands: Hands, driver: Driver, visits: Visits, clock: Clock):
        self.clicks = clicks
        self.visits = visits
        self.steps = steps
        self.presenter = presenter
        self.board = board
        self.hands = hands
        self.driver = driver
        self.clock = clock

    async def move_click(self, interaction: discord.Interaction, table_id: str, step: int,
                         code: str) -> None:
        async with self.clicks.table(interaction, table_id, channel_bound=False) as table:
            if table is None:
                return
            outcome = await self.steps.move(table, interaction.user.id, step, code)
            if self.clicks.manager.is_visiting(table):  # another process drives this table
                await self.visits.move(interaction, outcome)
                return
            await self.presenter.move(interaction, outcome)
            if outcome.saved:
                self.driver.settle(table)

    async def hand_click(self, interaction: discord.Interaction, table_id: str | None,
                         table: Table | None = None) -> None:
        """The table's My hand button (and ``/<game> hand``): the hand, ephemerally."""
        async with self.clicks.table(interaction, table_id, table=table,
                                     channel_bound=interaction.guild_id is not None) as found:
            if found is None:
                return
            try:
                found.require_playing()
                seat = found.seated(interaction.user.id)
            except TableError as error:
                await replies.reply(interaction, say_safe(error))
                return
            back = False
            if found.seats[seat].away:
                user_id, now = interaction.user.id, self.clock.now()
                outcome = await self.steps.apply(found, lambda t: t.welcome_back(user_id, now))
                back = outcome.saved
            note = _("Welcome back: you play your own seat again.") if back else None
            await replies.reply(interaction, note, **await self.hands.parts(found, seat))
            if back:
                await self.board.request_edit(found)
                self.driver.timers.schedule(found)
        if found is not None:
            self.driver.kick(found)  # a bot move that failed earlier gets another chance
