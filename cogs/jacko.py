"""Jacko at a Discord table: its view (``bot.views.jacko``) and its slash commands."""

from __future__ import annotations

from bot.app.client import CardTableBot
from bot.app.game_cog import GameCog, add_game_cog
from bot.ui.game_ui import GameUI
from bot.views.jacko import JackoView


class JackoUI(JackoView, GameUI):
    COMMAND = "jacko"


class JackoCog(GameCog):
    UI = JackoUI


async def setup(bot: CardTableBot) -> None:
    await add_game_cog(bot, JackoCog)
