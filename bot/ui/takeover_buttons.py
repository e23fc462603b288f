"""The buttons of taking over a seat: Take a seat, the seat menu, Accept and Refuse.

They live here with every other component (``bot.ui`` owns every button, menu and
custom_id template); each click is handed to the croupier, whose feature
(``bot.features.takeover``) answers it. Whether Take a seat is offered is a rule of the
table (``bot.table.takeover.takeable``). Every custom_id carries what its click needs,
so the buttons work after a restart:

* ``ct:seat:<table>`` — Take a seat on the table message (row 1)
* ``ct:seat-pick:<table>`` — the asker's private menu of the seats free to take (values:
  seat numbers)
* ``ct:seat-vote:<table>:<ask>:<yes|no>`` — Accept and Refuse under ask number ``<ask>``
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any, Protocol, cast

import discord

from bot.table.state import Table
from bot.table.takeover import changed_seats, holders, takeable
from bot.ui import answer_guard, custom_ids, markup, replies
from locales import _

TAKE_TEMPLATE = r"ct:seat:(?P<table>[0-9a-f]{6,16})"
PICK_TEMPLATE = r"ct:seat-pick:(?P<table>[0-9a-f]{6,16})"
VOTE_TEMPLATE = r"ct:seat-vote:(?P<table>[0-9a-f]{6,16}):(?P<ask>\d{1,9}):(?P<answer>yes|no)"
ROW = 1  # the table message's second row (My hand and Nudge are in the first)


def take_id(table_id: str) -> str:
    return custom_ids.checked(f"ct:seat:{table_id}", TAKE_TEMPLATE)


def pick_id(table_id: str) -> str:
    return custom_ids.checked(f"ct:seat-pick:{table_id}", PICK_TEMPLATE)


def vote_id(table_id: str, ask: int, accept: bool) -> str:
    return custom_ids.checked(f"ct:seat-vote:{table_id}:{ask}:{'yes' if accept else 'no'}",
                              VOTE_TEMPLATE)


class TakeoverClicks(Protocol):
    """What these buttons hand their clicks to (``bot.app.croupier.Croupier``)."""

    async def takeover_click(self, interaction: discord.Interaction, table_id: str,
                             seat: int | None) -> None: ...

    async def takeover_vote(self, interaction: discord.Interaction, table_id: str, ask: int,
                            accept: bool) -> None: ...


class _ClientWithTakeovers(Protocol):
    @property
    def croupier(self) -> TakeoverClicks: ...


def handler_of(interaction: discord.Interaction) -> TakeoverClicks:
    # Components are only registered by CardTableBot (bot.app.client), which has a croupier.
    return cast(_ClientWithTakeovers, interaction.client).croupier


class TakeSeatButton(discord.ui.DynamicItem[discord.ui.Button], template=TAKE_TEMPLATE):
    def __init__(self, table_id: str):
        super().__init__(discord.ui.Button(
            # Translators: a button on a running table: ask to play the seat a player left
            style=discord.ButtonStyle.secondary, label=_("Take a seat"), emoji="🪑",
            row=ROW, custom_id=take_id(table_id)))
        self.table_id = table_id

    @classmethod
    async def from_custom_id(cls, interaction: discord.Interaction, item: discord.ui.Item[Any],
                             match: re.Match[str], /) -> TakeSeatButton:
        return cls(match["table"])

    async def callback(self, interaction: discord.Interaction) -> None:
        replies.answers_with_new_message(interaction)  # a private answer, not an edit
        await answer_guard.run_click(interaction, lambda: handler_of(interaction).takeover_click(
            interaction, self.table_id, None))


class SeatSelect(discord.ui.DynamicItem[discord.ui.Select], template=PICK_TEMPLATE):
    def __init__(self, table_id: str, options: Sequence[discord.SelectOption] = ()):
        super().__init__(discord.ui.Select(
            custom_id=pick_id(table_id),
            # Translators: a private menu of the seats a newcomer may ask to take
            placeholder=_("Which seat?"), min_values=1, max_values=1,
            options=list(options) or [discord.SelectOption(label="—", value="none")]))
        self.table_id = table_id

    @classmethod
    async def from_custom_id(cls, interaction: discord.Interaction, item: discord.ui.Item[Any],
                             match: re.Match[str], /) -> SeatSelect:
        options = item.options if isinstance(item, discord.ui.Select) else []
        return cls(match["table"], options)

    async def callback(self, interaction: discord.Interaction) -> None:
        values = list(self.item.values)
        # (A value that is no seat, the empty menu's: refused as a seat not free.)
        seat = int(values[0]) if values and values[0].isdigit() else -1
        await answer_guard.run_click(interaction, lambda: handler_of(interaction).takeover_click(
            interaction, self.table_id, seat))


class VoteButton(discord.ui.DynamicItem[discord.ui.Button], template=VOTE_TEMPLATE):
    def __init__(self, table_id: str, ask: int, accept: bool):
        # Translators: buttons under a request to take over a seat: let them, or not
        label = _("Accept") if accept else _("Refuse")
        super().__init__(discord.ui.Button(
            style=discord.ButtonStyle.success if accept else discord.ButtonStyle.danger,
            label=label, custom_id=vote_id(table_id, ask, accept)))
        self.table_id, self.ask, self.accept = table_id, ask, accept

    @classmethod
    async def from_custom_id(cls, interaction: discord.Interaction, item: discord.ui.Item[Any],
                             match: re.Match[str], /) -> VoteButton:
        return cls(match["table"], int(match["ask"]), match["answer"] == "yes")

    async def callback(self, interaction: discord.Interaction) -> None:
        await answer_guard.run_click(interaction, lambda: handler_of(interaction).takeover_vote(
            interaction, self.table_id, self.ask, self.accept))


def add_take_seat(view: discord.ui.View, table: Table) -> discord.ui.View:
    """The table message's Take a seat button (in the current language), while a seat may
    be taken."""
    if takeable(table):
        view.add_item(TakeSeatButton(table.table_id))
    return view


def seat_menu(table: Table, seats: Sequence[int]) -> discord.ui.View:
    """The asker's private menu of the seats free to take (a select's labels are plain
    text: the names go in as typed)."""
    view = discord.ui.View(timeout=None)
    # Translators: an entry of the menu of seats to take: the seat's number and its player
    options = [discord.SelectOption(label=markup.clip(_("Seat {number}: {player}",
                                                        number=seat + 1,
                                                        player=table.seats[seat].name), 100),
                                    value=str(seat))
               for seat in list(seats)[:25]]
    view.add_item(SeatSelect(table.table_id, options))
    return view


def ask_view(table_id: str, ask: int) -> discord.ui.View:
    """Accept and Refuse under an ask (in the current language)."""
    view = discord.ui.View(timeout=None)
    view.add_item(VoteButton(table_id, ask, True))
    view.add_item(VoteButton(table_id, ask, False))
    return view


DYNAMIC_ITEMS: tuple[type[discord.ui.DynamicItem[Any]], ...] = (
    TakeSeatButton, SeatSelect, VoteButton)


def note_on_result(embed: discord.Embed, table: Table) -> None:
    """The final result of a game whose seats changed hands says for whom it did not count
    (in the current language): every holder of such a seat (``bot.table.takeover``)."""
    seats = ", ".join(" → ".join(markup.safe_name(name, markdown=False)
                                 for name in holders(table, seat))
                      for seat in changed_seats(table))
    # Translators: under a game's result; {seats} lists who held a seat in turn, "Bob → Dora"
    note = "🔁 " + _("A seat changed hands ({seats}), so the game counted for nobody who "
                     "held it.", seats=seats)
    footer = embed.footer.text
    embed.set_footer(text=f"{footer}\n{note}" if footer else note)
