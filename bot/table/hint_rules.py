"""The rules of the Hint button, without any front end: who may ask, when, and the mark.

Hints are offered in games that change no rating anyway (a table with an AI seat,
or fewer than two people: ``would_be_rated`` mirrors storage's ``is_rated``), and
in rated games only where the server allows them (``Table.hints_allowed``). A hint
given marks the game (``mark``): the seat goes into ``Table.hinted`` without a new
step, so nobody's menu goes stale, and the finished game counts like one against
AI seats. The click's handler is ``bot.features.hints``; the button ``bot.ui``'s.
"""

from __future__ import annotations

from bot.table.errors import StaleClick, TableError
from bot.table.state import Table
from engine.text import T

HINT_LEVEL = "normal"  # whose suggestion a hint is

REFUSED = T("Hints are not allowed at this table: its game is rated, and this server keeps "
            "hints out of rated games. Nothing was changed.")
# Translators: a line on the table message: a player used the Hint button (said once a seat)
ASKED = T("💡 {player} asked the AI for a hint.")


def would_be_rated(table: Table) -> bool:
    """Whether the table's game would change ratings if nobody asked for a hint: every
    seat a person, two or more (storage's ``results.is_rated``, before the game ends)."""
    humans = sum(1 for s in table.seats if not s.is_ai)
    return humans >= 2 and humans == len(table.seats)


def allowed(table: Table) -> bool:
    """Hints at this table: in a game that is not rated, or where the server allows them."""
    return table.hints_allowed or not would_be_rated(table)


def offered(table: Table, seat: int) -> bool:
    """Whether the seat's hand shows the Hint button now: its turn, hints allowed."""
    return (allowed(table) and table.to_act == seat and table.automation() is None
            and not table.seats[seat].is_ai)


def check_hint(table: Table, user_id: int, step: int) -> int:
    """The seat of a Hint click drawn at ``step``, or ``TableError``/``StaleClick`` with
    the same polite sentences as a move's; changes nothing."""
    game = table.require_playing()
    seat = table.seated(user_id)
    if not allowed(table):
        raise TableError(REFUSED)
    if step != table.step:
        raise StaleClick(T("That menu is out of date: the table has moved on."))
    to_act = game.to_act
    if to_act is None:
        raise TableError(T("It is not your turn: it is nobody's."))
    if to_act != seat:
        raise TableError(T("It is not your turn: it is {player}'s.",
                           player=table.seats[to_act].name_text))
    return seat


def mark(table: Table, seat: int) -> None:
    """The game is hinted from now on (a new list: clones share the old one); the table
    says who asked, the first time a seat does. No step: nobody's menu goes stale."""
    if seat in table.hinted:
        return
    table.hinted = sorted({*table.hinted, seat})
    table.add_line(ASKED.filled(player=table.seats[seat].name_text))
