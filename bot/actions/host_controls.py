"""The host's controls in the lobby: remove a player, change the options.

The lobby message carries them beside its buttons (``add_to_lobby``): an
**Options** button, which answers the host privately with one menu per option of
the game, and a menu of the players seated besides the host (people and AI
seats) to remove one. Anyone may click them: only the host's choice acts, anyone
else is refused politely and privately, and nothing changes.

Each change is one step (``bot.table.step``): checked on the locked table, saved once,
put back if the save fails. It bumps the lobby's step, so a Start drawn before it
is refused ("the lobby just changed"), adds a line to the lobby's events (the
channel sees who was removed, which option changed) and redraws the public lobby.
An option is validated as the start command validates it (the engine's
``Options.from_dict``: types, choices, bounds), and must still fit the players
seated (``Game.player_range``: Norwegian Jazz seats at most 5).

**Decision:** the private options menus act at any step of the lobby: each sets
one value outright and is checked against the table as it is now, so a player
joining meanwhile does not make the host open the menu again. The remove menu is
on the public lobby, which is redrawn at every change: a click on an older
drawing of it is refused, like Start.

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
from typing import TYPE_CHECKING, Any, Protocol, cast

import discord

from bot.table.state import LOBBY, MAX_EVENTS, Table, TableError, refusal_text
from bot.table.timers import Clock
from bot.ui import answers, custom_ids, markup, replies
from bot.ui.game_ui import GameUI, option_line
from engine.core import OptionError, choice_label, option_label
from engine.text import TN, T, Text
from locales import _, say

if TYPE_CHECKING:  # wired by the croupier; imported for the types only (no cycle)
    from bot.actions.clicks import Clicks
    from bot.table.step import Steps
    from bot.table.timers import TableTimers


class LobbyBoard(Protocol):
    """What the host controls need of the table message (``bot.ui.board.Board``; named by
    its shape, since the board draws this module's components)."""

    def message(self, table: Table) -> dict[str, Any]: ...

    async def edit(self, table: Table) -> None: ...


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
# Translators: an option's value: switched on, switched off (as in "Blind card: on").
ON_TEXT, OFF_TEXT = T("on"), T("off")
NOT_A_VALUE = T("That is not a value of this option.")
STALE = T("The lobby just changed: check who is seated and choose again.")


# ------------------------------------------------------------------------- the rules


def _require_host(table: Table, user_id: int, refusal: Text) -> None:
    table._require_lobby()  # the table's own lobby rule: started or closed is refused
    if user_id != table.host_id:
        raise TableError(refusal)


def remove_player(table: Table, host_id: int, user_id: int, now: float) -> None:
    """The host removes a seated player (a person or an AI seat) before the start."""
    _require_host(table, host_id, T("Only the host, {host}, can remove players.",
                                    host=table.host_name))
    if user_id == host_id:
        raise TableError(T("You cannot remove yourself: press Leave instead."))
    index = table.seat_of(user_id)
    if index is None:
        raise TableError(T("That player is no longer seated at this table."))
    host, removed = table.seats[table.seated(host_id)], table.seats.pop(index)
    table.events.append(T("{host} removed {player} from the table.", host=host.name_text,
                          player=removed.name_text))
    del table.events[:-MAX_EVENTS]
    table._touch(now)  # a new step: menus and Start drawn before are stale


def only_host_options(table: Table) -> Text:
    return T("Only the host, {host}, can change the options.", host=table.host_name)


def decode(f: dataclasses.Field, raw: str) -> Any:
    """An option's value from its menu's value (``TableError`` for one it cannot be)."""
    kind = type(f.default)
    if kind is bool and raw in (ON, OFF):
        return raw == ON
    if kind is int and re.fullmatch(r"-?\d{1,9}", raw):
        return int(raw)
    if kind is str:
        return raw  # the engine checks it is one of the choices
    raise TableError(NOT_A_VALUE)


def set_option(table: Table, host_id: int, name: str, value: Any, now: float) -> bool:
    """The host sets one option before the start, checked like the start command's
    options and against the players seated; False when it already had that value."""
    _require_host(table, host_id, only_host_options(table))
    fields = {f.name: f for f in dataclasses.fields(table.options)}
    if name not in fields:
        raise TableError(T("There is no option called {name}.", name=repr(name)))
    raw = {**table.options.to_dict(), name: value}
    try:
        options = type(table.options).from_dict(raw)
    except OptionError as error:  # the engine's reason: a type, a choice, a bound
        raise TableError(refusal_text(error)) from None
    if options == table.options:
        return False
    seated, high = len(table.seats), table.engine.player_range(options)[1]
    if seated > high:
        raise TableError(TN("With that option, {game} seats at most {n} player and {seated} "
                            "are seated: remove players first.",
                            "With that option, {game} seats at most {n} players and {seated} "
                            "are seated: remove players first.",
                            high, game=table.title, seated=seated))
    try:
        options.check_players(seated)
    except OptionError as error:
        raise TableError(refusal_text(error)) from None
    table.options = options
    host = table.seats[table.seated(host_id)]
    table.events.append(T("{host} set {option} to {value}.", host=host.name_text,
                          option=option_label(fields[name]),
                          value=value_text(fields[name], getattr(options, name))))
    del table.events[:-MAX_EVENTS]
    table._touch(now)
    return True


def value_text(f: dataclasses.Field, value: Any) -> Any:
    """A value kept to be said later (a lobby event): a ``Text``, or a number."""
    if isinstance(value, bool):
        return ON_TEXT if value else OFF_TEXT
    if isinstance(value, str):
        return choice_label(f, value)
    return value


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


# ------------------------------------------------------------------------- components


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
        await answers.run_click(interaction, lambda: _handler(interaction).host_click(
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
        await answers.run_click(interaction, lambda: _handler(interaction).host_click(
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
        await answers.run_click(interaction, lambda: _handler(interaction).host_click(
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


# ------------------------------------------------------------------------- the clicks


class HostControls:
    def __init__(self, clicks: Clicks, steps: Steps, board: LobbyBoard, timers: TableTimers,
                 uis: dict[str, GameUI], clock: Clock):
        self.clicks = clicks
        self.steps = steps
        self.board = board
        self.timers = timers
        self.uis = uis
        self.clock = clock

    async def click(self, interaction: discord.Interaction, table_id: str, step: int,
                    kind: str, option: str, values: Sequence[str]) -> None:
        async with self.clicks.table(interaction, table_id, channel_bound=True) as table:
            if table is None:
                return
            try:
                if kind == "options":
                    await self._open(interaction, table)
                elif kind == "remove":
                    await self._remove(interaction, table, step, values)
                else:
                    await self._set(interaction, table, option, values)
            except TableError as error:
                await replies.reply(interaction, say(error))

    async def _open(self, interaction: discord.Interaction, table: Table) -> None:
        _require_host(table, interaction.user.id, only_host_options(table))
        await replies.reply(interaction, **options_panel(table, self.uis[table.game_id]))

    async def _remove(self, interaction: discord.Interaction, table: Table, step: int,
                      values: Sequence[str]) -> None:
        user_id, now = interaction.user.id, self.clock.now()
        if table.status == LOBBY and user_id == table.host_id and step != table.step:
            raise TableError(STALE)
        try:
            removed = int(values[0]) if values else 0
        except ValueError:
            raise TableError(T("That player is no longer seated at this table.")) from None
        await self._apply(table, lambda t: remove_player(t, user_id, removed, now))
        await replies.update(interaction, **self.board.message(table))

    async def _set(self, interaction: discord.Interaction, table: Table, option: str,
                   values: Sequence[str]) -> None:
        user_id, now = interaction.user.id, self.clock.now()
        fields = {f.name: f for f in dataclasses.fields(table.options)}
        f = fields.get(option)
        if f is None or not values:
            raise TableError(NOT_A_VALUE)
        value = decode(f, values[0])
        ui = self.uis[table.game_id]
        if table.status == LOBBY and user_id == table.host_id \
                and getattr(table.options, option) == value:  # nothing to save
            note = _("That option already has that value.")
            await replies.update(interaction, **options_panel(table, ui, note))
            return
        await self._apply(table, lambda t: set_option(t, user_id, option, value, now))
        changed = "✅ " + option_line(f, getattr(table.options, option))
        await replies.update(interaction, **options_panel(table, ui, changed))
        await self.board.edit(table)  # the lobby everyone sees

    async def _apply(self, table: Table, change: Any) -> None:
        outcome = await self.steps.apply(table, change)
        if outcome.refusal is not None:
            raise outcome.refusal
        if outcome.failed:
            raise TableError(T("Something went wrong; nothing was changed. Please try again."))
        self.timers.schedule(table)  # the lobby's idle timer counts from this change
