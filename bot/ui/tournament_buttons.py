"""The buttons of a tournament's message: Sign up and Withdraw.

They live here with every other component (``bot.ui`` owns every button and custom_id
template); each click is handed to the croupier, whose feature
(``bot.features.tournaments``) answers it. The custom_id names the tournament, so the
buttons work after a restart:

* ``ct:tsign:<tournament>`` — Sign up (while sign-up is open)
* ``ct:tleave:<tournament>`` — Withdraw (a sign-up taken back; once it runs, not paired
  again)
"""

from __future__ import annotations

import re
from typing import Any, Protocol, cast

import discord

from bot.ui import answer_guard, custom_ids
from bot.ui.buttons import LobbyButton
from locales import _

SIGN_TEMPLATE = r"ct:tsign:(?P<tournament>[0-9a-f]{6,16})"
LEAVE_TEMPLATE = r"ct:tleave:(?P<tournament>[0-9a-f]{6,16})"


def sign_id(tournament_id: str) -> str:
    return custom_ids.checked(f"ct:tsign:{tournament_id}", SIGN_TEMPLATE)


def leave_id(tournament_id: str) -> str:
    return custom_ids.checked(f"ct:tleave:{tournament_id}", LEAVE_TEMPLATE)


class TournamentClicks(Protocol):
    """What these buttons hand their clicks to (``bot.app.croupier.Croupier``)."""

    async def tournament_click(self, interaction: discord.Interaction, tournament_id: str,
                               join: bool) -> None: ...


class _ClientWithTournaments(Protocol):
    @property
    def croupier(self) -> TournamentClicks: ...


def handler_of(interaction: discord.Interaction) -> TournamentClicks:
    # Components are only registered by CardTableBot (bot.app.client), which has a croupier.
    return cast(_ClientWithTournaments, interaction.client).croupier


class SignUpButton(discord.ui.DynamicItem[discord.ui.Button], template=SIGN_TEMPLATE):
    def __init__(self, tournament_id: str, disabled: bool = False):
        super().__init__(discord.ui.Button(
            # Translators: a button on a tournament's message: take part in it
            style=discord.ButtonStyle.success, label=_("Sign up"), emoji="✍️",
            disabled=disabled, custom_id=sign_id(tournament_id)))
        self.tournament_id = tournament_id

    @classmethod
    async def from_custom_id(cls, interaction: discord.Interaction, item: discord.ui.Item[Any],
                             match: re.Match[str], /) -> SignUpButton:
        return cls(match["tournament"])

    async def callback(self, interaction: discord.Interaction) -> None:
        await answer_guard.run_click(interaction, lambda: handler_of(
            interaction).tournament_click(interaction, self.tournament_id, True))


class WithdrawButton(discord.ui.DynamicItem[discord.ui.Button], template=LEAVE_TEMPLATE):
    def __init__(self, tournament_id: str):
        super().__init__(discord.ui.Button(
            # Translators: a button on a tournament's message: no longer take part
            style=discord.ButtonStyle.secondary, label=_("Withdraw"),
            custom_id=leave_id(tournament_id)))
        self.tournament_id = tournament_id

    @classmethod
    async def from_custom_id(cls, interaction: discord.Interaction, item: discord.ui.Item[Any],
                             match: re.Match[str], /) -> WithdrawButton:
        return cls(match["tournament"])

    async def callback(self, interaction: discord.Interaction) -> None:
        await answer_guard.run_click(interaction, lambda: handler_of(
            interaction).tournament_click(interaction, self.tournament_id, False))


def tournament_view(tournament_id: str, signing_up: bool) -> discord.ui.View:
    """The message's buttons (in the current language): Sign up while sign-up is open,
    Withdraw while it signs up or runs."""
    view = discord.ui.View(timeout=None)
    if signing_up:
        view.add_item(SignUpButton(tournament_id))
    view.add_item(WithdrawButton(tournament_id))
    return view


def table_lobby_view(table_id: str, step: int) -> discord.ui.View:
    """A tournament table's lobby: Join and Leave only (it starts by itself; nobody hosts
    it, and only its players may join)."""
    view = discord.ui.View(timeout=None)
    for action in ("join", "leave"):
        view.add_item(LobbyButton(table_id, step, action))
    return view


DYNAMIC_ITEMS: tuple[type[discord.ui.DynamicItem[Any]], ...] = (SignUpButton, WithdrawButton)
