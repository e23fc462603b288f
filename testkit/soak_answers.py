"""How a kill-soak player reads the fake Discord: a click's answer (``final``: played,
refused, or not yet; ``settled`` for other buttons), a move component's parts, a menu
they can use (``Menu``), and the custom_id prefixes of the buttons they press."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from testkit.fakediscord import FakeMessage, FakeUser
from testkit.fakediscord.interactions import Interaction
from testkit.soak_judge import DONE, REFUSED

REMATCH, END_SERIES, HAND = "ct:rematch:", "ct:endseries:", "ct:hand:"


def final(ix: Interaction) -> str | None:
    """How a move's click was answered, once it is (None: not yet)."""
    response = ix.response
    if response is None:
        return None
    if response.type == 7:  # the clicked hand redrawn: played
        return DONE
    if response.type == 6:  # deferred: the redraw or the refusal follows
        return DONE if ix.edits else REFUSED if ix.followups else None
    if response.type == 5 and ix.original is not None and ix.original.loading:
        return None
    return REFUSED


def settled(ix: Interaction) -> bool:
    """Whether any other click (My hand, Rematch, End series) has its final answer."""
    return final(ix) is not None


def parts(custom_id: str) -> tuple[str, int, str]:
    """A move component's table id, step and action code (a select's: its group)."""
    _, _, table_id, step, arg = custom_id.split(":", 4)
    return table_id, int(step), arg


@dataclass
class Menu:
    user: FakeUser
    message: FakeMessage
    choices: list[tuple[dict[str, Any], str | None]]
