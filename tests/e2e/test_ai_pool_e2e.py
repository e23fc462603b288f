"""The AI pool on the fake Discord: while AI seats of several tables think slowly, people's
clicks are answered at once, at those tables and at others, and a Hint goes before the
bots' moves. The AI's jobs wait at a gate (tests.bot.test_ai_pool.Gate) that the test
opens, so "at once" means "before any AI decision finished", never a number of ms."""

from __future__ import annotations

import random
from collections.abc import Callable

from bot.table.ai_runner import AIRunner, table_seed
from testkit.fakediscord import FakeChannel, FakeDiscord, FakeUser
from testkit.games.jazz import JAZZ_ONLY
from testkit.gates import Gate, until
from testkit.harness import choose, idle, live_menu, table_message
from testkit.tables import actions_played, hint_button, start_jazz

RNG = random.Random(3)


def gated_ai(workers: int) -> tuple[AIRunner, Gate]:
    gate = Gate(threads=4)
    return AIRunner(gate, workers=workers, iterations=20, time_limit=None,
                    owns_executor=True), gate


async def with_ai_seats(fake: FakeDiscord, bot, channel: FakeChannel, host: FakeUser,
                        asked: Callable[[], bool]) -> None:
    """A Jazz table of ``host`` and two Normal AI seats, played until its AI has asked
    (``asked``): if the host is first to act, they play a card first."""
    await (await fake.slash(host, channel, "jazz start")).wait_answered()
    lobby = fake.find_message(channel, label="Join")
    for _ in range(2):
        await (await fake.click(host, lobby, label="Add AI: Normal")).wait_answered()
    await (await fake.click(host, lobby, label="Start")).wait_answered()
    table = bot.croupier.manager.in_channel(channel.id)
    while not asked():
        menu = live_menu(fake, host)
        if menu is not None and table.to_act == table.seated(host.id):
            await (await choose(fake, host, menu[0], RNG)).wait_answered()
        await fake.wait_for(lambda: asked() or live_menu(fake, host) is not None, timeout=10)


async def with_hints(fake: FakeDiscord, bot, channel: FakeChannel, people: list[FakeUser]):
    """A rated Jazz table of people where the server allows hints; once someone is to act."""
    await (await fake.slash(people[0], channel, "jazz start")).wait_answered()
    table = bot.croupier.manager.in_channel(channel.id)
    table.hints_allowed = True  # as /settings would have set it (before the hands are drawn)
    lobby = fake.find_message(channel, label="Join")
    for user in people[1:]:
        await (await fake.click(user, lobby, label="Join")).wait_answered()
    await (await fake.click(people[0], lobby, label="Start")).wait_answered()
    await fake.wait_for(lambda: table.to_act is not None)
    return table


def to_act(bot, channel: FakeChannel, users: list[FakeUser]) -> FakeUser:
    table = bot.croupier.manager.in_channel(channel.id)
    return next(u for u in users if table.seated(u.id) == table.to_act)


async def my_hand(fake: FakeDiscord, user: FakeUser, channel: FakeChannel):
    ix = await fake.click(user, table_message(fake, channel), label="My hand")
    await ix.wait_answered()
    return ix


async def test_clicks_are_answered_while_slow_ai_seats_of_several_tables_think(
        fake, alice, bob, clock, new_bot):
    people = [fake.add_user(n) for n in ("carol", "dave", "erin")]
    first, second = fake.channel("general"), fake.channel("games")
    third = fake.world.add_channel("cards")
    ai, gate = gated_ai(workers=2)
    bot = await new_bot(extensions=JAZZ_ONLY, clock=clock, ai=ai)
    try:
        async with fake.running(bot):
            # Two tables whose AI seats think (both workers taken), and a table of people.
            await with_ai_seats(fake, bot, first, alice, lambda: len(gate.started) == 1)
            await with_ai_seats(fake, bot, second, bob, lambda: len(gate.started) == 2)
            ai_moves = [actions_played(bot, ch) for ch in (first, second)]
            await start_jazz(fake, third, people)
            people_table = bot.croupier.manager.in_channel(third.id)
            await fake.wait_for(lambda: people_table.to_act is not None)
            late = to_act(bot, third, people)
            menu = await fake.wait_for(lambda: live_menu(fake, late))
            clock.advance(300)  # their turn times out: the AI must play it, and waits in line
            await fake.wait_for(lambda: ai.pool.waiting == 1)

            # At the tables whose AI thinks, and at the one whose time-out waits for it,
            # every click is answered at once: no lock waits for a search.
            answered = [await my_hand(fake, alice, first), await my_hand(fake, bob, second)]
            answered += [await my_hand(fake, u, third) for u in people if u is not late]
            move = await choose(fake, late, menu[0], RNG)  # made before the AI decided
            await move.wait_answered()
            assert move.response.type == 7  # applied: the hand message was updated
            nxt = to_act(bot, third, people)
            second_move = await choose(fake, nxt, (await fake.wait_for(
                lambda: live_menu(fake, nxt)))[0], RNG)
            await second_move.wait_answered()
            assert second_move.response.type == 7
            assert all(ix.response.type == 4 and "Your hand" in ix.text() for ix in answered)
            assert gate.finished == []  # ...all before a single AI decision finished

            gate.open()
            await idle(bot, timeout=30)
            # The AI tables went on; the time-out's search was dropped unrun (the player
            # moved in time), and their move stands.
            assert [actions_played(bot, ch) for ch in (first, second)] > ai_moves
            assert table_seed(people_table.table_id) not in gate.started
            assert actions_played(bot, third) == 2
            assert "ran out of time" not in table_message(fake, third).text()
            assert fake.check_unanswered() == []
    finally:
        gate.open()


async def test_a_hint_goes_before_other_tables_bot_moves(fake, alice, bob, new_bot):
    people = [fake.add_user(n) for n in ("carol", "dave", "erin")]
    first, second = fake.channel("general"), fake.channel("games")
    third = fake.world.add_channel("cards")
    ai, gate = gated_ai(workers=1)
    bot = await new_bot(extensions=JAZZ_ONLY, ai=ai)
    try:
        async with fake.running(bot):
            # One worker: the first table's AI search runs, the second table's waits.
            await with_ai_seats(fake, bot, first, alice, lambda: len(gate.started) == 1)
            await with_ai_seats(fake, bot, second, bob, lambda: ai.pool.waiting == 1)
            people_table = await with_hints(fake, bot, third, people)
            asker = to_act(bot, third, people)
            message, custom_id = await fake.wait_for(lambda: hint_button(fake, asker))
            hint = await fake.click(asker, message, custom_id)
            await hint.wait_answered()  # deferred: the search waits for the worker
            await fake.wait_for(lambda: ai.pool.waiting == 2)
            gate.let_through()  # the first table's search ends: the next to run is the hint
            await until(lambda: len(gate.started) == 2)
            assert gate.started[1] == table_seed(people_table.table_id)
            gate.open()
            await hint.wait_done()
            assert "would play" in hint.text()
            await idle(bot, timeout=30)
            assert gate.started[2] == table_seed(bot.croupier.manager.in_channel(
                second.id).table_id)
    finally:
        gate.open()


async def test_a_hint_the_table_moved_on_from_is_dropped_unsearched(fake, alice, new_bot):
    people = [fake.add_user(n) for n in ("carol", "dave", "erin")]
    first, third = fake.channel("general"), fake.world.add_channel("cards")
    ai, gate = gated_ai(workers=1)
    bot = await new_bot(extensions=JAZZ_ONLY, ai=ai)
    try:
        async with fake.running(bot):
            await with_ai_seats(fake, bot, first, alice, lambda: len(gate.started) == 1)
            people_table = await with_hints(fake, bot, third, people)
            asker = to_act(bot, third, people)
            message, custom_id = await fake.wait_for(lambda: hint_button(fake, asker))
            hint = await fake.click(asker, message, custom_id)
            await hint.wait_answered()
            await fake.wait_for(lambda: ai.pool.waiting == 1)  # behind the AI table's search
            menu = await fake.wait_for(lambda: live_menu(fake, asker))
            move = await choose(fake, asker, menu[0], RNG)  # they play without waiting
            await move.wait_answered()
            assert move.response.type == 7
            gate.open()
            await hint.wait_done()
            assert "out of date" in hint.text() and "would play" not in hint.text()
            await idle(bot, timeout=30)
            assert table_seed(people_table.table_id) not in gate.started  # never searched
            assert people_table.hinted == []
    finally:
        gate.open()


async def test_a_flood_of_hints_leaves_the_ai_seats_their_share(fake, alice, new_bot):
    """One worker; four tables of people flood Hint (25 clicks on one of them) while a
    table's AI seats must play on. Each table and step is searched once, and between
    two hint searches the AI table's next search runs: counted, never timed."""
    flooders = [[fake.add_user(f"p{n}{k}") for k in range(3)] for n in range(4)]
    first = fake.channel("general")
    rooms = [fake.world.add_channel(f"hints-{n}") for n in range(4)]
    ai, gate = gated_ai(workers=1)
    bot = await new_bot(extensions=JAZZ_ONLY, ai=ai)
    try:
        async with fake.running(bot):
            await with_ai_seats(fake, bot, first, alice, lambda: len(gate.started) == 1)
            ai_table = bot.croupier.manager.in_channel(first.id)
            ai_seed = table_seed(ai_table.table_id)
            hint_tables, clicks = [], []
            for room, people in zip(rooms, flooders, strict=True):
                hint_tables.append(await with_hints(fake, bot, room, people))
                asker = to_act(bot, room, people)
                message, custom_id = await fake.wait_for(lambda a=asker: hint_button(fake, a))
                times = 25 if room is rooms[0] else 1
                clicks.append([await fake.click(asker, message, custom_id)
                               for _ in range(times)])
            for ix in (ix for table_clicks in clicks for ix in table_clicks):
                await ix.wait_answered()  # deferred: the searches wait for the worker
            await fake.wait_for(lambda: ai.pool.waiting_urgent == 4)  # one a table
            hint_seeds = {table_seed(t.table_id) for t in hint_tables}
            moved = actions_played(bot, first)

            async def ai_table_waits() -> None:
                """Until the AI table's search runs or waits (alice plays her turns)."""
                while True:
                    running = gate.started[-1] if len(gate.started) > len(gate.finished) else None
                    if running == ai_seed or ai.pool.waiting > ai.pool.waiting_urgent:
                        return
                    menu = live_menu(fake, alice)
                    if menu is not None and ai_table.to_act == ai_table.seated(alice.id):
                        await (await choose(fake, alice, menu[0], RNG)).wait_answered()
                    await fake.wait_for(lambda: ai.pool.waiting > ai.pool.waiting_urgent or (
                        ai_table.to_act == ai_table.seated(alice.id)
                        and live_menu(fake, alice) is not None), timeout=10)

            while not hint_seeds <= set(gate.started):
                await ai_table_waits()
                done = len(gate.finished)
                gate.let_through()  # the search running ends; the pool starts the next
                await until(lambda done=done: len(gate.finished) > done
                            and len(gate.started) > done + 1)
            ran = ["ai" if seed == ai_seed else "hint" for seed in gate.started]
            assert ran[:8] == ["ai", "hint"] * 4  # never two hints in a row
            assert all(gate.started.count(seed) == 1 for seed in hint_seeds)  # 25 clicks: 1
            await fake.wait_for(lambda: actions_played(bot, first) >= moved + 3)  # it moved
            gate.open()
            for table_clicks in clicks:
                for ix in table_clicks:
                    await ix.wait_done()
                assert len({ix.text().splitlines()[0] for ix in table_clicks}) == 1
                assert "would play" in table_clicks[0].text()
            await idle(bot, timeout=30)
            assert fake.check_unanswered() == []
    finally:
        gate.open()
