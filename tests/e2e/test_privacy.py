"""/history shows, and hands out records of, only games of channels the member can see.

A private channel (and a thread in it) holds games; a member who cannot see it
finds none of them in ``/history user:`` and cannot download their records, even
with a forged select value; a member who can see it gets them. Games of channels
the member cannot see are left out before paging, so pages stay full. And the
results commands answer through the watchdog when the database is slow.
"""

from __future__ import annotations

import asyncio
import random
from datetime import timedelta

import pytest

from testkit.bots import Bots
from testkit.fakediscord import FakeChannel, FakeDiscord
from testkit.results import T0, finished, listed_ids, option_values

REFUSED = "channel you cannot see"


def private_world(fake: FakeDiscord):
    """alice and bob in the private channel "secret" (and its thread); zed outside."""
    world = fake.world
    alice, bob, zed = (fake.add_user(n) for n in ("alice", "bob", "zed"))
    secret = world.add_channel("secret")
    thread = world.add_thread("secret-thread", secret)
    world.set_permissions(secret, world.guild.everyone, view_channel=False)
    for member in (alice, bob, world.bot):
        world.set_permissions(secret, member, view_channel=True)
    return alice, bob, zed, secret, thread


async def record(bot, channel, alice, bob, when) -> int:
    return await bot.store.record_game(finished(
        bot_guild(bot), channel.id, [(alice.id, "Alice", 10), (bob.id, "Bob", 3)], when=when))


def bot_guild(bot) -> int:
    (guild,) = bot.guilds
    return guild.id


async def test_history_and_records_of_a_private_channel_only_for_those_who_see_it(
        fake: FakeDiscord, general: FakeChannel, bots: Bots):
    alice, bob, zed, secret, thread = private_world(fake)
    bot = await bots.new()
    async with fake.running(bot):
        public = await record(bot, general, alice, bob, T0)
        hidden = await record(bot, secret, alice, bob, T0 + timedelta(hours=1))
        in_thread = await record(bot, thread, alice, bob, T0 + timedelta(hours=2))
        for member, expected in ((zed, [public]), (bob, [in_thread, hidden, public])):
            ix = await fake.slash(member, general, "history", options={"user": alice})
            await ix.wait_answered()
            assert listed_ids(ix.message) == expected
            assert option_values(ix.message) == expected
        # zed forges the download select of his own history message with the hidden ids.
        ix = await fake.slash(zed, general, "history", options={"user": alice})
        await ix.wait_answered()
        for game_id in (hidden, in_thread):
            forged = await fake.forge(zed, ix.message, "ct:rec", component_type=3,
                                      values=[str(game_id)])
            await forged.wait_answered()
            assert REFUSED in forged.text() and not forged.message.versions[-1]["attachments"]
        # bob may download the private record.
        ix = await fake.slash(bob, general, "history", options={"user": alice})
        await ix.wait_answered()
        got = await fake.select(bob, ix.message, "ct:rec", [str(hidden)])
        await got.wait_answered()
        (attachment,) = got.message.versions[-1]["attachments"]
        assert fake.download(attachment)


async def test_invisible_games_in_between_leave_every_page_full(
        fake: FakeDiscord, general: FakeChannel, bots: Bots):
    alice, bob, zed, secret, _ = private_world(fake)
    bot = await bots.new()
    rng = random.Random(3)
    async with fake.running(bot):
        visible = []
        for n in range(60):
            channel = secret if rng.random() < 0.6 else general
            game_id = await record(bot, channel, alice, bob, T0 + timedelta(minutes=n))
            if channel is general:
                visible.append(game_id)
        visible.reverse()  # newest first
        ix = await fake.slash(zed, general, "history", options={"user": alice})
        await ix.wait_answered()
        seen = listed_ids(ix.message)
        while True:
            older = [b for b in ix.message.buttons() if b.get("label") == "Older ▶"]
            if not older:
                break
            assert len(listed_ids(ix.message)) == 10  # a page with more after it is full
            page = await fake.click(zed, ix.message, older[0]["custom_id"])
            await page.wait_answered()
            seen += listed_ids(ix.message)
        assert seen == visible


@pytest.mark.slow
async def test_results_commands_on_a_slow_database_answer_in_time(
        fake: FakeDiscord, general: FakeChannel, bots: Bots, monkeypatch):
    alice, bob, *_ = private_world(fake)
    bot = await bots.new()
    async with fake.running(bot):
        for n in range(12):
            await record(bot, general, alice, bob, T0 + timedelta(minutes=n))
        store = bot.store
        for name in ("history", "leaderboard", "stats"):
            original = getattr(store, name)

            async def slow(*args, _original=original, **kwargs):
                await asyncio.sleep(2.6)  # past the watchdog's 2.2 s
                return await _original(*args, **kwargs)

            monkeypatch.setattr(store, name, slow)
        asked = [await fake.slash(alice, general, "history"),
                 await fake.slash(alice, general, "leaderboard", game="jazz"),
                 await fake.slash(alice, general, "stats")]
        for ix in asked:
            await ix.wait_answered(timeout=3)
            assert ix.response.type == 5  # deferred in time
        for ix in asked:
            await ix.wait_done(timeout=4)
        assert listed_ids(asked[0].message)  # the history arrived after the deferral
        assert "Alice" in asked[1].text() and asked[2].message.embeds
        assert not asked[1].ephemeral and not asked[2].ephemeral  # public, as without delay
        older = next(b for b in asked[0].message.buttons() if b.get("label") == "Older ▶")
        page = await fake.click(alice, asked[0].message, older["custom_id"])
        await page.wait_answered(timeout=3)
        await page.wait_until(lambda ix: ix.edits, timeout=4)
        assert len(listed_ids(asked[0].message)) == 2
