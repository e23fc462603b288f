"""``/stats [user] [game] [scope] [opponent]``: one player's numbers in each game they
have played, or two players head-to-head.

Per game: games, wins, win rate, points, rating (the ordinal the leaderboard sorts
by) and rank on that leaderboard, and their winning streaks; on a server, their
AttackJack chips too; and a picture of their rating after each rated game of one game
(``game:``, else their most played). With ``opponent:``, the two players' games
together instead (``cogs.head_to_head``).
"""

from __future__ import annotations

import logging
from collections.abc import Mapping

import discord
from discord import app_commands
from discord.ext import commands

from bot.app.client import CardTableBot
from bot.storage import GameStats, Store, Streak
from bot.ui import markup, replies
from cogs.board_texts import (
    TROUBLE,
    Scope,
    game_choices,
    game_title,
    games_text,
    points_text,
    provisional_text,
    where_text,
    wins_text,
)
from cogs.head_to_head import (
    answer,
    most_played,
    plain_where,
    rating_chart,
    send_with_chart,
    streak_text,
)
from cogs.leaderboard import counting_note
from engine.registry import specs
from locales import _, say

log = logging.getLogger(__name__)


def stats_text(stats: GameStats, streak: Streak | None = None) -> str:
    rating = f"**{stats.ordinal:.1f}**" + (f" ({provisional_text()})" if stats.provisional
                                           else "")
    counts = " · ".join((games_text(stats.games, f"**{stats.games}**"),
                         wins_text(stats.wins, stats.win_rate, f"**{stats.wins}**"),
                         points_text(stats.points, f"**{stats.points:+d}**")))
    rank = f"**#{stats.rank}**"
    # Translators: a player's rating in a game and their place on its leaderboard
    standing = _("Rating {rating} · rank {rank} of {players}", rating=rating, rank=rank,
                 players=stats.ranked_players)
    lines = [counts, standing] + ([streak_text(streak)] if streak is not None else [])
    return "\n".join(lines)


def stats_embed(name: str, where: str, stats: list[GameStats], game: str | None,
                chips: int | None, streaks: Mapping[str, Streak] | None = None
                ) -> discord.Embed:
    shown = markup.safe_name(markup.clip(name, 64))
    # Translators: the title of /stats, followed by where the numbers come from
    embed = discord.Embed(title=_("Stats of {player}", player=shown) + " · " + where,
                          colour=markup.COLOUR)
    for entry in stats:
        embed.add_field(name=game_title(entry.game), inline=False,
                        value=stats_text(entry, (streaks or {}).get(entry.game)))
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
                           scope="This server (default) or every server",
                           opponent="Their games together with this player")
    @app_commands.choices(game=game_choices())
    async def stats(self, interaction: discord.Interaction, user: discord.User | None = None,
                    game: str | None = None, scope: Scope = "server",
                    opponent: discord.User | None = None) -> None:
        who = user or interaction.user
        guild = interaction.guild_id if scope == "server" else None
        if opponent is not None:
            await answer(interaction, self.store, who, opponent, scope,
                         where_text(scope, interaction.guild), game)
            return
        replies.answers_publicly(interaction)
        try:
            numbers = await self.store.stats(who.id, guild, game)
            streaks = {s.game: s for s in await self.store.streaks(who.id, guild, game)}
            # The line of one game's rating: the one asked for, or their most played.
            shown = game or most_played(numbers)
            history = await self.store.rating_history(who.id, shown, guild) if shown else []
            chips = None
            # A balance is shown for a game that moves chips, or with all games.
            if guild is not None and any(s.chips and (game is None or s.id == game)
                                         for s in specs() if s.is_available()):
                chips = await self.store.chips(guild, who.id)
        except Exception:
            log.exception("cannot read the stats of %s", who.id)
            await replies.reply(interaction, say(TROUBLE))
            return
        where = where_text(scope, interaction.guild)
        chart = rating_chart(who.display_name, shown, plain_where(scope, interaction.guild),
                             history) if shown else None
        await send_with_chart(interaction, stats_embed(who.display_name, where, numbers, game,
                                                       chips, streaks),
                              chart, self.bot.croupier.painter)


async def setup(bot: CardTableBot) -> None:
    await bot.add_cog(Stats(bot))
