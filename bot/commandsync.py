"""Pushing the slash commands to Discord, only when the command tree changed.

Discord rate-limits syncs, so the tree's hash is kept in storage's meta per
target (a dev guild, or global) and a start-up with the same tree syncs nothing.
"""

from __future__ import annotations

import hashlib
import json
import logging
from typing import Any

import discord
from discord import app_commands

from bot.storage import Store

log = logging.getLogger(__name__)

TREE_HASH_KEY = "command_tree_hash"


def tree_payload(tree: app_commands.CommandTree[Any],
                 guild: discord.abc.Snowflake | None) -> list[dict[str, Any]]:
    commands_ = tree.get_commands(guild=guild) if guild else tree.get_commands()
    return sorted((c.to_dict(tree) for c in commands_), key=lambda c: c["name"])


async def sync_if_changed(tree: app_commands.CommandTree[Any], store: Store,
                          dev_guild_id: int | None) -> bool:
    """Sync only when the tree differs from the last synced one; True if it synced."""
    guild = discord.Object(dev_guild_id) if dev_guild_id else None
    if guild is not None:
        tree.copy_global_to(guild=guild)
    digest = hashlib.sha256(json.dumps(tree_payload(tree, guild), sort_keys=True,
                                       default=str).encode()).hexdigest()
    key = f"{TREE_HASH_KEY}:{guild.id if guild else 'global'}"
    if await store.get_meta(key) == digest:
        log.info("slash commands unchanged: not syncing")
        return False
    await tree.sync(guild=guild)
    await store.set_meta(key, digest)
    log.info("slash commands synced (%s)", f"guild {guild.id}" if guild else "global")
    return True
