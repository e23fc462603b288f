"""A server's settings applied to a new table (``/<game> start``, ``bot.actions.commands``).

Where games may be opened, how many tables may be open at once (``bot.table.limits``),
whether each one gets a thread of its own, and the
defaults under what the start command gives: the language (start option >
server setting > Discord's preferred locale), the turn timer, pictures and the
house rules. The settings are read once per start; storage trouble opens the
table with the bot's own defaults (``server_settings.read`` logs it).
"""

from __future__ import annotations

import logging
import re
from dataclasses import dataclass
from typing import Any, Final

import discord

from bot.config.server_settings import ServerSettings
from bot.table import when
from bot.table.limits import Full
from bot.table.state import Table
from bot.ui import markup
from engine.core import OptionError, Options
from locales import _, _n

log = logging.getLogger(__name__)

THREAD_NAME_LIMIT = 100  # Discord: a channel's name
THREAD_ARCHIVE_MINUTES: Final = 10080  # a week without messages (timers run up to 14 days)
LINKS_SHOWN = 5  # a host's open tables linked in the refusal of one more


def channel_refusal(settings: ServerSettings, interaction: discord.Interaction) -> str | None:
    """Why a game may not be opened in the interaction's channel (None: it may)."""
    channel = interaction.channel
    parent = channel.parent_id if isinstance(channel, discord.Thread) else None
    if settings.allows_channel(interaction.channel_id or 0, parent):
        return None
    where = ", ".join(f"<#{c}>" for c in settings.channels)
    return _("On this server, games are opened only in: {channels}. Nothing was opened "
             "here.", channels=where)


def cap_refusal(full: Full, hosted: list[Table]) -> str:
    """Why no more tables may be opened (the cap, and what to do); ``hosted``: the host's
    open tables on this server, linked when it is the host's cap."""
    if full.which == "server":
        return _n("This server already has {n} open table (lobbies included), the most it "
                  "allows at once. When it is finished or stopped (its host or a moderator "
                  "can stop it with the game's stop command), a new one can be opened. "
                  "Nothing was opened.",
                  "This server already has {n} open tables (lobbies included), the most it "
                  "allows at once. When one of them is finished or stopped (its host or a "
                  "moderator can stop it with the game's stop command), a new one can be "
                  "opened. Nothing was opened.", full.cap)
    refusal = _n("You already host {n} open table on this server (lobbies included), the "
                 "most one host may have here. Finish it, or stop it with its game's stop "
                 "command in its channel, then open a new one. Nothing was opened.",
                 "You already host {n} open tables on this server (lobbies included), the "
                 "most one host may have here. Finish one of them, or stop it with its "
                 "game's stop command in its channel, then open a new one. Nothing was "
                 "opened.", full.cap)
    links = [markup.jump_url(t.guild_id, t.channel_id, t.posts.message_id)
             for t in hosted[:LINKS_SHOWN]]
    return refusal + ("\n" + _("Your tables: {links}", links=" ".join(links)) if links else "")


def opens_thread(settings: ServerSettings, interaction: discord.Interaction) -> bool:
    """Whether the table goes into a new thread: the setting is on and the command came
    from a text channel (in a thread already, the table opens there)."""
    return settings.threads and isinstance(interaction.channel, discord.TextChannel)


def with_house_rules(settings: ServerSettings, game_id: str, options_class: type[Options],
                     given: dict[str, Any]) -> dict[str, Any]:
    """The start's options over the server's house rules for the game. House rules the
    game no longer takes (its options changed since they were set) are left out, logged."""
    rules = settings.rules_for(game_id)
    if rules:
        try:
            options_class.from_dict(rules)
        except OptionError as error:
            log.warning("the house rules %s of %s no longer fit: %s", rules, game_id, error)
            rules = {}
    return {**rules, **given}


def turn_timer(settings: ServerSettings, bot_default: float) -> float:
    """The turn timer of a table whose start gave none, in seconds (0: off)."""
    return float(settings.turn_timer if settings.turn_timer is not None else bot_default)


async def open_thread(interaction: discord.Interaction, title: str) -> discord.Thread | None:
    """A public thread for the game ("Jazz · Alice") in the interaction's text channel;
    None if Discord refused (logged)."""
    channel = interaction.channel
    if not isinstance(channel, discord.TextChannel):
        return None
    # A thread's name shows as it is (no markdown), but the bot writes it again (a hand's
    # link to the table): no bracket, line break or @everyone from a display name in it.
    person = markup.safe_name(interaction.user.display_name, markdown=False)
    name = markup.clip(f"{title} · {person}", THREAD_NAME_LIMIT)
    try:
        return await channel.create_thread(name=name, type=discord.ChannelType.public_thread,
                                           auto_archive_duration=THREAD_ARCHIVE_MINUTES)
    except discord.HTTPException as error:
        log.warning("cannot open a thread in channel %s: %s", channel.id, error)
        return None


# -- bringing people: a scheduled start, kept seats (``bot.features.gathering``) ------------

MENTION = re.compile(r"<@!?(\d{15,21})>")


@dataclass(frozen=True)
class Invitation:
    """What ``/<game> start`` says of who comes and when: ``at`` a time (typed), in
    ``timezone`` (typed; None: the server's), empty seats filled with AI players at the
    time (``fill``), seats kept for the members ``players`` mentions, only them
    (``invite_only``)."""

    at: str | None = None
    timezone: str | None = None
    fill: bool = False
    players: str | None = None
    invite_only: bool = False


def start_time(invitation: Invitation, settings: ServerSettings, now: float) -> float | None:
    """The scheduled start (None: now); ``WhenError`` for what cannot be read."""
    if invitation.at is None:
        if invitation.timezone is not None:
            when.parse_zone(invitation.timezone)  # (a bad one is still refused)
        return None
    zone = (when.parse_zone(invitation.timezone) if invitation.timezone is not None
            else settings.timezone or "UTC")
    return when.parse_start(invitation.at, zone, now)


def kept_for(invitation: Invitation, host_id: int) -> list[int]:
    """The members ``players:`` names (mentions), the host left out; ``ValueError`` (a
    sentence) if it names nobody."""
    if invitation.players is None:
        return []
    ids = [int(m) for m in MENTION.findall(invitation.players)]
    if not ids:
        raise ValueError(_("Name the players you keep seats for with mentions, for example "
                           "{example}.", example="`players: @Bob @Carol`"))
    return [u for u in dict.fromkeys(ids) if u != host_id]


@dataclass(frozen=True)
class Arrival:
    """An ``Invitation`` read: the start (None: now), the members seats are kept for."""

    starts_at: float | None
    kept: list[int]
    invitation: Invitation


def settle_in(table: Table, settings: ServerSettings, arrival: Arrival, now: float) -> None:
    """A new table's invitations and schedule, and the server's quiet hours and pause."""
    table.reserved = list(arrival.kept)
    table.invite_only = arrival.invitation.invite_only
    table.fill_ai = arrival.invitation.fill
    if arrival.starts_at is not None:
        table.schedule(arrival.starts_at, now)
    if settings.quiet_hours is not None:
        table.quiet_hours = list(settings.quiet_hours)
        table.quiet_zone = settings.timezone or "UTC"
    if settings.max_pause is not None:
        table.max_pause = float(settings.max_pause)
