"""``/settings season``, ``channel``, ``rewards`` and ``tier``: a server's seasons and role
rewards (``docs/competition.md``), and how ``/settings show`` says them.

The commands are a mixin of the ``Settings`` cog (``cogs/settings.py``), so they are
subcommands of its ``/settings`` group, answered privately and refused to whoever lacks
Manage Server like every other; they live here to keep that module short.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from typing import TYPE_CHECKING

import discord
from discord import app_commands
from discord.ext import commands

from bot.app.client import CardTableBot
from bot.config.competition import (
    MAX_TIER_RATING,
    SeasonError,
    Tier,
    day_at,
    next_first,
    parse_days,
    parse_start,
    with_tier,
    without_tier,
)
from bot.config.server_settings import ServerSettings, SettingError
from bot.ui import markup, replies
from bot.ui.rewards import dangerous, why_dangerous, why_not
from cogs.board_texts import game_choices, game_title
from engine.text import Text
from locales import _, _n

log = logging.getLogger(__name__)

EVERY_GAME = "all"


def season_text(settings: ServerSettings, now: float | None = None) -> str:
    """The server's seasons in words (``now``: with the one running then)."""
    schedule = settings.schedule()
    if schedule is None:
        return _("No seasons: the leaderboards are all-time (and the last 7 or 30 days).")
    said = _n("Seasons of {n} day, the first from {date} ({zone}).",
              "Seasons of {n} days, the first from {date} ({zone}).", schedule.days,
              date=schedule.start.isoformat(), zone=settings.timezone or "UTC")
    season = schedule.season_at(now) if now is not None else None
    if now is not None and season is None:
        said += " " + _("Season {season} starts {when}.", season=schedule.first,
                        when=markup.relative_time(schedule.start_of(schedule.first)))
    elif season is not None:
        said += " " + _("Season {season} runs now and ends {when}.", season=season,
                        when=markup.relative_time(schedule.end_of(season)))
    return said


def channel_text(settings: ServerSettings) -> str:
    if settings.season_channel is None:
        return _("No season channel: the end of a season is not posted, and no roles are "
                 "given (every role change is said there).")
    channel = f"<#{settings.season_channel}>"
    return _("The end of each season and every role given or taken are posted in "
             "{channel}.", channel=channel)


def rewards_text(settings: ServerSettings) -> str:
    lines = [_("Champion of {game}: {role}, moved to the winner at each season's end.",
               game=game_title(game), role=markup.role_mention(role))
             for game, role in settings.champion_roles.items()]
    for tier in settings.tiers:
        where = (game_title(tier.game) if tier.game is not None
                 else _("any game"))
        rating = f"{tier.rating:g}"
        lines.append(_("Tier {role}: a rating of {rating} or more in {game}.",
                       role=markup.role_mention(tier.role), rating=rating, game=where))
    return "\n".join(lines) or _("No role rewards.")


def _refusal(error: Exception) -> str:
    """A refusal with what the manager typed escaped (``cogs.settings.refusal``'s way)."""
    text = error.args[0] if error.args and isinstance(error.args[0], Text) else None
    if text is not None and isinstance(text.params.get("value"), str):
        error = type(error)(text.filled(value=markup.safe_name(text.params["value"])))
    return markup.say_safe(error)


def _own_role(interaction: discord.Interaction, role: discord.Role) -> str | None:
    """Why a role can never be a reward, or not one this member may choose (None: it can
    be). Manage Server is enough for ``/settings``, not to hand out roles: a member may
    name only a role below their own highest (the owner any), and never one with
    moderator or admin permissions, which the bot would never give (``rewards.dangerous``)."""
    if role.is_default() or role.managed:
        return _("{role} belongs to Discord or to an app: no bot can give it. Choose "
                 "another role. Nothing was changed.", role=role.mention)
    if dangerous(role):
        return markup.say_safe(why_dangerous(role.id)) + " " + _("Nothing was changed.")
    member, guild = interaction.user, interaction.guild
    owner = guild is not None and guild.owner_id == member.id
    if not owner and (not isinstance(member, discord.Member) or role >= member.top_role):
        return _("{role} is not below your highest role, so you cannot make it a reward: "
                 "choose a lower role, or ask someone above it. Nothing was changed.",
                 role=role.mention)
    return None


def _warning(interaction: discord.Interaction, settings: ServerSettings,
             role: discord.Role | None) -> str:
    """What still keeps a reward from being given (said after the setting is saved)."""
    notes = []
    guild = interaction.guild
    if role is not None and guild is not None:
        why = why_not(guild, role.id)
        if why is not None:
            notes.append("⚠️ " + markup.say_safe(why))
    if settings.season_channel is None:
        notes.append("⚠️ " + _("Name a season channel with /settings channel: roles are "
                               "given only where every change can be said."))
    return "\n".join(notes)


class CompetitionSettings(commands.Cog):
    """The season and reward commands of ``/settings`` (a base of its cog, which makes
    them subcommands of its group)."""

    bot: CardTableBot

    if TYPE_CHECKING:  # the Settings cog's own (cogs/settings.py)
        async def _refused(self, interaction: discord.Interaction) -> bool: ...

        async def _change(self, interaction: discord.Interaction,
                          change: Callable[[ServerSettings], ServerSettings],
                          said: Callable[[ServerSettings], str]) -> None: ...

    def _poke(self) -> None:
        if self.bot.is_set_up:
            self.bot.croupier.seasons.poke()

    @app_commands.command(name="season", description="Seasons: how many days each lasts, "
                                                     "from which day")
    @app_commands.describe(length="Days in a season, such as 30; off: no seasons",
                           start="The first day of season 1, such as 2025-06-01 (default: "
                                 "today)")
    async def season(self, interaction: discord.Interaction, length: str,
                     start: str | None = None) -> None:
        if await self._refused(interaction):
            return
        now = self.bot.clock.now()
        try:
            days = parse_days(length)
            typed = None if days is None else parse_start(start, day_at(now, None))
        except SeasonError as error:
            await replies.reply(interaction, _refusal(error))
            return
        given = start is not None and start.strip().lower() != "today"
        assert interaction.guild_id is not None  # _refused checked it
        try:
            last = await self.bot.store.last_season(interaction.guild_id)
        except Exception:
            log.exception("cannot read the seasons of guild %s", interaction.guild_id)
            await replies.reply(interaction, _("I cannot read this server's seasons just "
                                               "now. Nothing was changed; try again soon."))
            return

        def change(s: ServerSettings) -> ServerSettings:
            if days is None:
                return s.replace(season_start=None, season_days=None)
            first = typed if given and typed is not None else day_at(now, s.timezone)
            if (first.isoformat(), days) == (s.season_start, s.season_days):
                return s  # the same schedule: its seasons keep their numbers
            # A new schedule numbers on from the seasons used before, never from 1 again
            return s.replace(season_start=first.isoformat(), season_days=days,
                             season_first=next_first(s.schedule(), now, last))

        await self._change(interaction, change, lambda s: season_text(s, now))
        self._poke()

    @app_commands.command(name="channel", description="Where season ends and role changes "
                                                      "are posted")
    @app_commands.describe(channel="A text channel (leave it out: none)")
    async def channel(self, interaction: discord.Interaction,
                      channel: discord.TextChannel | None = None) -> None:
        if await self._refused(interaction):
            return
        chosen = channel.id if channel is not None else None

        def said(s: ServerSettings) -> str:
            text = channel_text(s)
            guild = interaction.guild
            if channel is not None and guild is not None:
                perms = channel.permissions_for(guild.me)
                if not (perms.view_channel and perms.send_messages and perms.embed_links):
                    text += "\n⚠️ " + _("I cannot post there yet: I need View Channel, "
                                        "Send Messages and Embed Links in {channel}.",
                                        channel=channel.mention)
            return text

        await self._change(interaction, lambda s: s.replace(season_channel=chosen), said)
        self._poke()

    @app_commands.command(name="rewards", description="A game's champion role, moved to "
                                                      "each season's winner")
    @app_commands.describe(game="The game", champion="The role (leave it out: none)")
    @app_commands.choices(game=game_choices())
    async def rewards(self, interaction: discord.Interaction, game: str,
                      champion: discord.Role | None = None) -> None:
        if await self._refused(interaction):
            return
        if champion is not None and (why := _own_role(interaction, champion)) is not None:
            await replies.reply(interaction, why)
            return

        def change(s: ServerSettings) -> ServerSettings:
            roles = {g: r for g, r in s.champion_roles.items() if g != game}
            if champion is not None:
                if champion.id in roles.values():  # a second crowning would take it back
                    raise SettingError(_("{role} is another game's champion role already: "
                                         "each game needs its own. Nothing was changed.",
                                         role=champion.mention))
                if any(t.role == champion.id for t in s.tiers):
                    raise SettingError(_("{role} is a rating tier already: a role is one "
                                         "reward. Nothing was changed.",
                                         role=champion.mention))
                roles[game] = champion.id
            return s.replace(champion_roles=roles)

        await self._change(interaction, change, lambda s: "\n".join(filter(None, (
            rewards_text(s), _warning(interaction, s, champion)))))

    @app_commands.command(name="tier", description="A role for a rating, given and taken "
                                                   "after each rated game")
    @app_commands.describe(role="The role", rating="The least rating (as the leaderboard "
                                                   "shows it); leave it out: no such tier",
                           game="In one game, or in any game (default)")
    @app_commands.choices(game=[app_commands.Choice(name="Any game", value=EVERY_GAME),
                                *game_choices()])
    async def tier(self, interaction: discord.Interaction, role: discord.Role,
                   rating: app_commands.Range[float, -MAX_TIER_RATING, MAX_TIER_RATING]
                   | None = None, game: str = EVERY_GAME) -> None:
        if await self._refused(interaction):
            return
        if rating is not None and (why := _own_role(interaction, role)) is not None:
            await replies.reply(interaction, why)
            return

        def change(s: ServerSettings) -> ServerSettings:
            if rating is None:
                return s.replace(tiers=without_tier(s.tiers, role.id))
            if role.id in s.champion_roles.values():
                raise SettingError(_("{role} is a champion's role already: a role is one "
                                     "reward. Nothing was changed.", role=role.mention))
            tier = Tier(role.id, round(float(rating), 1),
                        None if game == EVERY_GAME else game)
            try:
                return s.replace(tiers=with_tier(s.tiers, tier))
            except SeasonError as error:
                raise SettingError(*error.args) from None

        await self._change(interaction, change, lambda s: "\n".join(filter(None, (
            rewards_text(s), _warning(interaction, s, role if rating is not None else None)))))
