"""``/tournament create|start|cancel|show`` and the tournament message's buttons.

Who may run tournaments: members with Manage Server (or Administrator), or with the role
the server names (``/settings tournaments``). Anyone may sign up or look. A tournament
belongs to the text channel it was created in (one at a time there): its message, its
tables' threads and its posts are there, and its commands are typed there (or in one of
its threads).
"""

from __future__ import annotations

import logging
from dataclasses import dataclass

import discord

from bot.actions import table_setup
from bot.config import server_settings
from bot.config.server_settings import ServerSettings, SettingError
from bot.features.tournaments import Tournaments
from bot.storage import ChannelBusy
from bot.table import tournament_rounds as rounds
from bot.table import when
from bot.table.durations import DAY, DurationError, parse_duration
from bot.table.state import new_table_id
from bot.table.tournament import KNOCKOUT, MAX_PLAYERS, RUNNING, SIGNUP, SWISS, Tournament
from bot.ui import markup, replies
from bot.ui.languages import table_language
from bot.ui.permissions import missing_permissions
from engine.core import OptionError
from locales import _, _n

log = logging.getLogger(__name__)

DEFAULT_GRACE = 600  # seconds to join one's table


@dataclass(frozen=True)
class Plan:
    """What ``/tournament create`` was given (times and options as typed)."""

    game: str
    format: str = SWISS
    rounds: int = 3
    seats: int | None = None
    duplicate: bool = False
    start: str | None = None
    signup_until: str | None = None
    round_time: str | None = None
    grace: str | None = None
    options: str | None = None
    name: str | None = None


def may_organise(interaction: discord.Interaction, settings: ServerSettings) -> bool:
    """Manage Server (or Administrator), or the server's tournament role."""
    perms = interaction.permissions
    if interaction.guild_id is None:
        return False
    if perms.manage_guild or perms.administrator:
        return True
    roles = getattr(interaction.user, "roles", [])
    return settings.tournament_role is not None and any(
        role.id == settings.tournament_role for role in roles)


def _not_organiser(settings: ServerSettings) -> str:
    if settings.tournament_role is not None:
        role = markup.role_mention(settings.tournament_role)
        return _("Only members with the Manage Server permission or the role {role} can run "
                 "tournaments here. Nothing was changed.", role=role)
    return _("Only members with the Manage Server permission can run tournaments here. "
             "Nothing was changed.")


def _duration(typed: str | None, default: int, shortest: int, allow_off: bool) -> int:
    """Seconds of a typed duration (``SettingError``, with a sentence, if it is not one)."""
    if typed is None:
        return default
    try:
        seconds = parse_duration(typed, shortest=shortest, longest=14 * DAY)
    except DurationError:
        seconds = -1
    if seconds < 0 or (seconds == 0 and not allow_off):
        raise SettingError(_("I cannot read {value} as a time for this: write a number of "
                             "minutes, hours or days such as {examples}.",
                             value=markup.safe_name(typed.strip()),
                             examples="`10m`, `90m`, `2h`"))
    return seconds


class TournamentDesk:
    """The commands and clicks of tournaments, answered; the work is ``Tournaments``'."""

    def __init__(self, tournaments: Tournaments):
        self.service = tournaments

    @property
    def store(self) -> server_settings.SettingsStore:
        return self.service.store

    def _here(self, interaction: discord.Interaction) -> Tournament | None:
        channel = interaction.channel
        parent = channel.parent_id if isinstance(channel, discord.Thread) else None
        return self.service.in_channel(interaction.channel_id or 0, parent)

    async def _organiser(self, interaction: discord.Interaction) -> bool:
        """True if the user may run tournaments here; else answered and False."""
        settings = await server_settings.read(self.store, interaction.guild_id)
        if may_organise(interaction, settings):
            return True
        await replies.reply(interaction, _not_organiser(settings))
        return False

    # -- /tournament create ----------------------------------------------------------

    async def create(self, interaction: discord.Interaction, plan: Plan) -> None:
        settings = await server_settings.read(self.store, interaction.guild_id)
        if not may_organise(interaction, settings):
            await replies.reply(interaction, _not_organiser(settings))
            return
        try:
            t = self._tournament(interaction, plan, settings)
        except (SettingError, OptionError, when.WhenError) as error:
            await replies.reply(interaction, markup.say_safe(error, typed=("value",)))
            return
        try:
            await self.service.add(t)
        except ChannelBusy:
            await replies.reply(interaction, _("This channel already has a tournament. "
                                               "Nothing was created."))
            return
        async with self.service.lock(t.tournament_id):
            message = await self.service.poster.send(t.channel_id, t.guild_id,
                                                     **await self.service.message(t))
            if message is not None:
                t.message_id = message.id
                await self.service.save(t)
            else:  # nobody could sign up: it must not keep the channel busy
                rounds.cancel(t, "its message could not be posted")  # not for players
                await self.service.save(t)
        if message is None:
            await replies.reply(interaction, _("I could not post the tournament here. Check "
                                               "my permissions."))
            return
        await replies.reply(interaction, _("Your tournament is open for sign-up: {link}",
                                           link=message.jump_url))

    def _tournament(self, interaction: discord.Interaction, plan: Plan,
                    settings: ServerSettings) -> Tournament:
        """The tournament ``plan`` describes; ``SettingError`` (or the option's, the
        time's) with a sentence for whoever typed it."""
        channel = interaction.channel
        if not isinstance(channel, discord.TextChannel):
            raise SettingError(_("Create a tournament in a text channel: each of its tables "
                                 "gets a thread of its own there."))
        refusal = table_setup.channel_refusal(settings, interaction)
        if refusal is not None:
            raise SettingError(refusal)
        missing = missing_permissions(interaction, threaded=True)
        if missing:
            raise SettingError(_n(
                "I cannot run a tournament here: I am missing the permission {permissions}.",
                "I cannot run a tournament here: I am missing the permissions {permissions}.",
                len(missing), permissions=", ".join(missing)))
        if self._here(interaction) is not None:
            raise SettingError(_("This channel already has a tournament. Nothing was "
                                 "created."))
        ui = self.service.uis.get(plan.game)
        if ui is None:
            raise SettingError(_("That game is not played here."))
        engine = ui.ENGINE
        if plan.format == KNOCKOUT and engine.MAX_PLAYERS != 2:
            raise SettingError(_("A knockout is for the two-player games: play {game} as a "
                                 "Swiss tournament.", game=ui.title))
        if plan.duplicate and plan.format == KNOCKOUT:
            raise SettingError(_("Duplicate deals compare players across the tables of a "
                                 "round: they are for Swiss tournaments."))
        typed = server_settings.parse_options(plan.options or "",
                                              server_settings.option_kinds(engine.OPTIONS))
        options = engine.OPTIONS.from_dict(typed)
        stake = options.to_dict().get("stake", 0)
        if isinstance(stake, int) and stake > 0:
            raise SettingError(_("Tournament games are played without a stake."))
        low, high = engine.player_range(options)
        seats = 2 if plan.format == KNOCKOUT else plan.seats or min(max(low, 4), high)
        if not low <= seats <= high:
            raise SettingError(_("{game} seats {low} to {high} players a table.",
                                 game=ui.title, low=low, high=high))
        now = self.service.clock.now()
        zone = settings.timezone or "UTC"
        starts_at = when.parse_start(plan.start, zone, now) if plan.start else None
        until = when.parse_start(plan.signup_until, zone, now) if plan.signup_until else None
        if starts_at is not None and until is not None and until > starts_at:
            raise SettingError(_("Sign-up must close by the start."))
        return Tournament(
            tournament_id=new_table_id(), guild_id=interaction.guild_id or 0,
            channel_id=channel.id, game_id=plan.game, organiser=interaction.user.id,
            created_at=now, name=(plan.name or "").strip()[:80], format=plan.format,
            duplicate=plan.duplicate,
            options={k: v for k, v in options.to_dict().items() if k in typed},
            seats=seats, rounds=plan.rounds, low=low, high=high, starts_at=starts_at,
            signup_until=until, round_time=_duration(plan.round_time, 0, 60, allow_off=True),
            grace=_duration(plan.grace, DEFAULT_GRACE, 60, allow_off=False),
            language=table_language(interaction, settings.language))

    # -- /tournament start, cancel, show ------------------------------------------------

    async def _organised_here(self, interaction: discord.Interaction) -> Tournament | None:
        """This channel's tournament, for an organiser (None: refused, and answered)."""
        if not await self._organiser(interaction):
            return None
        t = self._here(interaction)
        if t is None:
            await replies.reply(interaction, _("There is no tournament in this channel."))
        return t

    async def start(self, interaction: discord.Interaction) -> None:
        t = await self._organised_here(interaction)
        if t is None:
            return
        async with self.service.lock(t.tournament_id):
            t = self.service.get(t.tournament_id)
            if t is None or t.status != SIGNUP:
                await replies.reply(interaction, _("This tournament has already started."))
                return
            t.starts_at = self.service.clock.now()
            await self.service.save(t)
        await replies.reply(interaction, _("The tournament starts now: the tables of round 1 "
                                           "are opening in their threads."))
        self.service.poke(t.tournament_id)

    async def cancel(self, interaction: discord.Interaction) -> None:
        t = await self._organised_here(interaction)
        if t is None:
            return
        async with self.service.lock(t.tournament_id):
            current = self.service.get(t.tournament_id)
            if current is not None:
                await self.service.cancel(current)
        await replies.reply(interaction, _("The tournament is cancelled."))

    async def show(self, interaction: discord.Interaction) -> None:
        t = self._here(interaction)
        if t is None:
            await replies.reply(interaction, _("There is no tournament in this channel."))
            return
        parts = await self.service.message(t)
        link = markup.jump_url(t.guild_id, t.channel_id, t.message_id)
        embed = parts["embed"]
        assert isinstance(embed, discord.Embed)
        await replies.reply(interaction, link, embed=embed)

    # -- the message's buttons ----------------------------------------------------------

    async def _sign(self, interaction: discord.Interaction, t: Tournament, join: bool
                    ) -> None:
        """Sign up or withdraw while ``t`` signs up (the caller holds its lock)."""
        user, store, tournament_id = interaction.user, self.service.store, t.tournament_id
        if join:
            if not rounds.signup_open(t, self.service.clock.now()):
                await replies.reply(interaction, _("Sign-up for this tournament is closed."))
                return
            if len(await store.signups(tournament_id)) >= MAX_PLAYERS:
                await replies.reply(interaction, _("This tournament is full."))
                return
            if not await store.sign_up(tournament_id, user.id, user.display_name):
                await replies.reply(interaction, _("You are already signed up."))
                return
        elif not await store.withdraw(tournament_id, user.id):
            await replies.reply(interaction, _("You are not signed up."))
            return
        await replies.update(interaction, **await self.service.message(t))

    async def click(self, interaction: discord.Interaction, tournament_id: str,
                    join: bool) -> None:
        t = self.service.get(tournament_id)
        if t is None:
            await replies.reply(interaction, _("This tournament is over. Nothing was changed."))
            return
        user = interaction.user
        if t.status == SIGNUP:
            # Under the tournament's lock, as its start: a sign-up is in before the start
            # reads them, or sees the tournament started.
            async with self.service.lock(tournament_id):
                t = self.service.get(tournament_id) or t
                if t.status == SIGNUP:
                    await self._sign(interaction, t, join)
                    return
        if join:
            await replies.reply(interaction, _("Sign-up for this tournament is closed."))
            return
        async with self.service.lock(tournament_id):
            current = self.service.get(tournament_id)
            if current is None or current.status != RUNNING \
                    or not rounds.withdraw(current, user.id):
                await replies.reply(interaction, _("You are not playing in this tournament."))
                return
            await self.service.save(current)
        await replies.reply(interaction, _("You withdrew from the tournament: you will not be "
                                           "paired again, and your games so far stand."))
        self.service.poke(tournament_id)
