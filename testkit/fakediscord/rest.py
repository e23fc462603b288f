"""The REST API under /api/v10: routing, errors in Discord's shape, the call log.

Handlers raise ApiError for anything Discord would refuse; the router answers it as
`{"code", "message", "errors"}` with the right status, so discord.py raises the same
HTTPException / Forbidden / NotFound it would raise against Discord. Contract errors
(a bot bug: an invalid payload, an unknown route, a double response...) are also
recorded as violations so the test fails even if the bot swallowed the exception.
"""

from __future__ import annotations

import json
import re
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any, Protocol
from urllib.parse import parse_qsl

from aiohttp import BodyPartReader, web

from .calls import Call, Failure

API_PREFIX = "/api/v10"


class Ledger(Protocol):
    """What the router reads and writes of the fake's state (``FakeState`` is one): the
    bot's token, the call log, the injected failures, the violations, the change signal.
    (A protocol, so that this module imports no state: the state holds the Activities,
    whose routes are registered here.)"""

    token: str
    calls: list[Call]
    errors: list[Call]

    def _changed(self) -> None: ...

    def _take_failure(self, method: str, path: str, route: str) -> Failure | None: ...

    def violation(self, kind: str, detail: str) -> None: ...


class ApiError(Exception):
    def __init__(
        self,
        status: int,
        code: int,
        message: str,
        errors: dict[str, Any] | None = None,
        *,
        violation: bool = False,
    ) -> None:
        super().__init__(f"{status} {code} {message}")
        self.status, self.code, self.message = status, code, message
        self.errors = errors
        self.violation = violation

    def body(self) -> dict[str, Any]:
        body: dict[str, Any] = {"code": self.code, "message": self.message}
        if self.errors:
            body["errors"] = self.errors
        return body


class OAuthError(ApiError):
    """An OAuth2 refusal, in RFC 6749's shape (``{"error", "error_description"}``), as
    Discord answers ``/oauth2/token``."""

    def __init__(self, status: int, error: str, description: str = "", *,
                 violation: bool = False) -> None:
        super().__init__(status, 0, description or error, violation=violation)
        self.error, self.description = error, description

    def body(self) -> dict[str, Any]:
        body = {"error": self.error}
        if self.description:
            body["error_description"] = self.description
        return body


def unknown(kind: str, code: int) -> ApiError:
    return ApiError(404, code, f"Unknown {kind}")


MISSING_ACCESS = (403, 50001, "Missing Access")
MISSING_PERMISSIONS = (403, 50013, "Missing Permissions")


Handler = Callable[[Call], Awaitable[Any]]


@dataclass
class Route:
    method: str
    template: str
    handler: Handler
    auth: bool
    regex: re.Pattern[str]


def compile_template(template: str) -> re.Pattern[str]:
    pattern = re.sub(
        r"\{(\w+)\}", r"(?P<\1>[^/]+)", re.escape(template).replace(r"\{", "{").replace(r"\}", "}")
    )
    return re.compile(f"^{pattern}$")


class Router:
    def __init__(self, fake: Ledger) -> None:
        self.fake = fake
        self.routes: list[Route] = []

    def add(self, method: str, template: str, handler: Handler, auth: bool = True) -> None:
        self.routes.append(Route(method, template, handler, auth, compile_template(template)))

    def match(self, method: str, path: str) -> tuple[Route | None, dict[str, str]]:
        for route in self.routes:
            found = route.regex.match(path)
            if found and route.method == method:
                return route, found.groupdict()
        return None, {}

    async def handle(self, request: web.Request) -> web.StreamResponse:
        path = (
            request.path[len(API_PREFIX) :] if request.path.startswith(API_PREFIX) else request.path
        )
        route, params = self.match(request.method, path)
        template = f"{request.method} {route.template if route else path}"
        body, files = await _read_body(request)
        call = Call(request.method, template, path, params, dict(request.query), body, files,
                    authorization=request.headers.get("Authorization", ""),
                    content_type=request.content_type if request.body_exists else "")
        self.fake.calls.append(call)
        self.fake._changed()
        try:
            if route is None:
                raise ApiError(404, 0, "404: Not Found", violation=True)
            if route.auth and request.headers.get("Authorization") != f"Bot {self.fake.token}":
                raise ApiError(401, 0, "401: Unauthorized")
            injected = self.fake._take_failure(request.method, path, template)
            if injected is not None:
                self.fake.errors.append(call)
                self.fake._changed()
                return _injected_response(call, injected)
            result = await route.handler(call)
        except ApiError as err:
            call.status, call.code = err.status, err.code
            if err.violation:
                detail = f"{template} -> {err.status} {err.code} {err.message}"
                if err.errors:
                    detail += f" {json.dumps(err.errors)}"
                self.fake.violation("rest", detail)
            self.fake.errors.append(call)
            self.fake._changed()
            return json_response(err.body(), status=err.status)
        self.fake._changed()
        if result is None:
            call.status = 204
            return web.Response(status=204)
        call.status = 200
        if isinstance(result, bytes):  # a served attachment
            return web.Response(body=result, content_type="application/octet-stream")
        return json_response(result)


def json_response(
    data: Any, status: int = 200, headers: dict[str, str] | None = None
) -> web.Response:
    """Exactly "application/json": discord.py only decodes that content type."""
    body = json.dumps(data).encode()
    return web.Response(body=body, status=status, headers=headers, content_type="application/json")


def _injected_response(call: Call, failure: Failure) -> web.Response:
    call.status, call.code = failure.status, failure.code
    headers: dict[str, str] = {}
    body: dict[str, Any] = {"code": failure.code, "message": failure.message}
    if failure.status == 429:
        retry = failure.retry_after if failure.retry_after is not None else 0.05
        body |= {"retry_after": retry, "global": False}
        headers = {
            "Via": "1.1 google",  # discord.py only retries a 429 that came through Discord's edge
            "Retry-After": str(max(1, round(retry))),
            "X-RateLimit-Limit": "5",
            "X-RateLimit-Remaining": "0",
            "X-RateLimit-Reset-After": f"{retry:.3f}",
            "X-RateLimit-Reset": f"{time.time() + retry:.3f}",
            "X-RateLimit-Bucket": "fake-bucket",
            "X-RateLimit-Scope": "user",
        }
    return json_response(body, status=failure.status, headers=headers)


async def _read_body(request: web.Request) -> tuple[Any, list[dict[str, Any]]]:
    """JSON bodies, and multipart ones (payload_json + files[n]) as discord.py sends files."""
    if not request.can_read_body:
        return None, []
    ctype = request.content_type
    if ctype.startswith("multipart/"):
        body: Any = None
        files: list[dict[str, Any]] = []
        reader = await request.multipart()
        async for part in reader:
            if not isinstance(part, BodyPartReader):  # discord.py nests no multiparts
                continue
            if part.name == "payload_json":
                body = json.loads(await part.text())
            elif part.filename:
                data = bytes(await part.read())
                files.append({"name": part.name, "filename": part.filename, "size": len(data),
                              "data": data})
        return body, files
    raw = await request.read()
    if not raw:
        return None, []
    if ctype == "application/x-www-form-urlencoded":  # OAuth2's token exchange
        return dict(parse_qsl(raw.decode(errors="replace"), keep_blank_values=True)), []
    try:
        return json.loads(raw), []
    except ValueError:
        return raw.decode(errors="replace"), []
