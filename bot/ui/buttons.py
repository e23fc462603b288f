"""Persistent components: ``DynamicItem`` buttons and selects built from ``custom_ids``.

Nothing about a component is kept in memory: its custom_id says which table,
which step and what it does, so a click is routed the same way before and after
a restart. The callbacks only hand the click to the bot's ``ClickHandler``
(the croupier), reached through the client so that this module needs no import
of it.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any, Protocol, cast

import discord

from bot.ui import answer_guard, custom_ids, markup, replies
from bot.ui.feature_buttons import HintButton
from engine import cards
from engine.text import T, Text
from locales import _, say

SELECT_OPTIONS = 25
MAX_ROWS = 5
BUTTONS_PER_ROW = 5
# The keyword actions' buttons (said when a menu is drawn, in its reader's language).
KEYWORD_LABELS: dict[str, Text] = {
    # Translators: a button: pass this turn without playing a card
    "pass": T("Pass"),
    # Translators: a button (Jacko): stop the round now and score the points on the table
    "stop": T("Stop and score"),
    # Translators: a button (AttackJack): take the card that lies open
    "take": T("Take the open card"),
    # Translators: a button (AttackJack): keep the cards held and end the turn
    "stand": T("Stand")}
_LOBBY_STYLE: dict[str, tuple[discord.ButtonStyle, Text]] = {
    # Translators: a lobby button: take a seat at the table
    "join": (discord.ButtonStyle.success, T("Join")),
    # Translators: a lobby button: give up one's seat at the table
    "leave": (discord.ButtonStyle.secondary, T("Leave")),
    # Translators: a lobby button (the host's): start the game with the players seated
    "start": (discord.ButtonStyle.primary, T("Start")),
    # Translators: a lobby button (the host's): close the lobby without playing
    "cancel": (discord.ButtonStyle.danger, T("Cancel")),
    # Second row: the host's AI controls (anyone may click; the croupier refuses non-hosts).
    # Translators: a lobby button: seat an AI player of the easy level
    "ai-easy": (discord.ButtonStyle.secondary, T("Add AI: Easy")),
    # Translators: a lobby button: seat an AI player of the normal level
    "ai-normal": (discord.ButtonStyle.secondary, T("Add AI: Normal")),
    # Translators: a lobby button: seat an AI player of the hard level
    "ai-hard": (discord.ButtonStyle.secondary, T("Add AI: Hard")),
    # Translators: a lobby button: remove the last AI player seated
    "ai-remove": (discord.ButtonStyle.secondary, T("Remove AI")),
}


class ClickHandler(Protocol):
    """What the components hand their clicks to (``bot.app.croupier.Croupier``)."""

    async def lobby_click(self, interaction: discord.Interaction, table_id: str, step: int,
                          action: str) -> None: ...

    async def hand_click(self, interaction: discord.Interaction, table_id: str) -> None: ...

    async def move_click(self, interaction: discord.Interaction, table_id: str, step: int,
                         code: str) -> None: ...


class _ClientWithClicks(Protocol):
    @property
    def croupier(self) -> ClickHandler: ...


def croupier_of(interaction: discord.Interaction) -> ClickHandler:
    # Components are only registered by CardTableBot (bot.app.client), which has a croupier.
    return cast(_ClientWithClicks, interaction.client).croupier


class LobbyButton(discord.ui.DynamicItem[discord.ui.Button], template=custom_ids.LOBBY_TEMPLATE):
    def __init__(self, table_id: str, step: int, action: str, disabled: bool = False):
        style, label = _LOBBY_STYLE[action]
        super().__init__(discord.ui.Button(
            style=style, label=say(label), disabled=disabled,
            emoji="🤖" if "ai-" in action else None,
            row=1 if action in custom_ids.AI_ACTIONS else 0,
            custom_id=custom_ids.lobby(table_id, step, action)))
        self.table_id, self.step, self.action = table_id, step, action

    @classmethod
    async def from_custom_id(cls, interaction: discord.Interaction, item: discord.ui.Item[Any],
                             match: re.Match[str], /) -> LobbyButton:
        return cls(match["table"], int(match["version"]), match["action"])

    async def callback(self, interaction: discord.Interaction) -> None:
        await answer_guard.run_click(interaction, lambda: croupier_of(interaction).lobby_click(
            interaction, self.table_id, self.step, self.action))


class HandButton(discord.ui.DynamicItem[discord.ui.Button], template=custom_ids.HAND_TEMPLATE):
    def __init__(self, table_id: str, step: int):
        super().__init__(discord.ui.Button(
            # Translators: the table's button that shows the clicker their own cards
            style=discord.ButtonStyle.primary, label=_("My hand"), emoji="🂠",
            custom_id=custom_ids.hand(table_id, step)))
        self.table_id, self.step = table_id, step

    @classmethod
    async def from_custom_id(cls, interaction: discord.Interaction, item: discord.ui.Item[Any],
                             match: re.Match[str], /) -> HandButton:
        return cls(match["table"], int(match["version"]))

    async def callback(self, interaction: discord.Interaction) -> None:
        replies.answers_with_new_message(interaction)  # a deferral shows "thinking…"
        await answer_guard.run_click(interaction, lambda: croupier_of(interaction).hand_click(
            interaction, self.table_id))


class MoveSelect(discord.ui.DynamicItem[discord.ui.Select], template=custom_ids.PLAY_TEMPLATE):
    def __init__(self, table_id: str, step: int, group: int,
                 options: Sequence[discord.SelectOption] = (), placeholder: str | None = None):
        if placeholder is None:
            # Translators: the placeholder of the menu of cards a player may play
            placeholder = _("Play a card…")
        super().__init__(discord.ui.Select(
            custom_id=custom_ids.play(table_id, step, group), placeholder=placeholder,
            options=list(options) or [discord.SelectOption(label="—", value="none")],
            min_values=1, max_values=1))
        self.table_id, self.step = table_id, step

    @classmethod
    async def from_custom_id(cls, interaction: discord.Interaction, item: discord.ui.Item[Any],
                             match: re.Match[str], /) -> MoveSelect:
        options = item.options if isinstance(item, discord.ui.Select) else []
        return cls(match["table"], int(match["version"]), int(match["group"]), options)

    async def callback(self, interaction: discord.Interaction) -> None:
        values = self.item.values
        code = values[0] if values else ""
        await answer_guard.run_click(interaction, lambda: croupier_of(interaction).move_click(
            interaction, self.table_id, self.step, code))


class ActButton(discord.ui.DynamicItem[discord.ui.Button], template=custom_ids.ACT_TEMPLATE):
    def __init__(self, table_id: str, step: int, code: str):
        super().__init__(discord.ui.Button(
            style=discord.ButtonStyle.secondary if code == "pass" else discord.ButtonStyle.primary,
            label=say(KEYWORD_LABELS[code]) if code in KEYWORD_LABELS else markup.label(code),
            custom_id=custom_ids.act(table_id, step, code)))
        self.table_id, self.step, self.code = table_id, step, code

    @classmethod
    async def from_custom_id(cls, interaction: discord.Interaction, item: discord.ui.Item[Any],
                             match: re.Match[str], /) -> ActButton:
        return cls(match["table"], int(match["version"]), match["code"])

    async def callback(self, interaction: discord.Interaction) -> None:
        await answer_guard.run_click(interaction, lambda: croupier_of(interaction).move_click(
            interaction, self.table_id, self.step, self.code))


DYNAMIC_ITEMS: tuple[type[discord.ui.DynamicItem[Any]], ...] = (
    LobbyButton, HandButton, MoveSelect, ActButton)


# ------------------------------------------------------------------------- builders


def lobby_view(table_id: str, step: int, can_start: bool, can_add_ai: bool = True,
               can_remove_ai: bool = False, ai: bool = True) -> discord.ui.View:
    """The lobby's buttons; ``ai`` False (the server allows no AI players): no AI row."""
    view = discord.ui.View(timeout=None)
    for action in custom_ids.LOBBY_ACTIONS:
        view.add_item(LobbyButton(table_id, step, action,
                                  disabled=action == "start" and not can_start))
    for action in custom_ids.AI_ACTIONS if ai else ():
        off = not can_remove_ai if action == "ai-remove" else not can_add_ai
        view.add_item(LobbyButton(table_id, step, action, disabled=off))
    return view


def table_view(table_id: str, step: int) -> discord.ui.View:
    view = discord.ui.View(timeout=None)
    view.add_item(HandButton(table_id, step))
    return view


def action_groups(legal: Sequence[str]) -> tuple[list[list[str]], list[str]]:
    """Legal codes split into select groups (≤ 25 cards each) and keyword buttons.

    One select when the cards fit; otherwise one select per suit, so a long list
    stays easy to scan on a phone. At most four selects plus a row of buttons.
    """
    keywords = [c for c in legal if c in KEYWORD_LABELS]
    played = [c for c in legal if c not in KEYWORD_LABELS]
    played.sort(key=lambda c: cards.sort_key(cards.parse_card(c)))
    if len(played) <= SELECT_OPTIONS:
        groups = [played] if played else []
    else:
        by_suit: dict[str, list[str]] = {}
        for code in played:
            by_suit.setdefault(code[-1], []).append(code)
        groups = [g[i:i + SELECT_OPTIONS] for g in by_suit.values()
                  for i in range(0, len(g), SELECT_OPTIONS)]
    if len(groups) > MAX_ROWS - (1 if keywords else 0):
        raise ValueError("too many legal actions to offer")
    return groups, keywords


def hand_view(table_id: str, step: int, legal: Sequence[str], hint: bool = False
              ) -> discord.ui.View | None:
    """The menu of exactly the legal actions, or None when there is nothing to choose;
    ``hint``: with the Hint button (``bot.table.hint_rules``) beside the buttons, if a row
    has room."""
    if not legal:
        return None
    groups, keywords = action_groups(legal)
    view = discord.ui.View(timeout=None)
    for index, group in enumerate(groups):
        options = [discord.SelectOption(label=markup.label(code), value=code) for code in group]
        # Translators: the placeholder of one menu of cards, one suit of several ({suit}: ♠)
        placeholder = (_("Play a card {suit}…", suit=_suit_symbol(group[0])) if len(groups) > 1
                       else None)
        view.add_item(MoveSelect(table_id, step, index, options, placeholder=placeholder))
    for code in keywords:
        view.add_item(ActButton(table_id, step, code))
    rows = len(groups) + (1 if keywords else 0)
    if hint and (rows < MAX_ROWS or 0 < len(keywords) < BUTTONS_PER_ROW):
        view.add_item(HintButton(table_id, step))
    return view


def _suit_symbol(code: str) -> str:
    index = cards.SUIT_LETTERS.find(code[-1]) if code != "JK" else -1
    return cards.SUIT_SYMBOLS[index] if index >= 0 else "🃏"
