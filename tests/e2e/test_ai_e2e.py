"""AI seats on the fake Discord: the lobby's Add AI controls, full games against AI
seats, and the AI taking over a timed-out turn. The AI runs in a thread with a tiny
search (``harness.cheap_ai``); the real process pool is measured in tests/bot/test_ai.py."""

from __future__ import annotations

import concurrent.futures
import random
from typing import Any

import pytest

from bot.table.ai_runner import AIRunner
from engine.california_jack import CaliforniaJack
from engine.jazz import Jazz
from testkit.bots import EXTENSIONS, bots_on
from testkit.games.jazz import JAZZ_ONLY
from testkit.harness import (
    GameDriver,
    HiddenLog,
    idle,
    table_message,
    watch_engine,
)
from testkit.tables import actions_played, player_to_act

CJ_ONLY = {"cogs.help": None, "cogs.california_jack": "california_jack"}


async def open_lobby(fake, host, channel, command: str = "jazz start"):
    await (await fake.slash(host, channel, command)).wait_answered()
    return fake.find_message(channel, label="Join")


async def click(fake, user, message, label: str):
    return await (await fake.click(user, message, label=label)).wait_answered()


def button(message, label: str) -> dict[str, Any]:
    return next(b for b in message.buttons() if b.get("label") == label)


async def history_seats(bot, fake):
    (summary,) = await bot.store.history(fake.world.guild.id)
    return summary


async def test_the_host_seats_and_removes_ai_players(fake, alice, bob, general, run_bot):
    bot = await run_bot(extensions=JAZZ_ONLY)
    lobby = await open_lobby(fake, alice, general)
    assert button(lobby, "Remove AI").get("disabled")  # no AI seat yet
    await click(fake, alice, lobby, "Add AI: Normal")
    # Jazz needs three: the host and one AI are not enough, and AI seats count.
    assert button(lobby, "Start").get("disabled")
    await click(fake, alice, lobby, "Add AI: Normal")
    assert not button(lobby, "Start").get("disabled")
    text = lobby.text()
    assert "🤖 Normal AI" in text and "🤖 Normal AI 2" in text
    refused = await click(fake, bob, lobby, "Add AI: Hard")  # only the host may
    assert "Only the host" in refused.text()
    await click(fake, alice, lobby, "Remove AI")
    assert "🤖 Normal AI 2" not in lobby.text() and "🤖 Normal AI" in lobby.text()
    table = bot.croupier.manager.in_channel(general.id)
    assert [s.ai for s in table.seats] == [None, "normal"]


async def test_the_lobby_closes_when_only_ai_seats_would_be_left(run_bot, fake_discord):
    # Decision: no table of AI seats only; the host is always a seated person, and when
    # the last person leaves, the lobby closes even if AI seats remain.
    fake = fake_discord
    alice = fake.add_user("alice")
    general = fake.channel("general")
    bot = await run_bot(extensions=JAZZ_ONLY)
    lobby = await open_lobby(fake, alice, general)
    for level in ("Easy", "Hard"):
        await click(fake, alice, lobby, f"Add AI: {level}")
    await click(fake, alice, lobby, "Leave")
    assert "Everybody left" in lobby.text()
    assert bot.croupier.manager.in_channel(general.id) is None


@pytest.mark.slow
async def test_one_person_and_three_ai_seats_finish_a_jazz_game(
        fake, alice, general, run_bot, monkeypatch):
    log = HiddenLog(fake, [general])
    watch_engine(monkeypatch, Jazz, log)
    bot = await run_bot(extensions=JAZZ_ONLY)
    lobby = await open_lobby(fake, alice, general)
    for level in ("Easy", "Normal", "Hard"):
        await click(fake, alice, lobby, f"Add AI: {level}")
    await click(fake, alice, lobby, "Start")
    driver = GameDriver(fake, bot, general, [alice], random.Random(5))
    await driver.play_to_end()
    await fake.settle()
    final = fake.find_message(general, text="final result")
    assert final is not None and "🤖 Hard AI" in final.text()
    assert driver.moves > 0 and all(ix.answered for ix in driver.answered)
    assert fake.check_unanswered() == []
    assert log.leaks() == []
    summary = await history_seats(bot, fake)
    assert [(p.user_id, p.name) for p in summary.players][1:] == [
        (None, "🤖 Easy AI"), (None, "🤖 Normal AI"), (None, "🤖 Hard AI")]
    assert summary.players[0].user_id == alice.id
    assert summary.completed and not summary.rated
    [row] = await bot.store.leaderboard("jazz", fake.world.guild.id)
    assert (row.user_id, row.games) == (alice.id, 1)
    # The AI seats got no DM and were never pinged.
    assert all("<@-" not in m.text() for m in general.messages)


@pytest.mark.slow
async def test_a_person_against_an_ai_in_california_jack(fake, bob, general, run_bot, monkeypatch):
    log = HiddenLog(fake, [general])
    watch_engine(monkeypatch, CaliforniaJack, log)
    bot = await run_bot(extensions=CJ_ONLY)
    lobby = await open_lobby(fake, bob, general, "californiajack start")
    await click(fake, bob, lobby, "Add AI: Normal")
    assert button(lobby, "Add AI: Normal").get("disabled")  # two seats: full
    await click(fake, bob, lobby, "Start")
    driver = GameDriver(fake, bot, general, [bob], random.Random(2))
    await driver.play_to_end()
    await fake.settle()
    assert fake.find_message(general, text="final result") is not None
    assert fake.check_unanswered() == []
    assert log.leaks() == []
    summary = await history_seats(bot, fake)
    assert [p.user_id for p in summary.players] == [bob.id, None]


class RecordingExecutor(concurrent.futures.ThreadPoolExecutor):
    """A thread pool that remembers each AI job's level and answer."""

    def __init__(self) -> None:
        super().__init__(max_workers=1)
        self.jobs: list[tuple[str, int]] = []

    def submit(self, fn, /, *args, **kwargs):  # type: ignore[override]
        def run() -> int:
            action = fn(*args, **kwargs)
            self.jobs.append((fn.args[2], action))  # the partial's level
            return action
        return super().submit(run)


async def test_a_timed_out_turn_is_played_by_the_normal_ai(fake, users, general, clock, run_bot):
    executor = RecordingExecutor()
    runner = AIRunner(executor, iterations=20, time_limit=None, owns_executor=True)
    bot = await run_bot(extensions=JAZZ_ONLY, clock=clock, ai=runner)
    lobby = await open_lobby(fake, users[0], general)
    for user in users[1:]:
        await click(fake, user, lobby, "Join")
    await click(fake, users[0], lobby, "Start")
    await idle(bot)
    slow = player_to_act(fake, bot, general, users)
    before = actions_played(bot, general)
    clock.advance(300)
    await idle(bot)
    assert actions_played(bot, general) == before + 1
    assert "ran out of time" in table_message(fake, general).text()
    table = bot.croupier.manager.in_channel(general.id)
    seat = [u.id for u in users].index(slow.id)
    played = next(a for s, a in reversed(table.game.history[-1].actions) if s == seat)
    assert executor.jobs == [("normal", played)]


class FailingExecutor(concurrent.futures.Executor):
    """Every AI job fails, as with a worker that keeps crashing."""

    def __init__(self) -> None:
        self.jobs = 0

    def submit(self, fn, /, *args, **kwargs):  # type: ignore[override]
        self.jobs += 1
        future: concurrent.futures.Future[int] = concurrent.futures.Future()
        future.set_exception(RuntimeError("worker crashed"))
        return future


@pytest.mark.slow
async def test_a_failing_ai_falls_back_to_the_simple_move_and_the_game_ends(
        fake, alice, general, run_bot):
    executor = FailingExecutor()
    bot = await run_bot(extensions=JAZZ_ONLY, ai=AIRunner(executor))
    lobby = await open_lobby(fake, alice, general)
    for level in ("Normal", "Normal"):
        await click(fake, alice, lobby, f"Add AI: {level}")
    await click(fake, alice, lobby, "Start")
    await GameDriver(fake, bot, general, [alice], random.Random(8)).play_to_end()
    await fake.settle()
    assert fake.find_message(general, text="final result") is not None
    assert executor.jobs > 10  # every AI turn asked, and was played anyway


@pytest.mark.slow
async def test_ai_seats_keep_playing_after_a_restart(fake, alice, general, tmp_path):
    async with bots_on(fake, tmp_path / "db.sqlite", {**EXTENSIONS, **JAZZ_ONLY}) as bots:
        bot = await bots.new()
        await fake.start_bot(bot)
        lobby = await open_lobby(fake, alice, general)
        for level in ("Easy", "Hard"):
            await click(fake, alice, lobby, f"Add AI: {level}")
        await click(fake, alice, lobby, "Start")
        driver = GameDriver(fake, bot, general, [alice], random.Random(4))
        for _ in range(3):
            assert await driver.play_one()
        await idle(bot)
        bot = await bots.restart(bot)
        table = bot.croupier.manager.in_channel(general.id)
        assert [s.ai for s in table.seats] == [None, "easy", "hard"]
        driver.bot = bot
        # Until the end (the resumed table re-sends the hand DM, so the DM from before the
        # restart keeps an old menu: play_to_end would click it after the game is over).
        while table.status == "playing":
            assert await driver.play_one() and driver.moves < 2000
            await idle(bot)
        await fake.settle()
        assert fake.find_message(general, text="final result") is not None
        summary = await history_seats(bot, fake)
        assert [p.name for p in summary.players][1:] == ["🤖 Easy AI", "🤖 Hard AI"]
