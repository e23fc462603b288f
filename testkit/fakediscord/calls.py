"""The fake's logs of the REST API: a request as the bot made it (``Call``, in
``fake.calls``) and a failure a test injected for the next matching ones (``Failure``,
``fake.fail_next``)."""

from __future__ import annotations

import fnmatch
import time
from dataclasses import dataclass, field
from typing import Any


@dataclass
class Call:
    """One REST request as the bot made it, and what the fake answered."""

    method: str
    route: str  # the template, e.g. "POST /channels/{channel_id}/messages"
    path: str
    params: dict[str, str]
    query: dict[str, str]
    body: Any
    files: list[dict[str, Any]] = field(default_factory=list)
    at: float = field(default_factory=time.monotonic)
    authorization: str = field(default="", repr=False)  # the Authorization header
    content_type: str = ""  # the body's: OAuth2 takes only form-encoded ones
    status: int = 0
    code: int | None = None  # Discord error code of the answer, if an error

    @property
    def ok(self) -> bool:
        return 200 <= self.status < 300


@dataclass
class Failure:
    """An injected failure (fake.fail_next)."""

    method: str
    pattern: str
    status: int
    code: int
    message: str
    retry_after: float | None
    times: int

    def matches(self, method: str, path: str, route: str) -> bool:
        if self.method not in ("*", method):
            return False
        template = route.split(" ", 1)[1]
        return fnmatch.fnmatchcase(path, self.pattern) or fnmatch.fnmatchcase(
            template, self.pattern
        )
