"""Answering an interaction: once, and never letting a Discord error escape.

Discord takes one response per interaction (within 3 seconds) and follow-ups
after it; these helpers pick the right call for the state the interaction is
in, so the rest of the bot just says what to answer.
"""

from __future__ import annotations

import contextlib
import logging
from typing import Any

import discord

from bot import render

log = logging.getLogger(__name__)

NO_PINGS = discord.AllowedMentions.none()
PINGS = discord.AllowedMentions(everyone=False, roles=False, users=True)
CLOSED = "That table is closed: its game is over or was stopped. Nothing was changed."


async def reply(interaction: discord.Interaction, content: str | None = None, *,
                embed: discord.Embed | None = None, view: discord.ui.View | None = None,
                ephemeral: bool = True) -> None:
    """A new message answering the interaction (or a follow-up once it was deferred)."""
    kwargs: dict[str, Any] = {"content": render.content(content) if content else None,
                              "ephemeral": ephemeral, "allowed_mentions": NO_PINGS}
    if embed is not None:
        kwargs["embed"] = embed
    if view is not None:
        kwargs["view"] = view
    try:
        if interaction.response.is_done():
            await interaction.followup.send(**kwargs)
        else:
            await interaction.response.send_message(**kwargs)
    except discord.HTTPException as error:
        log.warning("cannot answer an interaction: %s", error)


async def update(interaction: discord.Interaction, **kwargs: Any) -> None:
    """Replace the clicked message (DM hand, ephemeral hand, lobby) in the response."""
    try:
        if interaction.response.is_done():
            await interaction.edit_original_response(**kwargs)
        else:
            await interaction.response.edit_message(**kwargs)
    except discord.HTTPException as error:
        log.warning("cannot update the clicked message: %s", error)


def deferrer(interaction: discord.Interaction) -> Any:
    """An ``on_wait`` for ``Steps.hold``: defer the answer while the table is busy."""

    async def defer() -> None:
        if not interaction.response.is_done():
            with contextlib.suppress(discord.HTTPException):
                await interaction.response.defer(ephemeral=True, thinking=True)

    return defer


async def closed(interaction: discord.Interaction) -> None:
    await reply(interaction, CLOSED)
