"""Interactions of simulated users: the record a test inspects, and slash-command resolution.

A slash command typed by a test ("jazz start", players=4) is resolved against the
commands the bot registered, with the checks the Discord client itself makes (unknown
command/option, wrong type, choices, min/max, required options): those are test
errors, raised at once as FakeDiscordError.
"""

from __future__ import annotations

import asyncio
import secrets
import time
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from .world import EPHEMERAL_FLAG, FakeChannel, FakeMessage, FakeRole, FakeUser, World

if TYPE_CHECKING:
    from collections.abc import Callable

APPLICATION_COMMAND, MESSAGE_COMPONENT, MODAL_SUBMIT = 2, 3, 5
SUBCOMMAND, GROUP = 1, 2
STRING, INTEGER, BOOLEAN, USER, CHANNEL, ROLE, MENTIONABLE, NUMBER = 3, 4, 5, 6, 7, 8, 9, 10
MAX_SAFE_INT = 2**53


class FakeDiscordError(AssertionError):
    """A test asked for something a real user could not do (unknown command, no such
    button, disabled component...). An AssertionError so pytest shows it plainly."""


@dataclass
class Response:
    """The initial response to an interaction, as the bot sent it."""

    type: int
    data: dict[str, Any]

    @property
    def content(self) -> str:
        return self.data.get("content") or ""

    @property
    def embeds(self) -> list[dict[str, Any]]:
        return self.data.get("embeds") or []

    @property
    def components(self) -> list[dict[str, Any]]:
        return self.data.get("components") or []

    @property
    def ephemeral(self) -> bool:
        return bool(int(self.data.get("flags") or 0) & EPHEMERAL_FLAG)


@dataclass(eq=False)
class Interaction:
    """One interaction of a simulated user and everything the bot did with it."""

    id: int
    token: str
    type: int
    user: FakeUser
    channel: FakeChannel
    data: dict[str, Any]
    source: FakeMessage | None = None  # the message whose component was used
    dispatched_at: float = 0.0
    responded_at: float | None = None
    response: Response | None = None
    original: FakeMessage | None = None  # response message, or `source` for types 6/7
    followups: list[FakeMessage] = field(default_factory=list)
    edits: list[dict[str, Any]] = field(default_factory=list)  # @original / followup edits
    modal: dict[str, Any] | None = None
    activity_instance: str | None = None  # the Activity a LAUNCH_ACTIVITY (12) launched/joined
    late: bool = False  # a first response came after the deadline (refused, flagged)
    flagged: bool = False  # already reported as never answered
    _changed: Callable[[], Any] | None = field(default=None, repr=False)
    _event: asyncio.Event = field(default_factory=asyncio.Event, repr=False)

    @staticmethod
    def new_token() -> str:
        return "aW50ZXJhY3Rpb24" + secrets.token_urlsafe(24)

    @property
    def answered(self) -> bool:
        return self.response is not None

    @property
    def ephemeral(self) -> bool:
        return self.response is not None and (
            self.response.ephemeral or bool(self.original and self.original.ephemeral)
        )

    @property
    def message(self) -> FakeMessage | None:
        """The message the response created or updated (latest version inside)."""
        return self.original

    @property
    def content(self) -> str:
        return self.original.content if self.original else ""

    @property
    def embeds(self) -> list[dict[str, Any]]:
        return self.original.embeds if self.original else []

    @property
    def components(self) -> list[dict[str, Any]]:
        return self.original.components if self.original else []

    def text(self) -> str:
        """All visible text of the original response and follow-ups (latest versions)."""
        parts = [m.text() for m in [self.original, *self.followups] if m is not None]
        if self.modal:
            parts.append(self.modal.get("title", ""))
        return "\n".join(parts)

    @property
    def age(self) -> float:
        return time.monotonic() - self.dispatched_at

    def notify(self) -> None:
        self._event.set()
        if self._changed:
            self._changed()

    async def wait_until(
        self, predicate: Callable[[Interaction], bool], timeout: float = 3.0
    ) -> Interaction:
        deadline = time.monotonic() + timeout
        while not predicate(self):
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                raise FakeDiscordError(f"timed out after {timeout}s waiting on {self!r}")
            self._event.clear()
            try:
                await asyncio.wait_for(self._event.wait(), remaining)
            except TimeoutError:
                continue
        return self

    async def wait_answered(self, timeout: float = 3.0) -> Interaction:
        """Wait for the initial response (any type); raises FakeDiscordError on timeout."""
        return await self.wait_until(lambda ix: ix.answered, timeout)

    async def wait_followups(self, count: int = 1, timeout: float = 3.0) -> Interaction:
        return await self.wait_until(lambda ix: len(ix.followups) >= count, timeout)

    async def wait_done(self, timeout: float = 3.0) -> Interaction:
        """Answered and, if deferred with 'thinking', the loading message replaced."""
        return await self.wait_until(
            lambda ix: ix.answered and not (ix.original and ix.original.loading), timeout
        )

    def __repr__(self) -> str:
        kind = {2: "slash", 3: "component", 5: "modal"}.get(self.type, str(self.type))
        rtype = self.response.type if self.response else None
        return f"<Interaction {kind} by {self.user.name} id={self.id} response={rtype}>"


# ----- slash command resolution ---------------------------------------------------------
def commands_for(world: World, channel: FakeChannel) -> list[dict[str, Any]]:
    """Commands a user sees in a channel: the guild's, then global ones (guild wins)."""
    found = list(world.commands.get(None, []))
    if not channel.is_dm:
        names = {c["name"] for c in world.commands.get(channel.guild_id, [])}
        found = [c for c in found if c["name"] not in names]
        found += world.commands.get(channel.guild_id, [])
    context = 1 if channel.is_dm else 0
    return [c for c in found if _allowed_in(c, context) and c.get("type", 1) == 1]


def _allowed_in(cmd: dict[str, Any], context: int) -> bool:
    contexts = cmd.get("contexts")
    if contexts is not None:
        return context in contexts
    return context == 0 or cmd.get("dm_permission", True) is not False


def resolve_slash(
    world: World, channel: FakeChannel, command: str, options: dict[str, Any]
) -> dict[str, Any]:
    """Build the interaction `data` for "group sub" + options, or raise FakeDiscordError."""
    words = command.strip().lstrip("/").split()
    if not words:
        raise FakeDiscordError("empty command")
    available = commands_for(world, channel)
    cmd = next((c for c in available if c["name"] == words[0]), None)
    if cmd is None:
        names = sorted(c["name"] for c in available)
        raise FakeDiscordError(f"no command /{words[0]} registered here (have: {names})")
    data: dict[str, Any] = {"id": str(cmd["id"]), "name": cmd["name"], "type": 1}
    if cmd.get("guild_id"):
        data["guild_id"] = str(cmd["guild_id"])
    node, target = cmd, data.setdefault("options", [])
    for word in words[1:]:
        sub = next(
            (o for o in node.get("options") or [] if o["name"] == word and o["type"] in (1, 2)),
            None,
        )
        if sub is None:
            raise FakeDiscordError(f"/{command}: no subcommand {word!r}")
        entry: dict[str, Any] = {"name": word, "type": sub["type"], "options": []}
        target.append(entry)
        node, target = sub, entry["options"]
    if any(o["type"] in (SUBCOMMAND, GROUP) for o in node.get("options") or []):
        subs = [o["name"] for o in node["options"]]
        raise FakeDiscordError(f"/{command} needs a subcommand: {subs}")
    resolved: dict[str, dict[str, Any]] = {}
    target.extend(
        _resolve_options(world, channel, command, node.get("options") or [], options, resolved)
    )
    if resolved:
        data["resolved"] = resolved
    return data


def _resolve_options(
    world: World,
    channel: FakeChannel,
    command: str,
    declared: list[dict[str, Any]],
    given: dict[str, Any],
    resolved: dict[str, dict[str, Any]],
) -> list[dict[str, Any]]:
    by_name = {o["name"]: o for o in declared}
    out = []
    for name, value in given.items():
        opt = by_name.get(name) or by_name.get(name.replace("_", "-"))
        if opt is None:
            raise FakeDiscordError(f"/{command}: no option {name!r} (have: {sorted(by_name)})")
        out.append(
            {
                "name": opt["name"],
                "type": opt["type"],
                "value": _coerce(world, channel, command, opt, value, resolved),
            }
        )
    missing = [
        o["name"]
        for o in declared
        if o.get("required") and o["name"] not in {e["name"] for e in out}
    ]
    if missing:
        raise FakeDiscordError(f"/{command}: missing required option(s) {missing}")
    return out


def _coerce(
    world: World,
    channel: FakeChannel,
    command: str,
    opt: dict[str, Any],
    value: Any,
    resolved: dict[str, dict[str, Any]],
) -> Any:
    kind, name = opt["type"], opt["name"]
    where = f"/{command} {name}"
    if kind == STRING:
        if not isinstance(value, str):
            raise FakeDiscordError(f"{where}: expected a string, got {value!r}")
        lo, hi = opt.get("min_length", 0), opt.get("max_length", 6000)
        if not lo <= len(value) <= hi:
            raise FakeDiscordError(f"{where}: length must be within {lo}..{hi}")
    elif kind in (INTEGER, NUMBER):
        ok = isinstance(value, int) if kind == INTEGER else isinstance(value, int | float)
        if isinstance(value, bool) or not ok or abs(value) > MAX_SAFE_INT:
            raise FakeDiscordError(
                f"{where}: expected {'an integer' if kind == INTEGER else 'a number'}"
            )
        lo, hi = opt.get("min_value"), opt.get("max_value")
        if (lo is not None and value < lo) or (hi is not None and value > hi):
            raise FakeDiscordError(f"{where}: {value} is outside {lo}..{hi}")
    elif kind == BOOLEAN:
        if not isinstance(value, bool):
            raise FakeDiscordError(f"{where}: expected a bool")
    elif kind in (USER, MENTIONABLE) and isinstance(value, FakeUser):
        resolved.setdefault("users", {})[str(value.id)] = value.payload()
        guild = world.guild_of(channel)
        if guild is not None and value.id in guild.member_roles:
            member = world.member_payload(value, with_user=False, guild=guild)
            member["permissions"] = "0"
            resolved.setdefault("members", {})[str(value.id)] = member
        return str(value.id)
    elif kind == CHANNEL and isinstance(value, FakeChannel):
        payload = value.payload(world)
        payload["permissions"] = "0"
        resolved.setdefault("channels", {})[str(value.id)] = payload
        return str(value.id)
    elif kind in (ROLE, MENTIONABLE) and isinstance(value, FakeRole):
        resolved.setdefault("roles", {})[str(value.id)] = value.payload()
        return str(value.id)
    else:
        raise FakeDiscordError(f"{where}: option type {kind} with value {value!r} not supported")
    choices = opt.get("choices")
    if choices and value not in [c["value"] for c in choices]:
        raise FakeDiscordError(f"{where}: {value!r} is not one of {[c['value'] for c in choices]}")
    return value


def check_component_use(
    message: FakeMessage, user: FakeUser, custom_id: str, kinds: tuple[int, ...]
) -> dict[str, Any]:
    """The component a user can really use on the message's latest version."""
    if message.deleted:
        raise FakeDiscordError(f"{message!r} was deleted")
    if message.ephemeral_for is not None and message.ephemeral_for is not user:
        raise FakeDiscordError(f"{user.name} cannot see an ephemeral message of another user")
    comp = message.component(custom_id)
    if comp is None:
        ids = [c.get("custom_id") for c in message.leaf_components()]
        raise FakeDiscordError(f"no component {custom_id!r} on {message!r} (have: {ids})")
    if comp.get("type") not in kinds:
        raise FakeDiscordError(f"component {custom_id!r} has type {comp.get('type')}, not {kinds}")
    if comp.get("disabled"):
        raise FakeDiscordError(f"component {custom_id!r} is disabled")
    return comp


def check_select_values(comp: dict[str, Any], values: list[str]) -> None:
    lo, hi = int(comp.get("min_values", 1)), int(comp.get("max_values", 1))
    if not lo <= len(values) <= hi:
        raise FakeDiscordError(f"select {comp.get('custom_id')!r} takes {lo}..{hi} values")
    if comp.get("type") == 3:
        allowed = [o["value"] for o in comp.get("options") or []]
        bad = [v for v in values if v not in allowed]
        if bad:
            raise FakeDiscordError(f"values {bad} are not options of the select (have {allowed})")
    if len(set(values)) != len(values):
        raise FakeDiscordError("a select cannot return the same value twice")
