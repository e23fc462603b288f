"""``/help``: what the bot does and how to play, ephemerally."""

from __future__ import annotations

import discord
from discord import app_commands
from discord.ext import commands

from bot.app.client import CardTableBot
from bot.ui import markup, replies
from locales import _, say


def help_embed(bot: CardTableBot) -> discord.Embed:
    uis = sorted(bot.game_uis.values(), key=lambda ui: ui.title)
    games = "\n".join(f"**/{ui.COMMAND}** — {ui.title}: {say(ui.BLURB)}" for ui in uis)
    embed = discord.Embed(title=_("cardtable: card games with friends"), colour=markup.COLOUR)
    embed.description = "\n\n".join((
        _("Play a card game right here in the channel."),
        games or _("No game is available right now."),
        # Translators: a heading in /help
        "**" + _("How it goes") + "**\n"
        # Translators: `/<game> start` is a command: keep it as it is
        "1. " + _("`/<game> start` opens a table in this channel (its options are the "
                  "command's options).") + "\n"
        # Translators: **Join**, **Add AI** and **Start** are the table's buttons: use
        # their translations
        "2. " + _("Friends press **Join** (or the host presses **Add AI** for an AI player); "
                  "the host presses **Start**.") + "\n"
        # Translators: **My hand** is a button on the table: use its translation
        "3. " + _("Your hand comes by DM with a menu of the cards you may play. DMs closed? "
                  "Press **My hand** on the table instead (only you see it).") + "\n"
        "4. " + _("The table message shows whose turn it is; if time runs out, the AI plays "
                  "for you."),
        # Translators: the words in `backticks` are subcommands: keep them as they are
        _("**Commands of every game**: `start` · `join` · `leave` · `hand` (your hand again) · "
          "`stop` (host or moderators) · `rules` · `status` · `invite` (the host keeps a "
          "seat for a member)."),
        # Translators: a heading in /help, then the words in `backticks` are options of
        # the start command: keep them as they are
        "**" + _("Getting a table together") + "**\n"
        + _("`start at:20:30` schedules the table as a server event: whoever joins (or "
            "presses Interested) is reminded an hour before and again ten minutes before, "
            "and it starts by itself at the time (`fill:true`: with AI players in the "
            "empty seats). `players:@Bob @Carol` keeps seats for friends; "
            "`invite_only:true` lets only them join.") + "\n"
        # Translators: **Take a seat**, **Pause** and **Resume** are the table's buttons:
        # use their translations
        + _("When a player leaves or is away, someone else may press **Take a seat**: the "
            "host (or the other players, if the host is gone) accepts. The players may "
            "**Pause** the table by a vote, and **Resume** it the same way."),
        # Translators: the words in `backticks` are commands: keep them as they are
        _("**Results**: `/leaderboard` (ratings per game, this server or everywhere; "
          "`period:` the last 7 or 30 days, or a season) · "
          "`/stats` · `/history` (recent games, each downloadable as a record that "
          "`python -m engine replay` checks) · `/chips` (AttackJack balances)."),
        # Translators: the words in `backticks` are commands, **Sign up** a button
        _("**Tournaments**: `/tournament create` (server managers) opens a Swiss or "
          "knockout tournament; players press **Sign up**, each table plays in a thread of "
          "its own, and `/tournament show` gives the standings."),
        # Translators: `/settings` is a command: keep it as it is
        _("**Server managers**: `/settings` chooses the language, turn timer, channels, "
          "threads and house rules of new tables, the server's time zone, a role to call "
          "when a table needs players, quiet hours (slow games' timers stand still and no "
          "reminders go out), the longest pause, and seasons with their champion and "
          "rating-tier roles."),
    ))
    return markup.fit_embed(embed)


class Help(commands.Cog):
    def __init__(self, bot: CardTableBot):
        self.bot = bot

    @app_commands.command(name="help", description="How to play card games with this bot")
    async def help(self, interaction: discord.Interaction) -> None:
        await replies.reply(interaction, embed=help_embed(self.bot))


async def setup(bot: CardTableBot) -> None:
    await bot.add_cog(Help(bot))
