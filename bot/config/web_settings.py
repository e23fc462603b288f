"""The web table's settings (``web``): off unless ``WEB_PORT`` and ``PUBLIC_URL`` are set.

``PUBLIC_URL`` is the address players' browsers reach (a reverse proxy with TLS, or a
tunnel): links are made with it and the WebSocket accepts only its origin.
``WEB_SECRET`` signs the links and sessions; every process serving the web table of
one bot (the bot itself and any ``python -m web``) must have the same one. One process
alone may leave it empty: a random secret is made at each start (links and sessions
then end with the process).

The Discord Activity (``ACTIVITY``, off by default) is the same web table embedded in
Discord: it needs the web table on, the application's ``DISCORD_CLIENT_ID`` and its
OAuth2 ``DISCORD_CLIENT_SECRET`` (to exchange the code the Activity's page gets for the
user's token: never sent to a browser, never logged). ``DISCORD_API`` is Discord's API
base (tests point it at the fake Discord).
"""

from __future__ import annotations

import secrets
from collections.abc import Mapping
from dataclasses import dataclass, field
from urllib.parse import urlsplit

from bot.config.settings_errors import SettingsError

DEFAULT_WEB_HOST = "0.0.0.0"
DEFAULT_DISCORD_API = "https://discord.com/api/v10"
ON = frozenset({"1", "on", "true", "yes"})
OFF = frozenset({"", "0", "off", "false", "no"})


@dataclass(frozen=True)
class WebSettings:
    port: int
    public_url: str  # https://cards.example.org, no trailing slash
    host: str = DEFAULT_WEB_HOST
    secret: bytes = field(default=b"", repr=False)
    made_secret: bool = False  # no WEB_SECRET was set: this one is the process's own
    activity: bool = False  # served as a Discord Activity too (web.activity)
    client_id: str = ""  # the application's id (its OAuth2 client id), with the Activity
    client_secret: str = field(default="", repr=False)  # OAuth2: never to a browser or a log
    discord_api: str = DEFAULT_DISCORD_API  # Discord's API base, no trailing slash

    @property
    def origin(self) -> str:
        parts = urlsplit(self.public_url)
        return f"{parts.scheme}://{parts.netloc}"


def web_settings(env: Mapping[str, str], standalone: bool = False) -> WebSettings | None:
    """The web table's settings, or None when it is off (no ``WEB_PORT``)."""
    port_raw = env.get("WEB_PORT", "").strip()
    activity = _activity_on(env)
    if not port_raw and activity:
        raise SettingsError("ACTIVITY=on needs the web table: set WEB_PORT and PUBLIC_URL "
                            "too (the Activity is the web table inside Discord).")
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
    client_id, client_secret, api = _activity_settings(env) if activity else ("", "", "")
    return WebSettings(int(port_raw), url, env.get("WEB_HOST", "").strip() or DEFAULT_WEB_HOST,
                       secret, made_secret=not raw_secret, activity=activity,
                       client_id=client_id, client_secret=client_secret,
                       discord_api=api or DEFAULT_DISCORD_API)


def _activity_on(env: Mapping[str, str]) -> bool:
    raw = env.get("ACTIVITY", "")
    text = raw.strip().lower()
    if text in ON:
        return True
    if text in OFF:
        return False
    raise SettingsError(f"ACTIVITY must be on or off (or empty for off), not {raw!r}.")


def _activity_settings(env: Mapping[str, str]) -> tuple[str, str, str]:
    """``DISCORD_CLIENT_ID``, ``DISCORD_CLIENT_SECRET`` and ``DISCORD_API`` of an
    Activity; the secret is never repeated in an error."""
    client_id = env.get("DISCORD_CLIENT_ID", "").strip()
    if not client_id:
        raise SettingsError("ACTIVITY=on needs DISCORD_CLIENT_ID: the application's id "
                            "(Developer Portal, General Information, Application ID).")
    if not client_id.isdigit() or not 17 <= len(client_id) <= 20:
        raise SettingsError(f"DISCORD_CLIENT_ID must be the application's id, a number of "
                            f"17 to 20 digits, not {client_id!r}.")
    client_secret = env.get("DISCORD_CLIENT_SECRET", "").strip()
    if not client_secret:
        raise SettingsError("ACTIVITY=on needs DISCORD_CLIENT_SECRET: the application's "
                            "client secret (Developer Portal, OAuth2, Client Secret).")
    api = env.get("DISCORD_API", "").strip().rstrip("/") or DEFAULT_DISCORD_API
    parts = urlsplit(api)
    if parts.scheme not in ("http", "https") or not parts.netloc:
        raise SettingsError(f"DISCORD_API must be the address of Discord's API, such as "
                            f"{DEFAULT_DISCORD_API} (or empty for it), not {api!r}.")
    return client_id, client_secret, api
