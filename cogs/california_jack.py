"""California Jack at a Discord table: its view (``bot.views.california_jack``), its slash
commands and a deal's result with the game points each player won."""

from __future__ import annotations

import discord

from bot.app.client import CardTableBot
from bot.app.game_cog import GameCog, add_game_cog
from bot.table.state import Table
from bot.ui import markup
from bot.ui.game_ui import GameUI, markup_names
from bot.views.california_jack import CaliforniaJackView
from engine.core import Game


class CaliforniaJackUI(CaliforniaJackView, GameUI):
    COMMAND = "californiajack"

    def deal_result_embed(self, table: Table, game: Game, deal: int) -> discord.Embed:
        embed = super().deal_result_embed(table, game, deal)
        points = self.game_points_text(game.public_view(), deal, markup_names(table))  # escaped
        if points:
            embed.description = (embed.description or "") + f"\n{points}"
        return markup.fit_embed(embed)


class CaliforniaJackCog(GameCog):
    UI = CaliforniaJackUI


async def setup(bot: CardTableBot) -> None:
    await add_game_cog(bot, CaliforniaJackCog)
