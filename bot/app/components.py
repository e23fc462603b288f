"""Every persistent component the bot registers (``DynamicItem`` classes), in one list.

Each feature keeps its own buttons beside its handler (the table's in
``bot.ui.buttons``); the bot registers all of them at start-up from here, so a click
on any of them is routed after a restart too.
"""

from __future__ import annotations

from typing import Any

import discord

from bot.actions import host_controls
from bot.features import hints, nudges, rematch, series
from bot.ui import buttons

DYNAMIC_ITEMS: tuple[type[discord.ui.DynamicItem[Any]], ...] = (
    *buttons.DYNAMIC_ITEMS,
    rematch.RematchButton, series.EndSeriesButton, hints.HintButton,
    *host_controls.DYNAMIC_ITEMS,
    nudges.NudgeButton,
)
