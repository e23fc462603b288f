"""The host's controls in the lobby: remove a player, change the options.

The lobby message carries them beside its buttons (``add_to_lobby``): an
**Options** button, which answers the host privately with one menu per option of
the game, and a menu of the players seated besides the host (people and AI
seats) to remove one. Anyone may click them: only the host's choice acts, anyone
else is refused politely and privately, and nothing changes.

**Decision:** a removed person cannot join that lobby again (``Table.removed``, kept in
its snapshot): otherwise Join undoes the removal at once. It stands for the rest of the
lobby, whoever hosts it, and the host cannot take it back (there is no control to add
a person, and none is needed): a table opened later, or a rematch, starts with nobody
removed. An AI seat removed is simply gone; the host may seat another.

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

The components are ``bot.ui.lobby_controls``; this module holds the rules of each
change and answers the clicks.
"""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any, Protocol

import discord

from bot.table.state import LOBBY, Table, TableError, refusal_text
from bot.table.timers import Clock
from bot.ui import replies
from bot.ui.game_ui import GameUI, option_line
from bot.ui.lobby_controls import OFF, ON, options_panel
from bot.ui.markup import say_safe
from engine.core import OptionError, choice_label, option_label
from engine.text import TN, T, Text
from locales import _

if TYPE_CHECKING:  # wired by the croupier; imported for the types only (no cycle)
    from bot.actions.clicks import Clicks
    from bot.table.step import Steps
    from bot.table.timers import TableTimers


class LobbyBoard(Protocol):
    """What the host controls need of the table message (``bot.ui.board.Board``; named by
    its shape, since the board draws this module's components)."""

    async def message(self, table: Table) -> dict[str, Any]: ...

    async def edit(self, table: Table) -> None: ...


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
    if not removed.is_ai:  # kept out of this lobby (Table.join): no rejoining at once
        table.removed = [*table.removed, user_id]
    table.add_line(T("{host} removed {player} from the table.", host=host.name_text,
                     player=removed.name_text))
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
    table.add_line(T("{host} set {option} to {value}.", host=host.name_text,
                     option=option_label(fields[name]),
                     value=value_text(fields[name], getattr(options, name))))
    table._touch(now)
    return True


def value_text(f: dataclasses.Field, value: Any) -> Any:
    """A value kept to be said later (a lobby event): a ``Text``, or a number."""
    if isinstance(value, bool):
        return ON_TEXT if value else OFF_TEXT
    if isinstance(value, str):
        return choice_label(f, value)
    return value


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
                await replies.reply(interaction, say_safe(error))  # names the host

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
        await replies.update(interaction, **await self.board.message(table))

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
