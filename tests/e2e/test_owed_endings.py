"""What a table's end shows is never lost to a crash (``bot.play.owed``).

A table's end is stored in one transaction; its result, a series' next deal or final
standings are posted after it. A bot that died in between left the table closed with
nothing shown: its message still naming whose turn it was, a series ended in silence
(the kill soak found it: ``python -m benchmarks soak``). Now the end is stored with what
it owes its channel, and a restart shows what was not shown, once. A rematch is stored
already started, so no crash leaves it a lobby nobody sees. On SQLite and PostgreSQL.
"""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

from bot.app.client import CardTableBot
from bot.storage import TableRow
from bot.table.state import Table
from testkit.bots import World
from testkit.fakediscord import FakeChannel, FakeDiscord, FakeMessage, FakeUser
from testkit.harness import idle, table_message, whose_turn
from testkit.tables import click_rematch, live, play_out, start_jazz

pytestmark = pytest.mark.slow  # restarts, whole games, PostgreSQL

END_SERIES = "ct:endseries:"


def with_button(fake: FakeDiscord, channel: FakeChannel, prefix: str) -> list[FakeMessage]:
    return [m for m in fake.messages(channel) if not m.deleted and any(
        str(c.get("custom_id", "")).startswith(prefix) for c in m.leaf_components())]


def dies_showing(bot: CardTableBot, monkeypatch: pytest.MonkeyPatch, kind: str) -> list[str]:
    """The process dies as soon as its end of kind ``kind`` is stored: nothing of it is
    shown, nothing settled (the list says it happened)."""
    debts = bot.croupier.endings.debts
    real, died = debts.pay, list[str]()

    async def pay(table: Table, owed: str) -> None:
        if owed != kind:
            await real(table, owed)
            return
        died.append(owed)
        raise asyncio.CancelledError  # as far as this flow goes: the process is gone

    monkeypatch.setattr(debts, "pay", pay)
    return died


async def owed(bot: CardTableBot, table_id: str) -> str | None:
    row = await bot.store.load_table(table_id)
    assert isinstance(row, TableRow)
    return row.owed


async def attackjack_deal(fake: FakeDiscord, bot: CardTableBot, channel: FakeChannel,
                          alice: FakeUser, bob: FakeUser) -> str:
    """A series' first deal, which plays itself to its end; its table's id."""
    await (await fake.slash(alice, channel, "attackjack start", stake=100)).wait_answered()
    lobby = fake.find_message(channel, label="Join")
    assert lobby is not None
    await (await fake.click(bob, lobby, label="Join")).wait_answered()
    table = live(bot, channel)
    assert table is not None
    await (await fake.click(alice, lobby, label="Start")).wait_answered()
    await idle(bot)
    await fake.settle()
    return table.table_id


async def settled(fake: FakeDiscord, bot: CardTableBot) -> None:
    await idle(bot)
    await fake.settle()
    await idle(bot)


async def test_a_result_not_shown_before_a_crash_is_shown_once_after_the_restart(
        fake: FakeDiscord, general: FakeChannel, alice: FakeUser, bob: FakeUser,
        world: World, monkeypatch: pytest.MonkeyPatch) -> None:
    bot = await world.new()
    died = dies_showing(bot, monkeypatch, "result")
    table_id = await attackjack_deal(fake, bot, general, alice, bob)
    assert died == ["result"]
    assert with_button(fake, general, END_SERIES) == []  # nothing shown
    assert await owed(bot, table_id) == "result"
    assert len(await bot.store.history(None)) == 1  # the game is recorded all the same

    bot = await world.restart(bot)
    await settled(fake, bot)
    [result] = with_button(fake, general, END_SERIES)  # the result, with its next deal
    assert result.text().startswith("🏁")  # the result
    waiting = live(bot, general)
    assert waiting is not None and waiting.series_deal == 2 and waiting.status == "lobby"
    assert await owed(bot, table_id) is None
    assert len(await bot.store.history(None)) == 1

    bot = await world.restart(bot)  # shown once: a later restart shows nothing more
    await settled(fake, bot)
    assert len(with_button(fake, general, END_SERIES)) == 1
    fake.assert_no_violations()


async def test_a_crash_after_the_result_before_its_settle_does_not_post_it_twice(
        fake: FakeDiscord, general: FakeChannel, alice: FakeUser, bob: FakeUser,
        world: World, monkeypatch: pytest.MonkeyPatch) -> None:
    bot = await world.new()
    debts = bot.croupier.endings.debts

    async def dies(table_id: str) -> None:
        raise asyncio.CancelledError  # the result is posted; the process dies before this

    monkeypatch.setattr(debts, "_settle", dies)
    table_id = await attackjack_deal(fake, bot, general, alice, bob)
    assert len(with_button(fake, general, END_SERIES)) == 1
    assert await owed(bot, table_id) == "result"

    bot = await world.restart(bot)  # shown again: Discord returns the message of its nonce
    await settled(fake, bot)
    assert len(with_button(fake, general, END_SERIES)) == 1
    assert await owed(bot, table_id) is None
    posts = [c for c in fake.calls if c.route == "POST /channels/{channel_id}/messages"
             and isinstance(c.body, dict) and c.body.get("nonce") == f"end:{table_id}"]
    assert len(posts) == 2 and all(c.body.get("enforce_nonce") for c in posts)
    fake.assert_no_violations()


async def test_a_series_next_deal_opened_before_the_crash_is_not_opened_twice(
        fake: FakeDiscord, general: FakeChannel, alice: FakeUser, bob: FakeUser,
        world: World, monkeypatch: pytest.MonkeyPatch) -> None:
    bot = await world.new()
    series = bot.croupier.series
    real, opened = series._open_next, list[Table]()

    async def open_next(*args: Any) -> Table | None:
        waiting = await real(*args)
        assert waiting is not None
        opened.append(waiting)
        raise asyncio.CancelledError  # the process dies with the next deal stored

    monkeypatch.setattr(series, "_open_next", open_next)
    table_id = await attackjack_deal(fake, bot, general, alice, bob)
    assert len(opened) == 1 and with_button(fake, general, END_SERIES) == []

    bot = await world.restart(bot)
    await settled(fake, bot)
    [result] = with_button(fake, general, END_SERIES)
    assert result.text().startswith("🏁") and "Deal 2 of the series starts" in result.text()
    waiting = live(bot, general)
    assert waiting is not None and waiting.table_id == opened[0].table_id  # that one
    assert [t for t in bot.croupier.manager.all() if t.channel_id == general.id] == [waiting]
    assert await owed(bot, table_id) is None
    fake.assert_no_violations()


async def test_a_series_ended_between_deals_shows_its_standings_after_a_crash(
        fake: FakeDiscord, general: FakeChannel, alice: FakeUser, bob: FakeUser,
        world: World, monkeypatch: pytest.MonkeyPatch) -> None:
    bot = await world.new()
    await attackjack_deal(fake, bot, general, alice, bob)
    [result] = with_button(fake, general, END_SERIES)
    waiting = live(bot, general)
    assert waiting is not None
    died = dies_showing(bot, monkeypatch, "series_over")
    await (await fake.click(alice, result, label="End series")).wait_answered()
    await settled(fake, bot)
    assert died == ["series_over"] and live(bot, general) is None
    assert not [m for m in fake.messages(general) if "series over" in m.text()]
    assert await owed(bot, waiting.table_id) == "series_over"

    bot = await world.restart(bot)
    await settled(fake, bot)
    [over] = [m for m in fake.messages(general) if "series over" in m.text()]
    assert "The host ended the series." in over.text()
    assert await owed(bot, waiting.table_id) is None and live(bot, general) is None
    fake.assert_no_violations()


async def test_a_rematch_is_stored_started_and_a_crash_before_its_message_resumes_it(
        fake: FakeDiscord, general: FakeChannel, users: list[FakeUser], world: World,
        monkeypatch: pytest.MonkeyPatch) -> None:
    bot = await world.new()
    await start_jazz(fake, general, users)
    await play_out(fake, bot, general, users, seed=4)
    [final] = with_button(fake, general, "ct:rematch:")
    created: list[str] = []
    real_create = bot.store.create_table

    async def create_table(row: TableRow) -> TableRow:
        created.append(row.status)
        return await real_create(row)

    async def dies(*_: Any, **__: Any) -> None:
        raise asyncio.CancelledError  # after the click's answer, before the table message

    monkeypatch.setattr(bot.store, "create_table", create_table)
    monkeypatch.setattr(bot.croupier.lobby, "show_start", dies)
    await click_rematch(fake, users[0], final)
    await settled(fake, bot)
    assert created == ["playing"]  # one write, started: never a lobby nobody sees
    second = live(bot, general)
    assert second is not None and second.status == "playing"
    before = table_message(fake, general)
    assert before is None or second.table_id not in str(before.latest)

    bot = await world.restart(bot)
    await settled(fake, bot)
    message = table_message(fake, general)
    assert message is not None and second.table_id in str(message.latest)
    assert whose_turn(fake, general, users) is not None
    await play_out(fake, bot, general, users, seed=5)  # and it plays to its end
    assert live(bot, general) is None
    assert len(with_button(fake, general, "ct:rematch:")) == 2
    fake.assert_no_violations()
