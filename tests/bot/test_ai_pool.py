"""The AI pool (bot.table.ai_pool): how many workers, who runs next, what is dropped.

Jobs wait at a gate the test opens one at a time, so every assertion is about order
(who started, who never ran), never about how long something took."""

from __future__ import annotations

import asyncio
import concurrent.futures
import os
import random
import threading
from collections.abc import Callable
from typing import Any

import pytest

from bot.table.ai_pool import AIPool, Dropped, FairQueue, Request
from bot.table.ai_runner import AIRunner, default_workers, table_seed
from engine.jazz import Jazz


class Gate(concurrent.futures.ThreadPoolExecutor):
    """More threads than the pool's slots (so the pool alone limits), each job waiting at
    a gate; remembers the order jobs started and finished, and the most at once."""

    def __init__(self, threads: int = 8) -> None:
        super().__init__(max_workers=threads)
        self.started: list[Any] = []
        self.finished: list[Any] = []
        self.most = 0
        self._passes = threading.Semaphore(0)
        self._open = threading.Event()
        self._lock = threading.Lock()

    def let_through(self, jobs: int = 1) -> None:
        for _ in range(jobs):
            self._passes.release()

    def open(self) -> None:
        self._open.set()
        self.let_through(100)

    def submit(self, fn, /, *args, **kwargs):  # type: ignore[override]
        name = getattr(fn, "name", None) or fn.args[3]  # a test's job, or the runner's seed

        def run() -> Any:
            with self._lock:
                self.started.append(name)
                self.most = max(self.most, len(self.started) - len(self.finished))
            if not self._open.is_set():
                assert self._passes.acquire(timeout=10), "the test never opened the gate"
            try:
                return fn(*args, **kwargs)
            finally:
                with self._lock:
                    self.finished.append(name)
        return super().submit(run)


class Job:
    def __init__(self, name: str, answer: int = 1) -> None:
        self.name, self.answer = name, answer

    def __call__(self) -> int:
        return self.answer


async def until(condition: Callable[[], bool]) -> None:
    """Wait until ``condition`` holds (the long timeout only stops a broken test hanging)."""
    for _ in range(20_000):
        if condition():
            return
        await asyncio.sleep(0.001)
    raise AssertionError("the condition never held")


def pool_over(gate: Gate, workers: int) -> AIPool:
    return AIPool(workers, lambda: gate)


def ask(pool: AIPool, table: str, name: str, **options: Any) -> asyncio.Task[int]:
    return asyncio.create_task(pool.run(table, Job(name), **options), name=name)


async def finish_one_by_one(gate: Gate, total: int) -> None:
    """Let the jobs through one at a time, each after the one before has finished."""
    for done in range(1, total + 1):
        await until(lambda done=done: len(gate.started) >= done)
        gate.let_through()
        await until(lambda done=done: len(gate.finished) >= done)


# ------------------------------------------------------------------ how many workers


def test_the_default_is_the_cores_less_one_and_at_least_one(monkeypatch):
    for cores, expected in ((8, 7), (2, 1), (1, 1), (None, 1)):
        monkeypatch.setattr(os, "cpu_count", lambda cores=cores: cores)
        monkeypatch.setattr(os, "process_cpu_count", lambda cores=cores: cores, raising=False)
        assert default_workers() == expected
    monkeypatch.setattr(os, "process_cpu_count", lambda: 4, raising=False)
    runner = AIRunner()
    try:
        assert runner.workers == 3 and runner.pool.workers == 3
        # The default executor has as many processes (spawned when first needed).
        assert runner.executor._max_workers == 3  # type: ignore[attr-defined]
    finally:
        runner.close()


def test_the_number_of_workers_is_a_setting():
    runner = AIRunner(workers=5)
    try:
        assert runner.pool.workers == 5
        assert runner.executor._max_workers == 5  # type: ignore[attr-defined]
    finally:
        runner.close()
    with pytest.raises(ValueError):
        AIRunner(workers=0)


async def test_at_most_workers_searches_run_at_once():
    gate = Gate(threads=8)
    pool = pool_over(gate, 3)
    tasks = [ask(pool, f"t{n % 4}", f"j{n}") for n in range(12)]
    await until(lambda: len(gate.started) == 3)
    assert pool.running == 3 and pool.waiting == 9
    await finish_one_by_one(gate, 12)
    assert [await t for t in tasks] == [1] * 12
    assert gate.most == 3 and pool.finished == 12
    gate.shutdown()


# ------------------------------------------------------------------ who runs next


def requests(queue: FairQueue, table: str, count: int, *, urgent: bool = False) -> None:
    for n in range(count):
        queue.push(Request(table, Job(f"{table}{n + 1}"), urgent=urgent))


def order(queue: FairQueue) -> list[str]:
    out = []
    while (request := queue.pop()) is not None:
        out.append(request.job.name)  # type: ignore[attr-defined]
    return out


def test_tables_take_turns():
    queue = FairQueue()
    requests(queue, "A", 3)
    requests(queue, "B", 3)
    requests(queue, "C", 1)
    assert order(queue) == ["A1", "B1", "C1", "A2", "B2", "A3", "B3"]


def test_a_table_just_served_goes_behind_one_that_waits():
    queue = FairQueue()
    requests(queue, "A", 1)
    assert order(queue) == ["A1"]  # A was served (its search runs)...
    requests(queue, "A", 5)  # ...and asks five more before B asks once
    requests(queue, "B", 1)
    assert order(queue)[:2] == ["B1", "A1"]


@pytest.mark.parametrize("workers", [1, 2, 3])
async def test_a_backlog_cannot_starve_another_table(workers):
    gate = Gate()
    pool = pool_over(gate, workers)
    busy = [ask(pool, "busy", f"busy{n}") for n in range(10)]
    await until(lambda: len(gate.started) == workers)  # the busy table's first searches
    other = ask(pool, "other", "other")
    await finish_one_by_one(gate, 11)
    # The first slot to free goes to the other table: it is among the first ``workers``
    # searches started after it asked (the first, in fact).
    assert gate.started.index("other") == workers
    await asyncio.gather(other, *busy)
    gate.shutdown()


async def test_a_hint_goes_before_the_bots_moves():
    gate = Gate()
    pool = pool_over(gate, 1)
    moves = [ask(pool, table, f"move-{table}") for table in ("a", "b", "c", "d")]
    await until(lambda: gate.started == ["move-a"])
    hint = ask(pool, "e", "hint-e", urgent=True)
    later = ask(pool, "a", "move-a2")
    await until(lambda: pool.waiting == 5)
    await finish_one_by_one(gate, 6)
    assert gate.started[:2] == ["move-a", "hint-e"]
    await asyncio.gather(hint, later, *moves)
    gate.shutdown()


def test_urgent_requests_take_turns_too():
    queue = FairQueue()
    requests(queue, "A", 2)
    requests(queue, "B", 2, urgent=True)
    requests(queue, "C", 1, urgent=True)
    assert order(queue) == ["B1", "C1", "B2", "A1", "A2"]


# ------------------------------------------------------------------ the urgent lane's share


def test_the_queue_can_serve_the_bots_lane_first():
    queue = FairQueue()
    requests(queue, "A", 2)
    requests(queue, "B", 2, urgent=True)
    assert queue.count(urgent=True) == 2 and queue.count(urgent=False) == 2
    assert queue.pop(urgent_first=False).job.name == "A1"  # type: ignore[union-attr, attr-defined]
    assert queue.pop().job.name == "B1"  # type: ignore[union-attr, attr-defined]
    assert queue.pop(urgent_first=False).job.name == "A2"  # type: ignore[union-attr, attr-defined]
    # An empty lane never holds the other back.
    assert queue.pop(urgent_first=False).job.name == "B2"  # type: ignore[union-attr, attr-defined]
    assert queue.pop(urgent_first=False) is None


async def test_between_two_urgent_searches_a_waiting_bot_search_runs():
    """One worker, a flood of hints from five tables while three tables' AI seats wait:
    the hints go first, but never two in a row while a bot's search waits."""
    gate = Gate()
    pool = pool_over(gate, 1)
    first = ask(pool, "a", "n-a")
    await until(lambda: gate.started == ["n-a"])
    hints = [ask(pool, f"h{n}", f"u-h{n}", urgent=True) for n in range(1, 6)]
    moves = [ask(pool, table, f"n-{table}") for table in ("b", "c", "d")]
    await until(lambda: pool.waiting == 8)
    assert pool.waiting_urgent == 5
    await finish_one_by_one(gate, 9)
    assert gate.started == ["n-a", "u-h1", "n-b", "u-h2", "n-c", "u-h3", "n-d",
                            "u-h4", "u-h5"]  # the bots' lane empty: the hints back to back
    assert await asyncio.gather(first, *hints, *moves) == [1] * 9
    gate.shutdown()


async def test_hints_alone_take_every_worker():
    gate = Gate()
    pool = pool_over(gate, 2)
    hints = [ask(pool, f"h{n}", f"u{n}", urgent=True) for n in range(4)]
    await until(lambda: len(gate.started) == 2)
    assert pool.running_urgent == 2  # nothing else waits: no worker idles
    gate.open()
    assert await asyncio.gather(*hints) == [1] * 4
    gate.shutdown()


@pytest.mark.parametrize("workers", [2, 3, 4])
async def test_urgent_searches_hold_at_most_their_share_of_the_workers(workers):
    gate = Gate(threads=8)
    pool = pool_over(gate, workers)
    assert pool.urgent_share == max(1, workers // 2)
    moves = [ask(pool, f"t{n % 5}", f"n{n}") for n in range(12)]
    await until(lambda: len(gate.started) == workers)
    hints = [ask(pool, f"h{n}", f"u{n}", urgent=True) for n in range(12)]
    await until(lambda: pool.waiting == 24 - workers)
    most = 0
    for done in range(1, 25):
        await until(lambda done=done: len(gate.started) >= min(24, done + workers - 1))
        if pool.waiting - pool.waiting_urgent > 0:  # the bots' lane waits: the share holds
            most = max(most, pool.running_urgent)
        gate.let_through()
        await until(lambda done=done: len(gate.finished) >= done)
    assert most == pool.urgent_share
    # The hints still went first: the first started after the flood began was one.
    assert gate.started[workers].startswith("u")
    assert await asyncio.gather(*moves, *hints) == [1] * 24
    gate.shutdown()


# ------------------------------------------------------------------ what is dropped


async def test_a_cancelled_request_is_dropped_without_running():
    gate = Gate()
    pool = pool_over(gate, 1)
    first = ask(pool, "a", "first")
    await until(lambda: gate.started == ["first"])
    gone = ask(pool, "b", "gone")
    kept = ask(pool, "c", "kept")
    await until(lambda: pool.waiting == 2)
    gone.cancel()
    with pytest.raises(asyncio.CancelledError):
        await gone
    assert pool.waiting == 1  # out of the queue at once
    gate.open()
    assert await first == 1 and await kept == 1
    assert gate.started == ["first", "kept"]
    gate.shutdown()


async def test_a_running_search_keeps_its_worker_when_its_asker_gives_up():
    gate = Gate()
    pool = pool_over(gate, 1)
    first = ask(pool, "a", "first")
    await until(lambda: gate.started == ["first"])
    second = ask(pool, "b", "second")
    first.cancel()  # the asker goes; the search cannot be stopped and still fills the slot
    await asyncio.sleep(0.01)
    assert gate.started == ["first"] and pool.running == 1
    gate.open()
    assert await second == 1 and gate.started == ["first", "second"]
    gate.shutdown()


async def test_a_request_of_a_closed_table_is_dropped_without_running():
    gate = Gate()
    pool = pool_over(gate, 1)
    first = ask(pool, "a", "first")
    await until(lambda: gate.started == ["first"])
    open_ = {"b": True}
    closed = asyncio.create_task(pool.run("b", Job("closed"), live=lambda: open_["b"]))
    await until(lambda: pool.waiting == 1)
    open_["b"] = False  # the table closes while its request waits
    gate.open()
    with pytest.raises(Dropped):
        await closed
    await first
    assert gate.started == ["first"]
    gate.shutdown()


async def test_closing_the_runner_drops_what_waits():
    gate = Gate()
    runner = AIRunner(gate, workers=1, iterations=5, time_limit=None, owns_executor=True)
    game = fresh_jazz()
    first = asyncio.create_task(runner.choose(game, game.to_act, "normal", "0a"))
    await until(lambda: len(gate.started) == 1)
    waiting = asyncio.create_task(runner.choose(game, game.to_act, "normal", "0b"))
    await until(lambda: runner.pool.waiting == 1)
    gate.open()
    runner.close()
    with pytest.raises(Dropped):
        await waiting
    assert await first in game.legal_actions()


async def test_a_broken_pool_is_replaced_only_once():
    """Two searches fail on a pool whose worker died: the runner starts a new pool for
    the next decision, and the second failure must not shut that new one down."""
    runner = AIRunner(workers=2)
    old = concurrent.futures.ThreadPoolExecutor(1)
    runner._executor = old  # as if the runner had made it
    runner._broken(old)
    assert runner._executor is None
    new = runner.executor
    runner._broken(old)  # a late failure of the old pool
    assert runner._executor is new
    runner.close()


# ------------------------------------------------------------------ through the runner


def fresh_jazz(seed: int = 3) -> Jazz:
    game = Jazz(4, Jazz.OPTIONS.from_dict({}, 4), 0)
    game.start_deal(game.random_deal(random.Random(seed)))
    return game


async def test_the_runner_serves_a_hint_first_and_decides_as_before():
    gate = Gate()
    runner = AIRunner(gate, workers=1, iterations=20, time_limit=None, owns_executor=True)
    game = fresh_jazz()
    seat = game.to_act
    try:
        bots = [asyncio.create_task(runner.choose(game, seat, "normal", table))
                for table in ("0a", "0b", "0c")]
        await until(lambda: len(gate.started) == 1)
        hint = asyncio.create_task(runner.choose(game, seat, "normal", "0d", urgent=True))
        await until(lambda: runner.pool.waiting == 3)
        gate.open()
        answers = await asyncio.gather(*bots, hint)
        assert gate.started[:2] == [table_seed("0a"), table_seed("0d")]
        # Seeded by the table as before: the same table and state, the same decision.
        again = AIRunner(concurrent.futures.ThreadPoolExecutor(1), iterations=20,
                         time_limit=None, owns_executor=True)
        try:
            assert await again.choose(game, seat, "normal", "0d") == answers[-1]
        finally:
            again.close()
    finally:
        runner.close()
