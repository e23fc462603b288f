"""bot.storage: head-to-head, winning streaks and the rating history, on every backend
(the ``store`` fixture runs each test on SQLite and on PostgreSQL)."""

from __future__ import annotations

from datetime import timedelta

import pytest

from bot.storage import GLOBAL_SCOPE, HeadToHead, Store, Streak, ratings, results
from bot.storage.rivals import longest_streaks
from tests.bot.conftest import Database
from tests.bot.test_storage import GUILD, OTHER_GUILD, T0, finished, play

ANN, BOB, CY = 7, 8, 9


def at(minutes: int) -> dict[str, object]:
    return {"ended": T0 + timedelta(minutes=minutes)}


# ================================================================ head-to-head


async def test_head_to_head_counts_their_completed_games_together_per_game(
        store: Store) -> None:
    games = [
        finished([(ANN, 30), (BOB, 10)], **at(1)),  # Ann higher, Ann wins
        finished([(ANN, 5), (BOB, 20), (CY, 40)], **at(2)),  # Bob higher, Cy wins
        finished([(ANN, 15), (BOB, 15)], **at(3)),  # a shared place: both win
        finished([(ANN, 8), (None, 9), (BOB, 2)], **at(4)),  # an AI seat: still together
        finished([(ANN, 50), (BOB, 0)], completed=False, **at(5)),  # stopped: nothing
        finished([(ANN, 50), (CY, 0)], **at(6)),  # without Bob
        finished([(ANN, 1), (BOB, 9)], game="jacko", **at(7)),
        finished([(ANN, 4), (BOB, 3)], guild=OTHER_GUILD, **at(8)),  # another server
    ]
    for game in games:
        await store.record_game(game)

    jacko, jazz = await store.head_to_head(ANN, BOB, GUILD)  # by game id
    assert jazz == HeadToHead("jazz", games=4, wins=2, other_wins=1, points=58,
                              other_points=47, ahead=2, behind=1)
    assert jazz.level == 1
    assert jacko == HeadToHead("jacko", 1, 0, 1, 1, 9, 0, 1)
    # From Bob's side the same games, mirrored.
    _, bob_jazz = await store.head_to_head(BOB, ANN, GUILD)
    assert (bob_jazz.wins, bob_jazz.other_wins, bob_jazz.ahead, bob_jazz.behind,
            bob_jazz.points, bob_jazz.other_points) == (1, 2, 1, 2, 47, 58)
    # Every server; one game only.
    [everywhere] = await store.head_to_head(ANN, BOB, None, game="jazz")
    assert (everywhere.games, everywhere.wins, everywhere.points) == (5, 3, 62)
    assert await store.head_to_head(ANN, BOB, GUILD, game="california_jack") == []
    assert await store.head_to_head(BOB, CY, OTHER_GUILD) == []


async def test_games_together_are_listed_newest_first_and_page_back(store: Store) -> None:
    ids = [await store.record_game(finished([(ANN, n), (CY, 1), (BOB, 10 - n)], **at(n)))
           for n in range(7)]
    await store.record_game(finished([(ANN, 9), (BOB, 1)], completed=False))  # stopped
    await store.record_game(finished([(ANN, 9), (CY, 1)]))  # without Bob
    await store.record_game(finished([(ANN, 9), (BOB, 1)], guild=OTHER_GUILD))

    first = await store.games_together(ANN, BOB, GUILD, limit=3)
    assert [g.game_id for g in first] == ids[:-4:-1]
    assert [(p.user_id, p.points) for p in first[0].players] == [(ANN, 6), (CY, 1), (BOB, 4)]
    assert all(g.completed and g.guild_id == GUILD for g in first)
    older = await store.games_together(ANN, BOB, GUILD, limit=10, before=first[-1].game_id)
    assert [g.game_id for g in older] == ids[3::-1]
    assert len(await store.games_together(BOB, ANN, None, limit=50)) == 8
    assert await store.games_together(ANN, BOB, GUILD, game="jacko") == []
    with pytest.raises(ValueError):
        await store.games_together(ANN, BOB, GUILD, limit=0)


# ================================================================ streaks


def test_a_streak_is_the_run_up_to_the_last_game_and_the_longest_run() -> None:
    def rows(wins: str, game: str = "jazz") -> list[dict[str, object]]:
        return [{"game": game, "won": w == "W"} for w in wins]

    assert longest_streaks(rows("WWLWWW")) == [Streak("jazz", 3, 3)]
    assert longest_streaks(rows("WWWWLW")) == [Streak("jazz", 1, 4)]
    assert longest_streaks(rows("WWL")) == [Streak("jazz", 0, 2)]
    assert longest_streaks(rows("LL") + rows("W", "jacko")) == [Streak("jazz", 0, 0),
                                                                Streak("jacko", 1, 1)]
    assert longest_streaks([]) == []


async def test_streaks_follow_the_end_times_per_game_and_scope(store: Store) -> None:
    # Recorded out of order: the games' end times decide the order, not the game ids.
    for minute, ann_won in ((1, True), (2, True), (5, False), (3, True), (6, True),
                            (4, True), (7, True)):
        await store.record_game(finished([(ANN, 10 if ann_won else 0), (BOB, 5)], **at(minute)))
    # By end time: W W W W L W W: the longest run is four, the current two.
    await store.record_game(finished([(ANN, 0), (BOB, 5)], completed=False, **at(8)))
    await store.record_game(finished([(ANN, 9), (None, 5)], game="jacko", **at(9)))
    await store.record_game(finished([(ANN, 0), (BOB, 5)], guild=OTHER_GUILD, **at(10)))

    here = {s.game: s for s in await store.streaks(ANN, GUILD)}
    assert here == {"jazz": Streak("jazz", 2, 4), "jacko": Streak("jacko", 1, 1)}
    assert await store.streaks(BOB, GUILD, game="jazz") == [Streak("jazz", 0, 1)]
    # Everywhere, her game lost on the other server ends the current run.
    assert Streak("jazz", 0, 4) in await store.streaks(ANN, None)
    assert await store.streaks(CY, GUILD) == []


# ================================================================ rating history


async def test_the_rating_after_each_rated_game_is_kept_per_scope(store: Store) -> None:
    ids = [await play(store, ANN, BOB, ended=T0 + timedelta(minutes=n)) for n in range(3)]
    ids.append(await play(store, BOB, ANN, ended=T0 + timedelta(minutes=3)))
    await store.record_game(finished([(ANN, 10), (None, 3)]))  # an AI seat: not rated
    await store.record_game(finished([(ANN, 10), (BOB, 3)], completed=False))
    await play(store, ANN, BOB, guild=OTHER_GUILD)  # rated there, and everywhere

    here = await store.rating_history(ANN, "jazz", GUILD)
    assert [p.game_id for p in here] == ids
    assert [p.ended_at for p in here] == [T0 + timedelta(minutes=n) for n in range(4)]
    # Each point is the rating after its game: three wins, then a loss.
    ann = bob = ratings.default_rating()
    for point, ann_won in zip(here, (True, True, True, False), strict=True):
        ann, bob = ratings.rate([ann, bob], [0, 1] if ann_won else [1, 0])
        assert (point.mu, point.sigma, point.ordinal) == pytest.approx(
            (ann.mu, ann.sigma, ann.ordinal))
    # The line ends where the leaderboard stands.
    row = await store.rank_of("jazz", GUILD, ANN)
    assert row is not None and (here[-1].mu, here[-1].sigma, here[-1].ordinal) == (
        row.mu, row.sigma, row.ordinal)
    everywhere = await store.rating_history(ANN, "jazz", None)
    assert everywhere[:4] == here  # the same games from the same start
    assert len(everywhere) == 5 and everywhere[4].game_id > ids[-1]
    glob = await store.rank_of("jazz", None, ANN)
    assert glob is not None and everywhere[-1].ordinal == glob.ordinal
    assert len(await store.rating_history(BOB, "jazz", GUILD)) == 4
    # The latest ``limit`` points, still oldest first.
    assert [p.game_id for p in await store.rating_history(ANN, "jazz", GUILD, limit=2)] == \
        ids[2:]
    assert await store.rating_history(ANN, "jacko", GUILD) == []
    assert await store.rating_history(CY, "jazz", GUILD) == []


async def test_a_game_recorded_twice_or_refused_writes_no_history(store: Store) -> None:
    game = finished([(ANN, 10), (BOB, 3)])
    game.table_id = "t-1"
    first = await store.record_game(game)
    assert await store.record_game(game) == first  # the table's game, once
    assert [p.game_id for p in await store.rating_history(ANN, "jazz", GUILD)] == [first]
    with pytest.raises(ValueError):
        await store.record_game(finished([(ANN, 1), (BOB, 0)], chips=[5, -4], stakes=True))
    assert len(await store.rating_history(ANN, "jazz", None)) == 1


async def test_the_history_is_written_in_the_rating_update_s_transaction(
        store: Store, monkeypatch: pytest.MonkeyPatch) -> None:
    real_rate, calls = ratings.rate, []

    def failing_second_scope(before, places):  # the server scope is written, then fails
        calls.append(1)
        if len(calls) == 2:
            raise RuntimeError("disk full")
        return real_rate(before, places)

    monkeypatch.setattr(results, "rate", failing_second_scope)
    with pytest.raises(RuntimeError):
        await play(store, ANN, BOB)
    assert await store.rating_history(ANN, "jazz", GUILD) == []
    monkeypatch.setattr(results, "rate", real_rate)
    await play(store, ANN, BOB)
    assert len(await store.rating_history(ANN, "jazz", GUILD)) == 1


async def test_the_history_table_comes_with_migration_11(database: Database) -> None:
    """A database from before 0011 gains the table, empty, and the next rated game writes
    its first points."""
    async with await database.open(migrations=database.migrations[:10]) as old:
        assert (await old.info()).schema_version == 10
    async with await database.open() as store:
        assert (await store.info()).schema_version == len(database.migrations)
        assert await store.rating_history(ANN, "jazz", GUILD) == []
        game_id = await play(store, ANN, BOB)
        [point] = await store.rating_history(ANN, "jazz", GUILD)
        assert point.game_id == game_id
        rows = await database.raw("SELECT scope, user_id FROM rating_history ORDER BY scope,"
                                  " user_id")
        assert rows == [(GLOBAL_SCOPE, ANN), (GLOBAL_SCOPE, BOB), (GUILD, ANN), (GUILD, BOB)]
