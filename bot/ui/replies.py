"""Answering an interaction: once, in time, and never letting a Discord error escape.

Discord takes one response per interaction (within 3 seconds) and follow-ups
after it. Every answer the bot gives goes through these helpers, which pick the
right call for the state the interaction is in and take the interaction's own
lock while they do, so the watchdog (``bot.ui.answer_guard``) deferring at 2.2 s and a
handler answering at the same moment can never both send a first response.

A component is deferred silently (type 6: the clicked message can still be
edited afterwards, so a lobby redraw still lands on the lobby); a slash command
is deferred with a private "thinking…" that its first follow-up replaces.

An answer is in the current language, its reader's (``locales``): a ``Text``
given as its content (a refusal, a constant such as ``CLOSED``) is said in it, the
names people typed in it escaped (``markup.say_safe``); a ``str`` is taken as drawn.
"""

from __future__ import annotations

import asyncio
import logging
from typing import Any

import discord

from bot.ui import markup
from bot.ui.attachments import Picture, for_edit, for_send
from bot.ui.poster import TROUBLE
from engine.text import T, Text
from locales import say

log = logging.getLogger(__name__)

NO_PINGS = discord.AllowedMentions.none()
PINGS = discord.AllowedMentions(everyone=False, roles=False, users=True)
CLOSED = T("That table is closed: its game is over or was stopped. Nothing was changed.")

_LOCK = "cardtable.answer_lock"
_THINKING = "cardtable.thinking"  # deferred with a private "thinking…" (slash commands)
_NEW_MESSAGE = "cardtable.new_message"  # a click answered by a new message, not an edit
_PUBLIC = "cardtable.public"  # a command whose answer the channel sees
_SAVED = "cardtable.saved"  # the click's step was saved: no answer may say "nothing changed"


def _lock(interaction: discord.Interaction) -> asyncio.Lock:
    lock = interaction.extras.get(_LOCK)
    if lock is None:
        lock = interaction.extras[_LOCK] = asyncio.Lock()
    return lock


def _answered(interaction: discord.Interaction) -> None:
    """A first response was made: its latency (from the interaction's creation, as its
    snowflake says) goes to the metrics, if the bot keeps them."""
    metrics = getattr(interaction.client, "metrics", None)
    if metrics is not None:
        metrics.observe_answer((discord.utils.utcnow() - interaction.created_at)
                               .total_seconds())


async def reply(interaction: discord.Interaction, content: str | None = None, *,
                embed: discord.Embed | None = None, view: discord.ui.View | None = None,
                file: discord.File | None = None, picture: Picture | None = None,
                ephemeral: bool = True) -> None:
    """A new message answering the interaction (or a follow-up once it was answered);
    a ``Text`` content is said in the current language."""
    kwargs: dict[str, Any] = {"content": markup.content(markup.say_safe(content))
                              if content else None,
                              "ephemeral": ephemeral, "allowed_mentions": NO_PINGS}
    for name, value in (("embed", embed), ("view", view), ("file", file)):
        if value is not None:
            kwargs[name] = value
    kwargs = for_send({**kwargs, "picture": picture})
    async with _lock(interaction):
        try:
            if not interaction.response.is_done():
                await interaction.response.send_message(**kwargs)
                _answered(interaction)
            elif interaction.extras.get(_THINKING) and not ephemeral:
                # The private "thinking…" can only become a private message: say it
                # there, and say it to the channel in a follow-up of its own.
                interaction.extras[_THINKING] = False
                await interaction.edit_original_response(
                    content=kwargs["content"], embed=embed, allowed_mentions=NO_PINGS)
                await interaction.followup.send(**kwargs)
            else:
                interaction.extras[_THINKING] = False
                await interaction.followup.send(**kwargs)
        except TROUBLE as error:
            log.warning("cannot answer an interaction: %s", error)


async def update(interaction: discord.Interaction, **kwargs: Any) -> None:
    """Replace the clicked message (DM hand, ephemeral hand, lobby) in the response."""
    if isinstance(kwargs.get("content"), Text):
        kwargs["content"] = markup.say_safe(kwargs["content"])
    kwargs = for_edit(kwargs)
    async with _lock(interaction):
        try:
            if interaction.response.is_done():
                await interaction.edit_original_response(**kwargs)
            else:
                await interaction.response.edit_message(**kwargs)
                _answered(interaction)
        except TROUBLE as error:
            log.warning("cannot update the clicked message: %s", error)


def answers_with_new_message(interaction: discord.Interaction) -> None:
    """This click is answered with a new message (My hand), not by editing the clicked
    one: a deferral then shows "thinking…", which the answer replaces."""
    interaction.extras[_NEW_MESSAGE] = True


def answers_publicly(interaction: discord.Interaction) -> None:
    """This command's answer is for the channel (a leaderboard): a deferral then shows a
    public "thinking…", which the answer replaces."""
    interaction.extras[_PUBLIC] = True


async def defer(interaction: discord.Interaction) -> bool:
    """Hold the answer open (Discord then allows 15 minutes); False if already answered."""
    async with _lock(interaction):
        if interaction.response.is_done():
            return False
        try:
            if (interaction.type is discord.InteractionType.component
                    and not interaction.extras.get(_NEW_MESSAGE)):
                await interaction.response.defer()  # type 6: nothing shown, message editable
            elif interaction.extras.get(_PUBLIC):
                await interaction.response.defer(thinking=True)
            else:
                await interaction.response.defer(ephemeral=True, thinking=True)
                interaction.extras[_THINKING] = True
        except TROUBLE as error:
            log.warning("cannot defer an interaction: %s", error)
            return False
        _answered(interaction)
        return True


def deferrer(interaction: discord.Interaction) -> Any:
    """An ``on_wait`` for ``Steps.hold``: defer the answer while the table is busy."""

    async def on_wait() -> None:
        await defer(interaction)

    return on_wait


def step_saved(interaction: discord.Interaction) -> None:
    """The click's step is saved: whatever fails from here on, something did change."""
    interaction.extras[_SAVED] = True


def saved_a_step(interaction: discord.Interaction) -> bool:
    return bool(interaction.extras.get(_SAVED))


def is_answered(interaction: discord.Interaction) -> bool:
    return interaction.response.is_done()


async def closed(interaction: discord.Interaction) -> None:
    await reply(interaction, say(CLOSED))
