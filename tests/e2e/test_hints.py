"""The Hint button on the fake Discord: the Normal AI's legal move said privately to the
player to act, refused at a rated table, marked on the game (which then changes no
rating), a click the table moved on from answered politely, many clicks on one step
sharing one search, and a person's cooldown between new searches."""

from __future__ import annotations

import concurrent.futures
import math
import random
import threading
from typing import Any

from bot.storage.ratings import default_rating
from bot.table.ai_runner import AIRunner, table_seed
from bot.ui import markup
from engine.ai import choose_from_data
from engine.ai.reasons import easy_reason
from engine.core import action_code
from testkit.clock import ManualClock
from testkit.fakediscord import FakeDiscord, FakeUser
from testkit.gates import until
from testkit.harness import GameDriver, idle, table_message
from testkit.tables import hint_button

JACKO_ONLY = {"cogs.jacko": "jacko"}


async def open_table(fake: FakeDiscord, bot, channel, host: FakeUser,
                     others: list[FakeUser] = (), ai: bool = False, hints: bool = False,
                     **options: Any):
    """A running Jacko table; ``hints``: the server allowed hints in rated games."""
    await (await fake.slash(host, channel, "jacko start", **options)).wait_answered()
    lobby = fake.find_message(channel, label="Join")
    table = bot.croupier.manager.in_channel(channel.id)
    table.hints_allowed = hints  # as /settings hints would have set it (saved at the start)
    for user in others:
        await (await fake.click(user, lobby, label="Join")).wait_answered()
    if ai:
        await (await fake.click(host, lobby, label="Add AI: Normal")).wait_answered()
    await (await fake.click(host, lobby, label="Start")).wait_answered()
    await idle(bot)
    return table


async def until_turn(driver: GameDriver, table, user: FakeUser) -> int:
    """Others play until it is the user's turn; their seat."""
    seat = table.seated(user.id)
    while table.to_act != seat:
        assert await driver.play_one()
    await idle(driver.bot)
    return seat


def normal_ai(table, seat: int) -> int:
    """What the bot's (cheap) Normal AI plays for the seat, worked out apart."""
    return choose_from_data(table.game.to_data(), seat, "normal", table_seed(table.table_id),
                            iterations=20, time_limit=None)


async def test_a_hint_beside_an_ai_seat_is_the_normal_ais_legal_move_said_privately(
        fake, general, run_bot):
    alice, eve = fake.add_user("alice"), fake.add_user("eve")
    bot = await run_bot(extensions=JACKO_ONLY)
    table = await open_table(fake, bot, general, alice, ai=True)
    seat = table.seated(alice.id)
    assert table.to_act == seat  # the AI seat has played if it was first
    legal, step = table.game.legal_actions(), table.step
    expected = normal_ai(table, seat)
    reason = easy_reason(table.game.clone(), seat, expected)
    dm, custom_id = hint_button(fake, alice)
    assert not dm.ephemeral  # on the DM hand
    ix = await fake.click(alice, dm, custom_id)
    await ix.wait_done()
    await idle(bot)
    assert ix.ephemeral and ix.original.ephemeral_for is alice
    answer = ix.text()
    assert expected in legal
    assert f"The Normal AI would play **{markup.label(action_code(expected))}**." in answer
    assert ("Why: " + reason in answer) if reason is not None else "Why:" not in answer
    assert "rating" not in answer  # a game with an AI seat was never rated
    # Marked, said on the table, and nobody's menu went stale: the move still plays.
    assert table.hinted == [seat] and table.step == step
    assert "Alice asked the AI for a hint" in table_message(fake, general).text()
    saved = await bot.store.active_table_in_channel(general.id)
    assert saved.data["hinted"] == [seat]
    # Hidden cards stay hidden: the hint is nowhere but alice's ephemeral answer.
    public = [m for m in fake.seen_by(eve)] + fake.messages(general)
    assert all("would play" not in m.text() for m in public)
    menu = next(c for c in dm.leaf_components() if c.get("type") == 3)
    played = await fake.select(alice, dm, menu["custom_id"], [action_code(expected)])
    await played.wait_answered()
    assert played.response.type == 7  # applied
    fake.assert_no_violations()
    assert fake.check_unanswered() == []


async def test_a_rated_table_offers_no_hint_and_refuses_one(fake, alice, bob, general, run_bot):
    bot = await run_bot(extensions=JACKO_ONLY)
    table = await open_table(fake, bot, general, alice, [bob])
    user = alice if table.to_act == table.seated(alice.id) else bob
    assert hint_button(fake, alice) is None and hint_button(fake, bob) is None
    await (await fake.click(user, table_message(fake, general), label="My hand")
           ).wait_answered()
    assert hint_button(fake, user) is None  # nor under My hand
    dm = fake.find_message(user, custom_id_prefix="ct:play:")
    step = table.step
    forged = await fake.forge(user, dm, f"ct:hint:{table.table_id}:{step}")
    await forged.wait_done()
    assert forged.ephemeral and "no longer active" in forged.text()
    assert table.hinted == [] and table.step == step
    fake.assert_no_violations()


async def test_a_hand_drawn_while_hints_were_allowed_is_refused_once_they_are_not(
        fake, alice, bob, general, run_bot):
    bot = await run_bot(extensions=JACKO_ONLY)
    table = await open_table(fake, bot, general, alice, [bob], hints=True)
    user = alice if table.to_act == table.seated(alice.id) else bob
    other = bob if user is alice else alice
    assert hint_button(fake, other) is None  # not their turn: no button
    message, custom_id = hint_button(fake, user)
    table.hints_allowed = False  # the table no longer allows them (a rated game)
    ix = await fake.click(user, message, custom_id)
    await ix.wait_done()
    assert ix.ephemeral and "Hints are not allowed at this table" in ix.text()
    assert table.hinted == []
    fake.assert_no_violations()


class GatedExecutor(concurrent.futures.ThreadPoolExecutor):
    """An AI that thinks until the test opens the gate."""

    def __init__(self) -> None:
        super().__init__(max_workers=1)
        self.gate = threading.Event()

    def submit(self, fn, /, *args, **kwargs):  # type: ignore[override]
        def run() -> Any:
            assert self.gate.wait(10)
            return fn(*args, **kwargs)
        return super().submit(run)


async def test_a_hint_the_table_moved_on_from_is_answered_as_stale(
        fake, alice, bob, general, new_bot):
    slow = GatedExecutor()
    bot = await new_bot(extensions=JACKO_ONLY,
                        ai=AIRunner(slow, iterations=20, time_limit=None, owns_executor=True))
    try:
        async with fake.running(bot):
            table = await open_table(fake, bot, general, alice, [bob], hints=True)
            user = alice if table.to_act == table.seated(alice.id) else bob
            message, custom_id = hint_button(fake, user)
            thinking = await fake.click(user, message, custom_id)
            await thinking.wait_answered()  # deferred at once: the AI takes its time
            assert thinking.ephemeral
            # Meanwhile the player moves: the table goes on, the hint is out of date.
            menu = next(c for c in message.leaf_components() if c.get("type") == 3)
            move = await fake.select(user, message, menu["custom_id"],
                                     [menu["options"][0]["value"]])
            await move.wait_answered()
            assert move.response.type == 7
            slow.gate.set()
            await thinking.wait_done()
            await idle(bot)
            assert "out of date" in thinking.text() and "would play" not in thinking.text()
            assert table.hinted == []  # no hint given, nothing marked
            # An old Hint button, clicked later, is out of date as well: the other player
            # opens My hand (its Hint button too), then plays from the DM instead.
            other = bob if user is alice else alice
            await (await fake.click(other, table_message(fake, general), label="My hand")
                   ).wait_answered()
            old, old_id = hint_button(fake, other)
            assert old.ephemeral
            dm = fake.find_message(other, custom_id_prefix="ct:play:")
            menu = next(c for c in dm.leaf_components() if c.get("type") == 3)
            move = await fake.select(other, dm, menu["custom_id"], [menu["options"][0]["value"]])
            await move.wait_answered()
            await idle(bot)
            late = await fake.click(other, old, old_id)
            await late.wait_done()
            assert late.ephemeral and "out of date" in late.text()
            assert table.hinted == []
            fake.assert_no_violations()
    finally:
        slow.gate.set()


async def test_a_hinted_game_is_marked_and_changes_no_rating_while_an_equal_one_does(fake, run_bot):
    alice, bob, cy, dee = (fake.add_user(n) for n in ("alice", "bob", "cy", "dee"))
    general, games = fake.channel("general"), fake.channel("games")
    bot = await run_bot(extensions=JACKO_ONLY)
    hinted = await open_table(fake, bot, general, alice, [bob], hints=True, target=5)
    driver = GameDriver(fake, bot, general, [alice, bob], random.Random(3))
    seat = await until_turn(driver, hinted, alice)
    message, custom_id = hint_button(fake, alice)
    ix = await fake.click(alice, message, custom_id)
    await ix.wait_done()
    assert "this game will not change anyone's rating" in ix.text()
    await driver.play_to_end()
    plain = await open_table(fake, bot, games, cy, [dee], hints=True, target=5)
    await GameDriver(fake, bot, games, [cy, dee], random.Random(3)).play_to_end()
    await fake.settle()
    await idle(bot)
    assert hinted.hinted == [seat] and plain.hinted == []
    final = fake.find_message(general, text="final result")
    assert final is not None and "Hints were used in this game" in final.text()
    assert "Hints were used" not in fake.find_message(games, text="final result").text()
    by_channel = {g.channel_id: g for g in await bot.store.history(fake.world.guild.id)}
    assert not by_channel[general.id].rated and by_channel[games.id].rated
    record = await bot.store.game_record(by_channel[general.id].game_id)
    assert record["hinted"] == [seat]
    assert "hinted" not in await bot.store.game_record(by_channel[games.id].game_id)
    board = {r.user_id: r for r in await bot.store.leaderboard("jacko",
                                                               fake.world.guild.id)}
    prior = default_rating()
    for user in (alice, bob):  # counted, not rated
        assert board[user.id].games == 1
        assert (board[user.id].mu, board[user.id].sigma) == (prior.mu, prior.sigma)
    for user in (cy, dee):
        assert board[user.id].games == 1 and board[user.id].mu != prior.mu
    fake.assert_no_violations()


def hint_of(fake: FakeDiscord, user: FakeUser, table) -> tuple[Any, str]:
    """The user's Hint button for this table at its step now."""
    wanted = f"ct:hint:{table.table_id}:{table.step}"
    return next((m, c["custom_id"]) for m, c in fake.visible_components(user)
                if c.get("custom_id") == wanted)


class HeldExecutor(concurrent.futures.ThreadPoolExecutor):
    """An AI that thinks freely until the test holds it; counts the searches it began."""

    def __init__(self) -> None:
        super().__init__(max_workers=1)
        self.free = threading.Event()
        self.free.set()
        self.started = 0

    def submit(self, fn, /, *args, **kwargs):  # type: ignore[override]
        self.started += 1

        def run() -> Any:
            assert self.free.wait(10)
            return fn(*args, **kwargs)
        return super().submit(run)


async def test_25_clicks_on_one_step_run_one_search_and_all_get_its_answer(
        fake, alice, general, new_bot):
    ai = HeldExecutor()
    bot = await new_bot(extensions=JACKO_ONLY,
                        ai=AIRunner(ai, workers=1, iterations=20, time_limit=None,
                                    owns_executor=True))
    try:
        async with fake.running(bot):
            table = await open_table(fake, bot, general, alice, ai=True)
            assert table.to_act == table.seated(alice.id)  # the AI seat played if first
            ai.free.clear()  # the hint's search now thinks until the test lets it
            searched = ai.started
            message, custom_id = hint_of(fake, alice, table)
            clicks = [await fake.click(alice, message, custom_id) for _ in range(25)]
            for ix in clicks:
                await ix.wait_answered()  # each deferred while the one search runs
            await until(lambda: ai.started == searched + 1)
            assert all(ix.original.loading for ix in clicks)  # none answered yet
            ai.free.set()
            for ix in clicks:
                await ix.wait_done()
            await idle(bot)
            late = await fake.click(alice, message, custom_id)  # after it: no new search
            await late.wait_done()
            assert ai.started == searched + 1 and bot.croupier.hints.searches.started == 1
            answers = {ix.text().splitlines()[0] for ix in [*clicks, late]}
            assert len(answers) == 1 and "would play" in answers.pop()
            assert all(ix.ephemeral and ix.original.ephemeral_for is alice for ix in clicks)
            assert table.hinted == [table.seated(alice.id)]
            asked = [line for line in table.lines if "asked the AI for a hint" in line]
            assert len(asked) == 1  # marked once
            fake.assert_no_violations()
            assert fake.check_unanswered() == []
    finally:
        ai.free.set()


async def test_a_new_hint_within_the_cooldown_is_refused_on_another_table(
        fake, alice, general, run_bot):
    games = fake.channel("games")
    clock = ManualClock()
    bot = await run_bot(extensions=JACKO_ONLY, clock=clock)  # the cooldown's clock too
    cooldown = bot.croupier.hints.searches.cooldown
    first = await open_table(fake, bot, general, alice, ai=True)
    second = await open_table(fake, bot, games, alice, ai=True)
    assert first.to_act == first.seated(alice.id) and second.to_act == second.seated(alice.id)
    answered = await fake.click(alice, *hint_of(fake, alice, first))
    await answered.wait_done()
    assert "would play" in answered.text()
    step = second.step
    refused = await fake.click(alice, *hint_of(fake, alice, second))
    await refused.wait_done()
    assert refused.ephemeral and "You asked for a hint a moment ago" in refused.text()
    # When they may ask again, as a Discord timestamp (each reader sees "in 2 seconds").
    assert f"<t:{math.ceil(clock.now() + cooldown)}:R>" in refused.text()
    assert second.hinted == [] and second.step == step  # nothing changed
    assert bot.croupier.hints.searches.started == 1
    again = await fake.click(alice, *hint_of(fake, alice, first))  # a known answer: given
    await again.wait_done()
    assert "would play" in again.text()
    clock.advance(cooldown)
    later = await fake.click(alice, *hint_of(fake, alice, second))
    await later.wait_done()
    assert "would play" in later.text() and second.hinted == [second.seated(alice.id)]
    assert bot.croupier.hints.searches.started == 2
    fake.assert_no_violations()
