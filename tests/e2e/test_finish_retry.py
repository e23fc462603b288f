"""A table whose end failed in storage is ended again by the bot itself, once.

``TableManager.finish`` leaves the table live at its version when ``Store.finish_table``
fails; before, only a click that woke the driver (My hand) or a restart ended it, so
players who had made the last move waited without a result. The driver now tries
again after a pause (``bot.play.driver.RETRY``), and the game is recorded once
(``Store.finish_table`` is idempotent, ``games.table_id`` unique) with its result shown
once. Storage here fails the first ``finish_table`` (before or after its commit), then
works.
"""

from __future__ import annotations

import itertools
from typing import Any

import pytest

from bot.app.client import CardTableBot
from bot.play import driver
from bot.storage import TableRow
from bot.table.bus import Change, Saved
from testkit.clock import ManualClock
from testkit.fakediscord import FakeChannel, FakeDiscord, FakeUser
from testkit.harness import MakeBot, idle
from testkit.tables import GAMES, live, open_and_start, play_out


def finish_fails_once(bot: CardTableBot, monkeypatch: pytest.MonkeyPatch,
                      committed: bool) -> list[str]:
    """The store's first ``finish_table`` raises: before touching the database, or
    (``committed``) after its transaction committed (a connection lost on the answer)."""
    real, failed = bot.store.finish_table, list[str]()

    async def finish_table(*args: Any, **kwargs: Any) -> int:
        if failed:
            return await real(*args, **kwargs)
        failed.append("finish_table raised")
        if committed:
            await real(*args, **kwargs)
        raise ConnectionError("the database went away")

    monkeypatch.setattr(bot.store, "finish_table", finish_table)
    return failed


def results(fake: FakeDiscord, channel: FakeChannel) -> int:
    return sum(1 for m in fake.messages(channel) if "final result" in m.text())


async def recorded(bot: CardTableBot) -> list[Any]:
    """Every game stored (each test plays one table)."""
    return await bot.store.history(None)


@pytest.mark.parametrize("committed", [False, True], ids=["failed", "committed-then-failed"])
async def test_an_end_that_failed_is_retried_by_the_bot_and_recorded_once(
        fake: FakeDiscord, alice: FakeUser, bob: FakeUser, general: FakeChannel,
        clock: ManualClock, run_bot: MakeBot, monkeypatch: pytest.MonkeyPatch,
        committed: bool) -> None:
    bot = await run_bot(extensions=GAMES, clock=clock)
    failed = finish_fails_once(bot, monkeypatch, committed)
    heard: list[Saved] = []  # what the table's followers (a tournament) hear of it
    bot.croupier.manager.bus.subscribe(heard.append)
    await open_and_start(fake, general, [alice, bob], "jacko", target=1, images=False)
    table = live(bot, general)
    assert table is not None
    table_id = table.table_id
    await play_out(fake, bot, general, [alice, bob], seed=3)  # no click after the last move
    assert failed, "the end never reached storage"
    assert table.game is not None and table.game.is_over
    if not committed:  # nothing stored: the table is open here and in storage
        row = await bot.store.load_table(table_id)
        assert isinstance(row, TableRow) and row.status == "playing"
        assert live(bot, general) is table and await recorded(bot) == []
    assert results(fake, general) == 0  # nobody was shown a result not stored

    clock.advance(driver.RETRY[0])  # the bot tries again by itself
    await idle(bot)
    await fake.settle()
    row = await bot.store.load_table(table_id)
    assert isinstance(row, TableRow) and row.status == "finished"
    [game] = await recorded(bot)
    assert game.completed and sorted(p.user_id for p in game.players) == [alice.id, bob.id]
    board = await bot.store.leaderboard("jacko", None)
    assert sorted((r.user_id, r.games) for r in board) == sorted([(alice.id, 1), (bob.id, 1)])
    assert results(fake, general) == 1 and live(bot, general) is None
    clock.advance(max(driver.RETRY) * 2)  # and nothing more happens later
    await idle(bot)
    await fake.settle()
    assert results(fake, general) == 1 and len(await recorded(bot)) == 1
    # Closed once for its followers, also when the end's commit was only found on a reread.
    assert [h.status for h in heard if h.table_id == table_id
            and h.change == Change.CLOSED] == ["finished"]
    fake.assert_no_violations()


async def test_while_storage_stays_down_the_bot_keeps_trying_less_and_less_often(
        fake: FakeDiscord, alice: FakeUser, bob: FakeUser, general: FakeChannel,
        clock: ManualClock, run_bot: MakeBot, monkeypatch: pytest.MonkeyPatch) -> None:
    bot = await run_bot(extensions=GAMES, clock=clock)
    real, tries = bot.store.finish_table, list[float]()
    down = True

    async def finish_table(*args: Any, **kwargs: Any) -> int:
        tries.append(clock.now())
        if down:
            raise ConnectionError("the database went away")
        return await real(*args, **kwargs)

    monkeypatch.setattr(bot.store, "finish_table", finish_table)
    await open_and_start(fake, general, [alice, bob], "jacko", target=1, images=False)
    await play_out(fake, bot, general, [alice, bob], seed=3)
    assert len(tries) == 1
    for done, pause in enumerate(driver.RETRY, start=1):
        clock.advance(pause - 0.5)
        await idle(bot)
        assert len(tries) == done  # not yet
        clock.advance(0.5)
        await idle(bot)
        assert len(tries) == done + 1
    gaps = [b - a for a, b in itertools.pairwise(tries)]
    assert gaps == list(driver.RETRY)
    clock.advance(driver.RETRY[-1])  # the longest pause, from then on
    await idle(bot)
    assert len(tries) == 2 + len(driver.RETRY)
    down = False
    clock.advance(driver.RETRY[-1])
    await idle(bot)
    await fake.settle()
    assert results(fake, general) == 1 and live(bot, general) is None
    fake.assert_no_violations()
