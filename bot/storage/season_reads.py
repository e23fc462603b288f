"""Seasons, rolling windows and reward roles, written once for every backend.

As ``score_reads.py``: each backend keeps its queries in a module of functions with the
same names (``sqlite_seasons``, ``postgres_seasons``), each taking a connection first;
``SeasonReads`` checks the arguments and runs them through the backend's ``_read`` (one
read) or ``_write`` (one write transaction).
"""

from __future__ import annotations

from abc import abstractmethod
from collections.abc import Callable
from datetime import datetime
from types import ModuleType
from typing import Any

from bot.storage.interface import Store
from bot.storage.rows import LeaderboardRow, WindowRow
from bot.storage.values import check_page


def _check_season(season: int) -> None:
    if season < 1:
        raise ValueError("Seasons are numbered from 1.")


class SeasonReads(Store):
    _seasons: ModuleType  # the backend's query functions
    _clock: Callable[[], datetime]

    @abstractmethod
    async def _read(self, query: Any, *args: Any) -> Any:
        """``query(connection, *args)`` in one read of the backend."""

    @abstractmethod
    async def _write(self, query: Any, *args: Any) -> Any:
        """``query(connection, *args)`` in one write transaction of the backend."""

    async def window_board(self, game: str, guild_id: int, since: datetime, offset: int = 0,
                           limit: int = 10) -> list[WindowRow]:
        check_page(offset, limit)
        return await self._read(self._seasons.window_board, game, guild_id, since, offset,
                                limit)

    async def window_board_size(self, game: str, guild_id: int, since: datetime) -> int:
        return await self._read(self._seasons.window_board_size, game, guild_id, since)

    async def window_rank_of(self, game: str, guild_id: int, since: datetime,
                             user_id: int) -> WindowRow | None:
        return await self._read(self._seasons.window_rank_of, game, guild_id, since, user_id)

    async def season_board(self, game: str, guild_id: int, season: int, offset: int = 0,
                           limit: int = 10) -> list[LeaderboardRow]:
        check_page(offset, limit)
        _check_season(season)
        return await self._read(self._seasons.season_board, game, guild_id, season, offset,
                                limit)

    async def season_board_size(self, game: str, guild_id: int, season: int) -> int:
        return await self._read(self._seasons.season_board_size, game, guild_id, season)

    async def season_rank_of(self, game: str, guild_id: int, season: int,
                             user_id: int) -> LeaderboardRow | None:
        return await self._read(self._seasons.season_rank_of, game, guild_id, season,
                                user_id)

    async def season_games(self, guild_id: int, season: int) -> list[str]:
        return await self._read(self._seasons.season_games, guild_id, season)

    async def unposted_seasons(self, guild_id: int, before: int) -> list[int]:
        return await self._read(self._seasons.unposted_seasons, guild_id, before)

    async def last_season(self, guild_id: int) -> int | None:
        return await self._read(self._seasons.last_season, guild_id)

    async def mark_season_posted(self, guild_id: int, season: int) -> None:
        _check_season(season)
        await self._write(self._seasons.mark_season_posted, guild_id, season, self._clock())

    async def role_holders(self, guild_id: int, role_id: int) -> list[int]:
        return await self._read(self._seasons.role_holders, guild_id, role_id)

    async def hold_role(self, guild_id: int, role_id: int, user_id: int, held: bool) -> None:
        await self._write(self._seasons.hold_role, guild_id, role_id, user_id, held)
