"""The buttons of the features beside the game: Hint, Nudge, Rematch, End series.

They live here with every other component (``bot.ui`` owns every button, menu and
custom_id template); each click is handed to the croupier, reached through the
client, whose features (``bot.features``) answer it. Whether a button is offered
is a rule of the table (``bot.table.hint_rules``, ``bot.table.nudge_rules``).

custom_ids (≤ 100 characters):

* ``ct:hint:<table>:<version>`` — Hint on a player's hand (the hand's step, like its menu)
* ``ct:nudge:<table>`` — Nudge on the table (it acts on the table as it is now)
* ``ct:rematch:<table>`` — Rematch under a finished game's result (the finished table)
* ``ct:endseries:<series>`` — End series under a deal's result (the series' first table)
"""

from __future__ import annotations

import re
from typing import Any, Protocol, cast

import discord

from bot.table.nudge_rules import waiting_for
from bot.table.state import Table
from bot.ui import answer_guard, custom_ids, replies
from locales import _

HINT_TEMPLATE = r"ct:hint:(?P<table>[0-9a-f]{6,16}):(?P<version>\d{1,12})"
NUDGE_TEMPLATE = r"ct:nudge:(?P<table>[0-9a-f]{6,16})"
REMATCH_TEMPLATE = r"ct:rematch:(?P<table>[0-9a-f]{6,16})"
END_TEMPLATE = r"ct:endseries:(?P<series>[0-9a-f]{6,16})"


def hint_id(table_id: str, step: int) -> str:
    return custom_ids.checked(f"ct:hint:{table_id}:{step}", HINT_TEMPLATE)


def nudge_id(table_id: str) -> str:
    return custom_ids.checked(f"ct:nudge:{table_id}", NUDGE_TEMPLATE)


def rematch_id(table_id: str) -> str:
    return custom_ids.checked(f"ct:rematch:{table_id}", REMATCH_TEMPLATE)


def end_series_id(series_id: str) -> str:
    return custom_ids.checked(f"ct:endseries:{series_id}", END_TEMPLATE)


class FeatureClicks(Protocol):
    """What these buttons hand their clicks to (``bot.app.croupier.Croupier``)."""

    async def hint_click(self, interaction: discord.Interaction, table_id: str,
                         step: int) -> None: ...

    async def nudge_click(self, interaction: discord.Interaction, table_id: str) -> None: ...

    async def rematch_click(self, interaction: discord.Interaction, table_id: str) -> None: ...

    async def end_series_click(self, interaction: discord.Interaction,
                               series_id: str) -> None: ...


class _ClientWithFeatures(Protocol):
    @property
    def croupier(self) -> FeatureClicks: ...


def handler_of(interaction: discord.Interaction) -> FeatureClicks:
    # Components are only registered by CardTableBot (bot.app.client), which has a croupier.
    return cast(_ClientWithFeatures, interaction.client).croupier


class HintButton(discord.ui.DynamicItem[discord.ui.Button], template=HINT_TEMPLATE):
    def __init__(self, table_id: str, step: int):
        super().__init__(discord.ui.Button(
            # Translators: a button on a player's hand: ask what the AI would play now
            style=discord.ButtonStyle.secondary, label=_("Hint"), emoji="💡",
            custom_id=hint_id(table_id, step)))
        self.table_id, self.step = table_id, step

    @classmethod
    async def from_custom_id(cls, interaction: discord.Interaction, item: discord.ui.Item[Any],
                             match: re.Match[str], /) -> HintButton:
        return cls(match["table"], int(match["version"]))

    async def callback(self, interaction: discord.Interaction) -> None:
        replies.answers_with_new_message(interaction)  # a new private message, not an edit
        await answer_guard.run_click(interaction, lambda: handler_of(interaction).hint_click(
            interaction, self.table_id, self.step))


class NudgeButton(discord.ui.DynamicItem[discord.ui.Button], template=NUDGE_TEMPLATE):
    def __init__(self, table_id: str):
        super().__init__(discord.ui.Button(
            # Translators: a button on the table: remind the player to act that it is their turn
            style=discord.ButtonStyle.secondary, label=_("Nudge"), emoji="👋",
            custom_id=nudge_id(table_id)))
        self.table_id = table_id

    @classmethod
    async def from_custom_id(cls, interaction: discord.Interaction, item: discord.ui.Item[Any],
                             match: re.Match[str], /) -> NudgeButton:
        return cls(match["table"])

    async def callback(self, interaction: discord.Interaction) -> None:
        replies.answers_with_new_message(interaction)  # a private answer, not an edit
        await answer_guard.run_click(interaction, lambda: handler_of(interaction).nudge_click(
            interaction, self.table_id))


def add_nudge(view: discord.ui.View, table: Table) -> discord.ui.View:
    """The table message's Nudge button (in the current language), while a person is to
    act."""
    if waiting_for(table) is not None:
        view.add_item(NudgeButton(table.table_id))
    return view


class RematchButton(discord.ui.DynamicItem[discord.ui.Button], template=REMATCH_TEMPLATE):
    def __init__(self, table_id: str, started: bool = False):
        # Translators: a button under a game's result: the same players play another game.
        # Once pressed it reads "Rematch started" (and can no longer be pressed).
        label = _("Rematch started") if started else _("Rematch")
        super().__init__(discord.ui.Button(
            style=discord.ButtonStyle.success, label=label, emoji="🔁", disabled=started,
            custom_id=rematch_id(table_id)))
        self.table_id = table_id

    @classmethod
    async def from_custom_id(cls, interaction: discord.Interaction, item: discord.ui.Item[Any],
                             match: re.Match[str], /) -> RematchButton:
        return cls(match["table"])

    async def callback(self, interaction: discord.Interaction) -> None:
        await answer_guard.run_click(interaction, lambda: handler_of(interaction).rematch_click(
            interaction, self.table_id))


def rematch_view(table_id: str, started: bool = False) -> discord.ui.View:
    """The Rematch button under a finished game's result (said in the current language)."""
    view = discord.ui.View(timeout=None)
    view.add_item(RematchButton(table_id, started))
    return view


class EndSeriesButton(discord.ui.DynamicItem[discord.ui.Button], template=END_TEMPLATE):
    def __init__(self, series_id: str):
        # Translators: a button (the host's) under a deal's result: no more deals.
        super().__init__(discord.ui.Button(
            style=discord.ButtonStyle.secondary, label=_("End series"), emoji="⏹️",
            custom_id=end_series_id(series_id)))
        self.series_id = series_id

    @classmethod
    async def from_custom_id(cls, interaction: discord.Interaction, item: discord.ui.Item[Any],
                             match: re.Match[str], /) -> EndSeriesButton:
        return cls(match["series"])

    async def callback(self, interaction: discord.Interaction) -> None:
        await answer_guard.run_click(interaction, lambda: handler_of(interaction).end_series_click(
            interaction, self.series_id))


def end_view(series_id: str) -> discord.ui.View:
    view = discord.ui.View(timeout=None)
    view.add_item(EndSeriesButton(series_id))
    return view


DYNAMIC_ITEMS: tuple[type[discord.ui.DynamicItem[Any]], ...] = (
    HintButton, NudgeButton, RematchButton, EndSeriesButton)
