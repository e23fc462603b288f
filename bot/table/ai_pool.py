"""The queue in front of the AI workers: tables take turns, a hint goes first.

Every table asks the same few worker processes. Served in arrival order, one table
with a backlog (or eight busy ones) would make everyone else wait behind it, and a
person's Hint would wait behind the bots' moves. So:

* at most ``workers`` searches run at once (one per worker process);
* urgent requests (hints: a person is waiting) go before all others, but only up to
  a share while the bots' requests wait (AI seats' moves, timed-out turns): never two
  urgent searches started in a row, and at most ``urgent_share`` (half the workers, at
  least one) running at once. A flood of hints therefore gets at most every other free
  worker, and the tables' own play goes on beside it; with nothing else waiting, urgent
  requests take every worker;
* among the rest, the next free worker goes to the waiting table served longest ago
  (a table never served first), then to that table's oldest request: round-robin,
  so a backlog costs its own table only;
* a request whose asker gave up (its task was cancelled) or whose table closed is
  dropped without running.

``FairQueue`` is the order alone (plain data); ``AIPool`` runs it on the event loop.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import functools
import itertools
from collections import OrderedDict, deque
from collections.abc import Callable
from dataclasses import dataclass

Job = Callable[[], int]  # a search, run in the executor (picklable for a process pool)
Live = Callable[[], bool]


class Dropped(Exception):
    """The request was dropped without an answer: its table closed, or the AI stopped."""


def _always() -> bool:
    return True


@dataclass(eq=False)
class Request:
    table_id: str
    job: Job
    urgent: bool = False
    live: Live = _always  # asked just before it runs: False drops it
    future: asyncio.Future[int] | None = None  # the asker awaits it (None: the queue alone)
    arrival: int = 0  # set by the queue


class FairQueue:
    """Who runs next (see the module's docstring). No asyncio: tested as plain data."""

    SERVED_MEMORY = 4096  # tables remembered as served; one forgotten counts as never served

    def __init__(self) -> None:
        # Two lanes, urgent first; in each, table id -> its waiting requests, oldest first.
        self._lanes: tuple[dict[str, deque[Request]], dict[str, deque[Request]]] = ({}, {})
        self._served: OrderedDict[str, int] = OrderedDict()  # table -> tick of its last turn
        self._ticks = itertools.count(1)
        self._arrivals = itertools.count()

    def __len__(self) -> int:
        return sum(len(waiting) for lane in self._lanes for waiting in lane.values())

    def count(self, *, urgent: bool) -> int:
        """How many requests wait in one lane."""
        return sum(len(waiting) for waiting in self._lanes[0 if urgent else 1].values())

    def _lane(self, request: Request) -> dict[str, deque[Request]]:
        return self._lanes[0 if request.urgent else 1]

    def push(self, request: Request) -> None:
        request.arrival = next(self._arrivals)
        self._lane(request).setdefault(request.table_id, deque()).append(request)

    def discard(self, request: Request) -> bool:
        """Take a waiting request out (its asker gave up); False if it is not waiting."""
        lane = self._lane(request)
        waiting = lane.get(request.table_id)
        if waiting is None or request not in waiting:
            return False
        waiting.remove(request)
        if not waiting:
            del lane[request.table_id]
        return True

    def pop(self, *, urgent_first: bool = True) -> Request | None:
        """The next request to run, or None; its table counts as just served.

        ``urgent_first`` False: the other lane first (the pool's share rule); a lane
        that is empty never holds the other back."""
        for lane in (self._lanes if urgent_first else self._lanes[::-1]):
            if not lane:
                continue
            table = min(lane, key=lambda t: (self._served.get(t, 0), lane[t][0].arrival))
            waiting = lane[table]
            request = waiting.popleft()
            if not waiting:
                del lane[table]
            self._served[table] = next(self._ticks)
            self._served.move_to_end(table)
            if len(self._served) > self.SERVED_MEMORY:
                self._served.popitem(last=False)
            return request
        return None

    def drain(self) -> list[Request]:
        """Every waiting request, taken out."""
        found = [r for lane in self._lanes for waiting in lane.values() for r in waiting]
        for lane in self._lanes:
            lane.clear()
        return found


class AIPool:
    """Runs the queue's requests in an executor, ``workers`` at a time.

    ``executor`` is called for each job (the runner creates its pool lazily, and a new
    one after a worker died); ``on_broken`` hears of an executor that broke."""

    def __init__(self, workers: int, executor: Callable[[], concurrent.futures.Executor],
                 on_broken: Callable[[concurrent.futures.Executor], None] = lambda e: None):
        if workers < 1:
            raise ValueError("an AI pool needs at least one worker")
        self.workers = workers
        self._executor = executor
        self._on_broken = on_broken
        self._queue = FairQueue()
        self.running = 0
        # Urgent searches running at once while the bots' requests wait: half the workers,
        # at least one (with one worker, the rule that none runs twice in a row bounds it).
        self.urgent_share = max(1, workers // 2)
        self.running_urgent = 0
        self._urgent_last = False  # the search started last was urgent
        self.finished = 0  # searches that ran to an answer (benchmarks: decisions per second)

    @property
    def waiting(self) -> int:
        return len(self._queue)

    @property
    def waiting_urgent(self) -> int:
        return self._queue.count(urgent=True)

    async def run(self, table_id: str, job: Job, *, urgent: bool = False,
                  live: Live | None = None) -> int:
        """The job's answer once a worker ran it; ``Dropped`` if it never ran."""
        future: asyncio.Future[int] = asyncio.get_running_loop().create_future()
        request = Request(table_id, job, urgent, live or _always, future)
        self._queue.push(request)
        self._dispatch()
        try:
            return await future
        except asyncio.CancelledError:
            self._queue.discard(request)  # still waiting: it never runs
            raise

    def close(self) -> None:
        """Drop every waiting request (the searches running finish on their own)."""
        for request in self._queue.drain():
            _fail(request, Dropped("the AI stopped"))  # not for players

    def _dispatch(self) -> None:
        while self.running < self.workers:
            # Urgent first, unless the last search started was urgent or the urgent ones
            # fill their share: then the bots' requests, if any wait, go first.
            request = self._queue.pop(urgent_first=not self._urgent_last
                                      and self.running_urgent < self.urgent_share)
            if request is None:
                return
            if not _waited_for(request):
                continue  # nobody waits for it any more
            if not request.live():
                _fail(request, Dropped(f"table {request.table_id} closed"))  # not for players
                continue
            executor = self._executor()
            try:
                job = asyncio.get_running_loop().run_in_executor(executor, request.job)
            except Exception as error:  # a broken or shut executor refuses at once
                self._failed(executor, error)
                _fail(request, error)
                continue
            self.running += 1
            self.running_urgent += request.urgent
            self._urgent_last = request.urgent
            # The slot is free when the job ends, not when its asker gives up: a search
            # already running cannot be stopped, and it still occupies its worker.
            job.add_done_callback(functools.partial(self._done, request, executor))

    def _done(self, request: Request, executor: concurrent.futures.Executor,
              job: asyncio.Future[int]) -> None:
        self.running -= 1
        self.running_urgent -= request.urgent
        if job.cancelled():  # the executor was shut down before it ran
            _fail(request, Dropped("the AI stopped"))  # not for players
        elif (error := job.exception()) is not None:
            self._failed(executor, error)
            _fail(request, error)
        else:
            self.finished += 1
            future = request.future
            if future is not None and not future.done():
                future.set_result(job.result())
        self._dispatch()

    def _failed(self, executor: concurrent.futures.Executor, error: BaseException) -> None:
        if isinstance(error, concurrent.futures.BrokenExecutor):
            self._on_broken(executor)


def _waited_for(request: Request) -> bool:
    return request.future is not None and not request.future.done()


def _fail(request: Request, error: BaseException) -> None:
    future = request.future
    if future is not None and not future.done():  # else nobody reads the answer
        future.set_exception(error)
