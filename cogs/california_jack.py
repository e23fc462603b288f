"""California Jack at a Discord table: trumps, the face-up stock, tricks and draws."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import discord

from bot import render
from bot.client import CardTableBot
from bot.gamecog import GameCog, add_game_cog
from bot.games import GameUI
from bot.tables import Table
from engine.cards import SUIT_LETTERS, SUIT_SYMBOLS
from engine.core import Game

RULES = """\
**California Jack** — 2 players, 6 cards each; the first to 10 game points wins.
The other 40 cards form a **face-up stock**: its top card at the start of a deal names \
**trumps**. Follow suit if you can (otherwise play anything); the highest trump wins, else \
the highest card of the suit led. The trick's winner takes the stock's top card, then the \
loser the next; when the stock is gone the last six cards are played out.
**Game points per deal**: High (ace of trumps), Jack (jack of trumps), Low (two of trumps) \
to whoever captures them, and Game to the most trick points (10 = 10, A 4, K 3, Q 2, J 1).
"""


def suit_symbol(letter: str | None) -> str:
    return SUIT_SYMBOLS[SUIT_LETTERS.index(letter)] if letter else "?"


class CaliforniaJackUI(GameUI):
    GAME_ID = "california_jack"
    COMMAND = "californiajack"
    RULES = RULES
    BLURB = "2 players, a face-up stock that names trumps, High-Low-Jack-Game."

    def heading(self, view: dict[str, Any]) -> str:
        return f"deal {view['deal'] + 1} · trumps {suit_symbol(view['trump'])}"

    def draw_table(self, view: dict[str, Any], names: Sequence[str]) -> str:
        lines = [f"**Trumps {suit_symbol(view['trump'])}**"]
        if view["stock_top"]:
            lines[0] += (f" · stock: {render.label(view['stock_top'])} on top "
                         f"({view['stock_size']} cards)")
        else:
            lines[0] += " · the stock is empty"
        if view["trick"]:
            lead = view["trick"][0]
            lines.append(f"**Trick**: {render.label(lead['card'])} {names[lead['seat']]}")
        elif view["to_act"] is not None:
            lines.append(f"**Trick**: {names[view['to_act']]} leads.")
        last = view["last_trick"]
        if last:
            played = " ".join(render.label(t["card"]) for t in last["cards"])
            lines.append(f"Last trick: {played} → {names[last['winner']]}")
        if view["draws"]:
            lines.append("Drawn: " + ", ".join(f"{names[d['seat']]} {render.label(d['card'])}"
                                               for d in view["draws"]))
        return "\n".join(lines)

    def seat_note(self, view: dict[str, Any], seat: int) -> str:
        note = f"{view['tricks_won'][seat]} tricks"
        known = view["known"][seat]
        if known:
            note += f" · holds {render.labels(known)} (drawn)"
        return note

    def deal_result_embed(self, table: Table, game: Game, deal: int) -> discord.Embed:
        embed = super().deal_result_embed(table, game, deal)
        result = game.public_view()["last_result"]
        if result is not None and result["deal"] == deal:
            names = table.names
            parts = [f"{label}: {names[result[key]] if result[key] is not None else 'nobody'}"
                     for key, label in (("high", "High"), ("low", "Low"), ("jack", "Jack"),
                                        ("game", "Game"))]
            points = " – ".join(str(p) for p in result["trick_points"])
            embed.description = (embed.description or "") + \
                f"\n{' · '.join(parts)}\nTrick points {points}"
        return render.fit_embed(embed)


class CaliforniaJackCog(GameCog):
    UI = CaliforniaJackUI


async def setup(bot: CardTableBot) -> None:
    await add_game_cog(bot, CaliforniaJackCog)
