"""``/stats [user] [game] [scope]``: one player's numbers in each game they have played.

Per game: games, wins, win rate, points, rating (the ordinal the leaderboard sorts
by) and rank on that leaderboard; on a server, their AttackJack chips too.
"""

from __future__ import annotations

import logging

import discord
from discord import app_commands
from discord.ext import commands

from bot import render, replies
from bot.client import CardTableBot
from bot.storage import GameStats, Store
from cogs.leaderboard import COUNTING_NOTE, Scope, game_choices, game_title
from engine.registry import specs

log = logging.getLogger(__name__)


def stats_text(stats: GameStats) -> str:
    rating = f"**{stats.ordinal:.1f}**" + (" (provisional)" if stats.provisional else "")
    return (f"**{stats.games}** {'game' if stats.games == 1 else 'games'} · **{stats.wins}** "
            f"{'win' if stats.wins == 1 else 'wins'} ({stats.win_rate:.0%}) · "
            f"**{stats.points:+d}** points\n"
            f"Rating {rating} · rank **#{stats.rank}** of {stats.ranked_players}")


def stats_embed(name: str, where: str, stats: list[GameStats], game: str | None,
                chips: int | None) -> discord.Embed:
    shown = discord.utils.escape_markdown(render.clip(name, 64))
    embed = discord.Embed(title=f"Stats of {shown} · {where}", colour=render.COLOUR)
    for entry in stats:
        embed.add_field(name=game_title(entry.game), value=stats_text(entry), inline=False)
    if not stats:
        which = game_title(game) if game else "any game"
        embed.description = (f"{shown} has not finished a counted game of {which} here yet.")
    if chips is not None:
        embed.add_field(name="AttackJack chips", value=f"{chips:,}", inline=False)
    embed.set_footer(text=COUNTING_NOTE)
    return render.fit_embed(embed)


class Stats(commands.Cog):
    def __init__(self, bot: CardTableBot):
        self.bot = bot

    @property
    def store(self) -> Store:
        return self.bot.store

    @app_commands.command(name="stats", description="A player's games, wins, points and rating")
    @app_commands.guild_only()
    @app_commands.describe(user="Whose stats (default: yours)", game="One game (default: all)",
                           scope="This server (default) or every server")
    @app_commands.choices(game=game_choices())
    async def stats(self, interaction: discord.Interaction, user: discord.User | None = None,
                    game: str | None = None, scope: Scope = "server") -> None:
        replies.answers_publicly(interaction)
        who = user or interaction.user
        guild = interaction.guild_id if scope == "server" else None
        try:
            numbers = await self.store.stats(who.id, guild, game)
            chips = None
            # A balance is shown for a game that moves chips, or with all games.
            if guild is not None and any(s.chips and (game is None or s.id == game)
                                         for s in specs() if s.is_available()):
                chips = await self.store.chips(guild, who.id)
        except Exception:
            log.exception("cannot read the stats of %s", who.id)
            await replies.reply(
                interaction, "I could not read the scores just now. Please try again in a "
                             "moment.")
            return
        where = "all servers" if guild is None else (
            interaction.guild.name if interaction.guild else "this server")
        await replies.reply(interaction, embed=stats_embed(who.display_name, where, numbers,
                                                           game, chips), ephemeral=False)


async def setup(bot: CardTableBot) -> None:
    await bot.add_cog(Stats(bot))
