"""Seeding at a tournament's start: a rating counts only once earned (a rated game);
players without one are seeded after the rated, in sign-up order."""

from __future__ import annotations

from types import SimpleNamespace
from typing import Any

from bot.features.tournaments import Tournaments
from bot.storage import LeaderboardRow
from bot.table.tournament import Tournament
from testkit.clock import ManualClock


class Store:
    def __init__(self, rows: dict[int, LeaderboardRow]):
        self.rows = rows

    async def signups(self, tournament_id: str) -> list[tuple[int, str]]:
        return [(1, "never played"), (2, "only unrated"), (3, "rated")]

    async def rank_of(self, game: str, guild_id: int | None, user_id: int
                      ) -> LeaderboardRow | None:
        return self.rows.get(user_id)

    async def save_tournament(self, *args: Any) -> int:
        return 1


def row(user_id: int, ordinal: float, rated_games: int) -> LeaderboardRow:
    return LeaderboardRow(1, user_id, "x", 1, 0, 0.0, 0, 25.0, 8.0, ordinal, True,
                          rated_games)


async def test_a_starting_rating_does_not_seed_a_player() -> None:
    manager = SimpleNamespace(bus=SimpleNamespace(subscribe=lambda f: None))
    store = Store({2: row(2, -5.0, 0), 3: row(3, 3.0, 4)})
    service = Tournaments(manager, None, None, None, None, None, store,  # type: ignore[arg-type]
                          {}, None, None, ManualClock(), None)  # type: ignore[arg-type]
    t = Tournament("t", 1, 2, "jazz", 9, 0.0, seats=2, low=2, high=2)
    assert await service._begin(t)
    assert [(e.user_id, e.seed, e.rating) for e in t.entrants] == [
        (3, 1, 3.0), (1, 2, None), (2, 3, None)]
