"""Which games /history shows: private threads, channels the bot cannot resolve, DMs,
and pages that stay honest when many games are hidden.

test_privacy.py has the private channel and its public thread; here a private thread
(its players and Manage Threads only, as on Discord), a game whose channel is gone,
the scan bound that keeps one page from reading the whole history, and an Older
button offered only when an older game the member may see exists.
"""

from __future__ import annotations

import sys
from datetime import timedelta
from types import SimpleNamespace
from typing import Any, cast

import discord
import pytest

from bot.storage import GameSummary, SeatResult
from cogs.history import may_see
from testkit.bots import Bots
from testkit.fakediscord import FakeDiscord, FakeDiscordError, FakeMessage, FakeUser
from testkit.results import T0, finished, listed_ids

REFUSED = "channel you cannot see"


async def record(bot: Any, channel_id: int, alice: FakeUser, bob: FakeUser,
                 minutes: int) -> int:
    (guild,) = bot.guilds
    return int(await bot.store.record_game(finished(
        guild.id, channel_id, [(alice.id, "Alice", 10), (bob.id, "Bob", 3)],
        when=T0 + timedelta(minutes=minutes))))


async def history_of(fake: FakeDiscord, member: FakeUser, player: FakeUser) -> FakeMessage:
    ix = await fake.slash(member, fake.channel("general"), "history", options={"user": player})
    await ix.wait_answered()
    assert ix.message is not None
    return ix.message


async def forged_download(fake: FakeDiscord, member: FakeUser, message: FakeMessage,
                          game_id: int) -> str:
    """A modified client sends ``game_id`` in the download select of ``message``."""
    ix = await fake.forge(member, message, "ct:rec", component_type=3, values=[str(game_id)])
    await ix.wait_answered()
    assert ix.message is not None and not ix.message.versions[-1]["attachments"]
    return ix.text()


def shown_ids(message: FakeMessage) -> list[int]:
    """The games a page lists (an empty page has a sentence and no select instead)."""
    return listed_ids(message) if message.selects() else []


def older_button(message: FakeMessage) -> str | None:
    return next((b["custom_id"] for b in message.buttons() if b.get("label") == "Older ▶"),
                None)


async def test_a_private_thread_shows_to_its_players_and_thread_managers_only(
        fake_discord: FakeDiscord, bots: Bots) -> None:
    fake, world = fake_discord, fake_discord.world
    alice, bob, carol, mod, zed = (fake.add_user(n) for n in ("alice", "bob", "carol",
                                                                "mod", "zed"))
    den = world.add_channel("den", private_to=[alice, bob, carol, mod])
    world.set_permissions(den, mod, manage_threads=True)
    side = world.add_thread("side", den, private=True)
    bot = await bots.new()
    async with fake.running(bot):
        with pytest.raises(FakeDiscordError):  # the fake keeps zed out of the channel too
            await fake.slash(zed, den, "history")
        in_den = await record(bot, den.id, alice, bob, 0)
        in_side = await record(bot, side.id, alice, bob, 60)
        # carol sees the channel but is not in the private thread; bob played there;
        # mod may manage threads; zed sees neither.
        for member, expected in ((carol, [in_den]), (bob, [in_side, in_den]),
                                 (mod, [in_side, in_den]), (zed, [])):
            assert shown_ids(await history_of(fake, member, alice)) == expected
        mine = await history_of(fake, carol, alice)
        assert REFUSED in await forged_download(fake, carol, mine, in_side)
        # Asked from inside the thread, its games are hers to see: she is in it.
        ix = await (await fake.slash(carol, side, "history")).wait_answered()
        assert ix.message is not None and listed_ids(ix.message) == [in_side]


async def test_a_game_whose_channel_is_gone_is_shown_to_nobody(
        fake: FakeDiscord, alice: FakeUser, bob: FakeUser, bots: Bots) -> None:
    bot = await bots.new()
    async with fake.running(bot):
        public = await record(bot, fake.channel("general").id, alice, bob, 0)
        gone = await record(bot, fake.world.ids.next(), alice, bob, 1)  # no such channel
        for member in (alice, bob, fake.world.users[fake.world.guild.owner_id]):
            assert shown_ids(await history_of(fake, member, alice)) == [public]
        own = await history_of(fake, alice, alice)
        assert REFUSED in await forged_download(fake, alice, own, gone)


async def test_older_is_offered_only_when_an_older_game_they_may_see_exists(
        fake: FakeDiscord, bots: Bots) -> None:
    alice, bob, zed = (fake.add_user(n) for n in ("alice", "bob", "zed"))
    secret = fake.world.add_channel("secret", private_to=[alice, bob])
    bot = await bots.new()
    async with fake.running(bot):
        hidden = [await record(bot, secret.id, alice, bob, n) for n in range(5)]
        shown = [await record(bot, fake.channel("general").id, alice, bob, 10 + n)
                 for n in range(10)]
        zeds = await history_of(fake, zed, alice)
        assert listed_ids(zeds) == shown[::-1] and older_button(zeds) is None
        bobs = await history_of(fake, bob, alice)
        assert listed_ids(bobs) == shown[::-1] and older_button(bobs) is not None
        page = await (await fake.click(bob, bobs, label="Older ▶")).wait_answered()
        assert page.message is not None and listed_ids(page.message) == hidden[::-1]


async def test_the_scan_bound_cuts_a_page_short_and_older_goes_on_from_there(
        fake: FakeDiscord, bots: Bots, monkeypatch: pytest.MonkeyPatch) -> None:
    alice, bob, zed = (fake.add_user(n) for n in ("alice", "bob", "zed"))
    secret = fake.world.add_channel("secret", private_to=[alice, bob])
    bot = await bots.new()
    async with fake.running(bot):
        loaded = sys.modules["cogs.history"]  # load_extension made a module of its own
        monkeypatch.setattr(loaded, "SCAN_GAMES", 15)
        monkeypatch.setattr(loaded, "SCAN_BATCH", 5)
        visible = [await record(bot, fake.channel("general").id, alice, bob, n)
                   for n in range(4)]
        for n in range(40):  # newer than every game zed may see
            await record(bot, secret.id, alice, bob, 10 + n)
        reads: list[int] = []
        original = bot.store.history

        async def counted(*args: Any, **kwargs: Any) -> list[GameSummary]:
            reads.append(kwargs["limit"])
            return cast(list[GameSummary], await original(*args, **kwargs))

        monkeypatch.setattr(bot.store, "history", counted)
        message = await history_of(fake, zed, alice)
        first = message.embeds[0]["description"]
        assert shown_ids(message) == [] and "Older ▶ looks further back" in first
        assert not message.selects() and reads == [11, 5]  # 16 games read, not 44
        seen, pages = [], 1
        while (custom_id := older_button(message)) is not None:
            reads.clear()
            await (await fake.click(zed, message, custom_id)).wait_answered()
            assert reads == [11, 5]  # the bound holds on every page
            seen += shown_ids(message)
            pages += 1
        assert seen == visible[::-1] and pages == 3
        assert [b["label"] for b in message.buttons()] == ["⏮ Newest"]


def summary(*user_ids: int | None, channel_id: int = 77) -> GameSummary:
    seats = tuple(SeatResult(i, uid, f"P{i}", 1, i, i == 0, 0) for i, uid in enumerate(user_ids))
    return GameSummary(1, "jazz", 5, channel_id, T0, T0, True, True, seats)


def in_dm(user_id: int) -> discord.Interaction:
    return cast(discord.Interaction, SimpleNamespace(guild=None, channel_id=900,
                                                     user=SimpleNamespace(id=user_id)))


def test_in_a_dm_only_the_askers_own_games_count() -> None:
    assert may_see(in_dm(1), summary(1, 2))
    assert not may_see(in_dm(3), summary(1, 2))
    assert not may_see(in_dm(1), summary(None, 2, channel_id=900))  # not even "this channel"


async def test_history_is_not_offered_in_a_dm(
        fake: FakeDiscord, alice: FakeUser, bots: Bots) -> None:
    async with fake.running(await bots.new()):
        with pytest.raises(FakeDiscordError, match="history"):
            await fake.slash(alice, fake.dm(alice), "history")

