"""bot.storage: what a finished game changes, by the game's declaration, never its name."""

from __future__ import annotations

import pytest

from bot.storage import (
    STARTING_CHIPS,
    InvalidResult,
    Store,
    is_counted,
    is_rated,
    moves_chips,
)
from bot.storage.results import check_seats, scopes
from tests.bot.test_storage import GUILD, finished


@pytest.mark.parametrize(("points", "completed", "stakes", "expected"), [
    ([(7, 1), (8, 0)], True, True, (True, True, True)),
    ([(7, 1), (8, 0)], True, False, (True, True, False)),
    ([(7, 1), (8, 0)], False, True, (False, False, False)),  # stopped: counts for nothing
    ([(7, 1), (None, 0)], True, True, (True, False, False)),  # an AI seat holds no chips
    ([(7, 1)], True, True, (True, False, True)),  # alone: counted, not rated
    ([(None, 1), (None, 0)], True, True, (False, False, False)),
])
def test_counted_rated_and_chips_follow_the_seats_and_the_declaration(
        points: list[tuple[int | None, int]], completed: bool, stakes: bool,
        expected: tuple[bool, bool, bool]) -> None:
    game = finished(points, game="whatever", completed=completed, stakes=stakes)
    assert (is_counted(game), is_rated(game), moves_chips(game)) == expected


def test_the_name_of_a_game_decides_nothing() -> None:
    for name in ("attackjack", "jazz", "poker"):
        assert moves_chips(finished([(7, 1), (8, 0)], game=name, stakes=True))
        assert not moves_chips(finished([(7, 1), (8, 0)], game=name))
        with pytest.raises(InvalidResult, match="stakes"):
            check_seats(finished([(7, 1), (8, 0)], game=name, chips=[5, -5]))
        check_seats(finished([(7, 1), (8, 0)], game=name, chips=[5, -5], stakes=True))


def test_a_game_counts_in_its_server_then_globally_once() -> None:
    assert scopes(finished([(7, 1), (8, 0)], guild=GUILD)) == (GUILD, 0)
    assert scopes(finished([(7, 1), (8, 0)], guild=0)) == (0,)


async def test_any_game_with_stakes_moves_chips_and_attackjack_without_them_does_not(
        store: Store) -> None:
    await store.record_game(finished([(7, 3), (8, 1)], game="jazz", chips=[40, -40],
                                     stakes=True))
    assert (await store.chips(GUILD, 7), await store.chips(GUILD, 8)) == (1040, 960)
    with pytest.raises(InvalidResult):
        await store.record_game(finished([(7, 3), (8, 1)], game="attackjack", chips=[5, -5]))
    await store.record_game(finished([(7, 3), (8, 1)], game="attackjack"))  # no chips: fine
    assert await store.chips(GUILD, 7) == STARTING_CHIPS + 40
    assert len(await store.history(GUILD)) == 2
