"""The web table's buttons: Open table (the table message, a DM hand) and Watch.

Offered only where the bot serves a web table (``WEB_PORT``: ``cogs.web_table``).
A click answers ephemerally with a link that only the clicker gets; the link's
token is made for the clicker by the bot, who knows them from the interaction
(and that they see the channel, having clicked in it).

custom_ids (≤ 100 characters):

* ``ct:web:<table>:open`` — the clicker's own seat (a spectator's view if not seated)
* ``ct:web:<table>:watch`` — the public table, live
* ``ct:web:<table>:play`` — Play in Discord: the table as a Discord Activity in the
  channel (answered with ``LAUNCH_ACTIVITY``; offered where Activities are enabled)
"""

from __future__ import annotations

import re
from typing import Any, Protocol, cast

import discord

from bot.ui import answer_guard, custom_ids, replies
from locales import _

WEB_TEMPLATE = r"ct:web:(?P<table>[0-9a-f]{6,16}):(?P<kind>open|watch|play)"


def web_id(table_id: str, kind: str) -> str:
    return custom_ids.checked(f"ct:web:{table_id}:{kind}", WEB_TEMPLATE)


class WebClicks(Protocol):
    """The web table as the bot sees it (``cogs.web_table``)."""

    async def web_click(self, interaction: discord.Interaction, table_id: str,
                        kind: str) -> None: ...

    def replay_url(self, user_id: int, game_id: int) -> str:
        """A single-use link to step through a finished game (all hands face up)."""
        ...


class _ClientWithWeb(Protocol):
    @property
    def croupier(self) -> WebClicks: ...


class WebButton(discord.ui.DynamicItem[discord.ui.Button], template=WEB_TEMPLATE):
    def __init__(self, table_id: str, kind: str):
        if kind == "open":
            # Translators: a button: open the table (your hand, the whole table) in a browser
            label, emoji = _("Open table"), "🌐"
        elif kind == "play":
            # Translators: a button: open the table inside Discord (an Activity in the channel)
            label, emoji = _("Play in Discord"), "🎮"
        else:
            # Translators: a button: follow the table live in a browser, as a spectator
            label, emoji = _("Watch"), "👀"
        super().__init__(discord.ui.Button(
            style=discord.ButtonStyle.secondary, label=label, emoji=emoji,
            custom_id=web_id(table_id, kind)))
        self.table_id, self.kind = table_id, kind

    @classmethod
    async def from_custom_id(cls, interaction: discord.Interaction, item: discord.ui.Item[Any],
                             match: re.Match[str], /) -> WebButton:
        return cls(match["table"], match["kind"])

    async def callback(self, interaction: discord.Interaction) -> None:
        replies.answers_with_new_message(interaction)  # a private link, not an edit
        client = cast(_ClientWithWeb, interaction.client)
        await answer_guard.run_click(interaction, lambda: client.croupier.web_click(
            interaction, self.table_id, self.kind))


def add_web(view: discord.ui.View, table_id: str, kinds: tuple[str, ...]) -> discord.ui.View:
    """The web table's buttons of ``kinds`` (open, watch, play) on a view, where a row has
    room."""
    wanted = [WebButton(table_id, kind) for kind in kinds]
    for button in wanted:
        if _room(view):
            view.add_item(button)
    return view


def _room(view: discord.ui.View) -> bool:
    """Whether one more button fits (5 rows of 5; a select fills its row)."""
    rows: dict[int, int] = {}
    for item in view.children:
        width = 5 if isinstance(item, discord.ui.Select) else 1
        row = item.row if item.row is not None else -1
        rows[row] = rows.get(row, 0) + width
    used = sum(-(-w // 5) for w in rows.values())
    return used < 5 or any(w % 5 for w in rows.values())


def link_view(url: str, label: str) -> discord.ui.View:
    """One link button: the answer to a click (the URL carries the token)."""
    view = discord.ui.View(timeout=None)
    view.add_item(discord.ui.Button(style=discord.ButtonStyle.link, label=label, url=url))
    return view


DYNAMIC_ITEMS: tuple[type[discord.ui.DynamicItem[Any]], ...] = (WebButton,)
