"""The host's controls in the lobby, as Discord shows them: Options, remove a player.

The lobby message carries them beside its buttons (``add_to_lobby``): an
**Options** button, which answers the host privately with one menu per option of
the game (``options_panel``), and a menu of the players seated besides the host
(people and AI seats) to remove one. The clicks are answered by
``bot.actions.host_controls``.

custom_ids (≤ 100 characters; each matched by one ``DynamicItem`` below):

* ``ct:host-options:<table>:<version>`` — the Options button on the lobby
* ``ct:host-remove:<table>:<version>`` — the menu of players to remove (values: user ids)
* ``ct:host-set:<table>:<version>:<option>`` — one option's menu, in the private
  answer (values: ``on``/``off``, a number, a choice's code)
"""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Sequence
from typing import Any, Protocol, cast

import discord

from bot.table.state import Table
from bot.ui import answer_guard, custom_ids, markup, replies
from bot.ui.game_ui import GameUI, option_line
from engine.core import option_label
from locales import _, say

_TABLE = r"(?P<table>[0-9a-f]{6,16})"
_VERSION = r"(?P<version>\d{1,12})"
OPTIONS_TEMPLATE = rf"ct:host-options:{_TABLE}:{_VERSION}"
REMOVE_TEMPLATE = rf"ct:host-remove:{_TABLE}:{_VERSION}"
SET_TEMPLATE = rf"ct:host-set:{_TABLE}:{_VERSION}:(?P<option>[a-z][a-z0-9_]{{0,39}})"
MAX_LENGTH = 100
SELECT_OPTIONS = 25
MENUS = 5  # one option a row: a message holds five rows
HOST_ROW, REMOVE_ROW = 1, 2  # the lobby's rows: beside the AI buttons, then its own

ON, OFF = "on", "off"


def menu_values(f: dataclasses.Field, current: Any) -> list[Any]:
    """The values an option's menu offers: both for a switch, every choice, and for a
    number its suggested values within its bounds, with its default and current value."""
    if isinstance(f.default, bool):
        return [False, True]
    if isinstance(f.default, str):
        return list(f.metadata.get("choices") or (f.default,))
    low, high = f.metadata.get("minimum"), f.metadata.get("maximum")
    numbers = {v for v in f.metadata.get("suggested") or ()
               if (low is None or v >= low) and (high is None or v <= high)}
    return sorted(numbers | {f.default, current})[:SELECT_OPTIONS]


def encode(value: Any) -> str:
    if isinstance(value, bool):
        return ON if value else OFF
    return str(value)


class _HostHandler(Protocol):
    async def host_click(self, interaction: discord.Interaction, table_id: str, step: int,
                         kind: str, option: str, values: Sequence[str]) -> None: ...


class _ClientWithHost(Protocol):
    @property
    def croupier(self) -> _HostHandler: ...


def _handler(interaction: discord.Interaction) -> _HostHandler:
    # Components are only registered by CardTableBot (bot.app.client), which has a croupier.
    return cast(_ClientWithHost, interaction.client).croupier


class OptionsButton(discord.ui.DynamicItem[discord.ui.Button], template=OPTIONS_TEMPLATE):
    def __init__(self, table_id: str, step: int):
        super().__init__(discord.ui.Button(
            # Translators: a lobby button (the host's): change the game's options
            style=discord.ButtonStyle.secondary, label=_("Options"), emoji="⚙️",
            row=HOST_ROW, custom_id=custom_ids.checked(f"ct:host-options:{table_id}:{step}",
                                             OPTIONS_TEMPLATE)))
        self.table_id, self.step = table_id, step

    @classmethod
    async def from_custom_id(cls, interaction: discord.Interaction, item: discord.ui.Item[Any],
                             match: re.Match[str], /) -> OptionsButton:
        return cls(match["table"], int(match["version"]))

    async def callback(self, interaction: discord.Interaction) -> None:
        replies.answers_with_new_message(interaction)  # answered by a private message
        await answer_guard.run_click(interaction, lambda: _handler(interaction).host_click(
            interaction, self.table_id, self.step, "options", "", ()))


class RemoveSelect(discord.ui.DynamicItem[discord.ui.Select], template=REMOVE_TEMPLATE):
    def __init__(self, table_id: str, step: int,
                 options: Sequence[discord.SelectOption] = ()):
        super().__init__(discord.ui.Select(
            custom_id=custom_ids.checked(f"ct:host-remove:{table_id}:{step}", REMOVE_TEMPLATE),
            # Translators: the lobby's menu (the host's) of the players to remove
            placeholder=_("Remove a player…"), row=REMOVE_ROW, min_values=1, max_values=1,
            options=list(options) or [discord.SelectOption(label="—", value="none")]))
        self.table_id, self.step = table_id, step

    @classmethod
    async def from_custom_id(cls, interaction: discord.Interaction, item: discord.ui.Item[Any],
                             match: re.Match[str], /) -> RemoveSelect:
        options = item.options if isinstance(item, discord.ui.Select) else []
        return cls(match["table"], int(match["version"]), options)

    async def callback(self, interaction: discord.Interaction) -> None:
        values = list(self.item.values)
        await answer_guard.run_click(interaction, lambda: _handler(interaction).host_click(
            interaction, self.table_id, self.step, "remove", "", values))


class OptionSelect(discord.ui.DynamicItem[discord.ui.Select], template=SET_TEMPLATE):
    def __init__(self, table_id: str, step: int, option: str,
                 options: Sequence[discord.SelectOption] = (), placeholder: str | None = None):
        super().__init__(discord.ui.Select(
            custom_id=custom_ids.checked(f"ct:host-set:{table_id}:{step}:{option}", SET_TEMPLATE),
            placeholder=placeholder, min_values=1, max_values=1,
            options=list(options) or [discord.SelectOption(label="—", value="none")]))
        self.table_id, self.step, self.option = table_id, step, option

    @classmethod
    async def from_custom_id(cls, interaction: discord.Interaction, item: discord.ui.Item[Any],
                             match: re.Match[str], /) -> OptionSelect:
        options = item.options if isinstance(item, discord.ui.Select) else []
        return cls(match["table"], int(match["version"]), match["option"], options)

    async def callback(self, interaction: discord.Interaction) -> None:
        values = list(self.item.values)
        await answer_guard.run_click(interaction, lambda: _handler(interaction).host_click(
            interaction, self.table_id, self.step, "set", self.option, values))


DYNAMIC_ITEMS: tuple[type[discord.ui.DynamicItem[Any]], ...] = (
    OptionsButton, RemoveSelect, OptionSelect)


def add_to_lobby(view: discord.ui.View, table: Table) -> discord.ui.View:
    """The host's controls on the public lobby (in the current language): the Options
    button beside the AI buttons and, while anyone besides the host is seated, the
    menu of players to remove in a row of its own."""
    view.add_item(OptionsButton(table.table_id, table.step))
    others = [s for s in table.seats if s.user_id != table.host_id][:SELECT_OPTIONS]
    if others:
        # (an AI seat's name has its 🤖 already)
        choices = [discord.SelectOption(label=markup.clip(s.shown, 100), value=str(s.user_id))
                   for s in others]
        view.add_item(RemoveSelect(table.table_id, table.step, choices))
    return view


def options_view(table: Table) -> discord.ui.View:
    """The host's private menus, one per option of the game, each showing its value."""
    view = discord.ui.View(timeout=None)
    current = table.options.to_dict()
    for f in dataclasses.fields(table.options)[:MENUS]:
        now = current[f.name]
        choices = [discord.SelectOption(
            label=markup.clip(option_line(f, value), 100), value=encode(value),
            # Translators: under a value in an option's menu: the value the rules start with
            description=_("the rules' default") if value == f.default else None,
            default=value == now) for value in menu_values(f, now)]
        view.add_item(OptionSelect(table.table_id, table.step, f.name, choices,
                                   placeholder=markup.clip(say(option_label(f)), 150)))
    return view


def options_panel(table: Table, ui: GameUI, note: str | None = None) -> dict[str, Any]:
    """The host's private answer: what the menus do (and what just changed), the menus."""
    # Translators: above the host's private menus of options, in the lobby
    head = _("The options of your {game} table: each change shows in the lobby at once, "
             "and everyone sees it before the start.", game=ui.title)
    return {"content": f"{note}\n{head}" if note else head, "view": options_view(table)}


