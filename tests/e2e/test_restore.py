"""After a restart the tables come back from storage: old buttons work, timers resume."""

from __future__ import annotations

import random

from testkit.clock import ManualClock
from testkit.harness import GameDriver, idle, is_move, make_bot, table_message
from tests.e2e.test_clicks import actions_played, player_to_act
from tests.e2e.test_jazz_e2e import JAZZ_ONLY, start_jazz


async def test_a_new_bot_continues_the_game_from_old_messages(fake_discord, tmp_path):
    fake = fake_discord
    users = [fake.add_user(n) for n in ("alice", "bob", "cy")]
    general = fake.channel("general")
    path = tmp_path / "db.sqlite"
    first = await make_bot(path, extensions=JAZZ_ONLY)
    await fake.start_bot(first)
    await start_jazz(fake, general, users)
    driver = GameDriver(fake, first, general, users, random.Random(6))
    for _ in range(10):
        assert await driver.play_one()
    await idle(first)
    played = actions_played(first, general)
    before = {m.id for u in users for m in fake.messages(u)}
    await fake.kill(first)
    await first.croupier.close()  # its tasks would otherwise live on in this process

    second = await make_bot(path, extensions=JAZZ_ONLY)
    async with fake.running(second):
        await idle(second)
        assert actions_played(second, general) == played
        assert any("resumed" in text for text in table_message(fake, general).all_texts())
        user = player_to_act(fake, second, general, users)
        # The menu the first bot sent still works (the new one repeats it after the restart).
        message, select = next((m, c) for m, c in fake.visible_components(user)
                               if m.id in before and is_move(c))
        ix = await fake.select(user, message, select["custom_id"],
                               [select["options"][0]["value"]])
        await ix.wait_answered()
        assert ix.response.type == 7  # applied: the old DM was updated
        await idle(second)
        driver = GameDriver(fake, second, general, users, random.Random(7))
        for _ in range(10):
            assert await driver.play_one()
        await idle(second)
        assert actions_played(second, general) == played + 11
    await first.store.close()


async def test_turn_timer_resumes_from_its_stored_deadline(fake_discord, tmp_path):
    fake = fake_discord
    users = [fake.add_user(n) for n in ("alice", "bob", "cy")]
    general = fake.channel("general")
    path = tmp_path / "db.sqlite"
    clock = ManualClock()
    first = await make_bot(path, extensions=JAZZ_ONLY, clock=clock)
    await fake.start_bot(first)
    await start_jazz(fake, general, users)
    await idle(first)
    played = actions_played(first, general)
    clock.advance(200)  # past the reminder, before the deadline (300)
    await idle(first)
    await fake.kill(first)
    await first.croupier.close()

    second = await make_bot(path, extensions=JAZZ_ONLY, clock=clock)
    async with fake.running(second):
        await idle(second)
        assert actions_played(second, general) == played
        clock.advance(99)
        await idle(second)
        assert actions_played(second, general) == played
        clock.advance(1)  # the deadline the first bot stored
        await idle(second)
        assert actions_played(second, general) == played + 1
    await first.store.close()
