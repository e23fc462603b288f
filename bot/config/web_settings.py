"""The web table's settings (``web``): off unless ``WEB_PORT`` and ``PUBLIC_URL`` are set.

``PUBLIC_URL`` is the address players' browsers reach (a reverse proxy with TLS, or a
tunnel): links are made with it and the WebSocket accepts only its origin.
``WEB_SECRET`` signs the links and sessions; every process serving the web table of
one bot (the bot itself and any ``python -m web``) must have the same one. One process
alone may leave it empty: a random secret is made at each start (links and sessions
then end with the process).
"""

from __future__ import annotations

import secrets
from collections.abc import Mapping
from dataclasses import dataclass, field
from urllib.parse import urlsplit

from bot.config.settings_errors import SettingsError

DEFAULT_WEB_HOST = "0.0.0.0"


@dataclass(frozen=True)
class WebSettings:
    port: int
    public_url: str  # https://cards.example.org, no trailing slash
    host: str = DEFAULT_WEB_HOST
    secret: bytes = field(default=b"", repr=False)
    made_secret: bool = False  # no WEB_SECRET was set: this one is the process's own

    @property
    def origin(self) -> str:
        parts = urlsplit(self.public_url)
        return f"{parts.scheme}://{parts.netloc}"


def web_settings(env: Mapping[str, str], standalone: bool = False) -> WebSettings | None:
    """The web table's settings, or None when it is off (no ``WEB_PORT``)."""
    port_raw = env.get("WEB_PORT", "").strip()
    if not port_raw:
        if standalone:
            raise SettingsError("python -m web needs WEB_PORT (the port to listen on), "
                                "PUBLIC_URL, WEB_SECRET and DATABASE_URL.")
        return None
    if not port_raw.isdigit() or not 1 <= int(port_raw) <= 65535:
        raise SettingsError(f"WEB_PORT must be a port number from 1 to 65535 (or empty to "
                            f"switch the web table off), not {port_raw!r}.")
    url = env.get("PUBLIC_URL", "").strip().rstrip("/")
    parts = urlsplit(url)
    if parts.scheme not in ("http", "https") or not parts.netloc:
        raise SettingsError("PUBLIC_URL must be the address players' browsers reach the web "
                            "table at, such as https://cards.example.org (WEB_PORT is set).")
    raw_secret = env.get("WEB_SECRET", "").strip()
    if raw_secret and len(raw_secret) < 32:
        raise SettingsError("WEB_SECRET must be at least 32 characters: make one with "
                            "python3 -c 'import secrets; print(secrets.token_urlsafe(32))'.")
    if not raw_secret and standalone:
        raise SettingsError("python -m web needs WEB_SECRET, the same as the bot's, so that "
                            "the links the bot makes open here.")
    secret = (raw_secret or secrets.token_urlsafe(32)).encode()
    return WebSettings(int(port_raw), url, env.get("WEB_HOST", "").strip() or DEFAULT_WEB_HOST,
                       secret, made_secret=not raw_secret)
