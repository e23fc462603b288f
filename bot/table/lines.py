"""The lines a table keeps about what just happened, as sentences for any language.

A table message shows its last few events ("Ann played 10♥."); they are kept in
the table's snapshot as ``Text`` data and said in the table's language when the
message is drawn (``locales.say``). The player's name goes in as typed: it is escaped
when the line is drawn (``bot.ui.markup.say_safe``), never stored escaped.
"""

from __future__ import annotations

from engine.core import action_code, action_label
from engine.events import DealEnded, Event, GameEnded
from engine.text import T, Text

# The line a move leaves on the table, by who chose it and what it was: one sentence
# each (word order differs between languages), filled in with the player and the card.
MOVE_LINES: dict[str, dict[str | None, Text]] = {
    "player": {
        "pass": T("{player} passed."),
        "stop": T("{player} stopped the round."),
        "take": T("{player} took the open card."),
        "stand": T("{player} stood."),
        None: T("{player} played {card}."),
    },
    "timer": {
        "pass": T("⏰ {player} ran out of time: I passed for them."),
        "stop": T("⏰ {player} ran out of time: I stopped the round for them."),
        "take": T("⏰ {player} ran out of time: I took the open card for them."),
        "stand": T("⏰ {player} ran out of time: I stood for them."),
        None: T("⏰ {player} ran out of time: I played {card} for them."),
    },
    "away": {
        "pass": T("💤 {player} is away: I passed for them."),
        "stop": T("💤 {player} is away: I stopped the round for them."),
        "take": T("💤 {player} is away: I took the open card for them."),
        "stand": T("💤 {player} is away: I stood for them."),
        None: T("💤 {player} is away: I played {card} for them."),
    },
    "forced": {  # only ever a pass (nothing else was possible)
        "pass": T("{player} passed (nothing else was possible)."),
        None: T("{player} played {card} (nothing else was possible)."),
    },
}


def move_line(by: str, name: str | Text, action: int) -> Text:
    lines = MOVE_LINES.get(by, MOVE_LINES["player"])
    code = action_code(action)
    return lines.get(code, lines[None]).filled(player=name, card=action_label(action))


def deal_reports(events: list[Event]) -> list[int]:
    """The deals a step ended whose result gets a message of its own: not the last deal
    of a game, which the final result shows."""
    if any(isinstance(e, GameEnded) for e in events):
        return []
    return [e.deal for e in events if isinstance(e, DealEnded)]
