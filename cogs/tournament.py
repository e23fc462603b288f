"""``/tournament create|start|cancel|show``: tournaments of any game, in threads.

``create`` (Manage Server, or the server's tournament role: ``/settings tournaments``)
posts the tournament's message with **Sign up** and **Withdraw**; at its start time (or
``/tournament start``) its rounds begin, each table in a thread of its own. The work is
``bot.features.tournaments``; the rules ``bot.table.tournament*``; docs/competition.md.
"""

from __future__ import annotations

import discord
from discord import app_commands
from discord.ext import commands

from bot.app.client import CardTableBot
from bot.config.server_settings import ServerSettings
from bot.features.tournament_commands import Plan
from bot.table.tournament import FORMATS, KNOCKOUT, MAX_ROUNDS
from bot.ui import markup
from cogs.board_texts import game_choices
from locales import _

FORMAT_CHOICES = [app_commands.Choice(name="Swiss (every game)", value=FORMATS[0]),
                  app_commands.Choice(name="Knockout (two-player games)", value=KNOCKOUT)]


def tournament_role_text(settings: ServerSettings) -> str:
    """Who may run tournaments, in words (``/settings``)."""
    if settings.tournament_role is None:
        return _("Members with the Manage Server permission run tournaments.")
    # (a role mention in an ephemeral answer pings nobody)
    role = markup.role_mention(settings.tournament_role)
    return _("Members with the Manage Server permission or the role {role} run "
             "tournaments.", role=role)


@app_commands.guild_only()
class TournamentCog(commands.GroupCog, group_name="tournament",
                    group_description="Tournaments: Swiss or knockout, each table in a "
                                      "thread"):
    def __init__(self, bot: CardTableBot):
        self.bot = bot

    @app_commands.command(name="create", description="Open a tournament for sign-up in "
                                                     "this channel (organisers)")
    @app_commands.describe(
        game="The game", format="Swiss rounds, or a knockout (two-player games)",
        rounds="Swiss rounds (a knockout plays as many as it needs)",
        seats="Seats a table (Swiss; the nearest the player count allows)",
        duplicate="Every table of a round gets the same deals (Swiss)",
        start="When it starts, such as 20:00 or fri 19:30 (none: /tournament start)",
        signup_until="When sign-up closes (default: at the start)",
        round_time="The longest a round lasts once its tables start, such as 2h (none: "
                   "no limit)",
        grace="How long players have to join their table (default 10m)",
        options="The game's options as name=value, e.g. sevens_bonus=20",
        name="The tournament's name")
    @app_commands.choices(game=game_choices(), format=FORMAT_CHOICES)
    async def create(self, interaction: discord.Interaction, game: str,
                     format: str = FORMATS[0],
                     rounds: app_commands.Range[int, 1, MAX_ROUNDS] = 3,
                     seats: app_commands.Range[int, 2, 17] | None = None,
                     duplicate: bool = False, start: str | None = None,
                     signup_until: str | None = None, round_time: str | None = None,
                     grace: str | None = None, options: str | None = None,
                     name: app_commands.Range[str, 1, 80] | None = None) -> None:
        await self.bot.croupier.tournament_desk.create(interaction, Plan(
            game, format, rounds, seats, duplicate, start, signup_until, round_time, grace,
            options, name))

    @app_commands.command(name="start", description="Close sign-up and start round 1 now "
                                                    "(organisers)")
    async def start(self, interaction: discord.Interaction) -> None:
        await self.bot.croupier.tournament_desk.start(interaction)

    @app_commands.command(name="cancel", description="Cancel this channel's tournament "
                                                     "(organisers)")
    async def cancel(self, interaction: discord.Interaction) -> None:
        await self.bot.croupier.tournament_desk.cancel(interaction)

    @app_commands.command(name="show", description="This channel's tournament: its "
                                                   "standings and round")
    async def show(self, interaction: discord.Interaction) -> None:
        await self.bot.croupier.tournament_desk.show(interaction)


async def setup(bot: CardTableBot) -> None:
    await bot.add_cog(TournamentCog(bot))
