"""Signed tokens: the short-lived, single-use link token and the session it buys.

A token is ``<payload>.<signature>``: the payload is compact JSON in base64url, the
signature HMAC-SHA256 over the purpose and the payload with the web table's secret.
Two purposes, never interchangeable: a ``link`` (about five minutes, redeemed once:
``spend`` in the store) and a ``session`` (hours, any web process accepts it: no
sticky sessions). The user id is only ever read from a token the server signed.
"""

from __future__ import annotations

import base64
import binascii
import hashlib
import hmac
import json
import secrets
from dataclasses import dataclass
from typing import Literal

Role = Literal["seat", "watch", "replay"]
ROLES: tuple[Role, ...] = ("seat", "watch", "replay")
LINK_SECONDS = 300.0
SESSION_SECONDS = 12 * 3600.0


class BadToken(Exception):
    """A token that is forged, damaged, expired or of the wrong kind."""


@dataclass(frozen=True)
class Grant:
    """What a token lets its holder do: ``user`` at ``table`` (a table id, or a game
    id for a replay) as ``role``, until ``expires``; ``nonce`` makes each link unique
    (the store spends it once)."""

    user: int
    table: str
    role: Role
    expires: float
    nonce: str
    language: str = "en"


def _b64(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode("ascii")


def _unb64(text: str) -> bytes:
    return base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))


class Signer:
    def __init__(self, secret: bytes):
        if len(secret) < 16:
            raise ValueError("the web table's secret must be at least 16 bytes")
        self._secret = secret

    def _signature(self, purpose: str, payload: str) -> str:
        mac = hmac.new(self._secret, f"{purpose}.{payload}".encode(), hashlib.sha256)
        return _b64(mac.digest())

    def _sign(self, purpose: str, grant: Grant) -> str:
        body = {"u": str(grant.user), "t": grant.table, "r": grant.role,
                "x": round(grant.expires, 3), "n": grant.nonce, "l": grant.language}
        payload = _b64(json.dumps(body, separators=(",", ":")).encode())
        return f"{payload}.{self._signature(purpose, payload)}"

    def link(self, user: int, table: str, role: Role, now: float, language: str = "en",
             seconds: float = LINK_SECONDS) -> str:
        """A new single-use link token."""
        return self._sign("link", Grant(user, table, role, now + seconds,
                                        secrets.token_urlsafe(12), language))

    def session(self, grant: Grant, now: float, seconds: float = SESSION_SECONDS) -> str:
        """The session a redeemed link buys: the same user, table and role."""
        return self._sign("session", Grant(grant.user, grant.table, grant.role,
                                           now + seconds, grant.nonce, grant.language))

    def read_link(self, token: str, now: float) -> Grant:
        return self._read("link", token, now)

    def read_session(self, token: str, now: float) -> Grant:
        return self._read("session", token, now)

    def _read(self, purpose: str, token: str, now: float) -> Grant:
        if not isinstance(token, str) or len(token) > 1000 or token.count(".") != 1:
            raise BadToken("malformed")
        payload, signature = token.split(".")
        if not hmac.compare_digest(signature, self._signature(purpose, payload)):
            raise BadToken("bad signature")
        try:
            body = json.loads(_unb64(payload))
            grant = Grant(int(body["u"]), str(body["t"]), body["r"], float(body["x"]),
                          str(body["n"]), str(body.get("l", "en")))
        except (ValueError, KeyError, TypeError, binascii.Error) as error:
            raise BadToken("malformed") from error
        if grant.role not in ROLES:
            raise BadToken("bad role")
        if grant.expires <= now:
            raise BadToken("expired")
        return grant
