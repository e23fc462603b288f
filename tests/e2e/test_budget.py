"""Discord's global request budget with many busy tables: few requests a move, the bot's
own pacer never over its rate, and every table and next-turn DM still arriving.

The tables play on the bot's manual clock (each table a move every 4 s of it), so the
counts do not depend on how fast the machine is; only the pacer runs on real time.
"""

from __future__ import annotations

import asyncio
import dataclasses
import random
from collections import Counter

import pytest

from bot.config.settings import Timing
from bot.ui.custom_ids import parse
from bot.ui.pacer import EDIT
from testkit.fakediscord import FakeChannel, FakeDiscord, FakeMessage, FakeUser
from testkit.harness import choose, idle, is_move, my_hand_id, table_message

JAZZ_ONLY: dict[str, str | None] = {"cogs.jazz": "jazz"}
PACE = 4.0  # seconds of the bot's clock between two moves of a table
# The product's timing (edits merged while a table is only watched), no pause before
# the bot's own steps; the budget is set per test.
TIMING = Timing(pause=0, request_rate=100_000)
EXEMPT = ("/interactions/", "/webhooks/")


def budgeted(route: str) -> bool:
    return not any(part in route for part in EXEMPT)


@dataclasses.dataclass
class Seats:
    """A table's channel and players (``world``: the fourth player of every fourth table
    has closed DMs, is told in the channel and plays from My hand)."""

    channel: FakeChannel
    users: list[FakeUser]


def world(fake: FakeDiscord, tables: int, closed_dms: bool = True) -> list[Seats]:
    return [Seats(fake.world.add_channel(f"table-{n}"),
                  [fake.add_user(f"p{n}x{k}", dms_closed=closed_dms and n % 4 == 3 and k == 3)
                   for k in range(4)])
            for n in range(tables)]


async def open_tables(fake: FakeDiscord, bot, seats: list[Seats], **options: object) -> None:
    for s in seats:
        host = s.users[0]
        await (await fake.slash(host, s.channel, "jazz start", **options)).wait_answered()
        # A busy bot answers /start with "thinking…" first (Timing.start_answer_within):
        # the lobby follows.
        await fake.wait_for(lambda s=s: fake.find_message(s.channel, label="Join") is not None)
        lobby = fake.find_message(s.channel, label="Join")
        assert lobby is not None
        for user in s.users[1:]:
            await (await fake.click(user, lobby, label="Join")).wait_answered()
        await (await fake.click(host, lobby, label="Start")).wait_answered()
    await idle(bot, timeout=60)


def to_act(bot, s: Seats) -> FakeUser:
    table = bot.croupier.manager.in_channel(s.channel.id)
    assert table.to_act is not None and table.automation() is None
    return next(u for u in s.users if u.id == table.seats[table.to_act].user_id)


def live_menu(fake: FakeDiscord, s: Seats, user: FakeUser) -> FakeMessage | None:
    found = [m for m in (*fake.messages(user), *s.channel.ephemerals)
             if (m.ephemeral_for in (None, user)) and not m.deleted
             and any(is_move(c) and not c.get("disabled") for c in m.leaf_components())]
    return max(found, key=lambda m: m.id) if found else None


async def move(fake: FakeDiscord, bot, s: Seats, rng: random.Random) -> None:
    """The player to act moves: from their DM hand, or from My hand when DMs are closed."""
    user = to_act(bot, s)
    if user.dms_closed:
        board = table_message(fake, s.channel)
        await (await fake.click(user, board, my_hand_id(board))).wait_answered()
    menu = await fake.wait_for(lambda: live_menu(fake, s, user), timeout=20)
    ix = await choose(fake, user, menu, rng)
    await ix.wait_answered()
    assert ix.response.type == 7, ix.response.content  # applied


async def shows_latest_state(fake: FakeDiscord, bot, s: Seats) -> bool:
    """The table message shows what the board draws from the table as it is now."""
    table = bot.croupier.manager.in_channel(s.channel.id)
    now = await bot.croupier.board.message(table)
    message = table_message(fake, s.channel)
    return (message is not None and message.content == (now["content"] or "")
            and message.embeds[0]["description"] == now["embed"].to_dict()["description"])


def told_of_this_turn(fake: FakeDiscord, bot, s: Seats) -> bool:
    """The player to act got this turn's hand by DM, or a mention in the channel."""
    table = bot.croupier.manager.in_channel(s.channel.id)
    user = to_act(bot, s)
    if user.dms_closed:
        return any(f"<@{user.id}>" in m.content and "your turn" in m.content
                   for m in s.channel.history())
    menu = live_menu(fake, s, user)
    ids = [parse(c.get("custom_id", "")) for c in menu.leaf_components()] if menu else []
    return any(c is not None and c.version == table.step for c in ids)


@pytest.mark.slow
async def test_a_move_costs_at_most_1_2_requests_at_twenty_busy_tables(clock, new_bot):
    """Twenty 4-seat tables, players on DMs, a move every 4 s each: the next player's DM
    is most of it; a running table is edited once for several moves (before: one edit a
    move, 1.96 requests a move in all)."""
    async with FakeDiscord() as fake:
        seats = world(fake, 20, closed_dms=False)
        bot = await new_bot(timing=TIMING, clock=clock,
                            extensions=JAZZ_ONLY)
        async with fake.running(bot):
            await open_tables(fake, bot, seats, images=False)  # (pictures cost no call)
            await fake.settle()
            mark, rng, moves = fake.mark(), random.Random(3), 0
            for _ in range(24):  # twenty-four moves a table
                for s in seats:
                    clock.advance(PACE / len(seats))
                    await move(fake, bot, s, rng)
                    moves += 1
            bot.croupier.board.edits.flush()  # the edits still merging: drawn, and counted
            await idle(bot)
            await fake.settle()
            routes = Counter(c.route for c in fake.calls_since(mark) if budgeted(c.route))
            assert all([await shows_latest_state(fake, bot, s) for s in seats])
            assert all(told_of_this_turn(fake, bot, s) for s in seats)
    per_move = {route: n / moves for route, n in routes.items()}
    assert sum(per_move.values()) <= 1.2, per_move
    assert per_move["PATCH /channels/{channel_id}/messages/{message_id}"] <= 0.25, per_move
    assert per_move["POST /channels/{channel_id}/messages"] >= 0.7  # each turn its DM


@pytest.mark.slow
async def test_a_tiny_budget_is_never_exceeded_yet_every_table_and_turn_arrives(clock, new_bot):
    """At 5 requests/s and eight tables moving as fast as their players get their turn,
    the bot stays within its budget in every second; the table edits wait and merge,
    and each table still ends showing its latest state, each player to act told."""
    loop = asyncio.get_running_loop()
    timing = dataclasses.replace(TIMING, edit_interval=0)  # merged by the budget alone
    async with FakeDiscord() as fake:
        seats = world(fake, 8)
        bot = await new_bot(timing=timing, clock=clock,
                            extensions=JAZZ_ONLY)
        async with fake.running(bot):
            await open_tables(fake, bot, seats)
            await fake.settle()
            pacer = bot.croupier.poster.pacer
            turns: list[tuple[float, int]] = []
            pacer.rate, pacer.on_turn = 5, lambda kind: turns.append((loop.time(), kind))
            mark, rng = fake.mark(), random.Random(5)

            async def play(s: Seats) -> None:
                for _ in range(3):
                    await move(fake, bot, s, rng)

            await asyncio.gather(*(play(s) for s in seats))
            await idle(bot, timeout=60)
            await fake.settle(quiet=0.5, timeout=60)
            calls = [c for c in fake.calls_since(mark) if budgeted(c.route)]
            assert all([await shows_latest_state(fake, bot, s) for s in seats])
            assert all(told_of_this_turn(fake, bot, s) for s in seats)
    assert len(calls) == len(turns)  # every request took its turn in the pacer
    times = sorted(t for t, _ in turns)
    assert max(sum(1 for t in times[i:] if t < start + 1.0 - 1e-6)
               for i, start in enumerate(times)) <= 5
    edits = sum(1 for _, kind in turns if kind == EDIT)
    assert 8 <= edits < 8 * 3  # merged, yet every table drawn


async def test_a_running_table_shows_its_last_move_once_the_interval_is_over(clock, new_bot):
    """Moves of a running table merge into one edit; when the table stops, its last state
    is drawn at the end of the interval, and an edit that changes nothing is not sent."""
    async with FakeDiscord() as fake:
        [seats] = world(fake, 1)
        bot = await new_bot(timing=TIMING, clock=clock,
                            extensions=JAZZ_ONLY)
        async with fake.running(bot):
            await open_tables(fake, bot, [seats])
            watch = TIMING.edit_interval * TIMING.watch_factor
            rng, board = random.Random(9), table_message(fake, seats.channel)
            for _ in range(3):
                clock.advance(1)
                await move(fake, bot, seats, rng)
                await idle(bot)
            assert len(board.versions) == 2  # the first move drawn at once, then merged
            assert not await shows_latest_state(fake, bot, seats)
            clock.advance(watch)
            await idle(bot)
            assert len(board.versions) == 3 and await shows_latest_state(fake, bot, seats)
            table = bot.croupier.manager.in_channel(seats.channel.id)
            mark = fake.mark()
            await bot.croupier.board.request_edit(table)  # nothing changed
            clock.advance(watch)
            await idle(bot)
            assert fake.calls_since(mark) == []


async def test_the_final_state_is_drawn_and_no_merged_edit_draws_over_it(clock, new_bot):
    """A short Jacko game at a brisk pace: its edits merge, and when it ends the table
    shows the end at once; the edit that was still merging never comes after it."""
    async with FakeDiscord() as fake:
        users = [fake.add_user(n) for n in ("ann", "ben")]
        channel = fake.channel("general")
        bot = await new_bot(timing=TIMING, clock=clock,
                            extensions={"cogs.jacko": "jacko"})
        async with fake.running(bot):
            await (await fake.slash(users[0], channel, "jacko start", target=1)).wait_answered()
            lobby = fake.find_message(channel, label="Join")
            await (await fake.click(users[1], lobby, label="Join")).wait_answered()
            await (await fake.click(users[0], lobby, label="Start")).wait_answered()
            await idle(bot)
            seats, rng = Seats(channel, users), random.Random(2)
            board = table_message(fake, channel)
            moves = 0
            while bot.croupier.manager.in_channel(channel.id) is not None:
                clock.advance(1)
                await move(fake, bot, seats, rng)
                await idle(bot)
                moves += 1
                assert moves < 200, "the game does not end"
            final = board.latest
            assert "The game is over." in board.text() and not board.components
            clock.advance(TIMING.edit_interval * TIMING.watch_factor * 2)
            await idle(bot)
            await fake.settle()
            assert board.latest is final  # nothing drew over the end
    assert moves > 2 and len(board.versions) < moves + 1  # the moves' edits merged
