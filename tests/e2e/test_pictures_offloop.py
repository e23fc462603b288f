"""Pictures drawn off the event loop, on the fake Discord: a picture that cannot be drawn
costs that picture and never the move, and the tests' ``settle`` waits for a picture
still being drawn (no API call comes meanwhile, so a quiet spell alone is no proof)."""

from __future__ import annotations

import logging
import random
import threading
import time

from bot.images.painter import Painter, draw
from bot.images.scene import Scene
from testkit.games.jazz import JAZZ_ONLY
from testkit.harness import GameDriver, idle, is_move, table_message
from testkit.tables import live, player_to_act, start_jazz


class Flaky:
    """Draws as the bot does, but fails while ``failing`` (a worker that died)."""

    def __init__(self) -> None:
        self.failing = True

    def __call__(self, scene: Scene, fmt: str) -> bytes:
        if self.failing:
            raise RuntimeError("the picture worker died")
        return draw(scene, "png")


class Slow:
    """Draws as the bot does, each picture ``seconds`` late: longer than settle's quiet."""

    def __init__(self, seconds: float) -> None:
        self.seconds = seconds
        self.running = threading.Event()

    def __call__(self, scene: Scene, fmt: str) -> bytes:
        self.running.set()
        time.sleep(self.seconds)
        return draw(scene, "png")


def shown_picture(version: dict) -> bool:
    return bool(version["attachments"]) and any(
        "image" in embed for embed in version["embeds"])


async def test_a_picture_that_cannot_be_drawn_costs_the_picture_never_the_move(
        fake, general, users, new_bot, caplog):
    job = Flaky()
    bot = await new_bot(extensions=JAZZ_ONLY)
    bot.painter = Painter(1, job=job)
    with caplog.at_level(logging.ERROR, "bot.images.painter"):
        async with fake.running(bot):
            await start_jazz(fake, general, users)
            await idle(bot)
            table = table_message(fake, general)
            assert table is not None and not shown_picture(table.latest)
            driver = GameDriver(fake, bot, general, users, random.Random(2))
            for _ in range(3):
                assert await driver.play_one()
            await fake.settle()
            assert [ix.response.type for ix in driver.answered] == [7, 7, 7]  # applied
            state = live(bot, general)
            assert state is not None and state.game is not None
            assert sum(len(d["actions"]) for d in state.game.to_record()["deals"]) == 3
            to_act = player_to_act(fake, bot, general, users)
            hand = next(m for m in reversed(fake.messages(to_act))
                        if any(is_move(c) for c in m.leaf_components()))
            assert not shown_picture(hand.latest), "the hand came, without its picture"
            # The workers are back: the next pictures are drawn again.
            job.failing = False
            assert await driver.play_one()
            await fake.settle()
            to_act = player_to_act(fake, bot, general, users)
            hand = next(m for m in reversed(fake.messages(to_act))
                        if any(is_move(c) for c in m.leaf_components()))
            assert shown_picture(hand.latest)
    assert "cannot draw the table picture" in caplog.text
    assert "cannot draw the hand picture" in caplog.text


async def test_settle_waits_for_a_picture_being_drawn_although_no_api_call_comes(
        fake, general, users, new_bot):
    job = Slow(0.3)  # six times settle's quiet spell of 50 ms
    bot = await new_bot(extensions=JAZZ_ONLY)
    bot.painter = Painter(1, job=job)
    async with fake.running(bot):
        await start_jazz(fake, general, users)
        await idle(bot, timeout=10)
        driver = GameDriver(fake, bot, general, users, random.Random(5))
        job.running.clear()
        assert await driver.play_one()  # answered at once: the DM collapses, no picture
        await fake.settle()
        assert job.running.is_set() and not bot.busy()
        # What the move leads to has all come: the next player's hand with its picture.
        to_act = player_to_act(fake, bot, general, users)
        hand = next(m for m in reversed(fake.messages(to_act))
                    if any(is_move(c) for c in m.leaf_components()))
        assert shown_picture(hand.latest)
        state = live(bot, general)
        assert state is not None
        assert state.posts.hand_messages.get(to_act.id) == hand.id
