"""AttackJack at a Discord table: its view (``bot.views.attackjack``), its slash commands,
the stake checked against the players' chips and the showdown's result."""

from __future__ import annotations

import discord

from bot.app.client import CardTableBot
from bot.app.game_cog import GameCog, add_game_cog
from bot.storage import Store
from bot.table.state import Table
from bot.ui import markup
from bot.ui.game_ui import GameUI, markup_names
from bot.views.attackjack import AttackJackView, showdown, stake
from engine.core import Game
from locales import _, _n


class AttackJackUI(AttackJackView, GameUI):
    COMMAND = "attackjack"

    async def start_problem(self, table: Table, store: Store) -> str | None:
        stake_ = stake(table.options)
        if stake_ <= 0 or table.guild_id is None:
            return None
        # AI seats hold no chips (and a game with one moves none): only people need the stake.
        short = await store.check_stake(table.guild_id, [s.user_id for s in table.humans],
                                        stake_)
        if not short:
            return None
        # Markup (the names escaped): said as it is in the answer and on the closed lobby.
        names = {s.user_id: markup.safe_name(s.name) for s in table.seats}
        # Translators: a player's chips, in "The stake is 10 chips, but Ann has 4".
        who = ", ".join(_("{name} has {balance}", name=names.get(b.user_id, b.user_id),
                          balance=b.balance) for b in short)
        problem = _n("The stake is {n} chip, but {who}.", "The stake is {n} chips, but {who}.",
                     stake_, who=who)
        return f"{problem} " + _("Lower the stake or let them sit out.")

    def final_embed(self, table: Table, game: Game) -> discord.Embed:
        embed = discord.Embed(title=f"{self.title} · {showdown()}", colour=markup.GOLD)
        embed.description = self.final_text(game, markup_names(table))  # names escaped
        return markup.fit_embed(embed)


class AttackJackCog(GameCog):
    UI = AttackJackUI


async def setup(bot: CardTableBot) -> None:
    await add_game_cog(bot, AttackJackCog)
