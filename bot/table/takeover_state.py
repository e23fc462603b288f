"""A taken-over seat's part of a table's state: a ``Table`` field group (saved with the
snapshot). Its rules are ``bot.table.takeover``; kept apart so that ``state.py`` imports
the fields without the rules, which import ``Table``."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any


@dataclass(kw_only=True)
class TakeoverState:
    # The seats that changed hands mid-game, in order: {"deal", "step", "seat", "old",
    # "new", "old_name"} (``step``: the actions taken in that deal before the change).
    # Replaced, never changed in place (clones share it).
    seat_changes: list[dict[str, Any]] = field(default_factory=list)
    # The open ask (one per table), or None: {"n", "seat", "old", "player", "user", "name",
    # "at", "message", "yes", "no"} (the ask's number, the seat and its player's id and name
    # then, the asker and their name, when, the channel message holding its buttons, the
    # votes so far).
    # Replaced whole, never changed in place.
    takeover_ask: dict[str, Any] | None = None
    takeover_asks: int = 0  # asks made at this table so far: each ask's number
