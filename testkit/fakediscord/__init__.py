"""A fake Discord for tests: REST + gateway on loopback, driven by the real discord.py.

See README.md in this folder for the API.
"""

from .fake import FakeDiscord, Violation
from .interactions import FakeDiscordError, Interaction, Response
from .patch import patch_discord, patch_from_env
from .rest import Call
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
