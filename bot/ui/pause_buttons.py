"""The table's Pause and Resume button, and the line a paused table shows.

One button on the table message while a game is under way (``bot.table.pause.offered``),
in its second row: **Pause** while the game runs, **Resume** while it is paused, with
the votes so far and the votes needed once somebody voted ("Pause (1/2)"). Its click is
handed to the croupier (``bot.features.pause`` answers it).

custom_id (≤ 100 characters): ``ct:pause:<table>:<motion>``, the motion ``p`` (pause) or
``r`` (resume): a click on a button drawn before the table was paused or resumed is not
counted as a vote for the other motion.
"""

from __future__ import annotations

import re
from typing import Any, Protocol, cast

import discord

from bot.table import pause
from bot.table.state import Table
from bot.ui import answer_guard, custom_ids, markup, replies
from bot.views.game_view import and_list
from locales import _

PAUSE_TEMPLATE = r"ct:pause:(?P<table>[0-9a-f]{6,16}):(?P<motion>[pr])"
_CODES = {pause.PAUSE: "p", pause.RESUME: "r"}
_MOTIONS = {code: motion for motion, code in _CODES.items()}


def pause_id(table_id: str, motion: str) -> str:
    return custom_ids.checked(f"ct:pause:{table_id}:{_CODES[motion]}", PAUSE_TEMPLATE)


class PauseClicks(Protocol):
    """What the button hands its clicks to (``bot.app.croupier.Croupier``)."""

    async def pause_click(self, interaction: discord.Interaction, table_id: str,
                          motion: str) -> None: ...


class _ClientWithPauses(Protocol):
    @property
    def croupier(self) -> PauseClicks: ...


def handler_of(interaction: discord.Interaction) -> PauseClicks:
    # Components are only registered by CardTableBot (bot.app.client), which has a croupier.
    return cast(_ClientWithPauses, interaction.client).croupier


def label(motion: str, votes: int = 0, needed: int = 0) -> str:
    """The button's words: the motion, and the votes once somebody voted."""
    if motion == pause.RESUME:
        # Translators: a button on a paused table: vote to play on. {votes}/{needed}: the
        # votes so far and the votes needed, as in "Resume (1/2)".
        return (_("Resume ({votes}/{needed})", votes=votes, needed=needed) if votes
                else _("Resume"))
    # Translators: a button on the table: vote to pause the game (nobody plays, no timer
    # runs). {votes}/{needed}: the votes so far and the votes needed, as in "Pause (1/2)".
    return _("Pause ({votes}/{needed})", votes=votes, needed=needed) if votes else _("Pause")


class PauseButton(discord.ui.DynamicItem[discord.ui.Button], template=PAUSE_TEMPLATE):
    def __init__(self, table_id: str, motion: str, votes: int = 0, needed: int = 0):
        resume = motion == pause.RESUME
        super().__init__(discord.ui.Button(
            style=discord.ButtonStyle.success if resume else discord.ButtonStyle.secondary,
            label=label(motion, votes, needed), emoji="▶️" if resume else "⏸️",
            custom_id=pause_id(table_id, motion), row=1))
        self.table_id, self.motion = table_id, motion

    @classmethod
    async def from_custom_id(cls, interaction: discord.Interaction, item: discord.ui.Item[Any],
                             match: re.Match[str], /) -> PauseButton:
        return cls(match["table"], _MOTIONS[match["motion"]])

    async def callback(self, interaction: discord.Interaction) -> None:
        replies.answers_with_new_message(interaction)  # a private answer, not an edit
        await answer_guard.run_click(interaction, lambda: handler_of(interaction).pause_click(
            interaction, self.table_id, self.motion))


def add_pause(view: discord.ui.View, table: Table) -> discord.ui.View:
    """The table message's Pause (or Resume) button, while a game is under way."""
    if pause.offered(table):
        view.add_item(PauseButton(table.table_id, pause.motion(table), pause.votes(table),
                                  pause.needed(table)))
    return view


def paused_line(table: Table) -> str | None:
    """What a paused table says instead of whose turn it is (None: not paused)."""
    if table.paused_until is None:
        return None
    names = [markup.safe_name(table.seats[seat].name) for seat in
             (table.seat_of(user) for user in table.paused_by) if seat is not None]
    when = markup.relative_time(table.paused_until)
    if not names:
        return "⏸️ " + _("**Paused** · the game resumes {when}, or sooner by a vote on "
                         "**Resume**.", when=when)
    return "⏸️ " + _("**Paused** by {players} · the game resumes {when}, or sooner by a vote "
                     "on **Resume**.", players=and_list(names), when=when)


DYNAMIC_ITEMS: tuple[type[discord.ui.DynamicItem[Any]], ...] = (PauseButton,)
