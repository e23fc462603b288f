"""The reads of finished games, ratings and chips, written once for every backend.

Each backend keeps its SQL in a module of query functions (``sqlite_scores``,
``postgres_scores``) with the same names and arguments, each taking a connection
first; ``ScoreReads`` checks the arguments and runs the backend's function through
its ``_read`` (one read transaction). The checks therefore refuse the same inputs on
every backend.
"""

from __future__ import annotations

import json
from abc import abstractmethod
from collections.abc import Iterable
from types import ModuleType
from typing import Any

from bot.storage.interface import Store
from bot.storage.rivals import HISTORY_LIMIT, HeadToHead, RatingPoint, Streak
from bot.storage.rows import ChipBalance, ChipsRow, GameStats, GameSummary, LeaderboardRow
from bot.storage.values import check_page


class ScoreReads(Store):
    _scores: ModuleType  # the backend's query functions
    _rivals: ModuleType  # its head-to-head, streaks and rating history (rivals.py)

    @abstractmethod
    async def _read(self, query: Any, *args: Any) -> Any:
        """``query(connection, *args)`` in one read transaction of the backend."""

    async def game_record_json(self, game_id: int) -> str | None:
        return await self._read(self._scores.game_record_json, game_id)

    async def game_record(self, game_id: int) -> dict[str, Any] | None:
        text = await self.game_record_json(game_id)
        return None if text is None else json.loads(text)

    async def game_of_table(self, table_id: str) -> int | None:
        return await self._read(self._scores.game_of_table, table_id)

    async def leaderboard(self, game: str, guild_id: int | None, offset: int = 0,
                          limit: int = 10) -> list[LeaderboardRow]:
        check_page(offset, limit)
        return await self._read(self._scores.leaderboard, game, guild_id, offset, limit)

    async def leaderboard_size(self, game: str, guild_id: int | None) -> int:
        return await self._read(self._scores.leaderboard_size, game, guild_id)

    async def rank_of(self, game: str, guild_id: int | None,
                      user_id: int) -> LeaderboardRow | None:
        return await self._read(self._scores.rank_of, game, guild_id, user_id)

    async def stats(self, user_id: int, guild_id: int | None,
                    game: str | None = None) -> list[GameStats]:
        return await self._read(self._scores.stats, user_id, guild_id, game)

    async def head_to_head(self, user_id: int, other_id: int, guild_id: int | None,
                           game: str | None = None) -> list[HeadToHead]:
        return await self._read(self._rivals.head_to_head, user_id, other_id, guild_id, game)

    async def games_together(self, user_id: int, other_id: int, guild_id: int | None,
                             game: str | None = None, limit: int = 10,
                             before: int | None = None) -> list[GameSummary]:
        check_page(0, limit)
        return await self._read(self._rivals.games_together, user_id, other_id, guild_id,
                                game, limit, before)

    async def streaks(self, user_id: int, guild_id: int | None,
                      game: str | None = None) -> list[Streak]:
        return await self._read(self._rivals.streaks, user_id, guild_id, game)

    async def rating_history(self, user_id: int, game: str, guild_id: int | None,
                             limit: int = HISTORY_LIMIT) -> list[RatingPoint]:
        check_page(0, limit)
        return await self._read(self._rivals.rating_history, user_id, game, guild_id, limit)

    async def chips(self, guild_id: int, user_id: int) -> int:
        return await self._read(self._scores.chips, guild_id, user_id)

    async def check_stake(self, guild_id: int, user_ids: Iterable[int],
                          stake: int) -> list[ChipBalance]:
        if stake < 0:
            raise ValueError("A stake cannot be negative.")
        wanted = list(dict.fromkeys(user_ids))  # unique, in the order given
        if not wanted:
            return []
        return await self._read(self._scores.balances_below, guild_id, wanted, stake)

    async def chips_leaderboard(self, guild_id: int, offset: int = 0,
                                limit: int = 10) -> list[ChipsRow]:
        check_page(offset, limit)
        return await self._read(self._scores.chips_leaderboard, guild_id, offset, limit)

    async def chips_board_size(self, guild_id: int) -> int:
        return await self._read(self._scores.chips_board_size, guild_id)

    async def chips_rank_of(self, guild_id: int, user_id: int) -> ChipsRow | None:
        return await self._read(self._scores.chips_rank_of, guild_id, user_id)
