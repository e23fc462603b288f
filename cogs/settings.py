"""``/settings``: what a server's managers choose for its new tables.

Discord shows the group only to members with Manage Server (its default
permission; a server may grant it to others in Integrations), and each command
checks it again: whoever lacks Manage Server or Administrator is refused
politely, whatever Discord let through. Every answer is private. The settings
are kept per server in storage (``bot.config.server_settings``) and read by each
``/<game> start`` (``bot.actions.table_setup``); tables already open keep theirs.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable

import discord
from discord import app_commands
from discord.ext import commands

import locales
from bot.app.client import CardTableBot
from bot.config import server_settings
from bot.config.server_settings import MAX_TABLES, ServerSettings, SettingError
from bot.config.settings import Limits
from bot.storage import Store
from bot.table import when
from bot.table.durations import (
    LONGEST,
    OFF_WORDS,
    SHORTEST,
    DurationError,
    describe_duration,
    parse_duration,
)
from bot.table.pause_state import DEFAULT_MAX_PAUSE
from bot.table.quiet import shown as hours_shown
from bot.ui import markup, replies
from cogs.board_texts import game_choices, game_title
from cogs.competition_settings import (  # /settings season, channel, rewards, tier
    CompetitionSettings,
    channel_text,
    rewards_text,
    season_text,
)
from cogs.tournament import tournament_role_text
from engine.core import OptionError
from engine.registry import game_class
from engine.text import TN, T, Text
from locales import _, say

log = logging.getLogger(__name__)

NOT_A_MANAGER = T("Only members with the Manage Server or Administrator permission can use "
                  "/settings. Nothing was changed.")
NOT_SAVED = T("I could not save the settings just now. Please try again; nothing was "
              "changed.")
NOT_READ = T("I could not read this server's settings just now. Please try again.")
DEFAULT = "default"
LANGUAGE_CHOICES = [app_commands.Choice(name="Server default (its Discord language)",
                                        value=DEFAULT),
                    *(app_commands.Choice(name=locales.NAMES[code], value=code)
                      for code in locales.LANGUAGES)]
CHANNEL_ACTIONS = [app_commands.Choice(name="Allow games in a channel", value="add"),
                   app_commands.Choice(name="No longer allow games in a channel",
                                       value="remove"),
                   app_commands.Choice(name="Allow games in every channel", value="clear")]


def may_manage(interaction: discord.Interaction) -> bool:
    perms = interaction.permissions
    return interaction.guild_id is not None and (perms.manage_guild or perms.administrator)


# -- each setting in words (the current language) -------------------------------------


def language_text(settings: ServerSettings, interaction: discord.Interaction) -> str:
    if settings.language is not None:
        return _("New tables speak {language}.", language=locales.NAMES[settings.language])
    spoken = locales.language_of(interaction.guild_locale)
    return _("New tables speak the server's Discord language ({language}).",
             language=locales.NAMES[spoken])


def timer_text(settings: ServerSettings, bot_default: float) -> str:
    if settings.turn_timer is None:
        return _("New tables use the bot's turn timer: {time} for a move.",
                 time=describe_duration(bot_default))
    if settings.turn_timer == 0:
        return _("New tables have no turn timer: players take all the time they want.")
    return _("New tables give each player {time} for a move before the bot plays for them.",
             time=describe_duration(settings.turn_timer))


def ai_text(settings: ServerSettings) -> str:
    return (_("The host may seat AI players.") if settings.ai_allowed
            else _("AI players are not allowed: the lobby offers no Add AI buttons."))


def images_text(settings: ServerSettings) -> str:
    return (_("Tables show pictures beside the text.") if settings.images
            else _("Tables show no pictures (the start command can still turn them on)."))


def hints_text(settings: ServerSettings) -> str:
    return (_("Hints are allowed in rated games.") if settings.hints_allowed
            else _("Hints are not allowed in rated games."))


def channels_text(settings: ServerSettings) -> str:
    if not settings.channels:
        return _("Games can be opened in any channel.")
    where = ", ".join(f"<#{c}>" for c in settings.channels)
    return _("Games can be opened only in: {channels} (and their threads).", channels=where)


def threads_text(settings: ServerSettings) -> str:
    return (_("Each new game opens in a thread of its own.") if settings.threads
            else _("Games open in the channel where they are started."))


def timezone_text(settings: ServerSettings) -> str:
    return _("Times typed on this server (a scheduled start, the quiet hours) are in "
             "{zone}.", zone=settings.timezone or "UTC")


def role_text(settings: ServerSettings) -> str:
    if settings.call_role is None:
        return _("No role is called when a table needs players.")
    # (a role mention in an embed or an ephemeral answer pings nobody)
    role = markup.role_mention(settings.call_role)
    return _("{role} is called once when a lobby opens or a scheduled table is near, "
             "with how many players it still needs.", role=role)


def rules_text(settings: ServerSettings, game: str) -> str:
    options = settings.rules_for(game)
    if not options:
        return _("{game} has no house rules: new tables use its own defaults.",
                 game=game_title(game))
    shown = f"`{server_settings.options_text(options)}`"
    return _("House rules of {game}: {options}.", game=game_title(game), options=shown)


def all_rules_text(settings: ServerSettings) -> str:
    if not settings.house_rules:
        return _("None: every game uses its own defaults.")
    return "\n".join(rules_text(settings, game) for game in settings.house_rules)


def tables_text(settings: ServerSettings, limits: Limits) -> str:
    caps = settings.caps(limits.tables_per_host, limits.tables_per_server)
    return _("Open tables at once, lobbies included: at most {server} on this server, and "
             "{host} per host.", server=caps.per_server, host=caps.per_host)


def quiet_text(settings: ServerSettings) -> str:
    if settings.quiet_hours is None:
        return _("No quiet hours: the turn timers of slow games run day and night.")
    return _("Quiet hours: {hours} ({zone}): the turn timers of slow games (an hour or more "
             "for a move) stand still and no reminders go out.",
             hours=hours_shown(*settings.quiet_hours), zone=settings.timezone or "UTC")


def pause_text(settings: ServerSettings) -> str:
    if settings.max_pause is None:
        return _("The players of a game can pause it by vote for at most {time} (the bot's "
                 "default); then it resumes by itself.",
                 time=describe_duration(DEFAULT_MAX_PAUSE))
    return _("The players of a game can pause it by vote for at most {time}; then it "
             "resumes by itself.", time=describe_duration(settings.max_pause))


def max_pause_of(typed: str) -> int | None:
    """The longest pause typed (seconds; None: the bot's default), or ``SettingError``."""
    if typed.strip().lower() == DEFAULT:
        return None
    wrong = SettingError(T("I cannot read {value} as the longest pause. Write a time from "
                           "{shortest} to {longest}, such as {examples}, or {default} for the "
                           "bot's own.", value=typed.strip(),
                           shortest=TN("{n} minute", "{n} minutes", SHORTEST // 60),
                           longest=TN("{n} day", "{n} days", LONGEST // 86400),
                           examples="`30m`, `12h`, `2d`", default=f"`{DEFAULT}`"))
    if typed.strip().lower() in OFF_WORDS:
        raise wrong
    try:
        seconds = parse_duration(typed)
    except DurationError:
        raise wrong from None
    return seconds


def refusal(error: Exception) -> str:
    """A refusal of what the manager typed, with what they typed escaped (said to them
    alone, but a name or a time may still hold markdown or a mention)."""
    text = error.args[0] if error.args and isinstance(error.args[0], Text) else None
    if text is not None and isinstance(text.params.get("value"), str):
        error = type(error)(text.filled(value=markup.safe_name(text.params["value"])))
    return markup.say_safe(error)  # (and the names in it: an option's)


def settings_embed(settings: ServerSettings, interaction: discord.Interaction,
                   bot_default: float, limits: Limits | None = None) -> discord.Embed:
    name = markup.safe_name(interaction.guild.name) if interaction.guild is not None else ""
    embed = discord.Embed(title=_("Settings for new tables on {server}", server=name),
                          colour=markup.COLOUR)
    for label, value in (
            (_("Language"), language_text(settings, interaction)),
            (_("Turn timer"), timer_text(settings, bot_default)),
            (_("AI players"), ai_text(settings)),
            (_("Pictures"), images_text(settings)),
            (_("Hints"), hints_text(settings)),
            (_("Channels"), channels_text(settings)),
            (_("Threads"), threads_text(settings)),
            (_("Time zone"), timezone_text(settings)),
            (_("Call for players"), role_text(settings)),
            (_("House rules"), all_rules_text(settings)),
            (_("Open tables"), tables_text(settings, limits or Limits())),
            (_("Quiet hours"), quiet_text(settings)),
            (_("Pause"), pause_text(settings)),
            (_("Tournaments"), tournament_role_text(settings)),
            (_("Seasons"), season_text(settings)),
            (_("Season channel"), channel_text(settings)),
            (_("Role rewards"), rewards_text(settings))):
        embed.add_field(name=label, value=markup.clip(value, 1024), inline=False)
    embed.set_footer(text=_("Change them with /settings. Tables already open keep their "
                            "own."))
    return markup.fit_embed(embed)


# -- the commands -------------------------------------------------------------------


@app_commands.guild_only()
@app_commands.default_permissions(manage_guild=True)
class Settings(CompetitionSettings, commands.GroupCog, group_name="settings",
               group_description="This server's settings for new tables (Manage Server)"):
    def __init__(self, bot: CardTableBot):
        self.bot = bot
        self._locks: dict[int, asyncio.Lock] = {}

    @property
    def store(self) -> Store:
        return self.bot.store

    async def _refused(self, interaction: discord.Interaction) -> bool:
        """True (and answered) unless the user may manage this server."""
        if may_manage(interaction):
            return False
        await replies.reply(interaction, say(NOT_A_MANAGER))
        return True

    async def _change(self, interaction: discord.Interaction,
                      change: Callable[[ServerSettings], ServerSettings],
                      said: Callable[[ServerSettings], str]) -> None:
        """Read, change and save the server's settings (one change at a time per server),
        then say the setting as it is now."""
        guild = interaction.guild_id
        assert guild is not None  # may_manage checked it
        async with self._locks.setdefault(guild, asyncio.Lock()):
            try:
                current = ServerSettings.from_data(await self.store.server_settings(guild))
            except Exception:
                log.exception("cannot read the settings of guild %s", guild)
                await replies.reply(interaction, say(NOT_READ))
                return
            try:
                changed = change(current)
            except SettingError as error:
                await replies.reply(interaction, refusal(error))
                return
            try:
                await self.store.save_server_settings(guild, changed.to_data())
            except Exception:
                log.exception("cannot save the settings of guild %s", guild)
                await replies.reply(interaction, say(NOT_SAVED))
                return
        await replies.reply(interaction, f"✅ {said(changed)}")

    @app_commands.command(name="show", description="Every setting of this server")
    async def show(self, interaction: discord.Interaction) -> None:
        if await self._refused(interaction):
            return
        assert interaction.guild_id is not None
        try:
            data = await self.store.server_settings(interaction.guild_id)
        except Exception:
            log.exception("cannot read the settings of guild %s", interaction.guild_id)
            await replies.reply(interaction, say(NOT_READ))
            return
        embed = settings_embed(ServerSettings.from_data(data), interaction,
                               self.bot.timing.turn_timer, self.bot.settings.limits)
        await replies.reply(interaction, embed=embed)

    @app_commands.command(name="language", description="The language new tables speak")
    @app_commands.describe(language="A language, or the server's own Discord language")
    @app_commands.choices(language=LANGUAGE_CHOICES)
    async def language(self, interaction: discord.Interaction, language: str) -> None:
        if await self._refused(interaction):
            return
        chosen = language if language in locales.LANGUAGES else None
        await self._change(interaction, lambda s: s.replace(language=chosen),
                           lambda s: language_text(s, interaction))

    @app_commands.command(name="timer", description="The turn timer of new tables")
    @app_commands.describe(time="off, or a time such as 10m, 2h or 1d (a bare number is "
                                "minutes); default: the bot's own")
    async def timer(self, interaction: discord.Interaction, time: str) -> None:
        if await self._refused(interaction):
            return
        try:
            seconds = None if time.strip().lower() == DEFAULT else parse_duration(time)
        except DurationError as error:
            await replies.reply(interaction, refusal(error))
            return
        default = self.bot.timing.turn_timer
        await self._change(interaction, lambda s: s.replace(turn_timer=seconds),
                           lambda s: timer_text(s, default))

    @app_commands.command(name="ai", description="Whether hosts may seat AI players")
    @app_commands.describe(allowed="Whether the lobby offers Add AI")
    async def ai(self, interaction: discord.Interaction, allowed: bool) -> None:
        if await self._refused(interaction):
            return
        await self._change(interaction, lambda s: s.replace(ai_allowed=allowed), ai_text)

    @app_commands.command(name="images", description="Pictures of the table and the hands")
    @app_commands.describe(enabled="Whether tables show pictures beside the text")
    async def images(self, interaction: discord.Interaction, enabled: bool) -> None:
        if await self._refused(interaction):
            return
        await self._change(interaction, lambda s: s.replace(images=enabled), images_text)

    @app_commands.command(name="hints", description="Whether hints are allowed in rated games")
    @app_commands.describe(allowed="Whether players may ask for hints in rated games")
    async def hints(self, interaction: discord.Interaction, allowed: bool) -> None:
        if await self._refused(interaction):
            return
        await self._change(interaction, lambda s: s.replace(hints_allowed=allowed), hints_text)

    @app_commands.command(name="channels", description="The channels where games may be opened")
    @app_commands.describe(action="Allow a channel, stop allowing it, or allow every channel",
                           channel="The channel (default: this one)")
    @app_commands.choices(action=CHANNEL_ACTIONS)
    async def channels(self, interaction: discord.Interaction, action: str,
                       channel: discord.TextChannel | None = None) -> None:
        if await self._refused(interaction):
            return
        if action == "clear":
            await self._change(interaction, lambda s: s.replace(channels=()), channels_text)
            return
        target = channel or interaction.channel
        if not isinstance(target, discord.TextChannel):
            await replies.reply(interaction, _("Name a text channel: games open in text "
                                               "channels and their threads."))
            return
        chosen = target.id
        await self._change(interaction,
                           (lambda s: s.with_channel(chosen)) if action == "add"
                           else (lambda s: s.without_channel(chosen)), channels_text)

    @app_commands.command(name="threads", description="Whether each game opens in its own "
                                                      "thread")
    @app_commands.describe(enabled="Whether /<game> start opens a thread for each game")
    async def threads(self, interaction: discord.Interaction, enabled: bool) -> None:
        if await self._refused(interaction):
            return
        await self._change(interaction, lambda s: s.replace(threads=enabled), threads_text)

    @app_commands.command(name="timezone", description="The time zone of times typed here")
    @app_commands.describe(zone="A time zone such as Europe/Stockholm, or UTC")
    async def timezone(self, interaction: discord.Interaction, zone: str) -> None:
        if await self._refused(interaction):
            return
        try:
            chosen = when.parse_zone(zone)
        except when.WhenError as error:
            await replies.reply(interaction, refusal(error))
            return
        await self._change(interaction, lambda s: s.replace(timezone=chosen), timezone_text)

    @app_commands.command(name="role", description="A role called when a table needs players")
    @app_commands.describe(role="The role to ping (leave it out: call nobody)")
    async def role(self, interaction: discord.Interaction,
                   role: discord.Role | None = None) -> None:
        if await self._refused(interaction):
            return
        if role is not None and role.is_default():
            await replies.reply(interaction, _("Choose a role of its own: I never ping "
                                               "everyone. Nothing was changed."))
            return
        chosen = role.id if role is not None else None
        await self._change(interaction, lambda s: s.replace(call_role=chosen), role_text)

    @app_commands.command(name="rules", description="House rules: a game's default options")
    @app_commands.describe(game="The game", options="Options as name=value, e.g. "
                                                    "sevens_bonus=20 norwegian=true; "
                                                    "none: no house rules")
    @app_commands.choices(game=game_choices())
    async def rules(self, interaction: discord.Interaction, game: str,
                    options: str | None = None) -> None:
        if await self._refused(interaction):
            return
        options_class = game_class(game).OPTIONS
        try:
            parsed = server_settings.parse_options(options or "",
                                                   server_settings.option_kinds(options_class))
            options_class.from_dict(parsed)  # exactly as a table's options are checked
        except (SettingError, OptionError) as error:
            await replies.reply(interaction, refusal(error))
            return
        await self._change(interaction, lambda s: s.with_rules(game, parsed),
                           lambda s: rules_text(s, game))

    @app_commands.command(name="quiet", description="Quiet hours: slow games' turn timers "
                                                    "stand still")
    @app_commands.describe(hours="When they start and end, such as 23:00-08:00 (the "
                                 "server's time zone); off: none")
    async def quiet(self, interaction: discord.Interaction, hours: str) -> None:
        if await self._refused(interaction):
            return
        try:
            chosen = (None if hours.strip().lower() in OFF_WORDS
                      else when.parse_quiet(hours))
        except when.WhenError as error:
            await replies.reply(interaction, refusal(error))
            return
        await self._change(interaction, lambda s: s.replace(quiet_hours=chosen), quiet_text)

    @app_commands.command(name="pause", description="The longest a game may stay paused")
    @app_commands.describe(longest="Such as 30m, 12h or 2d; default: the bot's own (1 day)")
    @app_commands.rename(longest="max")
    async def pause(self, interaction: discord.Interaction, longest: str) -> None:
        if await self._refused(interaction):
            return
        try:
            seconds = max_pause_of(longest)
        except SettingError as error:
            await replies.reply(interaction, refusal(error))
            return
        await self._change(interaction, lambda s: s.replace(max_pause=seconds), pause_text)

    @app_commands.command(name="tournaments", description="A role that may run tournaments "
                                                          "besides Manage Server")
    @app_commands.describe(role="The role (leave it out: Manage Server only)")
    async def tournaments(self, interaction: discord.Interaction,
                          role: discord.Role | None = None) -> None:
        if await self._refused(interaction):
            return
        chosen = role.id if role is not None else None
        await self._change(interaction, lambda s: s.replace(tournament_role=chosen),
                           tournament_role_text)

    @app_commands.command(name="tables", description="How many tables may be open at once")
    @app_commands.describe(per_host="Open tables (lobbies included) one host may have; 0: "
                                    "the bot's default",
                           per_server="Open tables (lobbies included) on this server; 0: "
                                      "the bot's default")
    async def tables(self, interaction: discord.Interaction,
                     per_host: app_commands.Range[int, 0, MAX_TABLES] | None = None,
                     per_server: app_commands.Range[int, 0, MAX_TABLES] | None = None) -> None:
        if await self._refused(interaction):
            return
        limits = self.bot.settings.limits

        def change(s: ServerSettings) -> ServerSettings:
            changed = s
            if per_server is not None:
                if per_server > limits.tables_per_server:
                    raise SettingError(TN(
                        "This bot allows at most {n} open table per server. Nothing was "
                        "changed.", "This bot allows at most {n} open tables per server. "
                        "Nothing was changed.", limits.tables_per_server))
                changed = changed.replace(tables_per_server=per_server or None)
            if per_host is not None:
                server = changed.caps(limits.tables_per_host,
                                      limits.tables_per_server).per_server
                if per_host > server:
                    raise SettingError(TN(
                        "A host cannot have more open tables than the server allows: at "
                        "most {n}. Nothing was changed.", "A host cannot have more open "
                        "tables than the server allows: at most {n}. Nothing was changed.",
                        server))
                changed = changed.replace(tables_per_host=per_host or None)
            return changed

        await self._change(interaction, change, lambda s: tables_text(s, limits))


async def setup(bot: CardTableBot) -> None:
    await bot.add_cog(Settings(bot))
