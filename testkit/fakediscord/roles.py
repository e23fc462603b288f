"""Guild roles on the fake: members' roles given and taken by the bot, as Discord checks it,
and the server's admins making, moving and handing out roles in Discord's client.

Modelled on Discord's documentation (resources/guild: Add/Remove Guild Member Role) and
its permission model (topics/permissions, "Permission Hierarchy"):

* ``PUT|DELETE /guilds/{guild_id}/members/{user_id}/roles/{role_id}`` (an
  ``X-Audit-Log-Reason`` header may name why) answer 204. Adding a role the member holds,
  or removing one they do not, is a 204 that changes nothing.
* Unknown guild **404 10004**, a user who is not a member **404 10007** (Unknown Member),
  an unknown role — and ``@everyone``, whose id is the guild's — **404 10011** (Unknown
  Role).
* The bot needs **Manage Roles** (a guild-level permission of its roles; Administrator
  includes it), and the role must be **below the bot's highest role**: roles are ordered
  by position, and at an equal position the one with the lower id is the higher (as
  discord.py's ``Role.__lt__``). The member's own roles do not matter. A managed role (a
  bot's, a booster role, an integration's) can be given by nobody. Each refusal is
  **403 50013** "Missing Permissions", not a violation: the server's admins chose how to
  set the roles up, and the bot must cope (check and explain).
* GUILD_MEMBER_UPDATE goes only to sessions with the Guild Members intent (privileged:
  cardtable has none); GUILD_ROLE_CREATE/UPDATE (Guilds intent) tell a connected bot of
  a role made or moved.

The test's side (``fake.roles``): ``add(name, above_bot=False)`` makes a role (at the
bottom, just above ``@everyone``, as Discord does; ``above_bot``: moved above the bot's),
``move(role, above_bot=...)``, ``give(user, role)`` (a moderator's hand), ``has(user,
role)``, ``of(user)``.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from .events import guild_permissions
from .messages import invalid_form
from .rest import MISSING_PERMISSIONS, ApiError, Call, Router, unknown
from .world import FakeGuild, FakeRole, FakeUser

if TYPE_CHECKING:
    from .state import FakeState
    from .world import World

MANAGE_ROLES = 1 << 28
GUILD_MEMBERS = 1 << 1  # the gateway intent (privileged)
UNKNOWN_MEMBER, UNKNOWN_ROLE = 10007, 10011
DispatchSoon = Callable[[str, dict[str, Any], int | None, int], None]


def height(role: FakeRole) -> tuple[int, int]:
    """A role's rank in its guild's hierarchy: the higher position, then the lower id."""
    return role.position, -role.id


class Roles:
    def __init__(self, fake: FakeState, dispatch_soon: DispatchSoon) -> None:
        self.fake = fake
        self.dispatch_soon = dispatch_soon

    @property
    def world(self) -> World:
        return self.fake.world

    def register(self, router: Router) -> None:
        member_role = "/guilds/{guild_id}/members/{user_id}/roles/{role_id}"
        router.add("PUT", member_role, self.add_member_role)
        router.add("DELETE", member_role, self.remove_member_role)

    # ----- the test's side ------------------------------------------------------------
    def add(self, name: str, *, guild: FakeGuild | None = None, above_bot: bool = False,
            permissions: int = 0) -> FakeRole:
        """A new role, at the bottom of the guild's roles (as Discord makes one), or moved
        above the bot's role; a connected bot gets GUILD_ROLE_CREATE (and an UPDATE for
        each role that moved up)."""
        guild = guild or self.world.guild
        role = FakeRole(self.world.ids.next(), name, permissions, position=1)
        guild.roles[role.id] = role
        moved = self._place(guild, role, self._index_above_bot(guild) if above_bot else 0)
        self.dispatch_soon("GUILD_ROLE_CREATE",
                           {"guild_id": str(guild.id), "role": role.payload()}, guild.id, 0)
        self._announce(guild, moved - {role.id})
        return role

    def move(self, role: FakeRole, *, above_bot: bool, guild: FakeGuild | None = None) -> None:
        """An admin drags ``role`` just above the bot's role, or to the bottom."""
        guild = guild or self.world.guild
        index = self._index_above_bot(guild, without=role) if above_bot else 0
        self._announce(guild, self._place(guild, role, index))

    def give(self, user: FakeUser, role: FakeRole, guild: FakeGuild | None = None) -> None:
        """A moderator gives ``user`` the role in Discord's client (no check)."""
        held = (guild or self.world.guild).member_roles[user.id]
        if role.id not in held:
            held.append(role.id)

    def has(self, user: FakeUser, role: FakeRole, guild: FakeGuild | None = None) -> bool:
        return role.id in (guild or self.world.guild).member_roles.get(user.id, [])

    def of(self, user: FakeUser, guild: FakeGuild | None = None) -> list[FakeRole]:
        guild = guild or self.world.guild
        return [guild.roles[r] for r in guild.member_roles.get(user.id, [])]

    def highest(self, user: FakeUser, guild: FakeGuild | None = None) -> FakeRole:
        """The user's highest role (``@everyone`` when they hold none)."""
        guild = guild or self.world.guild
        return max([guild.everyone, *self.of(user, guild)], key=height)

    def _ladder(self, guild: FakeGuild) -> list[FakeRole]:
        """The guild's roles but @everyone, lowest first."""
        return sorted((r for r in guild.roles.values() if r.id != guild.id), key=height)

    def _index_above_bot(self, guild: FakeGuild, without: FakeRole | None = None) -> int:
        ladder = [r for r in self._ladder(guild) if r is not without]
        return ladder.index(self.highest(self.world.bot, guild)) + 1

    def _place(self, guild: FakeGuild, role: FakeRole, index: int) -> set[int]:
        """Put ``role`` at ``index`` of the ladder (0: the bottom) and number the roles 1, 2…
        again; the ids of those whose position changed."""
        ladder = [r for r in self._ladder(guild) if r is not role]
        ladder.insert(index, role)
        moved = set()
        for position, each in enumerate(ladder, start=1):
            if each.position != position:
                each.position = position
                moved.add(each.id)
        return moved

    def _announce(self, guild: FakeGuild, moved: set[int]) -> None:
        for role_id in sorted(moved):
            self.dispatch_soon("GUILD_ROLE_UPDATE",
                               {"guild_id": str(guild.id),
                                "role": guild.roles[role_id].payload()}, guild.id, 0)

    # ----- the routes -----------------------------------------------------------------
    async def add_member_role(self, call: Call) -> None:
        guild, user, role = self._target(call)
        held = guild.member_roles[user.id]
        if role.id not in held:
            held.append(role.id)
            self._member_updated(guild, user)

    async def remove_member_role(self, call: Call) -> None:
        guild, user, role = self._target(call)
        held = guild.member_roles[user.id]
        if role.id in held:
            held.remove(role.id)
            self._member_updated(guild, user)

    def _target(self, call: Call) -> tuple[FakeGuild, FakeUser, FakeRole]:
        """The guild, member and role of a member-role route, as Discord checks them."""
        guild = self.world.guilds.get(_int(call.params["guild_id"]))
        if guild is None:
            raise unknown("Guild", 10004)
        user = self.world.users.get(_int(call.params["user_id"]))
        if user is None or user.id not in guild.member_roles:
            raise unknown("Member", UNKNOWN_MEMBER)
        role = guild.roles.get(_int(call.params["role_id"]))
        if role is None or role.id == guild.id:
            raise unknown("Role", UNKNOWN_ROLE)
        if not self._guild_permissions(guild) & MANAGE_ROLES:
            raise ApiError(*MISSING_PERMISSIONS)
        if role.managed or height(role) >= height(self.highest(self.world.bot, guild)):
            raise ApiError(*MISSING_PERMISSIONS)
        return guild, user, role

    def _guild_permissions(self, guild: FakeGuild) -> int:
        return guild_permissions(self.world, guild, self.world.bot)

    def _member_updated(self, guild: FakeGuild, user: FakeUser) -> None:
        data = self.world.member_payload(user, guild=guild) | {"guild_id": str(guild.id)}
        self.dispatch_soon("GUILD_MEMBER_UPDATE", data, guild.id, GUILD_MEMBERS)


def _int(raw: str) -> int:
    """Snowflakes arrive as strings; a malformed one is Discord's 50035."""
    try:
        return int(raw)
    except ValueError:
        raise invalid_form([("_root", f"Value {raw!r} is not snowflake.")]) from None
