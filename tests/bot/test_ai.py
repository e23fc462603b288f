"""AI seats without Discord: the table's rules for them, and ``AIRunner`` (off the loop,
deterministic, measured for the event loop's stalls with the real process pool)."""

from __future__ import annotations

import asyncio
import concurrent.futures
import json
import os
import random

import pytest

from bot.table.ai_runner import AIRunner, seat_name
from bot.table.state import Table, TableError
from engine.ai import choose_from_data
from engine.jazz import Jazz
from tests.bot.test_tables import HOST, lobby, play_until


def with_ai(humans: int, *levels: str) -> Table:
    table = lobby(humans)
    for level in levels:
        table.add_ai(HOST, level, 0.0)
    return table


# ------------------------------------------------------------------ the table's rules


def test_ai_seats_have_unique_negative_ids_and_numbered_names():
    table = with_ai(1, "normal", "easy", "normal")
    ai = table.seats[1:]
    assert [s.name for s in ai] == ["🤖 Normal AI", "🤖 Easy AI", "🤖 Normal AI 2"]
    assert [s.ai for s in ai] == ["normal", "easy", "normal"]
    ids = [s.user_id for s in ai]
    assert all(i < 0 for i in ids) and len(set(ids)) == 3
    assert [s.user_id for s in table.humans] == [HOST]
    assert seat_name("hard", 3) == "🤖 Hard AI 3"


def test_only_the_host_adds_or_removes_ai_and_only_while_a_seat_is_free():
    table = with_ai(2)
    step = table.step
    with pytest.raises(TableError, match="Only the host"):
        table.add_ai(HOST + 1, "easy", 0.0)
    with pytest.raises(TableError, match="no AI player"):
        table.remove_ai(HOST, 0.0)
    with pytest.raises(TableError, match="Unknown AI level"):
        table.add_ai(HOST, "random", 0.0)  # the benchmarks' yardstick is not offered
    assert table.step == step and len(table.seats) == 2
    for _ in range(Jazz.MAX_PLAYERS - 2):
        table.add_ai(HOST, "easy", 0.0)
    with pytest.raises(TableError, match="at most 7"):
        table.add_ai(HOST, "easy", 0.0)
    table.remove_ai(HOST, 0.0)
    assert len(table.seats) == Jazz.MAX_PLAYERS - 1 and table.step > step


def test_ai_seats_count_for_the_start_and_the_last_person_leaving_closes_the_lobby():
    table = with_ai(1, "hard")
    with pytest.raises(TableError, match="needs 3 to 7 players: 2 seated"):
        table.start(HOST, 1.0)
    table.add_ai(HOST, "easy", 0.0)
    table.start(HOST, 1.0)  # one person and two AI seats: a game
    alone = with_ai(1, "easy", "easy")
    assert alone.leave(HOST, 0.0) == "empty"


def test_the_host_leaving_hands_the_lobby_to_a_person_not_an_ai():
    table = lobby(1)
    table.add_ai(HOST, "normal", 0.0)
    table.join(HOST + 5, "late", 0.0)
    assert table.leave(HOST, 0.0) == "left"
    assert table.host_id == HOST + 5


def test_the_bot_plays_an_ai_seat_and_abandons_only_when_every_person_is_away():
    table = with_ai(2, "easy")
    table.start(HOST, 1.0)
    table.run_automation("deal", 1.0)
    play_until(table, lambda t: t.to_act == 2 and t.automation() == "ai")
    assert table.turn_deadline is None  # no turn timer for an AI seat
    for seat in table.humans:
        seat.away = True
    assert table.automation() == "abandon"


def test_an_ai_seat_survives_to_data():
    table = with_ai(2, "hard")
    table.start(HOST, 1.0)
    data = json.loads(json.dumps(table.to_data()))
    back = Table.from_data(data, Jazz, table.version)
    assert [(s.user_id, s.name, s.ai) for s in back.seats] == \
        [(s.user_id, s.name, s.ai) for s in table.seats]


# ------------------------------------------------------------------ the runner


def fresh_jazz(players: int = 4, seed: int = 3) -> Jazz:
    game = Jazz(players, Jazz.OPTIONS.from_dict({}, players), 0)
    game.start_deal(game.random_deal(random.Random(seed)))
    return game


async def test_a_decision_is_legal_and_the_same_for_the_same_table_and_step():
    runner = AIRunner(concurrent.futures.ThreadPoolExecutor(1), iterations=40, time_limit=None,
                      owns_executor=True)
    try:
        game = fresh_jazz()
        seat = game.to_act
        first = await runner.choose(game, seat, "normal", "abcd1234")
        again = await runner.choose(game, seat, "normal", "abcd1234")
        assert first == again and first in game.legal_actions()
        # What a worker computes from plain data is what the runner returns.
        expected = choose_from_data(game.to_data(), seat, "normal", int("abcd1234", 16),
                                    iterations=40, time_limit=None)
        assert first == expected
    finally:
        runner.close()


async def test_an_illegal_answer_from_the_worker_is_refused():
    class Wrong(concurrent.futures.Executor):
        def submit(self, fn, /, *args, **kwargs):
            future: concurrent.futures.Future[int] = concurrent.futures.Future()
            future.set_result(-7)
            return future

    with pytest.raises(RuntimeError, match="illegal"):
        await AIRunner(Wrong()).choose(fresh_jazz(), fresh_jazz().to_act, "easy", "abcd1234")


async def test_a_dead_worker_is_replaced_for_the_next_decision():
    runner = AIRunner()
    game = fresh_jazz()
    try:
        broken = runner.executor
        with pytest.raises(concurrent.futures.BrokenExecutor):
            await asyncio.get_running_loop().run_in_executor(broken, os._exit, 3)
        with pytest.raises(concurrent.futures.BrokenExecutor):  # this decision is lost...
            await runner.choose(game, game.to_act, "easy", "abcd1234")
        action = await runner.choose(game, game.to_act, "easy", "abcd1234")  # ...not the next
        assert action in game.legal_actions() and runner.executor is not broken
    finally:
        runner.close()


async def test_a_normal_search_in_the_process_pool_never_stalls_the_loop():
    """The search runs in the worker process, not on the loop: while three normal
    searches think (starting the worker included), the loop keeps running other work.
    (How long the loop may stall is a speed figure: ``benchmarks ai-pool`` and the
    bot's ``cardtable_loop_lag_seconds``; a timed bound here failed on a busy machine.)"""
    runner = AIRunner()  # the bot's default: one worker process, the level's own budget
    ticks = 0
    searching = asyncio.Event()
    stop = asyncio.Event()

    async def ticker() -> None:
        nonlocal ticks
        while not stop.is_set():
            await asyncio.sleep(0)
            if searching.is_set():
                ticks += 1

    try:
        game = fresh_jazz()
        task = asyncio.create_task(ticker())
        searching.set()
        for step in range(3):  # three normal searches; the first also starts the worker
            action = await runner.choose(game, game.to_act, "normal", f"{step + 1:08x}")
            assert action in game.legal_actions()
        searching.clear()
        stop.set()
        await task
    finally:
        runner.close()
    # On the loop, a search would leave the ticker a handful of turns (at the awaits);
    # in the worker, it runs thousands of times while the searches think.
    assert ticks > 100
