"""``/stats [user] [game] [scope]``: one player's numbers in each game they have played.

Per game: games, wins, win rate, points, rating (the ordinal the leaderboard sorts
by) and rank on that leaderboard; on a server, their AttackJack chips too.
"""

from __future__ import annotations

import logging

import discord
from discord import app_commands
from discord.ext import commands

from bot.app.client import CardTableBot
from bot.storage import GameStats, Store
from bot.ui import markup, replies
from cogs.leaderboard import (
    TROUBLE,
    Scope,
    counting_note,
    game_choices,
    game_title,
    games_text,
    points_text,
    provisional_text,
    where_text,
    wins_text,
)
from engine.registry import specs
from locales import _, say

log = logging.getLogger(__name__)


def stats_text(stats: GameStats) -> str:
    rating = f"**{stats.ordinal:.1f}**" + (f" ({provisional_text()})" if stats.provisional
                                           else "")
    counts = " · ".join((games_text(stats.games, f"**{stats.games}**"),
                         wins_text(stats.wins, stats.win_rate, f"**{stats.wins}**"),
                         points_text(stats.points, f"**{stats.points:+d}**")))
    rank = f"**#{stats.rank}**"
    # Translators: a player's rating in a game and their place on its leaderboard
    standing = _("Rating {rating} · rank {rank} of {players}", rating=rating, rank=rank,
                 players=stats.ranked_players)
    return f"{counts}\n{standing}"


def stats_embed(name: str, where: str, stats: list[GameStats], game: str | None,
                chips: int | None) -> discord.Embed:
    shown = markup.safe_name(markup.clip(name, 64))
    # Translators: the title of /stats, followed by where the numbers come from
    embed = discord.Embed(title=_("Stats of {player}", player=shown) + " · " + where,
                          colour=markup.COLOUR)
    for entry in stats:
        embed.add_field(name=game_title(entry.game), value=stats_text(entry), inline=False)
    if not stats and game:
        embed.description = _("{player} has not finished a counted game of {game} here yet.",
                              player=shown, game=game_title(game))
    elif not stats:
        embed.description = _("{player} has not finished a counted game of any game here yet.",
                              player=shown)
    if chips is not None:
        embed.add_field(name=_("AttackJack chips"), value=f"{chips:,}", inline=False)
    embed.set_footer(text=counting_note())
    return markup.fit_embed(embed)


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
            await replies.reply(interaction, say(TROUBLE))
            return
        where = where_text("server" if guild is not None else "global", interaction.guild)
        await replies.reply(interaction, embed=stats_embed(who.display_name, where, numbers,
                                                           game, chips), ephemeral=False)


async def setup(bot: CardTableBot) -> None:
    await bot.add_cog(Stats(bot))
