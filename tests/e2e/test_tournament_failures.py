"""A tournament table that cannot be opened: its thread is made once (a retry reuses
it), and a table that never opens is given up at the round's start by (not played,
nobody scores, the channel told) instead of holding the round forever."""

from __future__ import annotations

from typing import Any

import pytest

from bot.app.client import CardTableBot
from bot.features.tournaments import Tournaments
from bot.table.tournament import Tournament
from testkit.bots import Bots
from testkit.clock import ManualClock
from testkit.fakediscord import FakeChannel, FakeDiscord
from testkit.harness import idle
from tests.e2e.test_tournaments import WITH_GAMES, live, setting_up, sign_up


@pytest.fixture
def bot_extensions() -> dict[str, str | None]:
    return WITH_GAMES


def threads_made(service: Tournaments, fail: bool) -> list[str]:
    """The names of the threads the service makes; the second table's fail if ``fail``."""
    made: list[str] = []
    real = service._thread

    async def thread(t: Tournament, name: str) -> int | None:
        made.append(name)
        return None if fail and name.endswith("T2") else await real(t, name)

    service._thread = thread  # type: ignore[method-assign]
    return made


async def started(fake: FakeDiscord, general: FakeChannel, bots: Bots
                  ) -> tuple[ManualClock, CardTableBot]:
    clock, players, bot = await setting_up(fake, general, bots, 4)
    owner = fake.user("owner")
    create = await fake.slash(owner, general, "tournament create", game="jacko", rounds=1,
                              seats=2, grace="5m", options={"options": "target=31"})
    await create.wait_answered()
    await sign_up(fake, general, players)
    return clock, bot


async def test_a_table_without_a_thread_is_given_up_at_the_start_by(
        fake: FakeDiscord, general: FakeChannel, bots: Bots):
    clock, bot = await started(fake, general, bots)
    made = threads_made(bot.croupier.tournaments, fail=True)
    await (await fake.slash(fake.user("owner"), general, "tournament start")).wait_answered()
    await idle(bot)
    await fake.settle()
    tournament_id = live(bot, general).tournament_id
    rnd = live(bot, general).current
    assert rnd is not None and len(rnd.tables) == 2
    assert rnd.tables[0].channel_id is not None and rnd.tables[1].result is None
    for _ in range(6):  # retried each minute until the start by (5 minutes)
        clock.advance(60)
        await idle(bot)
        await fake.settle()
    stored = await bot.store.load_tournament(tournament_id)
    assert stored is not None
    lost = Tournament.from_data(stored.data).current
    assert lost is not None and lost.tables[1].result is not None
    assert not lost.tables[1].result.played  # nobody scores for it
    # (Nobody joined the other table either: it closed at the start by, and the
    # tournament is over rather than waiting for the table that never opened.)
    assert stored.status == "finished"
    told = fake.find_message(general, text="could not be opened")
    assert told is not None and "Table 2 of round 1" in told.content
    assert 2 <= sum(name.endswith("T2") for name in made) <= 6


async def test_a_retry_reuses_the_thread_it_made(
        fake: FakeDiscord, general: FakeChannel, bots: Bots):
    clock, bot = await started(fake, general, bots)
    service = bot.croupier.tournaments
    made = threads_made(service, fail=False)
    real = service.manager.open
    failed: list[str] = []

    async def open_table(table: Any) -> None:
        if table.tournament_table == 2 and not failed:
            failed.append(table.table_id)
            raise RuntimeError("the database is away")
        await real(table)

    service.manager.open = open_table  # type: ignore[method-assign]
    await (await fake.slash(fake.user("owner"), general, "tournament start")).wait_answered()
    await idle(bot)
    await fake.settle()
    assert failed
    clock.advance(60)
    await idle(bot)
    await fake.settle()
    rnd = live(bot, general).current
    assert rnd is not None and bot.croupier.manager.get(rnd.tables[1].table_id) is not None
    assert sum(name.endswith("T2") for name in made) == 1  # no orphan thread
    assert fake.find_message(fake.world.channels[rnd.tables[1].channel_id],
                             label="Join") is not None


async def test_a_tournament_whose_message_cannot_be_posted_frees_its_channel(
        fake: FakeDiscord, general: FakeChannel, bots: Bots):
    _clock, _players, bot = await setting_up(fake, general, bots, 0)
    poster = bot.croupier.tournaments.poster
    real = poster.send

    async def lost(*args: Any, **kwargs: Any) -> None:
        return None  # (as when the bot may not post in the channel)

    poster.send = lost  # type: ignore[method-assign]
    owner = fake.user("owner")
    failed = await fake.slash(owner, general, "tournament create", game="jacko")
    await failed.wait_answered()
    assert "could not post" in failed.text()
    assert await bot.store.active_tournaments() == []
    poster.send = real  # type: ignore[method-assign]
    again = await fake.slash(owner, general, "tournament create", game="jacko")
    await again.wait_answered()
    assert "open for sign-up" in again.text()
