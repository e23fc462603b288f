"""A fake Discord for tests: REST + gateway on loopback, driven by the real discord.py.

See README.md in this folder for the API.
"""

from .calls import Call
from .fake import FakeDiscord
from .interactions import FakeDiscordError, Interaction, Response
from .patch import patch_discord, patch_from_env
from .state import Violation
from .world import FakeChannel, FakeGuild, FakeMessage, FakeRole, FakeUser, World

__all__ = [
    "Call",
    "FakeChannel",
    "FakeDiscord",
    "FakeDiscordError",
    "FakeGuild",
    "FakeMessage",
    "FakeRole",
    "FakeUser",
    "Interaction",
    "Response",
    "Violation",
    "World",
    "patch_discord",
    "patch_from_env",
]
