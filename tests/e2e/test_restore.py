"""After a restart the tables come back from storage: old buttons work, timers resume."""

from __future__ import annotations

import random

import pytest

from testkit.games.jazz import JAZZ_ONLY
from testkit.harness import GameDriver, idle, is_move, table_message
from testkit.tables import actions_played, player_to_act


@pytest.mark.slow
async def test_a_new_bot_continues_the_game_from_old_messages(fake, users, general, jazz_game,
                                                              run_bot):
    first = jazz_game
    driver = GameDriver(fake, first, general, users, random.Random(6))
    for _ in range(10):
        assert await driver.play_one()
    await idle(first)
    played = actions_played(first, general)
    before = {m.id for u in users for m in fake.messages(u)}
    await fake.kill(first)
    await first.croupier.close()  # its tasks would otherwise live on in this process

    second = await run_bot(extensions=JAZZ_ONLY)
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


async def test_turn_timer_resumes_from_its_stored_deadline(fake, users, general, clock,
                                                          jazz_game, run_bot):
    first = jazz_game
    await idle(first)
    played = actions_played(first, general)
    clock.advance(200)  # past the reminder, before the deadline (300)
    await idle(first)
    await fake.kill(first)
    await first.croupier.close()

    second = await run_bot(extensions=JAZZ_ONLY, clock=clock)
    await idle(second)
    assert actions_played(second, general) == played
    clock.advance(99)
    await idle(second)
    assert actions_played(second, general) == played
    clock.advance(1)  # the deadline the first bot stored
    await idle(second)
    assert actions_played(second, general) == played + 1
