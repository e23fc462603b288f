"""The Replay button, and the buttons that step through a replay (``bot.features.replays``).

**Replay** sits under every game's result (beside Rematch or End series) and on the
answer of ``/history`` that hands out a game's record; pressed, it answers with a
private (ephemeral) message showing the game's first frame, with the buttons to step
on. Everything a click needs is in its custom_id, so the buttons keep working after a
restart (≤ 100 characters):

* ``ct:replay:t<table>`` — Replay under a result: that table's game, found at the click
* ``ct:replay:<game>`` — Replay of a recorded game (``/history``)
* ``ct:replay:<game>:<frame>:<p|b|n|d>`` — go to ``frame`` of the game's replay: the
  private replay message's ⏮ Previous deal, ◀ Back, Next ▶ and Next deal ⏭ (the last
  letter keeps the four ids apart when two lead to the same frame)
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any, Protocol, cast

import discord

from bot.ui import answer_guard, custom_ids, replies
from locales import _

OPEN_TEMPLATE = r"ct:replay:(?:t(?P<table>[0-9a-f]{6,16})|(?P<game>\d{1,19}))"
STEP_TEMPLATE = r"ct:replay:(?P<game>\d{1,19}):(?P<frame>\d{1,6}):(?P<how>[pbnd])"


def open_id(*, game_id: int | None = None, table_id: str | None = None) -> str:
    where = f"t{table_id}" if table_id is not None else str(game_id)
    return custom_ids.checked(f"ct:replay:{where}", OPEN_TEMPLATE)


def step_id(game_id: int, frame: int, how: str) -> str:
    return custom_ids.checked(f"ct:replay:{game_id}:{frame}:{how}", STEP_TEMPLATE)


class ReplayClicks(Protocol):
    """What these buttons hand their clicks to (``bot.app.croupier.Croupier``)."""

    async def replay_click(self, interaction: discord.Interaction, game_id: int | None,
                           table_id: str | None) -> None: ...

    async def replay_step(self, interaction: discord.Interaction, game_id: int,
                          frame: int) -> None: ...


class _ClientWithReplays(Protocol):
    @property
    def croupier(self) -> ReplayClicks: ...


def handler_of(interaction: discord.Interaction) -> ReplayClicks:
    # Components are only registered by CardTableBot (bot.app.client), which has a croupier.
    return cast(_ClientWithReplays, interaction.client).croupier


def replay_label() -> str:
    # Translators: a link button: step through a finished game
    return _("Replay")


class ReplayButton(discord.ui.DynamicItem[discord.ui.Button], template=OPEN_TEMPLATE):
    def __init__(self, *, game_id: int | None = None, table_id: str | None = None):
        super().__init__(discord.ui.Button(
            style=discord.ButtonStyle.secondary, label=replay_label(), emoji="🎞️",
            custom_id=open_id(game_id=game_id, table_id=table_id)))
        self.game_id, self.table_id = game_id, table_id

    @classmethod
    async def from_custom_id(cls, interaction: discord.Interaction, item: discord.ui.Item[Any],
                             match: re.Match[str], /) -> ReplayButton:
        if match["table"] is not None:
            return cls(table_id=match["table"])
        return cls(game_id=int(match["game"]))

    async def callback(self, interaction: discord.Interaction) -> None:
        replies.answers_with_new_message(interaction)  # a private message of its own
        await answer_guard.run_click(interaction, lambda: handler_of(interaction).replay_click(
            interaction, self.game_id, self.table_id))


def with_replay(view: discord.ui.View | None, table_id: str) -> discord.ui.View:
    """A finished game's result buttons (``view``: Rematch, End series, or none) with
    Replay beside them, in the current language."""
    if view is None:
        view = discord.ui.View(timeout=None)
    view.add_item(ReplayButton(table_id=table_id))
    return view


def replay_view(game_id: int) -> discord.ui.View:
    """A recorded game's Replay button alone (``/history``), in the current language."""
    view = discord.ui.View(timeout=None)
    view.add_item(ReplayButton(game_id=game_id))
    return view


class StepButton(discord.ui.DynamicItem[discord.ui.Button], template=STEP_TEMPLATE):
    def __init__(self, game_id: int, frame: int, how: str, disabled: bool = False):
        label, emoji = _step_face(how)
        super().__init__(discord.ui.Button(
            style=discord.ButtonStyle.secondary, label=label, emoji=emoji, disabled=disabled,
            custom_id=step_id(game_id, frame, how)))
        self.game_id, self.frame = game_id, frame

    @classmethod
    async def from_custom_id(cls, interaction: discord.Interaction, item: discord.ui.Item[Any],
                             match: re.Match[str], /) -> StepButton:
        return cls(int(match["game"]), int(match["frame"]), match["how"])

    async def callback(self, interaction: discord.Interaction) -> None:
        await answer_guard.run_click(interaction, lambda: handler_of(interaction).replay_step(
            interaction, self.game_id, self.frame))


def _step_face(how: str) -> tuple[str, str]:
    if how == "p":
        # Translators: a replay's button: back to the start of this deal, or the one before
        return _("Previous deal"), "⏮️"
    if how == "b":
        # Translators: a replay's button: one step back
        return _("Back"), "◀️"
    if how == "n":
        # Translators: a replay's button: one step on
        return _("Next"), "▶️"
    # Translators: a replay's button: on to the start of the next deal (in the last deal:
    # to the game's end)
    return _("Next deal"), "⏭️"


def targets(frame: int, frames: int, deals: Sequence[int]) -> dict[str, int | None]:
    """Where each step button of frame ``frame`` (of ``frames``; ``deals``: each deal's first
    frame) leads, None where it is disabled: Previous deal to the start of this deal, or
    of the one before when at it; Back and Next one frame; Next deal to the start of the
    next deal, or to the last frame (the game's result) from the last deal."""
    last = frames - 1
    deal = max((d for d, start in enumerate(deals) if start <= frame), default=0)
    start = deals[deal] if deals else 0
    previous = start if frame > start else deals[deal - 1] if deal > 0 else None
    following = deals[deal + 1] if deal + 1 < len(deals) else last
    return {"p": previous, "b": frame - 1 if frame > 0 else None,
            "n": frame + 1 if frame < last else None,
            "d": following if frame < last else None}


def step_view(game_id: int, frame: int, frames: int, deals: Sequence[int]) -> discord.ui.View:
    """The replay message's buttons at frame ``frame``, in one row, in the current language;
    a disabled one keeps the frame shown as its target (its id stays valid)."""
    view = discord.ui.View(timeout=None)
    for how, target in targets(frame, frames, deals).items():
        view.add_item(StepButton(game_id, frame if target is None else target, how,
                                 disabled=target is None))
    return view


DYNAMIC_ITEMS: tuple[type[discord.ui.DynamicItem[Any]], ...] = (ReplayButton, StepButton)
