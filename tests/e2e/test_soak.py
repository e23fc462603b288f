"""The kill soak, short (``python -m benchmarks soak`` is the long one): one table of each
game on the fake Discord, the bot process SIGKILLed three times at random moments and,
on PostgreSQL, the database stopped and started once under it; every click's answer
against what storage keeps (``testkit.soak_judge``).

The judge is tested first on records broken on purpose, so that none of its counts is
0 by construction (``python -m benchmarks soak --sabotage ...`` does the same with a bot
broken on purpose, end to end).
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from bot.storage import STARTING_CHIPS
from testkit.pgcluster import PostgresCluster, PostgresUnavailable
from testkit.soak import SHORT, Plan, soak
from testkit.soak_judge import (
    DONE,
    REFUSED,
    UNKNOWN,
    Click,
    GameRow,
    SoakTable,
    Stored,
    TableRow,
    judge,
)

GUILD, CHANNEL, TABLE = 10, 20, "t1"
ANN, BEN = 1, 2


def record(*moves: tuple[int, str]) -> dict[str, Any]:
    """A record of one deal with these (seat, code) actions (the hands do not matter)."""
    return {"deals": [{"hands": [], "actions": [list(m) for m in moves]}]}


def stored(*moves: tuple[int, str], games: int = 1, status: str = "finished") -> Stored:
    """Storage holding table TABLE of ANN (seat 0) and BEN (seat 1) with ``moves``, and
    ``games`` games recorded of it, counted once each."""
    played = record(*moves)
    seats = [{"user_id": ANN}, {"user_id": BEN}]
    out = Stored(tables={TABLE: TableRow(TABLE, CHANNEL, status, {"game": played, "seats": seats})})
    for n in range(games):
        out.games.append(GameRow(n + 1, TABLE, CHANNEL, "jacko", True, False, played,
                                 (ANN, BEN), (0, 0)))
    for scope in (0, GUILD):
        for user in (ANN, BEN):
            out.ratings[(scope, "jacko", user)] = min(games, 1)
    return out


def count(clicks: list[Click], storage: Stored, **kwargs: Any) -> dict[str, int]:
    table = SoakTable(CHANNEL, "general", "jacko", **kwargs)
    return judge(clicks, storage, [table], GUILD, STARTING_CHIPS).as_dict()


def click(user: int, step: int, code: str, outcome: str = DONE) -> Click:
    return Click(TABLE, user, step, code, outcome)


ZERO = dict.fromkeys(("lost", "twice", "recorded_twice", "stopped", "refused_but_applied",
                      "games_missing", "chips_wrong", "results_posted_twice",
                      "results_never_shown"), 0)
PLAYED = [click(ANN, 3, "AS"), click(BEN, 4, "KS"), click(ANN, 5, "2H")]


def test_a_soak_whose_record_holds_exactly_the_answered_moves_counts_nothing() -> None:
    # A forced pass the bot played, an unanswered click that was applied, one that was
    # not, and a refused click: all consistent with the record.
    clicks = [*PLAYED[:2], click(ANN, 5, "3H", UNKNOWN), click(BEN, 5, "QH", REFUSED),
              click(ANN, 5, "2H", UNKNOWN), click(BEN, 7, "JH", UNKNOWN)]
    assert count(clicks, stored((0, "AS"), (1, "KS"), (1, "pass"), (0, "2H"))) == ZERO


def test_a_move_answered_as_played_but_missing_from_the_record_is_lost() -> None:
    assert count(PLAYED, stored((0, "AS"), (0, "2H"))) == ZERO | {"lost": 1}
    # Lost at the end of a game that did not finish: the live snapshot is the record.
    assert count(PLAYED, stored((0, "AS"), (1, "KS"), games=0, status="playing")) == \
        ZERO | {"lost": 1, "stopped": 1}


def test_a_move_in_the_record_that_no_click_explains_was_applied_twice() -> None:
    assert count(PLAYED, stored((0, "AS"), (1, "KS"), (1, "KS"), (0, "2H"))) == \
        ZERO | {"twice": 1}
    assert count(PLAYED, stored((0, "AS"), (1, "KS"), (0, "2H"), (1, "9C"))) == \
        ZERO | {"twice": 1}  # a move nobody made
    doubled = [*PLAYED, click(ANN, 5, "2H")]  # the double click answered as played twice
    assert count(doubled, stored((0, "AS"), (1, "KS"), (0, "2H"))) == ZERO | {"twice": 1}


def test_a_move_applied_though_every_click_on_it_was_refused_is_counted() -> None:
    clicks = [*PLAYED[:2], click(ANN, 5, "2H", REFUSED)]
    assert count(clicks, stored((0, "AS"), (1, "KS"), (0, "2H"))) == \
        ZERO | {"refused_but_applied": 1}


def test_games_recorded_twice_or_missing_and_chips_that_do_not_add_up_are_counted() -> None:
    twice = stored((0, "AS"), (1, "KS"), (0, "2H"), games=2)
    assert count(PLAYED, twice) == ZERO | {"recorded_twice": 1}
    twin = stored((0, "AS"), (1, "KS"), (0, "2H"))  # a twin without a table, counted too
    twin.games.append(GameRow(9, None, CHANNEL, "jacko", True, False, {"deals": []},
                              (ANN, BEN), (0, 0)))
    twin.ratings = {key: 2 for key in twin.ratings}
    assert count(PLAYED, twin) == ZERO | {"recorded_twice": 1 + 4}
    missing = stored((0, "AS"), (1, "KS"), (0, "2H"), games=0)
    assert count(PLAYED, missing) == ZERO | {"games_missing": 1}
    chips = stored((0, "AS"), (1, "KS"), (0, "2H"))
    chips.games[0] = GameRow(1, TABLE, CHANNEL, "jacko", True, True, chips.games[0].record,
                             (ANN, BEN), (10, -10))
    chips.chips = {(GUILD, ANN): STARTING_CHIPS + 20, (GUILD, BEN): STARTING_CHIPS - 10}
    assert count(PLAYED, chips) == ZERO | {"chips_wrong": 1}


def test_a_table_its_players_could_not_go_on_with_or_still_open_has_stopped() -> None:
    done = stored((0, "AS"), (1, "KS"), (0, "2H"))
    assert count(PLAYED, done, stops=("nobody got a hand",)) == ZERO | {"stopped": 1}
    assert count(PLAYED, done, unshown=("its result never came",)) == \
        ZERO | {"results_never_shown": 1}
    table = SoakTable(CHANNEL, "general", "jacko")
    posted = judge(PLAYED, done, [table], GUILD, STARTING_CHIPS, {TABLE: 2})
    assert posted.results_posted_twice == 1


# ------------------------------------------------------------------ the soak itself


@pytest.fixture
def own_cluster() -> Iterator[PostgresCluster]:
    """A PostgreSQL cluster of this test alone: it is stopped and started under the bot."""
    cluster = PostgresCluster(crash_safe=True)
    try:
        cluster.start()
    except PostgresUnavailable as error:
        pytest.fail(f"A PostgreSQL server is needed for this test: {error}", pytrace=False)
    yield cluster
    cluster.stop()


@pytest.mark.slow
@pytest.mark.parametrize("backend", ["sqlite", "postgres"])
async def test_killed_three_times_no_move_is_lost_or_doubled_and_every_table_finishes(
        backend: str, tmp_path: Path, request: pytest.FixtureRequest) -> None:
    cluster = request.getfixturevalue("own_cluster") if backend == "postgres" else None
    plan = Plan(tables=4, kills=3, database_restarts=1, seed=26, options=SHORT, gap=(4, 20))
    report = await soak(plan, backend, tmp_path, cluster)
    counts = report.counts
    # Every count at 0: nothing lost, applied or recorded twice, no table stopped, every
    # result shown (once) even when the kill came between a table's end and its post.
    assert not counts.failed, (f"{counts.as_dict()}\n" + "\n".join(counts.why)
                               + f"\n(the bot's log: {report.log})")
    assert sum(report.kills.values()) == 3
    assert report.database_restarts == (1 if backend == "postgres" else 0)
    assert report.games >= 4 and report.moves > 0  # each table played a game to its end
