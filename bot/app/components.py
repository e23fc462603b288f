"""Every persistent component the bot registers (``DynamicItem`` classes), in one list.

Every button and menu lives in ``bot.ui`` (the table's and the hand's in
``bot.ui.buttons``, the host's in ``bot.ui.lobby_controls``, the features' in
``bot.ui.feature_buttons``); the bot registers all of them at start-up from here, so
a click on any of them is routed after a restart too.
"""

from __future__ import annotations

from typing import Any

import discord

from bot.ui import (
    buttons,
    feature_buttons,
    lobby_controls,
    pause_buttons,
    replay_buttons,
    takeover_buttons,
    tournament_buttons,
    web_buttons,
)

DYNAMIC_ITEMS: tuple[type[discord.ui.DynamicItem[Any]], ...] = (
    *buttons.DYNAMIC_ITEMS,
    *feature_buttons.DYNAMIC_ITEMS,
    *lobby_controls.DYNAMIC_ITEMS,
    *pause_buttons.DYNAMIC_ITEMS,
    *replay_buttons.DYNAMIC_ITEMS,
    *takeover_buttons.DYNAMIC_ITEMS,
    *tournament_buttons.DYNAMIC_ITEMS,
    *web_buttons.DYNAMIC_ITEMS,
)
