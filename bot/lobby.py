"""The lobby: Join, Leave, Add/Remove AI, Cancel and Start, by button or slash command.

Each is one step through the kernel (so a failed save changes nothing). A click
on the lobby redraws it in the answer itself (one API call); a slash command
edits the lobby message and answers on its own.
"""

from __future__ import annotations

import discord

from bot import replies
from bot.board import Board, save_posts
from bot.clicks import Clicks
from bot.driver import Driver
from bot.endings import Endings
from bot.games import GameUI
from bot.hands import Hands
from bot.step import Steps
from bot.storage import Store
from bot.tables import LOBBY, PLAYING, Table, TableError
from bot.timers import Clock

EVERYBODY_LEFT = "Everybody left, so the lobby closed."


class Lobby:
    def __init__(self, clicks: Clicks, steps: Steps, board: Board, hands: Hands,
                 endings: Endings, driver: Driver, store: Store, uis: dict[str, GameUI],
                 clock: Clock):
        self.clicks = clicks
        self.steps = steps
        self.board = board
        self.hands = hands
        self.endings = endings
        self.driver = driver
        self.store = store
        self.uis = uis
        self.clock = clock

    async def click(self, interaction: discord.Interaction, table_id: str, step: int,
                    action: str, via_command: bool = False) -> None:
        async with self.clicks.table(interaction, table_id,
                                     channel_bound=not via_command) as table:
            if table is None:
                return
            try:
                await self._act(interaction, table, step, action, via_command)
            except TableError as error:
                await replies.reply(interaction, str(error))

    async def _act(self, interaction: discord.Interaction, table: Table, step: int,
                   action: str, via_command: bool) -> None:
        user, now = interaction.user, self.clock.now()
        if action == "cancel":
            if table.status != LOBBY:
                raise TableError("The game has already started: use the stop command instead.")
            if user.id != table.host_id:
                raise TableError(f"Only the host, {table.host_name}, can cancel this lobby.")
            await self._cancel(interaction, table, f"{user.display_name} cancelled the lobby.",
                               via_command)
            return
        if action == "start":
            if step != table.step and table.status == LOBBY:
                raise TableError("The lobby just changed: check who is seated and press Start "
                                 "again.")
            await self._start(interaction, table)
            return
        notes: list[str] = []

        def change(t: Table) -> None:
            if action == "join":
                t.join(user.id, user.display_name, now)
                notes.append("You joined the table.")
            elif action == "leave":
                notes.append(EVERYBODY_LEFT if t.leave(user.id, now) == "empty" else "You left.")
            elif action == "ai-remove":
                t.remove_ai(user.id, now)
                notes.append("You removed an AI player.")
            elif action.startswith("ai-"):
                t.add_ai(user.id, action.removeprefix("ai-"), now)
                notes.append(f"You seated {t.seats[-1].name}.")
            else:
                raise TableError("That button does nothing.")

        outcome = await self.steps.apply(table, change)
        if outcome.refusal is not None:
            raise outcome.refusal
        if outcome.failed:
            raise TableError("Something went wrong; nothing was changed. Please try again.")
        if notes == [EVERYBODY_LEFT]:
            await self._cancel(interaction, table, EVERYBODY_LEFT, via_command)
            return
        if table.status == PLAYING:  # leaving a running game: the bot plays that seat
            await replies.reply(interaction, "You left the game: I will play your seat until "
                                             "the end. Press **My hand** to take it back.")
            await self.board.request_edit(table)
            self.driver.settle(table)
            return
        self.driver.timers.schedule(table)
        await self._show(interaction, table, via_command, notes[0])

    async def _show(self, interaction: discord.Interaction, table: Table, via_command: bool,
                    note: str) -> None:
        if via_command:  # a slash command: edit the lobby message, then answer
            await self.board.edit(table)
            await replies.reply(interaction, note)
        else:  # a click on the lobby itself: redraw it in the response (one API call)
            await replies.update(interaction, **self.board.message(table))

    async def _cancel(self, interaction: discord.Interaction, table: Table, why: str,
                      via_command: bool) -> None:
        await self.endings.close_lobby(table, why)
        if via_command:
            await self.board.edit(table)
            await replies.reply(interaction, why)
        else:
            await replies.update(interaction, **self.board.message(table))

    async def _start(self, interaction: discord.Interaction, table: Table) -> None:
        ui = self.uis[table.game_id]
        user_id, now = interaction.user.id, self.clock.now()
        if user_id == table.host_id and table.count_fits:
            problem = await ui.start_problem(table, self.store)
            if problem:
                raise TableError(problem)

        def start(t: Table) -> None:
            t.start(user_id, now)
            t.run_automation("deal", now)  # the first deal, dealt at once

        outcome = await self.steps.apply(table, start)
        if outcome.refusal is not None:
            raise outcome.refusal
        if outcome.failed:
            raise TableError("Something went wrong while starting; please press Start again.")
        names = ", ".join(s.name for s in table.seats)
        await replies.update(interaction, content=None, view=None, embed=discord.Embed(
            title=f"{ui.title} has started", colour=ui.COLOUR,
            description=f"Players, in seat order: {names}. The table is just below."))
        await self.board.post(table, ping=True)
        self.driver.timers.schedule(table)
        await self.hands.send_all(table)
        await save_posts(self.steps.manager, table)  # the table message, the DM channels
        self.driver.kick(table)
