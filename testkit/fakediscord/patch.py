"""Point discord.py at a fake Discord, in this process or in a subprocess.

In a subprocess, run `python -m testkit.fakediscord.run bot` with `fake.subprocess_env()`:
the runner calls `patch_from_env()` and then runs the module as __main__.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from typing import Any

import yarl

ENV_URL = "FAKEDISCORD_URL"
API_PREFIX = "/api/v10"
# discord.py waits guild_ready_timeout (2 s) after the last GUILD_CREATE before READY;
# on loopback every GUILD_CREATE follows READY within milliseconds.
FAST_GUILD_READY = 0.1


def gateway_url_for(base_url: str) -> str:
    return str(yarl.URL(base_url).with_scheme("ws").with_path("/gateway"))


def patch_discord(base_url: str) -> Callable[[], None]:
    """Patch Route.BASE, the default gateway and the READY delay; returns the undo."""
    from discord import gateway, http, state

    old_base = http.Route.BASE
    old_gateway = gateway.DiscordWebSocket.DEFAULT_GATEWAY
    old_init = state.ConnectionState.__init__

    def fast_init(self: Any, *args: Any, **kwargs: Any) -> None:
        old_init(self, *args, **kwargs)
        self.guild_ready_timeout = min(self.guild_ready_timeout, FAST_GUILD_READY)

    http.Route.BASE = base_url.rstrip("/") + API_PREFIX
    gateway.DiscordWebSocket.DEFAULT_GATEWAY = yarl.URL(gateway_url_for(base_url))
    state.ConnectionState.__init__ = fast_init  # type: ignore[method-assign]

    def restore() -> None:
        http.Route.BASE = old_base
        gateway.DiscordWebSocket.DEFAULT_GATEWAY = old_gateway
        state.ConnectionState.__init__ = old_init  # type: ignore[method-assign]

    return restore


def patch_from_env() -> Callable[[], None] | None:
    """Patch if FAKEDISCORD_URL is set (what `python -m testkit.fakediscord.run` does)."""
    url = os.environ.get(ENV_URL)
    return patch_discord(url) if url else None
