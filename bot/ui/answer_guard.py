"""Every interaction gets an answer within Discord's 3 seconds, whatever happens.

Four guards, each written once:

* ``watch``: started for every interaction the bot receives; if nothing has
  answered it 2.2 s later (a slow database, a busy lock, an AI thinking, a bug),
  it defers, and the handler's answer becomes the follow-up or the edit.
* ``run_click``: what every component callback runs its handler in. While the
  bot shuts down it refuses politely; an exception is logged once, with the
  interaction, user and table, and answered "Something went wrong".
* ``failed``: that answer and that log line (the command tree's ``on_error``
  uses it too).
* ``unknown_component``: a click whose custom_id matches no component the bot
  registered (forged, from an older version of the bot, malformed), or whose
  component its message does not show (discord.py drops those silently), is
  answered "This button is no longer active".
"""

from __future__ import annotations

import asyncio
import logging
import re
from collections.abc import Awaitable, Callable, Iterable
from typing import Any

import discord

import locales
from bot.ui import custom_ids, replies
from engine.text import T

log = logging.getLogger(__name__)

WATCHDOG_AFTER = 2.2  # seconds: leaves 0.8 s of Discord's 3 for the deferral itself
SOMETHING_WRONG = T("Something went wrong; nothing was changed. Please try again.")
NO_LONGER_ACTIVE = T("This button is no longer active. Nothing was changed.")
SHUTTING_DOWN = T("The bot is restarting right now. Please try again in a minute; "
                  "nothing was changed.")


def describe(interaction: discord.Interaction, table_id: str | None = None) -> str:
    """One line naming an interaction for the log: what, who, where, which table."""
    data: dict[str, Any] = dict(interaction.data or {})
    what = (f"component {data.get('custom_id')!r}"
            if interaction.type is discord.InteractionType.component
            else f"command /{interaction.command.qualified_name}" if interaction.command
            else f"{interaction.type.name} {data.get('name', '')}".strip())
    # not for players: a log line
    where = f"guild {interaction.guild_id} channel {interaction.channel_id}" \
        if interaction.guild_id else f"DM {interaction.channel_id}"
    table = f" table {table_id}" if table_id else ""
    # not for players: a log line
    return f"interaction {interaction.id} ({what}) by user {interaction.user.id} in {where}{table}"


async def watch(interaction: discord.Interaction, after: float = WATCHDOG_AFTER) -> None:
    """Defer the interaction if it is still unanswered ``after`` seconds from now."""
    if interaction.type not in (discord.InteractionType.application_command,
                                discord.InteractionType.component,
                                discord.InteractionType.modal_submit):
        return  # autocomplete and pings have answers of their own
    await asyncio.sleep(after)
    if not replies.is_answered(interaction) and await replies.defer(interaction):
        log.warning("%s not answered after %.1f s: deferred", describe(interaction), after)


_early: set[asyncio.Task[bool]] = set()  # deferrals under way (a task needs an owner)


def answer_within(interaction: discord.Interaction, seconds: float) -> None:
    """Defer the interaction, quietly, if it is still unanswered ``seconds`` from now: for
    a command whose answer waits on work a crowd of such commands queues (a burst of
    ``/start``s each storing and posting a table). Alone, it answers directly; in a crowd,
    "thinking…" comes at once and the answer follows. (``watch``'s 2.2 s is for trouble.)"""
    def due() -> None:
        if not replies.is_answered(interaction):
            task = asyncio.get_running_loop().create_task(replies.defer(interaction))
            _early.add(task)
            task.add_done_callback(_early.discard)

    asyncio.get_running_loop().call_later(seconds, due)


def custom_id_of(interaction: discord.Interaction) -> str:
    data: dict[str, Any] = dict(interaction.data or {})
    return str(data.get("custom_id", ""))


def _table_of(interaction: discord.Interaction) -> str | None:
    parsed = custom_ids.parse(custom_id_of(interaction))
    return parsed.table_id if parsed is not None else None


async def failed(interaction: discord.Interaction, error: BaseException,
                 table_id: str | None = None) -> None:
    """Log the failure once (with its traceback) and tell the user, privately — unless the
    click's step was already saved: then its answer (or a silent deferral) stands, since
    "nothing was changed" would be untrue."""
    log.error("%s failed", describe(interaction, table_id or _table_of(interaction)),
              exc_info=(type(error), error, error.__traceback__))
    metrics = getattr(interaction.client, "metrics", None)
    if metrics is not None:
        metrics.count_error()
    if replies.saved_a_step(interaction):
        await replies.defer(interaction)  # (nothing if it was answered already)
        return
    await replies.reply(interaction, locales.say(SOMETHING_WRONG))


def speak_to(interaction: discord.Interaction) -> None:
    """From now on the interaction's task speaks its user's language (and the bot
    remembers it for the DMs it sends them)."""
    readers = getattr(interaction.client, "readers", None)
    if readers is not None:
        readers.heard(interaction)
    else:
        locales.use(locales.language_of(interaction.locale))


def shutting_down(interaction: discord.Interaction) -> bool:
    return bool(getattr(interaction.client, "closing", False))


async def run_click(interaction: discord.Interaction,
                    handler: Callable[[], Awaitable[None]]) -> None:
    """Run a component's handler: refused while shutting down, never left unanswered."""
    speak_to(interaction)
    if shutting_down(interaction):
        await replies.reply(interaction, locales.say(SHUTTING_DOWN))
        return
    try:
        await handler()
    except Exception as error:
        await failed(interaction, error)
        return
    if not replies.is_answered(interaction):
        log.warning("%s: the handler gave no answer", describe(interaction))
        await replies.defer(interaction)


class ComponentPatterns:
    """The custom_id templates of every component the bot registered."""

    def __init__(self) -> None:
        self._patterns: dict[type[Any], re.Pattern[str]] = {}

    def add(self, items: Iterable[type[discord.ui.DynamicItem[Any]]]) -> None:
        for item in items:
            self._patterns[item] = item.__discord_ui_compiled_template__

    def remove(self, items: Iterable[type[discord.ui.DynamicItem[Any]]]) -> None:
        for item in items:
            self._patterns.pop(item, None)

    def known(self, custom_id: str) -> bool:
        return any(p.fullmatch(custom_id) for p in self._patterns.values())


def _on_message(interaction: discord.Interaction, custom_id: str) -> bool:
    """Whether the clicked message shows this component: discord.py drops a click whose
    component is not on its message without a word (a forged or replayed click)."""
    message = interaction.message
    if message is None:
        return False
    data: dict[str, Any] = dict(interaction.data or {})
    kind = data.get("component_type")
    view_cls = discord.ui.LayoutView if message.flags.components_v2 else discord.ui.View
    view = view_cls.from_message(message, timeout=None)
    return any(item.type.value == kind and getattr(item, "custom_id", None) == custom_id
               for item in view.walk_children())


async def unknown_component(interaction: discord.Interaction,
                            patterns: ComponentPatterns) -> bool:
    """Answer a click no registered component will take; True if it was one."""
    if interaction.type is not discord.InteractionType.component:
        return False
    custom_id = custom_id_of(interaction)
    if patterns.known(custom_id) and _on_message(interaction, custom_id):
        return False
    log.info("%s: no component takes it", describe(interaction))
    await replies.reply(interaction, locales.say(NO_LONGER_ACTIVE))
    return True
