"""A server's settings for its new tables (``/settings``): the model, its plain data, parsing.

``ServerSettings`` is what a server's managers chose; its defaults are the bot's
behaviour without settings, so a server that never used ``/settings`` plays as
before. It is kept in storage as plain JSON (``to_data``/``from_data``; a value
that no longer makes sense reads back as its default). No Discord and no game
engine here: the house rules are kept as the plain option values typed, and the
cog checks them with the game's own ``OPTIONS.from_dict``.

Durations are seconds (``0``: no turn timer; typed and said by ``bot.table.durations``); the
parse helpers raise ``SettingError`` with one sentence for the person who typed the value.
"""

from __future__ import annotations

import dataclasses
import logging
import re
import zoneinfo
from dataclasses import dataclass, field
from typing import Any, Protocol

import locales
from bot.config.competition import MAX_SEASON_DAYS, Schedule, Tier, ordered, schedule_of, tier_of
from bot.table.durations import LONGEST, SHORTEST
from bot.table.limits import Caps
from engine.text import T

log = logging.getLogger(__name__)

DATA_VERSION = 1
MAX_CHANNELS = 25  # channels where games may be opened (a settings page shows them all)
MAX_TABLES = 100_000  # a cap a server may store (the bot's own ceiling applies on top)
_TRUE, _FALSE = ("true", "on", "yes", "1"), ("false", "off", "no", "0")


class SettingError(Exception):
    """A value that cannot be a setting; raised with a ``Text`` for the person who typed it
    (``locales.say(error)``)."""


@dataclass(frozen=True)
class ServerSettings:
    """What one server chose for its new tables; the defaults are the bot's own behaviour."""

    language: str | None = None  # None: the server's Discord preferred locale
    turn_timer: int | None = None  # seconds, 0 = off; None: the bot's default timer
    ai_allowed: bool = True  # the lobby offers Add AI
    images: bool = True  # pictures beside the text (each /start may still turn them off)
    hints_allowed: bool = False  # hints in rated games too (unrated games always have them)
    channels: tuple[int, ...] = ()  # where games may be opened; () = anywhere
    threads: bool = False  # each game in a thread of its own
    house_rules: dict[str, dict[str, Any]] = field(default_factory=dict)  # game → options
    # Open tables (lobbies included) at once: of one host, and of the whole server; None:
    # the bot's (bot.config.settings.Limits), whose server cap is also the ceiling.
    tables_per_host: int | None = None
    tables_per_server: int | None = None
    # Bringing people to the table: the server's time zone (an IANA name; None: UTC) for
    # scheduled starts and quiet hours, the role called when a lobby opens, the quiet hours
    # (minutes after midnight: start, end; None: none) during which slow turn timers stand
    # still and no reminders go out, and the longest a table may stay paused (seconds).
    timezone: str | None = None
    call_role: int | None = None
    quiet_hours: tuple[int, int] | None = None
    max_pause: int | None = None
    # Seasons and role rewards (bot.config.competition, docs/competition.md): the first
    # day of season 1 (ISO date) and each season's days (both None: no seasons), the
    # channel of season posts and role changes, each game's champion role, the tiers;
    # ``season_first``: the number of the schedule's first season (numbers go on across
    # schedules: competition.next_first).
    season_start: str | None = None
    season_days: int | None = None
    season_first: int = 1
    season_channel: int | None = None
    champion_roles: dict[str, int] = field(default_factory=dict)
    tiers: tuple[Tier, ...] = ()
    # Who may run tournaments besides Manage Server (bot.features.tournaments): a role.
    tournament_role: int | None = None

    def to_data(self) -> dict[str, Any]:
        return {"version": DATA_VERSION, "language": self.language,
                "turn_timer": self.turn_timer, "ai_allowed": self.ai_allowed,
                "images": self.images, "hints_allowed": self.hints_allowed,
                "channels": list(self.channels), "threads": self.threads,
                "house_rules": {game: dict(options)
                                for game, options in self.house_rules.items()},
                "tables_per_host": self.tables_per_host,
                "tables_per_server": self.tables_per_server,
                "timezone": self.timezone, "call_role": self.call_role,
                "quiet_hours": list(self.quiet_hours) if self.quiet_hours else None,
                "max_pause": self.max_pause, "season_start": self.season_start,
                "season_days": self.season_days, "season_first": self.season_first,
                "season_channel": self.season_channel,
                "champion_roles": dict(self.champion_roles),
                "tiers": [t.to_data() for t in self.tiers],
                "tournament_role": self.tournament_role}

    @classmethod
    def from_data(cls, data: dict[str, Any] | None) -> ServerSettings:
        """The settings ``to_data`` wrote; a missing or unreadable value is its default."""
        if not isinstance(data, dict):
            return cls()
        defaults = cls()
        values: dict[str, Any] = {}
        language = data.get("language")
        values["language"] = language if language in locales.LANGUAGES else None
        timer = data.get("turn_timer")
        values["turn_timer"] = (timer if isinstance(timer, int) and not isinstance(timer, bool)
                                and (timer == 0 or SHORTEST <= timer <= LONGEST)
                                else None)
        for name in ("ai_allowed", "images", "hints_allowed", "threads"):
            value = data.get(name)
            values[name] = value if isinstance(value, bool) else getattr(defaults, name)
        channels = data.get("channels")
        values["channels"] = tuple(dict.fromkeys(
            c for c in channels if isinstance(c, int) and not isinstance(c, bool)
        ))[:MAX_CHANNELS] if isinstance(channels, list) else ()
        rules = data.get("house_rules")
        values["house_rules"] = {
            game: dict(options) for game, options in rules.items()
            if isinstance(game, str) and isinstance(options, dict) and options
            and all(isinstance(k, str) for k in options)} if isinstance(rules, dict) else {}
        for name in ("tables_per_host", "tables_per_server"):
            values[name] = data.get(name) if _is_cap(data.get(name)) else None
        zone = data.get("timezone")
        values["timezone"] = zone if isinstance(zone, str) and is_zone(zone) else None
        role = data.get("call_role")
        values["call_role"] = role if _is_id(role) else None
        quiet = data.get("quiet_hours")
        values["quiet_hours"] = (tuple(quiet) if isinstance(quiet, list) and len(quiet) == 2
                                 and all(_is_minute(m) for m in quiet) and quiet[0] != quiet[1]
                                 else None)
        pause = data.get("max_pause")
        values["max_pause"] = (pause if isinstance(pause, int) and not isinstance(pause, bool)
                               and SHORTEST <= pause <= LONGEST else None)
        values.update(_competition(data))
        role = data.get("tournament_role")
        values["tournament_role"] = role if _is_id(role) else None
        return cls(**values)

    def replace(self, **changes: Any) -> ServerSettings:
        return dataclasses.replace(self, **changes)

    def schedule(self) -> Schedule | None:
        """The server's seasons (None: it keeps none), in its time zone."""
        return schedule_of(self.season_start, self.season_days, self.timezone,
                           self.season_first)

    def allows_channel(self, channel_id: int, parent_id: int | None = None) -> bool:
        """Whether a game may be opened here (a thread: also where its channel is allowed)."""
        return (not self.channels or channel_id in self.channels
                or (parent_id is not None and parent_id in self.channels))

    def with_channel(self, channel_id: int) -> ServerSettings:
        if channel_id in self.channels:
            return self
        if len(self.channels) >= MAX_CHANNELS:
            raise SettingError(T("Games can be limited to at most {n} channels.",
                                 n=MAX_CHANNELS))
        return self.replace(channels=(*self.channels, channel_id))

    def without_channel(self, channel_id: int) -> ServerSettings:
        return self.replace(channels=tuple(c for c in self.channels if c != channel_id))

    def caps(self, per_host: int, per_server: int) -> Caps:
        """The caps of this server's open tables, given the bot's own (``Limits``): the
        server's choice, never above the bot's server cap; a host never above the server."""
        server = min(self.tables_per_server or per_server, per_server)
        return Caps(per_host=min(self.tables_per_host or per_host, server), per_server=server)

    def rules_for(self, game: str) -> dict[str, Any]:
        return dict(self.house_rules.get(game, {}))

    def with_rules(self, game: str, options: dict[str, Any]) -> ServerSettings:
        """These house rules for ``game`` (none: the game's own defaults again)."""
        rules = {g: dict(o) for g, o in self.house_rules.items() if g != game}
        if options:
            rules[game] = dict(options)
        return self.replace(house_rules=rules)


# ------------------------------------------------------------------------ parsing


def parse_options(text: str, kinds: dict[str, type]) -> dict[str, Any]:
    """``name=value`` pairs (``sevens_bonus=20 norwegian=true``) as option values.

    ``kinds`` gives each known option's type (bool, int, str): a value is read as that
    type when it can be; anything else (an unknown name, ``abc`` for a number) is kept as
    typed, so that the game's own option check refuses it with its own reason."""
    options: dict[str, Any] = {}
    for token in text.replace(",", " ").split():
        name, equals, value = token.partition("=")
        name = name.strip().lower().replace("-", "_")
        if not equals or not name or not value:
            raise SettingError(T("Write each option as name=value, for example {example}.",
                                 example="`sevens_bonus=20 norwegian=true`"))
        if name in options:
            raise SettingError(T("The option {name} is given twice.", name=repr(name)))
        options[name] = _typed(value, kinds.get(name))
    return options


def _typed(value: str, kind: type | None) -> Any:
    if kind is bool and value.lower() in _TRUE + _FALSE:
        return value.lower() in _TRUE
    if kind is int and re.fullmatch(r"[+-]?\d{1,9}", value):
        return int(value)
    return value


def option_kinds(options_class: type) -> dict[str, type]:
    """Each option of a game's options dataclass and the type of its default."""
    return {f.name: type(f.default) for f in dataclasses.fields(options_class)}


def options_text(options: dict[str, Any]) -> str:
    """Options as they are typed: ``sevens_bonus=20 norwegian=true``."""
    return " ".join(f"{name}={_value(value)}" for name, value in options.items())


def _value(value: Any) -> str:
    return ("true" if value else "false") if isinstance(value, bool) else str(value)


# ------------------------------------------------------------------------ storage


class SettingsStore(Protocol):
    async def server_settings(self, guild_id: int) -> dict[str, Any] | None: ...


class SettingsUnavailable(Exception):
    """A server's settings could not be read (storage failed, or its row is corrupt).

    Nothing may be opened then: reading the server as having no settings would lift
    its restrictions (the channels games may open in, no AI seats, no pictures). Not
    for players: the command's answer is the answer guard's "Something went wrong;
    nothing was changed. Please try again." (``bot.ui.answer_guard``)."""


# The settings that restrict what a table may do: their defaults are the permissive
# choice, so a damaged value must not read back as its default (``read``). Only the bot
# writes them (booleans, a list of channel ids, caps).
_RESTRICTIONS = ("ai_allowed", "images")
_CAPS = ("tables_per_host", "tables_per_server")


def _is_id(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool) and value > 0


def _competition(data: dict[str, Any]) -> dict[str, Any]:
    """The season and reward settings of ``from_data`` (a value that cannot be: none)."""
    start, days = data.get("season_start"), data.get("season_days")
    seasons = (isinstance(start, str) and isinstance(days, int) and _is_id(days)
               and days <= MAX_SEASON_DAYS and schedule_of(start, days, None) is not None)
    champions = data.get("champion_roles")
    tiers = data.get("tiers")
    return {"season_start": start if seasons else None,
            "season_days": days if seasons else None,
            "season_first": data["season_first"] if _is_id(data.get("season_first")) else 1,
            "season_channel": data["season_channel"] if _is_id(data.get("season_channel"))
            else None,
            "champion_roles": {game: role for game, role in champions.items()
                               if isinstance(game, str) and _is_id(role)}
            if isinstance(champions, dict) else {},
            "tiers": ordered({t.role: t for t in map(tier_of, tiers) if t is not None}.values())
            if isinstance(tiers, list) else ()}


def _is_minute(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool) and 0 <= value < 24 * 60


def is_zone(name: str) -> bool:
    """Whether ``name`` is a time zone this machine knows (``zoneinfo``: the IANA names)."""
    try:
        zoneinfo.ZoneInfo(name)
    except (zoneinfo.ZoneInfoNotFoundError, ValueError):
        return False
    return True


def _is_cap(value: Any) -> bool:
    return (isinstance(value, int) and not isinstance(value, bool)
            and 1 <= value <= MAX_TABLES)


async def read(store: SettingsStore, guild_id: int | None) -> ServerSettings:
    """A server's settings as stored (the defaults outside a server, and for a server
    that never set any).

    ``SettingsUnavailable`` (logged) when storage fails or the stored row is corrupt: not
    an object, or a restriction (channels, AI seats, pictures) of the wrong type. Other
    values that no longer make sense read back as their defaults (``from_data``)."""
    if guild_id is None:
        return ServerSettings()
    try:
        data = await store.server_settings(guild_id)
    except Exception as error:
        log.warning("cannot read the settings of guild %s: %s", guild_id, error)
        # not for players: the command answers with the guard's "please try again"
        raise SettingsUnavailable(f"cannot read the settings of guild {guild_id}") from error
    problem = _damage(data)
    if problem is not None:
        log.warning("the settings of guild %s are corrupt: %s", guild_id, problem)
        # not for players: the command answers with the guard's "please try again"
        raise SettingsUnavailable(f"the settings of guild {guild_id} are corrupt: {problem}")
    return ServerSettings.from_data(data)


def _damage(data: Any) -> str | None:
    """Why a stored settings row cannot be trusted, for the log (None: it can; None data:
    no row)."""
    if data is None:
        return None
    if not isinstance(data, dict):
        return f"a JSON {type(data).__name__}, not an object"  # not for players
    for name in _RESTRICTIONS:
        if name in data and not isinstance(data[name], bool):
            return f"{name} is {data[name]!r}"
    channels = data.get("channels", [])
    if not isinstance(channels, list) or not all(
            isinstance(c, int) and not isinstance(c, bool) for c in channels):
        return f"channels is {channels!r}"  # not for players
    for name in _CAPS:
        if data.get(name) is not None and not _is_cap(data[name]):
            return f"{name} is {data[name]!r}"  # not for players
    return None
