"""The rules of the Hint button, without any front end: who may ask, when, and the mark.

Hints are offered in games that change no rating anyway (a table with an AI seat,
or fewer than two people: ``would_be_rated`` mirrors storage's ``is_rated``), and
in rated games only where the server allows them (``Table.hints_allowed``). A hint
given marks the game (``mark``): the seat goes into ``Table.hinted`` without a new
step, so nobody's menu goes stale, and the finished game counts like one against
AI seats. The click's handler is ``bot.features.hints``; the button ``bot.ui``'s.

A hint costs a search on the AI's workers, so clicks cannot multiply them
(``HintSearches``):

* **one search per table and step.** A second click on the same table and step (a
  stale copy, another DM, a double click) waits for the search that runs, and a click
  after it finished gets its answer without a new search. The answer is kept until the
  table moves on (then it is forgotten at the next ask); a failed or dropped search is
  not kept.
* **one new search per person every ``COOLDOWN`` seconds**, across all tables. A click
  within it on a table and step whose search runs or is known is answered as usual;
  any other is refused politely, saying when they may ask again, and nothing changes.
  2 s: from one hint's click to the next turn's, a person waits for the answer, reads
  it and plays (and, after an AI seat, the bot's 1.5 s pause), so asking once a turn is
  hardly ever refused, even when the trick's winner leads again at once; yet one person
  starts at most one search every 2 s however many tables they sit at (a Normal search
  is capped at 0.35 s: at most a sixth of one worker, 4 % at its 79 ms median). Many
  people at once are the AI pool's share rule's business (``bot.table.ai_pool``).
"""

from __future__ import annotations

import asyncio
import math
from collections import OrderedDict
from collections.abc import Callable, Coroutine
from typing import Any

from bot.table.errors import StaleClick, TableError
from bot.table.state import Table
from bot.table.timers import Clock, SystemClock
from engine.text import T

HINT_LEVEL = "normal"  # whose suggestion a hint is
COOLDOWN = 2.0  # seconds from one person's new hint search to their next (see above)
MEMORY = 1024  # answers kept, at most (those of tables not driven here are not told apart)

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


# Translators: a Hint refused for a while; {when} is a moment, shown as "in 2 seconds"
COOLING = T("You asked for a hint a moment ago. You can ask for the next one {when}; "
            "nothing was changed.")

Search = Callable[[], Coroutine[Any, Any, int]]


class _Shared:
    """One table and step's search, and how many clicks wait for it."""

    def __init__(self, task: asyncio.Task[int]) -> None:
        self.task = task
        self.waiters = 0


class Ticket:
    """A click's share of a search: ``answer`` awaits it (once). A click that gives up
    leaves the search to the others; the last one to go cancels it, so its request
    leaves the AI's queue unrun."""

    def __init__(self, shared: _Shared, new: bool) -> None:
        self._shared = shared
        self.new = new  # this click started the search
        self._held = True
        shared.waiters += 1

    async def answer(self) -> int:
        """The search's action; its exception (``Dropped``: not searched) if it failed."""
        try:
            return await asyncio.shield(self._shared.task)
        finally:
            self.release()

    def release(self) -> None:
        """This click no longer waits (``answer`` does it; call it if never awaited)."""
        if not self._held:
            return
        self._held = False
        self._shared.waiters -= 1
        if self._shared.waiters == 0 and not self._shared.task.done():
            self._shared.task.cancel()


class HintSearches:
    """The hint searches of a process: at most one per table and step, its answer kept
    until the table moves on, and a cooldown per person (see the module's docstring).

    ``current(table_id, step)``: whether the table is still at that step (or may be: a
    table another process drives is not told apart here). Answers no longer current
    are forgotten at the next new search; of the others the oldest go first once
    ``memory`` are kept."""

    def __init__(self, current: Callable[[str, int], bool], clock: Clock | None = None,
                 cooldown: float = COOLDOWN, memory: int = MEMORY) -> None:
        self.current = current
        self.clock: Clock = clock if clock is not None else SystemClock()
        self.cooldown = cooldown
        self.memory = memory
        self._shared: OrderedDict[tuple[str, int], _Shared] = OrderedDict()
        self._last: OrderedDict[int, float] = OrderedDict()  # person -> their last new search
        self.started = 0  # new searches (tests, benchmarks)

    def __len__(self) -> int:
        """Searches running or answered, kept."""
        return len(self._shared)

    def ask(self, table_id: str, step: int, user_id: int, search: Search,
            when: Callable[[float], str]) -> Ticket:
        """A click's ticket to the search of ``table_id`` at ``step``: the one running or
        answered, or a new one (``search()`` started now) if the user may start one;
        else ``TableError`` saying ``when`` (a front end's clock text) they may."""
        key = (table_id, step)
        shared = self._shared.get(key)
        if shared is not None and not _failed(shared.task):
            return Ticket(shared, new=False)
        now = self.clock.now()
        while self._last and next(iter(self._last.values())) + self.cooldown <= now:
            self._last.popitem(last=False)  # cooled down: forgotten
        last = self._last.get(user_id)
        if last is not None and now < last + self.cooldown:
            raise TableError(COOLING.filled(when=when(math.ceil(last + self.cooldown))))
        self._forget()
        self._last[user_id] = now
        self._last.move_to_end(user_id)
        shared = _Shared(asyncio.get_running_loop().create_task(
            search(), name=f"hint-{table_id}-{step}"))
        self._shared[key] = shared
        shared.task.add_done_callback(lambda task: self._ended(key, shared))
        self.started += 1
        return Ticket(shared, new=True)

    def _ended(self, key: tuple[str, int], shared: _Shared) -> None:
        if _failed(shared.task) and self._shared.get(key) is shared:
            del self._shared[key]  # not kept: the next click asks again

    def _forget(self) -> None:
        """Forget the answers of tables that moved on or closed, and the oldest beyond
        ``memory`` (searches still running stay: they end by themselves)."""
        for key, shared in list(self._shared.items()):
            if shared.task.done() and not self.current(*key):
                del self._shared[key]
        for key in [k for k, s in self._shared.items() if s.task.done()]:
            if len(self._shared) < self.memory:
                break
            del self._shared[key]


def _failed(task: asyncio.Task[int]) -> bool:
    """Done without an answer (reading the exception also marks it as seen)."""
    return task.done() and (task.cancelled() or task.exception() is not None)
