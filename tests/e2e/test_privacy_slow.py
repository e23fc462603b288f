"""The results commands and their components on a slow (or failing) database.

The watchdog defers whatever is unanswered at 2.2 s; the answer then has to come as
the follow-up or the edit, never as a second first response (Discord's 40060, which
the fake records as a violation). test_privacy.py covers slow /history, /leaderboard,
/stats and a history page; here: a database that fails after the deferral, the
leaderboard and chips buttons (the owner's and another member's click), and a record
download.
"""

from __future__ import annotations

import asyncio
import re
from datetime import timedelta
from typing import Any

import pytest

from bot.storage import Store
from testkit.bots import Bots
from testkit.fakediscord import FakeChannel, FakeDiscord, FakeMessage, FakeUser
from testkit.fakediscord.interactions import Interaction
from testkit.results import T0, finished, option_values

SLOW = 2.6  # seconds: past the watchdog's 2.2
TROUBLE = "could not read the scores just now"


def make_slow(monkeypatch: pytest.MonkeyPatch, store: Store, name: str, *,
              fail: bool = False) -> None:
    """Every call of ``store.<name>`` takes SLOW seconds, then answers (or raises)."""
    original = getattr(store, name)

    async def slow(*args: Any, **kwargs: Any) -> Any:
        await asyncio.sleep(SLOW)
        if fail:
            raise RuntimeError("database is locked")
        return await original(*args, **kwargs)

    monkeypatch.setattr(store, name, slow)


async def deferred_in_time(ix: Interaction, kind: int) -> Interaction:
    await ix.wait_answered(timeout=3)
    assert ix.response is not None and ix.response.type == kind
    return ix


def ranks(message: FakeMessage) -> list[int]:
    return [int(n) for n in re.findall(r"^\*\*(\d+)\.\*\*", message.embeds[0]["description"],
                                       re.MULTILINE)]


async def seed(bot: Any, channel: int, guild: int) -> None:
    """14 rated jazz players and 14 players with chips: two pages on each board."""
    for n in range(14):
        seats = [(800 + n, f"P{n:02d}", 10 + n), (801 + n, f"P{n + 1:02d}", 3)]
        when = T0 + timedelta(minutes=n)
        await bot.store.record_game(finished(guild, channel, seats, when=when))
        await bot.store.record_game(finished(guild, channel, seats, game="attackjack",
                                             chips=[20, -20], when=when))


@pytest.mark.slow
async def test_a_failing_database_is_reported_after_the_deferral(
        fake: FakeDiscord, bots: Bots, monkeypatch: pytest.MonkeyPatch) -> None:
    alice, general = fake.add_user("alice"), fake.channel("general")
    bot = await bots.new()
    async with fake.running(bot):
        assert bot.store is not None
        for name in ("leaderboard_size", "chips_board_size", "history", "stats"):
            make_slow(monkeypatch, bot.store, name, fail=True)
        asked = {"leaderboard": await fake.slash(alice, general, "leaderboard", game="jazz"),
                 "chips": await fake.slash(alice, general, "chips"),
                 "stats": await fake.slash(alice, general, "stats"),
                 "history": await fake.slash(alice, general, "history")}
        for ix in asked.values():
            await deferred_in_time(ix, 5)
        for name, ix in asked.items():
            await ix.wait_done(timeout=4)
            wanted = "could not read the game history" if name == "history" else TROUBLE
            assert wanted in ix.text(), name  # not "Something went wrong": no 40060


@pytest.mark.slow
async def test_slow_buttons_and_downloads_are_deferred_then_answered(
        fake: FakeDiscord, alice: FakeUser, bob: FakeUser, general: FakeChannel, bots: Bots,
        monkeypatch: pytest.MonkeyPatch) -> None:
    bot = await bots.new()
    async with fake.running(bot):
        assert bot.store is not None
        await seed(bot, general.id, fake.world.guild.id)
        board = (await (await fake.slash(alice, general, "leaderboard", game="jazz"))
                 .wait_answered()).message
        chips = (await (await fake.slash(alice, general, "chips")).wait_answered()).message
        listing = (await (await fake.slash(alice, general, "history")).wait_answered()).message
        assert board is not None and chips is not None and listing is not None
        assert ranks(board)[0] == 1 and ranks(chips)[0] == 1
        newest, record_json = option_values(listing)[0], bot.store.game_record_json
        for name in ("leaderboard_size", "chips_board_size", "game_record_json"):
            make_slow(monkeypatch, bot.store, name)
        turn = await fake.click(alice, board, label="Next ▶")
        other = await fake.click(bob, board, label="Next ▶")
        chips_turn = await fake.click(alice, chips, label="Next ▶")
        download = await fake.select(alice, listing, "ct:rec", [str(newest)])
        for ix in (turn, other, chips_turn, download):
            await deferred_in_time(ix, 6)  # silently: the clicked message stays editable
        # The owner's clicks turn their pages in place, by editing after the deferral.
        for ix, message in ((turn, board), (chips_turn, chips)):
            await ix.wait_until(lambda ix: bool(ix.edits), timeout=4)
            assert ranks(message)[0] == 11
        # Another member gets a page of their own, and the downloader their file.
        await other.wait_followups(1, timeout=4)
        (own,) = other.followups
        assert own.ephemeral_for is bob and f"belong to <@{alice.id}>" in own.content
        assert ranks(own)[0] == 11 and ranks(board)[0] == 11
        await download.wait_followups(1, timeout=4)
        (attachment,) = download.followups[0].versions[-1]["attachments"]
        assert fake.download(attachment).decode() == await record_json(newest)
