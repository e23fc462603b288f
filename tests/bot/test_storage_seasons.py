"""Storage of seasons, rolling windows and reward roles, on SQLite and PostgreSQL: a
window's board counts only the games that ended in it; season ratings are kept beside the
all-time ones, from rated games only, per season; which seasons were posted; who holds a
reward role the bot gave."""

from __future__ import annotations

import dataclasses
from datetime import timedelta

import pytest
from openskill.models import PlackettLuce

from bot.storage import FinishedGame, Store, TableRow
from tests.bot.test_storage import CHANNEL, GUILD, OTHER_GUILD, T0, finished

ALICE, BOB, CY, DEE = 11, 12, 13, 14
NAMES = {ALICE: "Alice", BOB: "Bob", CY: "Cy", DEE: "Dee"}


def game(points: list[tuple[int | None, int]], *, ended=T0, season: int | None = None,
         **kw) -> FinishedGame:
    return dataclasses.replace(finished(points, ended=ended, names=NAMES, **kw), season=season)


async def test_a_weeks_board_counts_only_the_games_that_ended_in_it(store: Store) -> None:
    week = T0 - timedelta(days=7)
    for played in (
            game([(ALICE, 30), (BOB, 1)], ended=T0 - timedelta(days=8)),  # too old
            game([(ALICE, 30), (BOB, 1)], ended=week - timedelta(seconds=1)),  # just before
            game([(BOB, 9), (CY, 2)], ended=week),  # the window's first moment
            game([(CY, 5), (BOB, 4)], ended=T0 - timedelta(days=1)),
            game([(CY, 8), (None, 1)], ended=T0),  # an AI seat: counted, not rated
            game([(DEE, 50), (BOB, 0)], ended=T0, completed=False),  # stopped: nothing
            game([(DEE, 50), (CY, 0)], ended=T0, guild=OTHER_GUILD),  # another server
            game([(DEE, 50), (CY, 0)], ended=T0, game="jacko")):  # another game
        await store.record_game(played)
    rows = await store.window_board("jazz", GUILD, week)
    # Cy: 2 wins (5 + 8 + 2 = 15 points); Bob: 1 win (9 + 4 = 13). Alice's games are older.
    assert [(r.rank, r.name, r.games, r.wins, r.points) for r in rows] == [
        (1, "Cy", 3, 2, 15), (2, "Bob", 2, 1, 13)]
    assert rows[0].win_rate == pytest.approx(2 / 3)
    assert await store.window_board_size("jazz", GUILD, week) == 2
    bob = await store.window_rank_of("jazz", GUILD, week, BOB)
    assert bob is not None and (bob.rank, bob.wins) == (2, 1)
    assert await store.window_rank_of("jazz", GUILD, week, ALICE) is None
    # The month holds Alice's games too: two wins, 60 points, ahead of Cy's two wins.
    month = await store.window_board("jazz", GUILD, T0 - timedelta(days=30))
    assert [r.name for r in month] == ["Alice", "Cy", "Bob"]
    assert [r.name for r in await store.window_board("jazz", GUILD, week, 1, 1)] == ["Bob"]


async def test_a_windows_ties_go_to_points_then_games(store: Store) -> None:
    since = T0 - timedelta(days=1)
    await store.record_game(game([(ALICE, 10), (BOB, 3)]))
    await store.record_game(game([(CY, 10), (DEE, 3)]))
    await store.record_game(game([(DEE, 0), (CY, -3)]))  # Cy: 1 win, 7 points, 2 games
    await store.record_game(game([(BOB, 0), (ALICE, 0)]))  # a shared win: 1 + 1
    rows = await store.window_board("jazz", GUILD, since)
    # Alice 2 wins 10; Bob 1 win 3 (2 games); Cy 1 win 7 (2 games); Dee 1 win 3 (2 games)
    assert [(r.name, r.wins, r.points, r.games) for r in rows] == [
        ("Alice", 2, 10, 2), ("Cy", 1, 7, 2), ("Bob", 1, 3, 2), ("Dee", 1, 3, 2)]


async def test_season_ratings_are_kept_apart_from_the_all_time_ones(store: Store) -> None:
    await store.record_game(game([(ALICE, 10), (BOB, 3)]))  # before seasons
    await store.record_game(game([(BOB, 10), (ALICE, 3)], season=1))
    await store.record_game(game([(BOB, 10), (CY, 3)], season=1))
    await store.record_game(game([(CY, 10), (None, 3)], season=1))  # an AI seat: no season
    await store.record_game(game([(CY, 10), (ALICE, 3)], season=2))
    await store.record_game(game([(DEE, 10), (CY, 3)], season=1, guild=OTHER_GUILD))

    model = PlackettLuce()
    alice, bob, cy = model.rating(), model.rating(), model.rating()
    [[bob], [alice]] = model.rate([[bob], [alice]], ranks=[0, 1])
    [[bob], [cy]] = model.rate([[bob], [cy]], ranks=[0, 1])
    season = await store.season_board("jazz", GUILD, 1)
    losers = sorted((("Alice", alice), ("Cy", cy)), key=lambda nr: -nr[1].ordinal())
    assert [(r.rank, r.name, r.games, r.wins, r.points) for r in season] == [
        (1, "Bob", 2, 2, 20), (2, losers[0][0], 1, 0, 3), (3, losers[1][0], 1, 0, 3)]
    by_name = {r.name: r for r in season}
    for name, expected in (("Bob", bob), ("Alice", alice), ("Cy", cy)):
        assert by_name[name].mu == pytest.approx(expected.mu)
        assert by_name[name].sigma == pytest.approx(expected.sigma)
    # All time: every game of the server (Cy's AI game counted, unrated).
    all_time = {r.name: r for r in await store.leaderboard("jazz", GUILD)}
    assert (all_time["Alice"].games, all_time["Cy"].games) == (3, 3)
    assert all_time["Bob"].mu != pytest.approx(by_name["Bob"].mu)
    assert await store.season_board_size("jazz", GUILD, 1) == 3
    assert await store.season_board_size("jazz", GUILD, 2) == 2
    mine = await store.season_rank_of("jazz", GUILD, 1, BOB)
    assert mine is not None and mine.rank == 1
    assert await store.season_rank_of("jazz", GUILD, 2, BOB) is None
    assert await store.season_games(GUILD, 1) == ["jazz"]
    assert await store.season_games(GUILD, 3) == []
    other = await store.season_board("jazz", OTHER_GUILD, 1)
    assert [r.name for r in other] == ["Dee", "Cy"]


async def test_a_season_is_posted_once_and_only_when_it_had_games(store: Store) -> None:
    for season in (1, 2, 4):
        await store.record_game(game([(ALICE, 10), (BOB, 3)], season=season))
    assert await store.unposted_seasons(GUILD, before=4) == [1, 2]  # 3 had no games
    await store.mark_season_posted(GUILD, 1)
    await store.mark_season_posted(GUILD, 1)  # twice: no harm
    assert await store.unposted_seasons(GUILD, before=5) == [2, 4]
    assert await store.unposted_seasons(OTHER_GUILD, before=5) == []
    with pytest.raises(ValueError):
        await store.mark_season_posted(GUILD, 0)


async def test_the_last_season_used_is_of_ratings_or_posts(store: Store) -> None:
    assert await store.last_season(GUILD) is None
    await store.record_game(game([(ALICE, 10), (BOB, 3)], season=2))
    assert await store.last_season(GUILD) == 2
    await store.mark_season_posted(GUILD, 5)  # (a post outlives nothing it counts)
    assert await store.last_season(GUILD) == 5
    assert await store.last_season(OTHER_GUILD) is None


async def test_the_bot_remembers_whom_it_gave_a_reward_role(store: Store) -> None:
    role = 777
    assert await store.role_holders(GUILD, role) == []
    await store.hold_role(GUILD, role, BOB, True)
    await store.hold_role(GUILD, role, ALICE, True)
    await store.hold_role(GUILD, role, ALICE, True)
    assert await store.role_holders(GUILD, role) == [ALICE, BOB]
    await store.hold_role(GUILD, role, BOB, False)
    await store.hold_role(GUILD, role, CY, False)  # never held: no harm
    assert await store.role_holders(GUILD, role) == [ALICE]
    assert await store.role_holders(OTHER_GUILD, role) == []


async def test_a_finished_table_rates_its_season_in_the_same_transaction(
        store: Store) -> None:
    await store.create_table(TableRow("t-1", GUILD, CHANNEL, "jazz", status="playing"))
    played = game([(ALICE, 10), (BOB, 3)], season=3)
    await store.finish_table("t-1", "finished", {}, 0, played)
    assert [r.name for r in await store.season_board("jazz", GUILD, 3)] == ["Alice", "Bob"]
    # The same table's game again (a retry): nothing moves twice.
    await store.record_game(dataclasses.replace(played, table_id="t-1"))
    assert [r.games for r in await store.season_board("jazz", GUILD, 3)] == [1, 1]
