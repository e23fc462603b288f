"""One live hand per player: a move collapses its DM to one line, in the same answer."""

from __future__ import annotations

import random
import re

import pytest

from testkit.games.jazz import JAZZ_ONLY, census, live_controls, one_line, play_seeded_game
from testkit.harness import choose, idle, table_message
from testkit.tables import dm_menu, player_to_act, start_jazz

MOVE_LINE = re.compile(r"^You (played \S+|passed)\. · Jazz · deal [1-6] of 6: .+$")


@pytest.mark.slow
async def test_a_whole_game_leaves_one_line_per_move_and_never_two_live_hands(fake, tmp_path):
    mark = fake.mark()
    users, moves, most_live = await play_seeded_game(fake, tmp_path / "db.sqlite")
    counts = census(fake, users, most_live)
    print(f"\nDMs per person in a seeded 4-seat Jazz game ({moves} moves from DMs):")
    for count in counts:
        print(" ", count)
    assert sum(c.menus for c in counts) >= moves * 0.9  # nearly every move: a turn's DM
    for user, count in zip(users, counts, strict=True):
        assert count.most_live <= 1 and count.live == 0, count
        messages = fake.messages(user)
        for message in messages:
            if any(live_controls(message, v) for v in message.versions):
                # Every hand that had a menu ends as its move, in one line.
                assert one_line(message) and MOVE_LINE.match(message.content), message.content
            else:  # the hand dealt at the start to those who do not play first
                assert message is messages[0] and message.embeds
        assert count.one_line == count.menus
    # The collapse rode in the answers to the clicks: the bot edited no DM itself.
    dms = {fake.dm(u).id for u in users}
    assert not [c for c in fake.calls_since(mark)
                if c.method == "PATCH" and int(c.params.get("channel_id", 0)) in dms]


async def test_a_move_from_my_hand_collapses_the_dm_menu(fake, users, general, jazz_game):
    bot = jazz_game
    await idle(bot)
    user = player_to_act(fake, bot, general, users)
    dm, _ = dm_menu(fake, user)
    ix = await fake.click(user, table_message(fake, general), label="My hand")
    await ix.wait_answered()
    await idle(bot)
    ephemeral = max(fake.ephemerals(user), key=lambda m: m.id)
    played = await choose(fake, user, ephemeral, random.Random(1))
    await played.wait_answered()
    await idle(bot)
    assert played.response.type == 7 and played.response.embeds  # the hand, still shown
    assert one_line(dm) and MOVE_LINE.match(dm.content) and not live_controls(dm)


async def test_a_time_out_collapses_the_hand_to_what_the_bot_played(
        fake, users, general, jazz_game, clock):
    bot = jazz_game
    await idle(bot)
    slow = player_to_act(fake, bot, general, users)
    dm, _ = dm_menu(fake, slow)
    clock.advance(300)
    await idle(bot)
    assert one_line(dm) and dm.content.startswith("⏰ Time ran out: I played ")
    assert all(not live_controls(m) for m in fake.messages(slow))


async def test_a_player_to_act_again_keeps_the_hand_with_its_menu(fake, users, general, jazz_game):
    bot = jazz_game
    rng = random.Random(9)
    for _ in range(60):  # until someone wins a trick and leads the next one
        await idle(bot)
        user = player_to_act(fake, bot, general, users)
        dm, _ = dm_menu(fake, user)
        count = len(fake.messages(user))
        await (await choose(fake, user, dm, rng)).wait_answered()
        await idle(bot)
        table = bot.croupier.manager.in_channel(general.id)
        if table.automation() is None and player_to_act(fake, bot, general, users) is user:
            break
        assert one_line(dm)
    else:
        raise AssertionError("nobody led twice in a row")
    # Their answer is their next turn: the same DM, its new menu, no new DM.
    assert live_controls(dm) and dm.embeds and len(fake.messages(user)) == count
    assert table.posts.hand_messages[user.id] == dm.id


async def test_a_restart_sends_no_second_live_hand_but_replaces_a_lost_one(
        fake, users, general, new_bot):

    async def restart(old):
        await fake.kill(old)
        await old.croupier.close()
        await old.store.close()
        new = await new_bot(extensions=JAZZ_ONLY)
        await fake.start_bot(new)
        await idle(new)
        await fake.settle()
        return new

    bot = await new_bot(extensions=JAZZ_ONLY)
    await fake.start_bot(bot)
    await start_jazz(fake, general, users)
    await idle(bot)
    user = player_to_act(fake, bot, general, users)
    dm, _ = dm_menu(fake, user)
    count = len(fake.messages(user))
    bot = await restart(bot)
    # The hand DM of this turn is still there: kept, not sent again.
    assert len(fake.messages(user)) == count and live_controls(dm)
    await fake.delete_message(dm)  # lost (as if the old process never sent it)
    bot = await restart(bot)
    (fresh,) = [m for m in fake.messages(user) if live_controls(m)]
    assert fresh is not dm and fresh.id == max(m.id for m in fake.messages(user))
    await fake.stop_bot(bot)
