"""AttackJack as a series on the fake Discord: each deal a table and a record of its own,
the next deal after a pause with the same players, chips carried and conserved, the
standings in every result, until the host ends it or too few can play on."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

from bot.features import series
from bot.storage import STARTING_CHIPS
from testkit.bots import bots_on
from testkit.clock import ManualClock
from testkit.fakediscord import FakeChannel, FakeDiscord, FakeMessage, FakeUser
from testkit.harness import FAST, MakeBot, idle
from testkit.tables import GAMES, click_rematch, live, open_and_start, play_out, rows, seats_of

PAUSE = FAST.series_pause  # the default pause between deals (seconds of the test's clock)


def deal_results(fake: FakeDiscord, channel: FakeChannel) -> list[FakeMessage]:
    """Every AttackJack result in the channel, oldest first (not the table messages)."""
    return [m for m in fake.messages(channel)
            if m.content.startswith("🏁") and "showdown" in m.text()]


def standings(message: FakeMessage) -> tuple[int, dict[str, int]]:
    """The deals counted and each player's net, from a result's series field."""
    for embed in message.latest["embeds"]:
        for f in embed.get("fields", []):
            found = re.fullmatch(r"Series after (\d+) deals?: (net chips|deals won)", f["name"])
            if found:
                nets = {name: int(net) for name, net in
                        re.findall(r"\*\*(.+?)\*\* ([+-]?\d+)", f["value"])}
                return int(found[1]), nets
    raise AssertionError(f"no series standings in {message.text()!r}")


def end_button(message: FakeMessage) -> str:
    (button,) = [c["custom_id"] for c in message.leaf_components()
                 if str(c.get("custom_id", "")).startswith("ct:endseries:")]
    return button


async def balances(bot: Any, fake: FakeDiscord, users: list[FakeUser]) -> dict[str, int]:
    guild = fake.world.guild.id
    return {u.display_name: await bot.store.chips(guild, u.id) for u in users}


async def next_deal(bot: Any, clock: ManualClock) -> None:
    """The pause between two deals passes."""
    await idle(bot)
    clock.advance(PAUSE)
    await idle(bot)


async def test_a_series_of_three_deals_carries_and_conserves_the_chips(
        fake: FakeDiscord, users: list[FakeUser], general: FakeChannel, clock: ManualClock,
        run_bot: MakeBot, tmp_path: Path) -> None:
    bot = await run_bot(extensions=GAMES, clock=clock)
    await open_and_start(fake, general, users, "attackjack", stake=100, images=False)
    first = live(bot, general)
    assert first is not None
    table_ids = [first.table_id]
    for deal in (1, 2, 3):
        if deal > 1:  # the pause passes: the next deal starts (and the bot plays it)
            waiting = live(bot, general)
            clock.advance(PAUSE - 1)
            await idle(bot)
            assert live(bot, general) is waiting and waiting.status == "lobby"  # not yet
            clock.advance(1)
            table_ids.append(waiting.table_id)
        await idle(bot)
        await fake.settle()
        shown = deal_results(fake, general)
        assert len(shown) == deal
        held = await balances(bot, fake, users)
        assert sum(held.values()) == 3 * STARTING_CHIPS  # never created nor lost
        assert standings(shown[-1]) == (deal, {name: chips - STARTING_CHIPS
                                               for name, chips in held.items()})
        waiting = live(bot, general)  # the next deal waits in a lobby of its own
        assert waiting is not None and waiting.status == "lobby"
        assert waiting.series_deal == deal + 1 and waiting.series_id == first.table_id
        assert seats_of(waiting) == seats_of(first)
        assert f"Deal {deal + 1} of the series starts <t:" in shown[-1].text()
        assert end_button(shown[-1]) == f"ct:endseries:{first.table_id}"
    # Each deal is a game of its own in the history, recorded with its own table.
    history = await bot.store.history(fake.world.guild.id)
    assert len(history) == 3 and {g.game for g in history} == {"attackjack"}
    for game in history:
        record = await bot.store.game_record(game.game_id)
        assert len(record["deals"]) == 1
    recorded = rows(tmp_path / "db.sqlite", "SELECT table_id FROM games ORDER BY game_id")
    assert [table_id for (table_id,) in recorded] == table_ids
    # The host ends the series before deal 4: the final standings are deal 3's.
    result = deal_results(fake, general)[-1]
    await (await fake.click(users[0], result, end_button(result))).wait_answered()
    await fake.settle()
    over = fake.find_message(general, text="series over")
    assert over is not None and standings(over) == standings(result)
    assert live(bot, general) is None
    fake.assert_no_violations()


async def test_the_host_ends_the_series_between_deals_and_a_rematch_starts_a_new_one(
        fake: FakeDiscord, alice: FakeUser, bob: FakeUser, general: FakeChannel, clock: ManualClock,
        run_bot: MakeBot) -> None:
    bot = await run_bot(extensions=GAMES, clock=clock)
    await open_and_start(fake, general, [alice, bob], "attackjack", images=False)
    first = live(bot, general)
    await idle(bot)
    await fake.settle()
    (result,) = deal_results(fake, general)
    assert standings(result)[0] == 1  # no stake: deals won
    waiting = live(bot, general)
    assert waiting is not None and waiting.status == "lobby"

    by_bob = await (await fake.click(bob, result, end_button(result))).wait_answered()
    assert by_bob.response.ephemeral and "Only the host, Alice," in by_bob.text()
    ended = await (await fake.click(alice, result, end_button(result))).wait_answered()
    assert ended.response.type == 7 and result.leaf_components() == []
    await fake.settle()
    assert live(bot, general) is None
    over = fake.find_message(general, text="series over")
    assert over is not None and "The host ended the series." in over.text()
    assert standings(over) == standings(result)
    await next_deal(bot, clock)
    assert live(bot, general) is None and len(deal_results(fake, general)) == 1

    # The Rematch under the final standings: a new series with the same seats.
    started = await click_rematch(fake, alice, over)
    assert started.response.type == 7
    rematch = live(bot, general)
    assert rematch is not None and seats_of(rematch) == seats_of(first)
    assert rematch.follows == first.table_id and rematch.series_deal == 0
    await play_out(fake, bot, general, [alice, bob], seed=1)
    assert len(deal_results(fake, general)) == 2
    assert standings(deal_results(fake, general)[-1])[0] == 1  # a new series' deal 1
    following = live(bot, general)
    assert following is not None and following.series_id == rematch.table_id
    fake.assert_no_violations()


async def test_ended_during_a_deal_that_deal_is_the_last(
        fake: FakeDiscord, alice: FakeUser, bob: FakeUser, general: FakeChannel, clock: ManualClock,
        run_bot: MakeBot) -> None:
    bot = await run_bot(extensions=GAMES, clock=clock)
    # With ``choice`` a player under 21 chooses: a deal waits for its players.
    await open_and_start(fake, general, [alice, bob], "attackjack", choice=True,
                         images=False)
    await play_out(fake, bot, general, [alice, bob], seed=2)
    (result,) = deal_results(fake, general)
    await next_deal(bot, clock)
    second = live(bot, general)
    assert second is not None and second.status == "playing" and second.series_deal == 2
    assert second.to_act is not None  # a player chooses: the deal waits for them
    ix = await (await fake.click(alice, result, end_button(result))).wait_answered()
    assert ix.response.ephemeral and "ends after this deal" in ix.text()
    again = await (await fake.click(alice, result, end_button(result))).wait_answered()
    assert "already ends after this deal" in again.text()
    assert second.series_over and live(bot, general) is second
    await play_out(fake, bot, general, [alice, bob], seed=3)
    assert live(bot, general) is None
    last = deal_results(fake, general)[-1]
    assert "The host ended the series." in last.text() and standings(last)[0] == 2
    assert [c["label"] for c in last.leaf_components()] == ["Rematch", "Replay"]
    await next_deal(bot, clock)
    assert live(bot, general) is None
    late = await (await fake.click(alice, result, end_button(result))).wait_answered()
    assert "already over" in late.text()
    fake.assert_no_violations()


async def test_who_left_or_cannot_pay_leaves_the_series_and_too_few_end_it(
        fake: FakeDiscord, users: list[FakeUser], general: FakeChannel, clock: ManualClock,
        run_bot: MakeBot) -> None:
    alice, bob, cy = users
    bot = await run_bot(extensions=GAMES, clock=clock)
    await open_and_start(fake, general, users, "attackjack", choice=True, stake=400,
                         images=False)
    left = await (await fake.slash(bob, general, "attackjack leave")).wait_answered()
    assert "left the game" in left.text()
    await play_out(fake, bot, general, [alice, cy], seed=4)  # the bot plays Bob's seat
    (result,) = deal_results(fake, general)
    assert "Bob left the table and leaves the series." in result.text()
    held = await balances(bot, fake, users)
    assert sum(held.values()) == 3 * STARTING_CHIPS
    assert min(held.values()) >= 600  # one deal loses at most the stake: all can pay
    waiting = live(bot, general)
    assert waiting is not None
    assert [s.user_id for s in waiting.seats] == [alice.id, cy.id]
    await next_deal(bot, clock)
    await play_out(fake, bot, general, [alice, cy], seed=5)
    await fake.settle()
    held = await balances(bot, fake, users)
    assert sum(held.values()) == 3 * STARTING_CHIPS
    last = deal_results(fake, general)[-1]
    short = [u for u in (alice, cy) if held[u.display_name] < 400]
    if short:  # 1000 - 400 - 400: someone cannot pay again, so too few play on
        (who,) = short
        assert (f"{who.display_name} cannot pay the stake of 400 chips and leaves the "
                "series.") in last.text()
        assert "fewer than two players" in last.text()
        assert live(bot, general) is None
        assert [c["label"] for c in last.leaf_components()] == ["Rematch", "Replay"]
    else:
        assert live(bot, general) is not None
    fake.assert_no_violations()


async def test_a_waiting_deal_survives_a_restart(
        fake: FakeDiscord, alice: FakeUser, bob: FakeUser, general: FakeChannel,
        tmp_path: Path) -> None:
    async with bots_on(fake, tmp_path / "db.sqlite", extensions=GAMES) as bots:
        clock = ManualClock()
        bot = await bots.new(clock)
        await fake.start_bot(bot)
        await open_and_start(fake, general, [alice, bob], "attackjack", images=False)
        await idle(bot)
        waiting = live(bot, general)
        assert waiting is not None and waiting.series_start_at is not None
        bot = await bots.restart(bot, clock)
        restored = live(bot, general)
        assert restored is not None and restored.table_id == waiting.table_id
        await next_deal(bot, clock)
        await fake.settle()
        assert len(deal_results(fake, general)) == 2
        assert standings(deal_results(fake, general)[-1])[0] == 2
    fake.assert_no_violations()


async def test_a_series_ends_after_its_most_deals_or_a_next_deal_long_overdue(
        fake: FakeDiscord, alice: FakeUser, bob: FakeUser, general: FakeChannel, clock: ManualClock,
        run_bot: MakeBot, monkeypatch: Any) -> None:
    monkeypatch.setattr(series, "MAX_DEALS", 2)
    bot = await run_bot(extensions=GAMES, clock=clock)
    await open_and_start(fake, general, [alice, bob], "attackjack", images=False)
    await next_deal(bot, clock)  # nobody has anything to choose: it plays itself
    await fake.settle()
    last = deal_results(fake, general)[-1]
    assert len(deal_results(fake, general)) == 2 and standings(last)[0] == 2
    assert "The series is over after 2 deals" in last.text()
    assert [c["label"] for c in last.leaf_components()] == ["Rematch", "Replay"]
    assert live(bot, general) is None

    # A new series; its next deal comes due long after its time (the bot was away).
    await click_rematch(fake, alice, last)
    await idle(bot)
    waiting = live(bot, general)
    assert waiting is not None and waiting.series_deal == 2
    clock.advance(PAUSE + waiting.lobby_idle + 1)
    await idle(bot)
    await fake.settle()
    assert live(bot, general) is None
    over = fake.find_message(general, text="series over")
    assert over is not None and "waited too long" in over.text()
    assert len(deal_results(fake, general)) == 3
    fake.assert_no_violations()
