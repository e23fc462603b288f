"""The custom_id of every component: which table, which version, what it does.

A component's custom_id is all the bot gets back from a click, so it carries
the table id and the table's version at the time it was drawn (its ``step``: the
count of changes players can see, see ``bot.table.state``). That is what makes
clicks work after a restart (nothing lives in memory) and lets a click on an old
message be recognised and answered politely. Formats (all ≤ 100 characters):

* ``ct:lobby:<table>:<version>:<join|leave|start|cancel|ai-easy|ai-normal|ai-hard|ai-remove>``
  — lobby buttons (the ``ai-`` ones: the host's Add AI / Remove AI)
* ``ct:hand:<table>:<version>`` — the table's "My hand" button
* ``ct:play:<table>:<version>:<group>`` — a select of legal actions (values = action codes)
* ``ct:act:<table>:<version>:<code>`` — a button for one action (``pass``, ``stop``, ...)
"""

from __future__ import annotations

import re
from dataclasses import dataclass

MAX_LENGTH = 100
LOBBY_ACTIONS = ("join", "leave", "start", "cancel")
# The host's AI controls: seat an AI of a level, or remove the last AI seat.
AI_ACTIONS = ("ai-easy", "ai-normal", "ai-hard", "ai-remove")

_TABLE = r"(?P<table>[0-9a-f]{6,16})"
_VERSION = r"(?P<version>\d{1,12})"
LOBBY_TEMPLATE = rf"ct:lobby:{_TABLE}:{_VERSION}:(?P<action>{'|'.join(LOBBY_ACTIONS + AI_ACTIONS)})"
HAND_TEMPLATE = rf"ct:hand:{_TABLE}:{_VERSION}"
PLAY_TEMPLATE = rf"ct:play:{_TABLE}:{_VERSION}:(?P<group>[0-4])"
ACT_TEMPLATE = rf"ct:act:{_TABLE}:{_VERSION}:(?P<code>[0-9A-Za-z]{{2,5}})"


@dataclass(frozen=True)
class ComponentId:
    kind: str  # lobby, hand, play, act
    table_id: str
    version: int
    arg: str = ""  # the lobby action, the select group, or the action code


def lobby(table_id: str, version: int, action: str) -> str:
    if action not in LOBBY_ACTIONS + AI_ACTIONS:
        raise ValueError(f"unknown lobby action {action!r}")
    return _checked(f"ct:lobby:{table_id}:{version}:{action}")


def hand(table_id: str, version: int) -> str:
    return _checked(f"ct:hand:{table_id}:{version}")


def play(table_id: str, version: int, group: int) -> str:
    return _checked(f"ct:play:{table_id}:{version}:{group}")


def act(table_id: str, version: int, code: str) -> str:
    return _checked(f"ct:act:{table_id}:{version}:{code}")


_PATTERNS = {
    "lobby": (re.compile(LOBBY_TEMPLATE), "action"),
    "hand": (re.compile(HAND_TEMPLATE), None),
    "play": (re.compile(PLAY_TEMPLATE), "group"),
    "act": (re.compile(ACT_TEMPLATE), "code"),
}


def parse(custom_id: str) -> ComponentId | None:
    """The parts of a custom_id, or None if it is not one of ours."""
    for kind, (pattern, arg_name) in _PATTERNS.items():
        match = pattern.fullmatch(custom_id)
        if match:
            arg = match.group(arg_name) if arg_name else ""
            return ComponentId(kind, match.group("table"), int(match.group("version")), arg)
    return None


def _checked(custom_id: str) -> str:
    if len(custom_id) > MAX_LENGTH or parse(custom_id) is None:
        raise ValueError(f"bad custom_id {custom_id!r}")
    return custom_id


def checked(custom_id: str, template: str) -> str:
    """``custom_id`` if Discord takes it and ``template`` (a feature's own component's)
    matches it; ValueError otherwise (a bug: the id was built wrong)."""
    if len(custom_id) > MAX_LENGTH or re.fullmatch(template, custom_id) is None:
        raise ValueError(f"bad custom_id {custom_id!r}")
    return custom_id
