"""The toy at a Discord table: the trick, drawn from the public view."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from bot.app.client import CardTableBot
from bot.app.game_cog import GameCog, add_game_cog
from bot.ui import markup
from bot.ui.game_ui import GameUI


class ToyUI(GameUI):
    GAME_ID = "toy"
    COMMAND = "toy"
    RULES = "**High Card**: play a card; the highest rank takes the trick."
    BLURB = "2–4 players, the toy game of the tests."

    def draw_table(self, view: dict[str, Any], names: Sequence[str]) -> str:
        played = " · ".join(f"{markup.label(t['card'])} {names[t['seat']]}"
                            for t in view["trick"])
        return f"**Trick**: {played or 'nothing yet'}"

    def seat_note(self, view: dict[str, Any], seat: int) -> str:
        return f"{view['hand_sizes'][seat]} cards"


class ToyCog(GameCog):
    UI = ToyUI


async def setup(bot: CardTableBot) -> None:
    await add_game_cog(bot, ToyCog)
