"""Discord's global request budget, kept by the bot itself.

Discord allows a bot 50 requests a second over all routes (interaction responses
and the interaction webhook are exempt) and answers 429 beyond it; discord.py then
holds every request back, DMs and table edits alike. So the bot paces itself
below that: each request ``bot.ui.poster.Poster`` makes takes a turn here first, and
at most ``rate`` turns start in any window of one second (a rate under one a second:
one turn per ``1 / rate`` seconds).

The limit is the bot token's, whichever process sends: a process running k of a
token's n shards is given k/n of ``Timing.request_rate`` (``Shards.share``), so the
shard processes of one token together never start more than that in a second, and
need not talk to each other about it. A turn counts from when its request starts: a
waiter woken late (a busy event loop) moves its turn later in the window, so a late
request and the next window's first ones never meet in one second.

Turns are given by kind. A message (a new message, a DM, a deletion, a read: each
tells someone something) goes before a table edit; table edits take every
``EDIT_SHARE``-th turn while both wait, so no table is starved. Only the coalesced
table edits (``EditCoalescer``) wait as edits, one per table at most: a table whose
edit is still waiting is drawn as it is when its turn comes.
"""

from __future__ import annotations

import asyncio
from collections import deque
from collections.abc import Callable

MESSAGE, EDIT = 0, 1
KINDS = (MESSAGE, EDIT)
EDIT_SHARE = 5  # while both wait, every fifth turn is a table edit's
DEFAULT_RATE = 45.0  # Discord's limit is 50/s: the rest is slack for what is not paced


class Pacer:
    def __init__(self, rate: float = DEFAULT_RATE, window: float = 1.0,
                 on_turn: Callable[[int], None] | None = None):
        self.window = window
        self.rate = rate
        self.on_turn = on_turn  # told of every turn given (its kind): tests, metrics
        # When each turn of the last window began (a cell, moved when its waiter wakes).
        self._started: deque[list[float]] = deque()
        self._queues: tuple[deque[asyncio.Future[list[float]]], ...] = (deque(), deque())
        self._messages_since_edit = 0
        self._timer: asyncio.Handle | None = None

    @property
    def rate(self) -> float:
        return self._rate

    @rate.setter
    def rate(self, rate: float) -> None:
        if rate <= 0:
            raise ValueError("a request rate must be positive")
        self._rate = rate
        # Turns per window (rounded down, so that the parts of several processes never
        # add up to more than the whole; the 1e-6 forgives 45 × (1/3) = 14.999…). Below
        # one turn a window, one turn per span of 1 / rate keeps the rate on average.
        self.limit = max(1, int(rate * self.window + 1e-6))
        self.span = max(self.window, self.limit / rate)  # the window turns are counted in

    def waiting(self, kind: int | None = None) -> int:
        kinds = KINDS if kind is None else (kind,)
        return sum(1 for k in kinds for f in self._queues[k] if not f.done())

    def try_acquire(self, kind: int = MESSAGE) -> bool:
        """A turn at once if one is free and nobody it must let go first is waiting."""
        ahead = self.waiting(MESSAGE) if kind == MESSAGE else self.waiting()
        if ahead or not self._free():
            return False
        self._take(kind)
        return True

    async def acquire(self, kind: int = MESSAGE) -> None:
        """Wait for a turn of this kind; the request may start as soon as this returns."""
        if self.try_acquire(kind):
            return
        future: asyncio.Future[list[float]] = asyncio.get_running_loop().create_future()
        self._queues[kind].append(future)
        self._wake_later()
        began = await future  # cancelled: the future is too, and skipped when turns are given
        began[0] = max(began[0], self._now())  # the request starts now, not when given

    def _now(self) -> float:
        return asyncio.get_running_loop().time()

    def _free(self) -> bool:
        now = self._now()
        # (A hair early: a timer set for the exact moment must find the turn free.)
        # (Cells moved later may leave the deque out of order: an older one behind a moved
        # one then waits for it, which only ever gives fewer turns.)
        while self._started and now - self._started[0][0] >= self.span - 1e-9:
            self._started.popleft()
        return len(self._started) < self.limit

    def _take(self, kind: int) -> list[float]:
        began = [self._now()]
        self._started.append(began)
        self._messages_since_edit = self._messages_since_edit + 1 if kind == MESSAGE else 0
        if self.on_turn is not None:
            self.on_turn(kind)
        return began

    def _next_kind(self) -> int | None:
        waits = [k for k in KINDS if self._prune(k)]
        if len(waits) == 2:
            return EDIT if self._messages_since_edit >= EDIT_SHARE - 1 else MESSAGE
        return waits[0] if waits else None

    def _prune(self, kind: int) -> bool:
        """Drop the waiters that gave up; whether any of this kind still waits."""
        queue = self._queues[kind]
        while queue and queue[0].done():
            queue.popleft()
        return bool(queue)

    def _give_turns(self) -> None:
        self._timer = None
        while self._free() and (kind := self._next_kind()) is not None:
            future = self._queues[kind].popleft()
            future.set_result(self._take(kind))
        self._wake_later()

    def _wake_later(self) -> None:
        """Give the next turns when the oldest turn of the window has left it."""
        if self._timer is not None or self._next_kind() is None:
            return
        loop = asyncio.get_running_loop()
        if self._free():
            self._timer = loop.call_soon(self._give_turns)
        else:
            self._timer = loop.call_at(self._started[0][0] + self.span, self._give_turns)
