"""Pushing the slash commands to Discord, only when the command tree changed.

Discord rate-limits syncs, so the tree's hash is kept in storage's meta per
target (a dev guild, or global) and a start-up with the same tree syncs nothing.
The dev guild synced last is remembered too: once ``DEV_GUILD_ID`` is unset (or
names another server) its commands are cleared, or they would show twice there,
beside the global ones.

The global commands may hold one the bot never sent: the **Entry Point command** (type
4, PRIMARY_ENTRY_POINT) that Discord makes when the application's Activity is switched
on, the one that launches it. discord.py knows nothing of it, and Discord refuses a bulk
overwrite that leaves it out (400, code 50240), so the global sync reads the
application's commands first and sends ours with any Entry Point command as it is.
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
DEV_GUILD_KEY = "command_dev_guild"  # the dev guild whose commands were synced
FORGOTTEN = ""  # storage has no delete: an empty value is no value
PRIMARY_ENTRY_POINT = 4  # the command type of an Activity's Entry Point (Discord's own)
READ_ONLY = frozenset({"application_id", "version", "guild_id"})  # Discord's, not ours to send


class CommandSyncRefused(Exception):
    """Discord refused the commands of the dev guild: the bot was invited there without
    the applications.commands scope, or is not in that server."""

    def __init__(self, guild_id: int):
        super().__init__(f"Discord refused the slash commands of guild {guild_id}")
        self.guild_id = guild_id


async def tree_payload(tree: app_commands.CommandTree[Any],
                       guild: discord.abc.Snowflake | None) -> list[dict[str, Any]]:
    """What a sync would send, translations included (a new translation syncs again)."""
    commands_ = tree.get_commands(guild=guild) if guild else tree.get_commands()
    translator = tree.translator
    payload = ([await c.get_translated_payload(tree, translator) for c in commands_]
               if translator is not None else [c.to_dict(tree) for c in commands_])
    return sorted(payload, key=lambda c: c["name"])


def hash_key(guild: discord.abc.Snowflake | None) -> str:
    return f"{TREE_HASH_KEY}:{guild.id if guild else 'global'}"


async def sync_if_changed(tree: app_commands.CommandTree[Any], store: Store,
                          dev_guild_id: int | None) -> bool:
    """Sync only when the tree differs from the last synced one; True if it synced."""
    cleared = await clear_former_dev_guild(tree, store, dev_guild_id)
    guild = discord.Object(dev_guild_id) if dev_guild_id else None
    if guild is not None:
        tree.copy_global_to(guild=guild)
        await remember_dev_guild(store, guild.id)
    digest = hashlib.sha256(json.dumps(await tree_payload(tree, guild), sort_keys=True,
                                       default=str).encode()).hexdigest()
    key = hash_key(guild)
    if await store.get_meta(key) == digest:
        log.info("slash commands unchanged: not syncing")
        return cleared
    try:
        if guild is None:
            await sync_global(tree)
        else:
            await tree.sync(guild=guild)
    except discord.Forbidden as error:
        if guild is None:
            raise
        raise CommandSyncRefused(guild.id) from error
    await store.set_meta(key, digest)
    log.info("slash commands synced (%s)", f"guild {guild.id}" if guild else "global")
    return True


async def sync_global(tree: app_commands.CommandTree[Any]) -> None:
    """``tree.sync()`` of the global commands, keeping the application's Entry Point
    command: sent back unchanged beside ours (a bulk overwrite without it is refused)."""
    client = tree.client
    if client.application_id is None:
        raise app_commands.MissingApplicationID
    existing = await client.http.get_global_commands(client.application_id)
    kept = [{key: value for key, value in command.items() if key not in READ_ONLY}
            for command in existing if command.get("type") == PRIMARY_ENTRY_POINT]
    if not kept:
        await tree.sync()
        return
    payload = [*await tree_payload(tree, None), *kept]
    try:
        await client.http.bulk_upsert_global_commands(client.application_id, payload=payload)
    except discord.HTTPException as error:
        if error.status == 400 and error.code == 50035:  # as tree.sync() tells it
            raise app_commands.CommandSyncFailure(error, tree.get_commands()) from None
        raise
    log.info("the Activity's Entry Point command %r kept", kept[0].get("name"))


async def remember_dev_guild(store: Store, guild_id: int) -> None:
    # Every start with DEV_GUILD_ID, not only on a sync: a database from before this key
    # may hold that guild's hash already.
    if await store.get_meta(DEV_GUILD_KEY) != str(guild_id):
        await store.set_meta(DEV_GUILD_KEY, str(guild_id))


async def clear_former_dev_guild(tree: app_commands.CommandTree[Any], store: Store,
                                 dev_guild_id: int | None) -> bool:
    """Empty the commands of the dev guild synced before, unless it is the dev guild
    still; True if Discord took it. A server the bot is no longer in is forgotten."""
    remembered = await store.get_meta(DEV_GUILD_KEY) or FORGOTTEN
    if not remembered.isdigit() or int(remembered) == dev_guild_id:
        return False
    former = discord.Object(int(remembered))
    tree.clear_commands(guild=former)
    cleared = True
    try:
        await tree.sync(guild=former)
        log.info("slash commands of the former dev server %s cleared", former.id)
    except (discord.Forbidden, discord.NotFound) as error:
        log.warning("cannot clear the slash commands of the former dev server %s (%s %s): "
                    "the bot is no longer there; forgetting it", former.id, error.status,
                    error.text or "")
        cleared = False
    await store.set_meta(DEV_GUILD_KEY, FORGOTTEN)
    await store.set_meta(hash_key(former), FORGOTTEN)  # a later dev start syncs it again
    return cleared
