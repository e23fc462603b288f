"""Guild Scheduled Events on the fake: the routes a bot uses to announce a table ahead of
time as a Discord event, and the members pressing "Interested" in Discord's client.

Modelled on Discord's documentation (resources/guild-scheduled-event):

* ``GET /guilds/{guild_id}/scheduled-events`` (``with_user_count``): the SCHEDULED and
  ACTIVE events (finished ones drop out of the list), oldest first;
  ``GET|PATCH|DELETE /guilds/{guild_id}/scheduled-events/{event_id}`` (a finished event
  is still fetched by its id until deleted); ``GET …/{event_id}/users`` (``limit``
  1–100, ``with_member``, ``before``/``after``; ascending user ids).
* Create's checks: name 1–100, description ≤ 1000, ``privacy_level`` 2 (GUILD_ONLY),
  ``entity_type`` 1/2 (a stage/voice channel in ``channel_id``: the fake has none, so
  those are always refused) or 3 (EXTERNAL: ``channel_id`` null,
  ``entity_metadata.location`` 1–100 and a ``scheduled_end_time``), the start in the
  future (``GUILD_SCHEDULED_EVENT_SCHEDULE_PAST``), the end after the start. A bad body
  is 400 50035 with the field, and a violation. At most 100 SCHEDULED/ACTIVE events per
  guild (400 30038, not a violation).
* Permissions, guild-level (events are not a channel's): creating needs CREATE_EVENTS or
  MANAGE_EVENTS, modifying/deleting an event the bot created either of them, another's
  MANAGE_EVENTS: 403 50013 (not a violation: the server's admins chose).
* Status: SCHEDULED → ACTIVE | CANCELED, ACTIVE → COMPLETED. Any other change is 400
  50035 on ``status`` and a violation — except asking for the status the event already
  has (Discord starts an EXTERNAL event by itself: the bot can lose that race), which is
  refused without one. A COMPLETED or CANCELED event cannot be modified: 400 180000
  "Cannot update a finished event" (not a violation: a moderator may have ended it). A
  start time cannot change once the event is ACTIVE.
* Discord's automation, applied whenever the fake looks at an event (by
  ``world.now()``, settable for a bot on a ManualClock): an EXTERNAL event becomes ACTIVE
  at its start and COMPLETED at its end; another kind still SCHEDULED is CANCELED
  ``AUTO_CANCEL_AFTER`` after its start.
* The creator is interested in its own event (as in Discord's client): the bot is among
  the users of the events it creates — a bot counting players must leave itself out.
* GUILD_SCHEDULED_EVENT_CREATE/UPDATE/DELETE/USER_ADD/USER_REMOVE go only to sessions
  with the GUILD_SCHEDULED_EVENTS intent.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field, replace
from datetime import UTC, datetime
from typing import TYPE_CHECKING, Any, TypeAlias

import discord

from .interactions import FakeDiscordError
from .rest import MISSING_ACCESS, MISSING_PERMISSIONS, ApiError, Call, Router, unknown
from .world import ADMINISTRATOR, ALL_PERMISSIONS, FakeGuild, FakeUser

if TYPE_CHECKING:
    from .gateway import Gateway
    from .state import FakeState
    from .world import World

SCHEDULED, ACTIVE, COMPLETED, CANCELED = 1, 2, 3, 4
STAGE_INSTANCE, VOICE, EXTERNAL = 1, 2, 3
GUILD_ONLY = 2  # the only privacy level
MANAGE_EVENTS, CREATE_EVENTS = 1 << 33, 1 << 44  # permission bits
GUILD_SCHEDULED_EVENTS = 1 << 16  # the gateway intent
TRANSITIONS = {SCHEDULED: (ACTIVE, CANCELED), ACTIVE: (COMPLETED,)}
MAX_UNFINISHED = 100  # SCHEDULED or ACTIVE events per guild
AUTO_CANCEL_AFTER = 3 * 3600.0  # "on the order of hours" after a start that never came
UNKNOWN_EVENT = 10070
Problem = tuple[str, str, str]  # (field path, error code, message)
# Sends a gateway event from synchronous code: (name, data, guild_id, intent).
DispatchSoon = Callable[[str, dict[str, Any], int | None, int], None]


@dataclass(eq=False)
class FakeScheduledEvent:
    """One guild scheduled event; ``start``/``end`` are epoch seconds, ``interested``
    the users who pressed "Interested" (ascending ids, as the users route answers)."""

    id: int
    guild_id: int
    creator: FakeUser
    name: str = ""
    start: float = 0.0
    end: float | None = None
    entity_type: int = EXTERNAL
    channel_id: int | None = None
    location: str | None = None
    description: str | None = None
    privacy_level: int = GUILD_ONLY
    status: int = SCHEDULED
    image: str | None = None
    interested: list[FakeUser] = field(default_factory=list)
    deleted: bool = False

    @property
    def finished(self) -> bool:
        return self.status in (COMPLETED, CANCELED)

    def advance(self, now: float) -> bool:
        """Discord's automatic status changes up to ``now``; whether one happened."""
        before = self.status
        if self.status == SCHEDULED:
            if self.entity_type == EXTERNAL and now >= self.start:
                self.status = ACTIVE
            elif self.entity_type != EXTERNAL and now >= self.start + AUTO_CANCEL_AFTER:
                self.status = CANCELED
        if (self.status == ACTIVE and self.entity_type == EXTERNAL and self.end is not None
                and now >= self.end):
            self.status = COMPLETED
        return self.status != before

    def payload(self, with_user_count: bool = False) -> dict[str, Any]:
        data: dict[str, Any] = {
            "id": str(self.id), "guild_id": str(self.guild_id),
            "channel_id": _opt(self.channel_id), "creator_id": str(self.creator.id),
            "creator": self.creator.payload(), "name": self.name,
            "description": self.description, "scheduled_start_time": iso(self.start),
            "scheduled_end_time": None if self.end is None else iso(self.end),
            "privacy_level": self.privacy_level, "status": self.status,
            "entity_type": self.entity_type, "entity_id": None,
            "entity_metadata": ({"location": self.location} if self.entity_type == EXTERNAL
                                else None),
            "image": self.image, "recurrence_rule": None,
        }
        if with_user_count:
            data["user_count"] = len(self.interested)
        return data


# An event as a test names it: the fake's, its id, or discord.py's ScheduledEvent.
EventRef: TypeAlias = FakeScheduledEvent | int | str | discord.abc.Snowflake


class ScheduledEvents:
    """The routes, the members' interest and the automation; the events live in
    ``events``, which the world shows (``world.scheduled_events``: GUILD_CREATE); both
    survive bot restarts, as the world does."""

    def __init__(self, fake: FakeState, gateway: Gateway, dispatch_soon: DispatchSoon) -> None:
        self.fake = fake
        self.gateway = gateway
        self.dispatch_soon = dispatch_soon
        self.creator_interested = True  # the creator is subscribed to its own event
        self.events: dict[int, FakeScheduledEvent] = {}  # by id
        fake.world.scheduled_events = self.events

    @property
    def world(self) -> World:
        return self.fake.world

    def register(self, router: Router) -> None:
        base = "/guilds/{guild_id}/scheduled-events"
        router.add("GET", base, self.list_events)
        router.add("POST", base, self.create)
        router.add("GET", base + "/{event_id}", self.get_event)
        router.add("PATCH", base + "/{event_id}", self.modify)
        router.add("DELETE", base + "/{event_id}", self.delete)
        router.add("GET", base + "/{event_id}/users", self.users)

    # ----- the test's side ------------------------------------------------------------
    def of(self, guild: FakeGuild, include_deleted: bool = False) -> list[FakeScheduledEvent]:
        """The guild's events (every status), oldest first."""
        return [e for e in self.events.values()
                if e.guild_id == guild.id and (include_deleted or not e.deleted)]

    def find(self, event: EventRef) -> FakeScheduledEvent:
        if isinstance(event, FakeScheduledEvent):
            return event
        found = self.events.get(
            event.id if isinstance(event, discord.abc.Snowflake) else int(event))
        if found is None:
            raise FakeDiscordError(f"no scheduled event {event!r}")
        return found

    def advance(self) -> list[FakeScheduledEvent]:
        """Apply Discord's automation up to ``world.now()``: the events that changed."""
        now = self.world.now()
        return [e for e in self.events.values()
                if not e.deleted and e.advance(now)]

    def catch_up(self) -> None:
        """``advance`` from a test's (synchronous) call: UPDATEs are sent soon after."""
        for event in self.advance():
            self.dispatch_soon("GUILD_SCHEDULED_EVENT_UPDATE", event.payload(),
                               event.guild_id, GUILD_SCHEDULED_EVENTS)

    def interest(self, user: FakeUser, event: EventRef, interested: bool) -> None:
        """``user`` presses "Interested" (or takes it back) in Discord's client."""
        self.catch_up()
        found = self.find(event)
        if self.mark(user, found, interested):
            name = "ADD" if interested else "REMOVE"
            self.dispatch_soon(f"GUILD_SCHEDULED_EVENT_USER_{name}",
                               user_payload(found, user), found.guild_id,
                               GUILD_SCHEDULED_EVENTS)

    def mark(self, user: FakeUser, event: FakeScheduledEvent, interested: bool) -> bool:
        """Whether ``user``'s interest changed."""
        guild = self.world.guilds[event.guild_id]
        if user.id not in guild.member_roles:
            raise FakeDiscordError(f"{user.name} is not a member of {guild!r}")
        if event.deleted or event.finished:
            raise FakeDiscordError(f"{event.name!r} is over: its Interested button is gone")
        if (user in event.interested) == interested:
            return False
        if interested:
            event.interested.append(user)
            event.interested.sort(key=lambda u: u.id)
        else:
            event.interested.remove(user)
        return True

    async def announce(self, name: str, data: dict[str, Any], guild_id: int) -> None:
        await self.gateway.dispatch(name, data, guild_id, GUILD_SCHEDULED_EVENTS)

    async def _advance_and_announce(self) -> None:
        for event in self.advance():
            await self.announce("GUILD_SCHEDULED_EVENT_UPDATE", event.payload(), event.guild_id)

    # ----- routes ---------------------------------------------------------------------
    def _guild(self, call: Call) -> FakeGuild:
        guild = self.world.guilds.get(_snowflake(call.params["guild_id"]))
        if guild is None:
            raise unknown("Guild", 10004)
        if self.world.bot.id not in guild.member_roles:
            raise ApiError(*MISSING_ACCESS)
        return guild

    def _event(self, call: Call, guild: FakeGuild) -> FakeScheduledEvent:
        event = self.events.get(_snowflake(call.params["event_id"]))
        if event is None or event.deleted or event.guild_id != guild.id:
            raise unknown("Guild Scheduled Event", UNKNOWN_EVENT)
        return event

    def _may_manage(self, guild: FakeGuild, event: FakeScheduledEvent | None) -> None:
        """CREATE_EVENTS or MANAGE_EVENTS to create, or to change one's own event;
        MANAGE_EVENTS for another's."""
        perms = guild_permissions(self.world, guild, self.world.bot)
        needs = (MANAGE_EVENTS if event is not None and event.creator is not self.world.bot
                 else MANAGE_EVENTS | CREATE_EVENTS)
        if not perms & needs:
            raise ApiError(*MISSING_PERMISSIONS)

    async def list_events(self, call: Call) -> list[dict[str, Any]]:
        guild = self._guild(call)
        await self._advance_and_announce()
        counted = _flag(call.query.get("with_user_count"))
        return [e.payload(counted) for e in self.of(guild) if not e.finished]

    async def get_event(self, call: Call) -> dict[str, Any]:
        guild = self._guild(call)
        await self._advance_and_announce()
        return self._event(call, guild).payload(_flag(call.query.get("with_user_count")))

    async def create(self, call: Call) -> dict[str, Any]:
        guild = self._guild(call)
        self._may_manage(guild, None)
        body = call.body if isinstance(call.body, dict) else {}
        problems = [(name, "BASE_TYPE_REQUIRED", "This field is required")
                    for name in ("name", "privacy_level", "scheduled_start_time", "entity_type")
                    if body.get(name) is None]
        event = FakeScheduledEvent(self.world.ids.next(), guild.id, self.world.bot)
        problems += self._apply(event, body, creating=True)
        if problems:
            raise invalid_form(problems)
        await self._advance_and_announce()
        if sum(not e.finished for e in self.of(guild)) >= MAX_UNFINISHED:
            raise ApiError(400, 30038, "Maximum number of uncompleted guild scheduled events "
                                       "reached (100)")
        if self.creator_interested:
            event.interested.append(self.world.bot)
        self.events[event.id] = event
        await self.announce("GUILD_SCHEDULED_EVENT_CREATE", event.payload(), guild.id)
        if self.creator_interested:
            await self.announce("GUILD_SCHEDULED_EVENT_USER_ADD",
                                user_payload(event, self.world.bot), guild.id)
        return event.payload()

    async def modify(self, call: Call) -> dict[str, Any]:
        guild = self._guild(call)
        await self._advance_and_announce()
        event = self._event(call, guild)
        self._may_manage(guild, event)
        if event.finished:
            raise ApiError(400, 180000, "Cannot update a finished event")
        body = call.body if isinstance(call.body, dict) else {}
        status = body.get("status", event.status)
        if status == event.status and "status" in body:
            raise _refused("status", "GUILD_SCHEDULED_EVENT_INVALID_STATUS_TRANSITION",
                           f"The event's status is {status} already.")
        if status != event.status and status not in TRANSITIONS.get(event.status, ()):
            raise invalid_form([("status", "GUILD_SCHEDULED_EVENT_INVALID_STATUS_TRANSITION",
                                 f"Cannot change the status from {event.status} to "
                                 f"{status!r}.")])
        if "scheduled_start_time" in body and event.status != SCHEDULED:
            raise _refused("scheduled_start_time", "GUILD_SCHEDULED_EVENT_INVALID_START_BY_"
                           "STATUS", "Cannot change the start time of an event that has "
                           "started.")
        draft = replace(event)
        problems = self._apply(draft, body, creating=False)
        if problems:
            raise invalid_form(problems)
        for name in ("name", "start", "end", "entity_type", "channel_id", "location",
                     "description", "privacy_level", "image"):
            setattr(event, name, getattr(draft, name))
        event.status = status
        await self.announce("GUILD_SCHEDULED_EVENT_UPDATE", event.payload(), guild.id)
        return event.payload()

    async def delete(self, call: Call) -> None:
        guild = self._guild(call)
        await self._advance_and_announce()
        event = self._event(call, guild)
        self._may_manage(guild, event)
        event.deleted = True
        await self.announce("GUILD_SCHEDULED_EVENT_DELETE", event.payload(), guild.id)

    async def users(self, call: Call) -> list[dict[str, Any]]:
        guild = self._guild(call)
        event = self._event(call, guild)
        raw_limit = call.query.get("limit", "100")
        limit = int(raw_limit) if raw_limit.isdigit() else 0
        if not 1 <= limit <= 100:
            raise invalid_form([("limit", "NUMBER_TYPE_MAX", "Must be between 1 and 100.")])
        users = event.interested
        if "before" in call.query:  # only before is respected when both are given
            before = _snowflake(call.query["before"])
            users = [u for u in users if u.id < before][-limit:]
        else:
            after = _snowflake(call.query.get("after", "0"))
            users = [u for u in users if u.id > after][:limit]
        with_member = _flag(call.query.get("with_member"))
        out = []
        for user in users:
            entry: dict[str, Any] = {"guild_scheduled_event_id": str(event.id),
                                     "user": user.payload()}
            if with_member and user.id in guild.member_roles:
                entry["member"] = self.world.member_payload(user, with_user=False,
                                                            guild=guild)
            out.append(entry)
        return out

    def _apply(self, event: FakeScheduledEvent, body: dict[str, Any],
               creating: bool) -> list[Problem]:
        """Write a create/modify body into ``event`` and check the result as Discord
        does: the problems, by field."""
        problems: list[Problem] = []
        if "name" in body:
            name = body["name"]
            if not isinstance(name, str) or not 1 <= len(name) <= 100:
                problems.append(("name", "BASE_TYPE_BAD_LENGTH",
                                 "Must be between 1 and 100 in length."))
            else:
                event.name = name
        if "description" in body:
            text = body["description"]
            if text is not None and (not isinstance(text, str) or len(text) > 1000):
                problems.append(("description", "BASE_TYPE_MAX_LENGTH",
                                 "Must be 1000 or fewer in length."))
            else:
                event.description = text or None
        if "privacy_level" in body and body["privacy_level"] != GUILD_ONLY:
            problems.append(("privacy_level", "BASE_TYPE_CHOICES", "Value must be one of {2}."))
        if "entity_type" in body:
            if body["entity_type"] not in (STAGE_INSTANCE, VOICE, EXTERNAL):
                problems.append(("entity_type", "BASE_TYPE_CHOICES",
                                 "Value must be one of {1, 2, 3}."))
            else:
                event.entity_type = body["entity_type"]
        start_given = body.get("scheduled_start_time") is not None
        for key in ("scheduled_start_time", "scheduled_end_time"):
            if key in body:
                when = _timestamp(body[key]) if body[key] is not None else None
                if body[key] is not None and when is None:
                    problems.append((key, "DATE_TIME_TYPE_PARSE",
                                     f"Could not interpret {body[key]!r} as a timestamp."))
                elif key == "scheduled_start_time" and when is not None:
                    event.start = when
                elif key == "scheduled_end_time":
                    event.end = when
        if "channel_id" in body:
            event.channel_id = None if body["channel_id"] is None else _snowflake(
                body["channel_id"])
        if "entity_metadata" in body:
            meta = body["entity_metadata"]
            event.location = meta.get("location") if isinstance(meta, dict) else None
        problems += self._by_entity_type(event)
        if start_given and event.start <= self.world.now():
            problems.append(("scheduled_start_time", "GUILD_SCHEDULED_EVENT_SCHEDULE_PAST",
                             "Cannot schedule event in the past."))
        if event.end is not None and event.end <= event.start:
            problems.append(("scheduled_end_time", "GUILD_SCHEDULED_EVENT_END_BEFORE_START",
                             "Cannot schedule event to end before starting."))
        return problems

    def _by_entity_type(self, event: FakeScheduledEvent) -> list[Problem]:
        """Discord's field requirements by entity type."""
        if event.entity_type == EXTERNAL:
            problems: list[Problem] = []
            if event.channel_id is not None:
                problems.append(("channel_id", "BASE_TYPE_INVALID",
                                 "Must be null for an external event."))
            location = event.location
            if not isinstance(location, str) or not 1 <= len(location) <= 100:
                problems.append(("entity_metadata.location", "BASE_TYPE_BAD_LENGTH",
                                 "Must be between 1 and 100 in length."))
            if event.end is None:
                problems.append(("scheduled_end_time", "BASE_TYPE_REQUIRED",
                                 "This field is required"))
            return problems
        event.location = None  # silently discarded for a stage or voice event
        wanted = "stage" if event.entity_type == STAGE_INSTANCE else "voice"
        return [("channel_id", "CHANNEL_TYPE_INVALID",  # the fake has no such channels
                 f"Must be a {wanted} channel of this guild.")]


def guild_permissions(world: World, guild: FakeGuild, user: FakeUser) -> int:
    """A member's guild-level permissions: @everyone and their roles (no channel)."""
    if user.id not in guild.member_roles:
        return 0
    if user.id == guild.owner_id:
        return ALL_PERMISSIONS
    perms = guild.everyone.permissions
    for role_id in guild.member_roles[user.id]:
        perms |= guild.roles[role_id].permissions
    return ALL_PERMISSIONS if perms & ADMINISTRATOR else perms


def user_payload(event: FakeScheduledEvent, user: FakeUser) -> dict[str, Any]:
    """GUILD_SCHEDULED_EVENT_USER_ADD/REMOVE's data."""
    return {"guild_scheduled_event_id": str(event.id), "user_id": str(user.id),
            "guild_id": str(event.guild_id)}


def invalid_form(problems: list[Problem]) -> ApiError:
    """400 50035 with Discord's nested errors, each with its code; a violation."""
    return ApiError(400, 50035, "Invalid Form Body", _nest(problems), violation=True)


def _refused(path: str, code: str, message: str) -> ApiError:
    """50035 for what the bot could not have known (not a violation)."""
    return ApiError(400, 50035, "Invalid Form Body", _nest([(path, code, message)]))


def _nest(problems: list[Problem]) -> dict[str, Any]:
    errors: dict[str, Any] = {}
    for path, code, message in problems:
        node = errors
        for part in path.split("."):
            node = node.setdefault(part, {})
        node.setdefault("_errors", []).append({"code": code, "message": message})
    return errors


def iso(when: float) -> str:
    return datetime.fromtimestamp(when, UTC).isoformat()


def _timestamp(raw: Any) -> float | None:
    """Epoch seconds of an ISO 8601 timestamp (naive: UTC), None if it is not one."""
    try:
        stamp = datetime.fromisoformat(str(raw))
    except ValueError:
        return None
    return (stamp if stamp.tzinfo else stamp.replace(tzinfo=UTC)).timestamp()


def _flag(raw: str | None) -> bool:
    """Discord's boolean query strings: ``true``/``True``/``1``."""
    return (raw or "").lower() in ("true", "1")


def _snowflake(raw: Any) -> int:
    try:
        return int(raw)
    except (TypeError, ValueError):
        raise invalid_form([("_root", "NUMBER_TYPE_COERCE",
                             f"Value {raw!r} is not snowflake.")]) from None


def _opt(snowflake: int | None) -> str | None:
    return None if snowflake is None else str(snowflake)
