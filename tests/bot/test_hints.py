"""bot.features.hints without Discord: when a hint is allowed and offered, the checks of a click,
the mark it leaves on a table and its snapshot, the button in the hand's menu, what
a hinted game changes in storage, and how clicks share one search per table and step
under a per-person cooldown (``hint_rules.HintSearches``: order and counts, no timing)."""

from __future__ import annotations

import asyncio
import dataclasses
import json
import random
import re
from collections.abc import Callable, Coroutine
from typing import Any

import discord
import pytest

from bot.app import components
from bot.play.endings import finished_game
from bot.storage import SQLiteStorage, is_rated
from bot.storage.ratings import default_rating
from bot.table import hint_rules
from bot.table.ai_pool import AIPool, Dropped
from bot.table.state import StaleClick, Table, TableError
from bot.ui import buttons, feature_buttons, hint_text
from bot.ui.game_ui import GameUI
from engine import cards
from engine.core import action_code
from engine.jazz import Jazz
from testkit.clock import ManualClock
from testkit.gates import Gate
from testkit.gates import until as until_slow
from tests.bot.test_ai_pool import Job
from tests.bot.test_storage import GUILD, finished
from tests.bot.test_tables import HOST, lobby


class JazzUI(GameUI):
    GAME_ID = "jazz"


def with_ai(table: Table) -> Table:
    table.add_ai(HOST, "normal", 0.0)
    return table


def playing(players: int = 3, ai: bool = False, allowed: bool = False) -> Table:
    table = lobby(players)
    if ai:
        with_ai(table)
    table.hints_allowed = allowed
    table.start(HOST, 10.0)
    table.run_automation("deal", 10.0)
    return table


def human_to_act(table: Table) -> int:
    """Play (as anyone) until a person is to act; their user id."""
    rng = random.Random(3)
    while table.seats[table.to_act].is_ai or table.automation() is not None:
        kind = table.automation()
        if kind in ("deal", "forced", "auto"):
            table.run_automation(kind, 0.0)
        else:
            table.apply(table.to_act, rng.choice(table.game.legal_actions()), 0.0)
    return table.seats[table.to_act].user_id


# ------------------------------------------------------------------ who may ask


@pytest.mark.parametrize(("people", "ai", "expected"), [
    (3, False, True), (2, True, False), (1, True, False), (1, False, False)])
def test_would_be_rated_is_what_storage_rates(people, ai, expected):
    table = lobby(people)
    if ai:
        with_ai(table)
    points = [(None if s.is_ai else s.user_id, 3) for s in table.seats]
    assert hint_rules.would_be_rated(table) == expected == is_rated(finished(points))


def test_hints_are_allowed_unrated_or_where_the_server_allows_them():
    assert not hint_rules.allowed(lobby(3))  # rated, the server keeps hints out (the default)
    assert hint_rules.allowed(with_ai(lobby(2)))  # an AI seat: not rated
    rated = lobby(3)
    rated.hints_allowed = True
    assert hint_rules.allowed(rated)


def test_the_button_is_offered_to_the_seat_to_act_only():
    table = playing(2, ai=True)
    user = human_to_act(table)
    seat = table.seated(user)
    assert hint_rules.offered(table, seat)
    assert not any(hint_rules.offered(table, s) for s in range(len(table.seats)) if s != seat)
    rated = playing(3)
    assert not any(hint_rules.offered(rated, s) for s in range(3))


def test_a_click_is_checked_like_a_move_and_changes_nothing():
    table = playing(2, ai=True)
    user = human_to_act(table)
    seat = table.seated(user)
    assert hint_rules.check_hint(table, user, table.step) == seat
    before = table.to_data()
    with pytest.raises(StaleClick, match="out of date"):
        hint_rules.check_hint(table, user, table.step - 1)
    with pytest.raises(TableError, match="not seated"):
        hint_rules.check_hint(table, 999, table.step)
    other = next(s.user_id for s in table.seats if s.user_id != user and not s.is_ai)
    with pytest.raises(TableError, match="not your turn"):
        hint_rules.check_hint(table, other, table.step)
    assert table.to_data() == before
    with pytest.raises(TableError, match="not started"):
        hint_rules.check_hint(with_ai(lobby(2)), HOST, 0)


def test_a_rated_table_refuses_a_hint_even_on_its_turn():
    table = playing(3)
    user = table.seats[table.to_act].user_id
    with pytest.raises(TableError, match="Hints are not allowed at this table"):
        hint_rules.check_hint(table, user, table.step)


# ------------------------------------------------------------------ the mark


def test_the_mark_is_kept_once_per_seat_in_the_snapshot_without_a_step():
    table = playing(3, allowed=True)
    kept = table.clone()
    step = table.step
    hint_rules.mark(table, 1)
    hint_rules.mark(table, 1)
    hint_rules.mark(table, 0)
    assert table.hinted == [0, 1] and kept.hinted == []  # a clone keeps its own mark
    assert table.step == step  # nobody's menu went stale
    asked = [e for e in table.lines if "asked the AI for a hint" in e]
    assert len(asked) == 2 and "p1" in asked[0]
    data = json.loads(json.dumps(table.to_data()))
    assert Table.from_data(data, Jazz, version=0).hinted == [0, 1]
    del data["hinted"]  # a snapshot from before hints
    assert Table.from_data(data, Jazz, version=0).hinted == []


def test_a_hinted_game_is_recorded_as_such():
    table = playing(3, allowed=True)
    plain = finished_game(table, JazzUI(), completed=True, now=100.0)
    assert not plain.hinted and "hinted" not in plain.record
    assert plain.record == table.game.to_record()
    hint_rules.mark(table, 2)
    marked = finished_game(table, JazzUI(), completed=True, now=100.0)
    assert marked.hinted and marked.record["hinted"] == [2]
    assert {k: v for k, v in marked.record.items() if k != "hinted"} == plain.record


def test_the_final_result_says_hints_were_used():
    embed = discord.Embed(title="Jazz")
    hint_text.note_on_result(embed)
    assert "Hints were used" in embed.footer.text
    footed = discord.Embed(title="Jazz").set_footer(text="Table 1")
    hint_text.note_on_result(footed)
    assert footed.footer.text.startswith("Table 1\n💡")


async def test_a_hinted_game_counts_but_changes_no_rating(store: SQLiteStorage):
    result = [(7, 10), (8, 3)]
    await store.record_game(dataclasses.replace(finished(result), hinted=True))
    rows = {r.user_id: r for r in await store.leaderboard("jazz", GUILD)}
    assert {u: (r.games, r.wins, r.points) for u, r in rows.items()} == {
        7: (1, 1, 10), 8: (1, 0, 3)}
    prior = default_rating()
    assert all((r.mu, r.sigma) == (prior.mu, prior.sigma) for r in rows.values())
    (summary,) = await store.history(GUILD)
    assert not summary.rated
    await store.record_game(finished(result))  # the same game, without a hint
    rows = {r.user_id: r for r in await store.leaderboard("jazz", GUILD)}
    assert rows[7].mu > prior.mu > rows[8].mu and rows[7].games == 2


# ------------------------------------------------------------------ the button


def custom_ids_of(view: discord.ui.View | None) -> list[str]:
    assert view is not None
    return [str(getattr(item, "custom_id", "")) for item in view.children]


def test_the_hand_menu_gets_the_hint_button_only_when_asked():
    legal = ["2S", "3S", "pass"]
    assert not any(c.startswith("ct:hint:") for c in custom_ids_of(
        buttons.hand_view("abcd1234", 4, legal)))
    ids = custom_ids_of(buttons.hand_view("abcd1234", 4, legal, hint=True))
    assert "ct:hint:abcd1234:4" in ids
    assert buttons.hand_view("abcd1234", 4, [], hint=True) is None  # no menu, no hint


def test_the_hint_button_needs_a_row_with_room():
    every = [action_code(c) for c in (*cards.DECK, cards.JOKER)]  # five selects: no room
    full = buttons.hand_view("abcd1234", 4, every, hint=True)
    assert len(full.children) == buttons.MAX_ROWS
    assert not any(c.startswith("ct:hint:") for c in custom_ids_of(full))
    with_keyword = buttons.hand_view("abcd1234", 4, [*every[:52], "pass"], hint=True)
    assert "ct:hint:abcd1234:4" in custom_ids_of(with_keyword)  # beside the Pass button


def test_the_hint_id_is_checked_and_claimed_by_the_hint_button_only():
    assert feature_buttons.hint_id("abcd1234", 12) == "ct:hint:abcd1234:12"
    with pytest.raises(ValueError):
        feature_buttons.hint_id("not-hex", 1)
    claiming = [cls for cls in components.DYNAMIC_ITEMS
                if re.fullmatch(cls.__discord_ui_compiled_template__, "ct:hint:abcd1234:12")]
    assert claiming == [feature_buttons.HintButton]


# ------------------------------------------------------------------ one search per table and step


class Searches:
    """Hint searches that wait until the test answers them, counted."""

    def __init__(self) -> None:
        self.asked: list[str] = []
        self.answers: dict[str, asyncio.Future[int]] = {}

    def search(self, name: str) -> Callable[[], Coroutine[Any, Any, int]]:
        async def run() -> int:
            self.asked.append(name)
            future = self.answers.setdefault(name, asyncio.get_running_loop().create_future())
            return await future
        return run

    def answer(self, name: str, value: int | BaseException) -> None:
        future = self.answers[name]
        if isinstance(value, BaseException):
            future.set_exception(value)
        else:
            future.set_result(value)


def when(moment: float) -> str:
    return f"at {moment:.0f}"


def hint_searches(steps: dict[str, int] | None = None, **options: Any
                  ) -> tuple[hint_rules.HintSearches, ManualClock]:
    """Searches whose tables are at ``steps`` (a table not named: closed)."""
    clock = ManualClock()
    steps = steps if steps is not None else {}
    return hint_rules.HintSearches(lambda table_id, step: steps.get(table_id) == step,
                                   clock, **options), clock


async def until(condition: Callable[[], bool]) -> None:
    for _ in range(1000):
        if condition():
            return
        await asyncio.sleep(0)
    raise AssertionError("the condition never held")


async def test_25_clicks_on_one_step_run_one_search_and_share_its_answer():
    searches, _ = hint_searches({"t1": 4})
    fake = Searches()
    tickets = [searches.ask("t1", 4, 7, fake.search(f"click{n}"), when) for n in range(25)]
    answers = [asyncio.create_task(t.answer()) for t in tickets]
    await until(lambda: fake.asked == ["click0"])
    assert [t.new for t in tickets] == [True] + [False] * 24
    fake.answer("click0", 42)
    assert await asyncio.gather(*answers) == [42] * 25
    # A click after it finished gets the same answer without a new search, and
    # within the cooldown: a known answer is never refused.
    late = searches.ask("t1", 4, 7, fake.search("late"), when)
    assert not late.new and await late.answer() == 42
    assert fake.asked == ["click0"] and searches.started == 1 and len(searches) == 1


async def test_the_cooldown_refuses_a_new_search_on_another_table_and_changes_nothing():
    searches, clock = hint_searches({"t1": 4, "t2": 9}, cooldown=3.0)
    fake = Searches()
    first = searches.ask("t1", 4, 7, fake.search("t1"), when)
    with pytest.raises(TableError, match=r"You asked for a hint a moment ago\. You can ask "
                                         r"for the next one at 1700000003"):
        searches.ask("t2", 9, 7, fake.search("t2"), when)
    assert len(searches) == 1 and searches.started == 1
    other = searches.ask("t2", 9, 8, fake.search("t2-other"), when)  # someone else: not theirs
    assert other.new
    again = searches.ask("t1", 4, 7, fake.search("t1-again"), when)  # running: shared
    assert not again.new
    clock.advance(2.9)
    with pytest.raises(TableError, match="moment ago"):
        searches.ask("t3", 1, 7, fake.search("t3"), when)
    clock.advance(0.1)  # cooled down
    assert searches.ask("t3", 1, 7, fake.search("t3"), when).new
    await until(lambda: len(fake.asked) == 3)
    assert fake.asked == ["t1", "t2-other", "t3"]
    for ticket in (first, again, other):
        ticket.release()


async def test_an_answer_is_forgotten_when_the_table_moves_on_or_closes():
    steps = {"t1": 4, "t2": 2}
    searches, clock = hint_searches(steps)
    fake = Searches()
    for table, step, user in (("t1", 4, 7), ("t2", 2, 8)):
        fake_search = fake.search(f"{table}@{step}")
        ticket = searches.ask(table, step, user, fake_search, when)
        await until(lambda table=table, step=step: f"{table}@{step}" in fake.answers)
        fake.answer(f"{table}@{step}", 5)
        assert await ticket.answer() == 5
    assert len(searches) == 2
    steps["t1"] = 5  # t1 moved on...
    del steps["t2"]  # ...and t2 closed: both forgotten at the next new search
    clock.advance(10)
    ticket = searches.ask("t1", 5, 7, fake.search("t1@5"), when)
    assert len(searches) == 1
    await until(lambda: "t1@5" in fake.answers)
    fake.answer("t1@5", 6)
    assert await ticket.answer() == 6
    clock.advance(10)
    assert searches.ask("t1", 4, 9, fake.search("t1@4 again"), when).new  # not kept


async def test_a_failed_search_is_not_kept_and_a_running_one_is_not_forgotten():
    steps = {"t1": 4}
    searches, clock = hint_searches(steps)
    fake = Searches()
    ticket = searches.ask("t1", 4, 7, fake.search("first"), when)
    await until(lambda: "first" in fake.answers)
    fake.answer("first", Dropped("the AI stopped"))
    with pytest.raises(Dropped):
        await ticket.answer()
    assert len(searches) == 0
    clock.advance(10)
    running = searches.ask("t1", 4, 7, fake.search("second"), when)
    assert running.new
    steps["t1"] = 5
    clock.advance(10)
    searches.ask("t2", 1, 8, fake.search("t2"), when).release()
    assert len(searches) == 2  # t1's still runs: it ends (or is dropped) by itself
    running.release()


async def test_memory_is_bounded():
    searches, _ = hint_searches(memory=3)
    searches.current = lambda table_id, step: True  # another process's tables: unknown
    fake = Searches()
    for n in range(6):
        ticket = searches.ask(f"t{n}", 1, n, fake.search(f"t{n}"), when)
        await until(lambda n=n: f"t{n}" in fake.answers)
        fake.answer(f"t{n}", n)
        assert await ticket.answer() == n
    assert len(searches) == 3
    # The newest are kept.
    assert not searches.ask("t5", 1, 99, fake.search("again"), when).new


async def test_when_every_click_gives_up_the_search_leaves_the_ai_queue():
    gate = Gate()
    pool = AIPool(1, lambda: gate)
    busy = asyncio.create_task(pool.run("busy", Job("busy")))
    await until_slow(lambda: gate.started == ["busy"])
    searches, _ = hint_searches({"t1": 4})
    tickets = [searches.ask("t1", 4, 7, lambda: pool.run("t1", Job("hint"), urgent=True),
                            when) for _ in range(3)]
    clicks = [asyncio.create_task(t.answer()) for t in tickets]
    await until_slow(lambda: pool.waiting == 1)
    clicks[0].cancel()  # one click gives up: the others still wait for the search
    await asyncio.sleep(0)
    assert pool.waiting == 1
    for click in clicks[1:]:
        click.cancel()
    # The last one gone: the search was cancelled, its request left the queue unrun, and
    # nothing is kept (the next click searches again).
    await until_slow(lambda: pool.waiting == 0 and len(searches) == 0)
    gate.open()
    assert await busy == 1 and gate.started == ["busy"]
    gate.shutdown()
