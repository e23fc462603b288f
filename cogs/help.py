"""``/help``: what the bot does and how to play, ephemerally."""

from __future__ import annotations

import discord
from discord import app_commands
from discord.ext import commands

from bot import render, replies
from bot.client import CardTableBot


def help_embed(bot: CardTableBot) -> discord.Embed:
    uis = sorted(bot.game_uis.values(), key=lambda ui: ui.title)
    games = "\n".join(f"**/{ui.COMMAND}** — {ui.title}: {ui.BLURB}" for ui in uis)
    embed = discord.Embed(title="cardtable: card games with friends", colour=render.COLOUR)
    embed.description = (
        "Play a card game right here in the channel.\n\n"
        f"{games or 'No game is available right now.'}\n\n"
        "**How it goes**\n"
        "1. `/<game> start` opens a table in this channel (its options are the command's "
        "options).\n"
        "2. Friends press **Join** (or the host presses **Add AI** for an AI player); the "
        "host presses **Start**.\n"
        "3. Your hand comes by DM with a menu of the cards you may play. DMs closed? Press "
        "**My hand** on the table instead (only you see it).\n"
        "4. The table message shows whose turn it is; if time runs out, the AI plays for you."
        "\n\n"
        "**Commands of every game**: `start` · `join` · `leave` · `hand` (your hand again) · "
        "`stop` (host or moderators) · `rules` · `status`.\n\n"
        "**Results**: `/leaderboard` (ratings per game, this server or everywhere) · "
        "`/stats` · `/history` (recent games, each downloadable as a record that "
        "`python -m engine replay` checks) · `/chips` (AttackJack balances)."
    )
    return render.fit_embed(embed)


class Help(commands.Cog):
    def __init__(self, bot: CardTableBot):
        self.bot = bot

    @app_commands.command(name="help", description="How to play card games with this bot")
    async def help(self, interaction: discord.Interaction) -> None:
        await replies.reply(interaction, embed=help_embed(self.bot))


async def setup(bot: CardTableBot) -> None:
    await bot.add_cog(Help(bot))
