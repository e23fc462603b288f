"""Jazz at a Discord table: its view (``bot.views.jazz``) and its slash commands."""

from __future__ import annotations

from bot.app.client import CardTableBot
from bot.app.game_cog import GameCog, add_game_cog
from bot.ui.game_ui import GameUI
from bot.views.jazz import JazzView


class JazzUI(JazzView, GameUI):
    COMMAND = "jazz"


class JazzCog(GameCog):
    UI = JazzUI


async def setup(bot: CardTableBot) -> None:
    await add_game_cog(bot, JazzCog)
