"""What the bot's own play tells the front ends, and what it needs of each game.

``bot.play`` (the bot's moves, turn timers, endings) decides and saves; a front end
shows. The Discord one is ``bot.ui.front.DiscordFront``; another (a web table) is one
more ``Front``, and ``Fronts`` tells several the same things in order. Nothing here
imports a front end.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Protocol

from bot.table.state import Table
from bot.table.step import Outcome
from engine.core import Game


class Front(Protocol):
    """A front end, as the bot's own play sees it. Each method is called once the change
    is saved (or, for ``closing``, as the table is taken out of play)."""

    async def stepped(self, outcome: Outcome) -> None:
        """The bot made a step (a deal, a forced or automatic step, an AI or away seat's
        move): each finished deal's result, the table, whoever is to act next."""

    async def timed_out(self, outcome: Outcome, seat: int, action: int) -> None:
        """The turn timer ran out and ``action`` was played for ``seat``: as ``stepped``,
        and the player is told what was played for them."""

    async def remind(self, table: Table) -> None:
        """The player to act is reminded that their time runs out."""

    async def lobby_closed(self, table: Table) -> None:
        """A lobby closed by itself (nobody did anything for too long)."""

    async def finished(self, table: Table) -> None:
        """The game is over, recorded and closed: its final result (posted once)."""

    async def closed(self, table: Table) -> None:
        """After ``finished``: the table itself shows that its game is over (may come
        twice: a redraw)."""

    async def stopped(self, table: Table) -> None:
        """The table was stopped (and closed): nobody's turn any more."""

    async def idle_stopped(self, table: Table) -> None:
        """After ``stopped``: it was the bot that stopped it, nobody having moved for the
        table's ``idle_limit``; its players are told."""

    def closing(self, table_id: str) -> None:
        """The table is being taken out of play: drop what was still to be drawn."""

    async def lost(self, channel_id: int, guild_id: int | None, language: str | None) -> None:
        """A saved table could not be brought back after a restart and was stopped."""


class Fronts:
    """Several front ends told the same things, one after the other."""

    def __init__(self, *fronts: Front):
        self.fronts = list(fronts)

    async def stepped(self, outcome: Outcome) -> None:
        for front in self.fronts:
            await front.stepped(outcome)

    async def timed_out(self, outcome: Outcome, seat: int, action: int) -> None:
        for front in self.fronts:
            await front.timed_out(outcome, seat, action)

    async def remind(self, table: Table) -> None:
        for front in self.fronts:
            await front.remind(table)

    async def lobby_closed(self, table: Table) -> None:
        for front in self.fronts:
            await front.lobby_closed(table)

    async def finished(self, table: Table) -> None:
        for front in self.fronts:
            await front.finished(table)

    async def closed(self, table: Table) -> None:
        for front in self.fronts:
            await front.closed(table)

    async def stopped(self, table: Table) -> None:
        for front in self.fronts:
            await front.stopped(table)

    async def idle_stopped(self, table: Table) -> None:
        for front in self.fronts:
            await front.idle_stopped(table)

    def closing(self, table_id: str) -> None:
        for front in self.fronts:
            front.closing(table_id)

    async def lost(self, channel_id: int, guild_id: int | None, language: str | None) -> None:
        for front in self.fronts:
            await front.lost(channel_id, guild_id, language)


class GameRules(Protocol):
    """What the bot's play needs of each game beyond its engine (``bot.ui.game_ui.GameUI``
    has it): the move played for an absent player, and a finished game's chips."""

    def policy(self, game: Game) -> int: ...

    def chips(self, game: Game) -> list[int]: ...


Rules = Mapping[str, GameRules]  # by game id
