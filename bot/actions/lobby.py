"""The lobby: Join, Leave, Add/Remove AI, Cancel and Start, by button or slash command.

Each is one step through the kernel (so a failed save changes nothing). A click
on the lobby redraws it in the answer itself (one API call); a slash command
edits the lobby message and answers on its own.
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable

import discord

from bot.actions.clicks import Clicks
from bot.play.driver import Driver
from bot.play.endings import Endings
from bot.storage import Store
from bot.table.state import LOBBY, PLAYING, Table, TableError
from bot.table.step import Steps
from bot.table.timers import Clock
from bot.ui import replies
from bot.ui.board import Board, save_posts
from bot.ui.game_ui import GameUI, markup_names
from bot.ui.hands import Hands
from bot.ui.markup import say_safe
from bot.ui.poster import Gone
from engine.text import T, Text
from locales import _, speaking

EVERYBODY_LEFT = T("Everybody left, so the lobby closed.")


class StartFailed(TableError):
    """The start could not be saved (storage): nothing changed, and trying again may work
    (a click says so; a scheduled table's timer tries again later)."""


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
                await replies.reply(interaction, say_safe(error))

    async def _act(self, interaction: discord.Interaction, table: Table, step: int,
                   action: str, via_command: bool) -> None:
        user, now = interaction.user, self.clock.now()
        if action == "cancel":
            if table.status != LOBBY:
                raise TableError(T("The game has already started: use the stop command "
                                   "instead."))
            if user.id != table.host_id:
                raise TableError(T("Only the host, {host}, can cancel this lobby.",
                                   host=table.host_name))
            await self._cancel(interaction, table,
                               T("{player} cancelled the lobby.", player=user.display_name),
                               via_command)
            return
        if action == "start":
            if step != table.step and table.status == LOBBY:
                raise TableError(T("The lobby just changed: check who is seated and press "
                                   "Start again."))
            await self._start(interaction, table)
            return
        notes: list[Text] = []

        def change(t: Table) -> None:
            if action == "join":
                t.join(user.id, user.display_name, now)
                notes.append(T("You joined the table."))
            elif action == "leave":
                notes.append(EVERYBODY_LEFT if t.leave(user.id, now) == "empty"
                             else T("You left."))
            elif action == "ai-remove":
                t.remove_ai(user.id, now)
                notes.append(T("You removed an AI player."))
            elif action.startswith("ai-"):
                t.add_ai(user.id, action.removeprefix("ai-"), now)
                notes.append(T("You seated {player}.", player=t.seats[-1].name_text))
            else:
                raise TableError(T("That button does nothing."))

        outcome = await self.steps.apply(table, change)
        if outcome.refusal is not None:
            raise outcome.refusal
        if outcome.failed:
            raise TableError(T("Something went wrong; nothing was changed. Please try again."))
        if notes == [EVERYBODY_LEFT]:
            await self._cancel(interaction, table, EVERYBODY_LEFT, via_command)
            return
        if table.status == PLAYING:  # leaving a running game: the bot plays that seat
            await replies.reply(interaction, _("You left the game: I will play your seat until "
                                               "the end. Press **My hand** to take it back."))
            await self.board.request_edit(table)
            self.driver.settle(table)
            return
        self.driver.timers.schedule(table)
        await self._show(interaction, table, via_command, notes[0])

    async def _show(self, interaction: discord.Interaction, table: Table, via_command: bool,
                    note: Text) -> None:
        if via_command:  # a slash command: edit the lobby message, then answer
            await self.board.edit(table)
            await replies.reply(interaction, say_safe(note))
        else:  # a click on the lobby itself: redraw it in the response (one API call)
            await replies.update(interaction, **await self.board.message(table))

    async def _cancel(self, interaction: discord.Interaction, table: Table, why: Text,
                      via_command: bool) -> None:
        """Close the lobby; ``why`` is kept on it (said in the table's language)."""
        await self.endings.close_lobby(table, why)
        if via_command:
            await self.board.edit(table)
            await replies.reply(interaction, say_safe(why))
        else:
            await replies.update(interaction, **await self.board.message(table))

    async def _start(self, interaction: discord.Interaction, table: Table) -> None:
        await self.start_game(table, interaction.user.id)
        await replies.update(interaction, content=None, view=None,
                             embed=self._started(table))
        await self.show_start(table)

    def _started(self, table: Table) -> discord.Embed:
        """What the lobby message becomes once its game started."""
        ui = self.uis[table.game_id]
        with speaking(table.language):  # the lobby message: the channel reads it
            names = ", ".join(markup_names(table))
            return discord.Embed(
                title=_("{game} has started", game=ui.title), colour=ui.COLOUR,
                description=_("Players, in seat order: {players}. The table is just below.",
                              players=names))

    async def started_by_itself(self, table: Table) -> None:
        """A lobby that started without a click (a scheduled table at its time): the lobby
        message says so, then the table is posted below it."""
        if table.posts.message_id is not None:
            # (deleted by a moderator: Gone, and the table is posted all the same)
            with contextlib.suppress(Gone):
                await self.board.poster.edit(table.channel_id, table.guild_id,
                                             table.posts.message_id, content=None,
                                             view=None, embed=self._started(table))
        await self.show_start(table)

    async def start_game(self, table: Table, user_id: int,
                         also: Callable[[Table], None] | None = None) -> None:
        """``user_id`` starts the game and its first deal, in one step (``also`` changes
        the table in that step too); ``TableError`` if refused or not saved. The caller
        holds the table's lock (a click, or ``bot.features.rematch``/``bot.features.series``)."""
        await self._check_start(table, user_id)
        now = self.clock.now()

        def start(t: Table) -> None:
            t.start_and_deal(user_id, now)
            if also is not None:
                also(t)

        outcome = await self.steps.apply(table, start)
        if outcome.refusal is not None:
            raise outcome.refusal
        if outcome.failed:
            raise StartFailed(T("Something went wrong while starting; please press Start "
                                "again."))

    async def _check_start(self, table: Table, user_id: int) -> None:
        """``TableError`` if the game cannot start (a stake somebody cannot pay)."""
        if user_id == table.host_id and table.count_fits:
            problem = await self.uis[table.game_id].start_problem(table, self.store)
            if problem:
                raise TableError(problem)

    async def start_unopened(self, table: Table, user_id: int) -> None:
        """Start the game of a table not stored yet, and its first deal (a rematch): it is
        then stored already started, in one write, so that no crash can leave a lobby
        nobody was shown. ``TableError`` if refused (``table`` unchanged)."""
        await self._check_start(table, user_id)
        kept = table.clone()
        try:
            table.start_and_deal(user_id, self.clock.now())
        except TableError:
            table.restore(kept)
            raise

    async def show_start(self, table: Table, ping: bool = True) -> None:
        """A game just started: the table message (pinging the players), timers, hands."""
        await self.board.post(table, ping=ping)
        self.driver.timers.schedule(table)
        await self.hands.send_all(table, tell_first=not ping)  # a ping names who plays first
        await save_posts(self.steps.manager, table)  # the table message, the DM channels
        self.driver.kick(table)
