"""What every part of the fake Discord shares: the world, the settings (token,
deadlines, intents), the logs (calls, errors, uploads, interactions, violations), the
injected failures and the change signal that ``wait_for`` waits on.

``FakeState`` is the layer under the gateway, the REST routes and the webhooks: they
are given the state, and ``FakeDiscord`` (``fake.py``) builds on it.
"""

from __future__ import annotations

import asyncio
import contextlib
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from .activities import Activities
from .calls import Call, Failure
from .interactions import FakeDiscordError, Interaction
from .world import FakeChannel, FakeGuild, World


@dataclass
class Violation:
    """Something real Discord would refuse or flag; the fixture fails the test on any."""

    kind: str  # "rest", "late", "unanswered", "gateway"
    detail: str

    def __str__(self) -> str:
        return f"[{self.kind}] {self.detail}"


class FakeState:
    """The fake's shared state and its bookkeeping (see the module's doc)."""

    def __init__(
        self,
        *,
        token: str = "fake-token",
        shard_count: int = 1,
        response_deadline: float = 3.0,
        token_lifetime: float = 15 * 60,
        privileged_intents: int = 0,
    ) -> None:
        self.world = World(shard_count=shard_count)
        self.token = token
        self.response_deadline = response_deadline  # seconds for the first response
        self.token_lifetime = token_lifetime  # follow-ups and @original edits
        self.privileged_intents = privileged_intents  # intents "enabled in the portal"
        self.calls: list[Call] = []
        self.errors: list[Call] = []  # every non-2xx answer
        self.uploads: dict[str, bytes] = {}  # attachment id -> the file's bytes
        self.violations: list[Violation] = []
        self.allow_violations = False  # opt out of the teardown check
        self.interactions: dict[int, Interaction] = {}
        self.by_token: dict[str, Interaction] = {}
        self.syncs = 0  # command bulk overwrites received
        self.resumes = 0
        self.base_url = ""
        self.gateway_url = ""
        self.activities = Activities(self.world)  # OAuth2, Activity instances, the Entry Point
        self._failures: list[Failure] = []
        self._event = asyncio.Event()
        self._last_change = time.monotonic()

    @property
    def shard_count(self) -> int:
        """The shard count of `GET /gateway/bot`, the one IDENTIFY must use."""
        return self.world.shard_count

    @shard_count.setter
    def shard_count(self, count: int) -> None:
        self.world.shard_count = count

    def shard_of(self, where: FakeGuild | FakeChannel | int | None) -> int:
        """The shard Discord sends a guild's (or channel's) events to: ``(guild_id >> 22)
        % shard_count``; 0 for DMs (None, a DM channel)."""
        if isinstance(where, FakeChannel):
            where = where.guild_id
        elif isinstance(where, FakeGuild):
            where = where.id
        return 0 if where is None else (where >> 22) % self.shard_count

    # ----- failure injection ----------------------------------------------------------
    def fail_next(
        self,
        method: str,
        path_pattern: str,
        status: int,
        code: int = 0,
        retry_after: float | None = None,
        *,
        message: str | None = None,
        times: int = 1,
    ) -> None:
        """The next `times` requests matching answer `status`/`code` instead.

        `path_pattern` is an fnmatch glob on the path after /api/v10 or on the route
        template: "/channels/*/messages", "/channels/{channel_id}/messages/{message_id}".
        429s carry Via/Retry-After/X-RateLimit-* so discord.py retries after `retry_after`
        (default 0.05 s). discord.py retries 500/502/504 itself after 1 s: use 503 for a
        server error the bot sees at once.
        """
        text = message or {
            403: "Missing Permissions",
            404: "Unknown Message",
            429: "You are being rate limited.",
        }.get(status, f"{status}: Injected")
        self._failures.append(
            Failure(method.upper(), path_pattern, status, code, text, retry_after, times)
        )

    def _take_failure(self, method: str, path: str, route: str) -> Failure | None:
        for failure in self._failures:
            if failure.matches(method, path, route):
                failure.times -= 1
                if failure.times <= 0:
                    self._failures.remove(failure)
                return failure
        return None

    # ----- violations -----------------------------------------------------------------
    def violation(self, kind: str, detail: str) -> None:
        self.violations.append(Violation(kind, detail))

    def take_violations(self) -> list[Violation]:
        """Return and clear the violations (for tests that provoke them on purpose)."""
        taken, self.violations = self.violations, []
        return taken

    def check_unanswered(self, at_teardown: bool = False) -> list[Interaction]:
        """Flag interactions not answered within the deadline (all of them at teardown)."""
        flagged = []
        for ix in self.interactions.values():
            if ix.answered or ix.late or ix.flagged:
                continue
            if at_teardown or ix.age > self.response_deadline:
                ix.flagged = True
                self.violation("unanswered", f"{ix!r} never answered ({ix.age:.2f}s)")
                flagged.append(ix)
        return flagged

    def assert_no_violations(self) -> None:
        if self.violations and not self.allow_violations:
            lines = "\n  ".join(str(v) for v in self.violations)
            raise AssertionError(
                f"fake Discord recorded {len(self.violations)} violation(s):\n  {lines}"
            )

    # ----- waiting --------------------------------------------------------------------
    def _changed(self) -> None:
        self._last_change = time.monotonic()
        self._event.set()
        self._event = asyncio.Event()

    async def wait_for(self, predicate: Callable[[], Any], timeout: float = 3.0) -> Any:
        """Wait until predicate() is truthy (re-checked on every API call); returns it."""
        deadline = time.monotonic() + timeout
        while not (result := predicate()):
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                raise FakeDiscordError(f"timed out after {timeout}s waiting for {predicate}")
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self._event.wait(), min(remaining, 0.05))
        return result
