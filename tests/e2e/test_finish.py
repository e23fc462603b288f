"""A finished game is recorded exactly once, and never lost: its end is one transaction.

The table's final state, its closing and its game's record (ratings, counts, chips) are
written together (``Store.finish_table``), so a failure on the way leaves the table open
at its last step with nothing recorded, and the next try — the driver kicked by a click,
or the restore after a restart — ends it once. Storage is made to fail in the middle of
that transaction (the game's rating raises, once): with a restart on SQLite and
PostgreSQL, and with a click; AttackJack with a stake shows that chips move once. The
bot as a real process is killed (SIGKILL) while that transaction is open: the database
shows neither the table closed nor the game, and a new process finishes it once.
"""

from __future__ import annotations

import random
from pathlib import Path
from typing import Any

import pytest

from bot.app.client import CardTableBot
from bot.storage import STARTING_CHIPS, TableRow, results
from testkit.bots import World
from testkit.fakediscord import FakeChannel, FakeDiscord, FakeUser
from testkit.harness import GameDriver, idle
from testkit.processes import LAUNCHER, BotProcess, database_rows, pg_rows
from testkit.tables import live, start_jazz

pytestmark = pytest.mark.slow  # whole games, restarts, bot processes, PostgreSQL

END_SERIES = "ct:endseries:"


def rating_fails_once(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """The game's rating raises the first time (in the middle of the end's transaction:
    the table's row is written by then); the list says it did."""
    real, failed = results.rate, []

    def rate(before: Any, places: Any) -> Any:
        if not failed:
            failed.append("the rating raised")
            raise RuntimeError("storage failed while recording the game")
        return real(before, places)

    monkeypatch.setattr(results, "rate", rate)  # where finish_table's record calls it
    return failed


def results_posted(fake: FakeDiscord, channel: FakeChannel) -> int:
    return sum(1 for m in fake.messages(channel) if "final result" in m.text())


async def nothing_recorded(bot: CardTableBot, channel: FakeChannel, table_id: str,
                           version: int) -> None:
    """The end failed: the table is open and live at its last step, nothing recorded."""
    row = await bot.store.load_table(table_id)
    assert isinstance(row, TableRow) and (row.status, row.version) == ("playing", version)
    table = live(bot, channel)
    assert table is not None and table.table_id == table_id and table.version == version
    assert table.status == "playing" and table.game is not None and table.game.is_over
    assert await bot.store.history(None) == []
    assert await bot.store.leaderboard_size("jazz", None) == 0


async def recorded_once(fake: FakeDiscord, bot: CardTableBot, channel: FakeChannel,
                        users: list[FakeUser], table_id: str) -> None:
    """The table ended once: closed, one game, everyone counted and rated once, its
    result posted once."""
    row = await bot.store.load_table(table_id)
    assert isinstance(row, TableRow) and row.status == "finished"
    [game] = await bot.store.history(None)
    assert game.completed and game.rated
    assert sorted(p.user_id for p in game.players) == sorted(u.id for u in users)
    for scope in (fake.world.guild.id, None):
        board = await bot.store.leaderboard("jazz", scope)
        assert sorted((r.user_id, r.games) for r in board) == sorted((u.id, 1) for u in users)
        assert sum(r.wins for r in board) == len(game.winners)
    assert results_posted(fake, channel) == 1
    assert live(bot, channel) is None


async def play_to_the_end(fake: FakeDiscord, bot: CardTableBot, channel: FakeChannel,
                          users: list[FakeUser]) -> tuple[str, int]:
    """A whole Jazz game by ``users``, to its last move (and no click after it: a click
    would wake the driver); the table's id and its last saved version."""
    await start_jazz(fake, channel, users)
    table = live(bot, channel)
    assert table is not None and table.game is not None
    driver = GameDriver(fake, bot, channel, users, random.Random(4))
    while not table.game.is_over:
        assert await driver.play_one()
    await idle(bot)
    await fake.settle()
    return table.table_id, table.version


async def test_an_end_that_failed_is_finished_once_after_a_restart_and_frees_the_channel(
        fake: FakeDiscord, general: FakeChannel, users: list[FakeUser], world: World,
        monkeypatch: pytest.MonkeyPatch) -> None:
    bot = await world.new()
    failed = rating_fails_once(monkeypatch)
    table_id, version = await play_to_the_end(fake, bot, general, users)
    assert failed, "the end never reached the rating"
    await nothing_recorded(bot, general, table_id, version)
    assert results_posted(fake, general) == 0  # nobody was shown a result not stored

    bot = await world.restart(bot)  # the restored table ends, once
    await idle(bot)
    await fake.settle()
    await recorded_once(fake, bot, general, users, table_id)

    # The channel is free: a new table opens there (the stored one is closed too).
    opened = await (await fake.slash(users[1], general, "jazz start")).wait_answered()
    assert "table is open" in opened.text()
    table = live(bot, general)
    assert table is not None and table.status == "lobby" and table.table_id != table_id
    assert fake.find_message(general, label="Join") is not None


async def test_an_end_that_failed_is_finished_once_when_a_click_wakes_the_driver(
        fake: FakeDiscord, general: FakeChannel, users: list[FakeUser], jazz_bot: CardTableBot,
        monkeypatch: pytest.MonkeyPatch) -> None:
    bot = jazz_bot
    failed = rating_fails_once(monkeypatch)
    table_id, version = await play_to_the_end(fake, bot, general, users)
    assert failed
    await nothing_recorded(bot, general, table_id, version)
    # A player looks at their hand: the bot's pending step (the end) gets another chance.
    table_message = fake.find_message(general, label="My hand")
    assert table_message is not None
    await (await fake.click(users[0], table_message, label="My hand")).wait_answered()
    await idle(bot)
    await fake.settle()
    await recorded_once(fake, bot, general, users, table_id)


async def test_an_attackjack_deal_whose_end_failed_moves_its_chips_once(
        fake: FakeDiscord, general: FakeChannel, alice: FakeUser, bob: FakeUser,
        world: World, monkeypatch: pytest.MonkeyPatch) -> None:
    """AttackJack without choices plays its deal itself: its end fails once, and the
    series' standings counted for it are put back with the rest; after a restart the
    chips move once, conserved, and the series goes on."""
    bot = await world.new()
    failed = rating_fails_once(monkeypatch)
    await (await fake.slash(alice, general, "attackjack start", stake=100)).wait_answered()
    lobby = fake.find_message(general, label="Join")
    assert lobby is not None
    await (await fake.click(bob, lobby, label="Join")).wait_answered()
    await (await fake.click(alice, lobby, label="Start")).wait_answered()
    await idle(bot)
    await fake.settle()
    assert failed
    table = live(bot, general)
    assert table is not None and table.game is not None and table.game.is_over
    assert table.status == "playing" and table.series_totals == []  # the count undone
    guild = fake.world.guild.id
    assert await bot.store.history(None) == []
    assert [await bot.store.chips(guild, u.id) for u in (alice, bob)] == [STARTING_CHIPS] * 2

    bot = await world.restart(bot)
    await idle(bot)
    await fake.settle()
    [game] = await bot.store.history(None)
    assert game.game == "attackjack" and game.completed
    balances = {u.id: await bot.store.chips(guild, u.id) for u in (alice, bob)}
    nets = {p.user_id: p.chips for p in game.players}
    assert balances == {u: STARTING_CHIPS + nets[u] for u in balances}  # moved once
    assert sum(balances.values()) == 2 * STARTING_CHIPS and any(nets.values())
    board = await bot.store.leaderboard("attackjack", None)
    assert sorted(r.games for r in board) == [1, 1]
    shown = [m for m in fake.messages(general) if any(
        str(c.get("custom_id", "")).startswith(END_SERIES) for c in m.leaf_components())]
    assert len(shown) == 1  # the deal's result, once, with the series' next deal
    waiting = live(bot, general)
    assert waiting is not None and waiting.series_deal == 2
    assert sorted(e[0] for e in waiting.series_totals) == sorted([alice.id, bob.id])


# ------------------------------------------------------------------ killed mid-transaction

STUCK = """
import pathlib
import time

import bot.storage.results

def _stuck(before, places):  # in the end's transaction: the table's row written, not committed
    pathlib.Path({mark!r}).write_text("in the transaction")
    time.sleep(600)  # the event loop stops here, the transaction open, until the SIGKILL

bot.storage.results.rate = _stuck
"""


async def stored(process: BotProcess, sql: str, *params: Any) -> list[Any]:
    """Rows of the process's database, read from outside (another connection)."""
    if process.url is None:
        return [tuple(r) for r in database_rows(process.database, sql.replace("$1", "?"),
                                                tuple(params))]
    return [tuple(r) for r in await pg_rows(process.url, sql, *params)]


@pytest.mark.parametrize("backend", ["sqlite", "postgres"])
async def test_a_bot_killed_in_the_middle_of_an_end_loses_nothing_and_records_once(
        fake: FakeDiscord, general: FakeChannel, alice: FakeUser, bob: FakeUser,
        tmp_path: Path, request: pytest.FixtureRequest, backend: str) -> None:
    mark = tmp_path / "stuck"
    url = request.getfixturevalue("postgres_url") if backend == "postgres" else None
    processes = []
    for name, source in (("stuck", LAUNCHER.replace(
            "runpy.run_module(", STUCK.format(mark=str(mark)) + "\nrunpy.run_module(")),
                         ("fine", LAUNCHER)):
        launcher = tmp_path / f"launch_{name}.py"
        launcher.write_text(source)
        processes.append(BotProcess(fake, tmp_path / "data" / "cardtable.db", launcher,
                                    tmp_path / f"{name}.log", url=url))
    stuck, fine = processes
    try:
        await stuck.start()
        await (await fake.slash(alice, general, "attackjack start", stake=100)
               ).wait_answered()
        lobby = fake.find_message(general, label="Join")
        assert lobby is not None
        await (await fake.click(bob, lobby, label="Join")).wait_answered()
        await (await fake.click(alice, lobby, label="Start")).wait_answered()
        await fake.wait_for(mark.exists, timeout=30)  # the deal is over, its end under way

        # Between the table's closing and the game's record, from outside: neither.
        [(table_id, status)] = await stored(
            stuck, "SELECT table_id, status FROM live_tables WHERE channel_id = $1",
            general.id)
        assert status == "playing"
        assert await stored(stuck, "SELECT game_id FROM games") == []
        assert await stored(stuck, "SELECT balance FROM chips") == []
        await stuck.kill()
        assert await stored(stuck, "SELECT status FROM live_tables WHERE table_id = $1",
                            table_id) == [("playing",)]
        assert await stored(stuck, "SELECT game_id FROM games") == []

        await fine.start()
        await fine.idle()
        await fake.settle()
        # Together: the table closed and its one game, chips and ratings moved once.
        assert await stored(fine, "SELECT status FROM live_tables WHERE table_id = $1",
                            table_id) == [("finished",)]
        [(game_id,)] = await stored(fine, "SELECT game_id FROM games WHERE table_id = $1",
                                    table_id)
        nets = dict(await stored(fine, "SELECT user_id, chips FROM results"
                                       " WHERE game_id = $1", game_id))
        balances = dict(await stored(fine, "SELECT user_id, balance FROM chips"))
        assert balances == {u: STARTING_CHIPS + n for u, n in nets.items()}  # (a draw: 0)
        assert sum(balances.values()) == 2 * STARTING_CHIPS
        assert sorted(await stored(fine, "SELECT scope, games FROM ratings")) == sorted(
            [(fake.world.guild.id, 1)] * 2 + [(0, 1)] * 2)
        shown = [m for m in fake.messages(general) if any(
            str(c.get("custom_id", "")).startswith(END_SERIES) for c in m.leaf_components())]
        assert len(shown) == 1
    finally:
        for process in processes:
            await process.stop()
