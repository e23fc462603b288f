"""Who may run tournaments, the times typed at their creation, and a closed table's
result by position (the AI seats are the no-shows')."""

from __future__ import annotations

import random
from types import SimpleNamespace
from typing import Any

import discord
import pytest

from bot.config.server_settings import ServerSettings, SettingError
from bot.features.tournament_commands import _duration, may_organise
from bot.features.tournaments import result_of
from bot.table.seats import Seat
from bot.table.state import FINISHED, Table
from bot.table.tournament_seat import seat_by_position
from engine.jacko import Jacko


def asking(manage: bool = False, admin: bool = False, roles: tuple[int, ...] = (),
           guild: int | None = 1) -> Any:
    return SimpleNamespace(
        guild_id=guild,
        permissions=discord.Permissions(manage_guild=manage, administrator=admin),
        user=SimpleNamespace(roles=[SimpleNamespace(id=r) for r in roles]))


def test_who_may_run_tournaments():
    plain = ServerSettings()
    role = ServerSettings(tournament_role=77)
    assert may_organise(asking(manage=True), plain)
    assert may_organise(asking(admin=True), plain)
    assert not may_organise(asking(roles=(77,)), plain)
    assert may_organise(asking(roles=(5, 77)), role)
    assert not may_organise(asking(roles=(5,)), role)
    assert not may_organise(asking(manage=True, guild=None), plain)  # (no server)


def test_times_typed_at_creation():
    assert _duration(None, 600, 60, allow_off=False) == 600
    assert _duration("90m", 0, 60, allow_off=True) == 5400
    assert _duration("off", 7, 60, allow_off=True) == 0
    for wrong, off in (("off", False), ("soon", True), ("30s", True)):
        with pytest.raises(SettingError):
            _duration(wrong, 600, 60, allow_off=off)


def test_a_closed_tables_result_by_position():
    table = Table(table_id="abcdef12", game_id="jacko", engine=Jacko, guild_id=1,
                  channel_id=2, host_id=0, created_at=0.0, options=Jacko.OPTIONS(),
                  rng=random.Random(3), tournament_id="t", tournament_order=[10, 20])
    void = result_of(table)  # closed in its lobby: no game
    assert not void.played and void.absent == [0, 1]
    table.seats = [Seat(20, "b")]  # 10 did not come
    seat_by_position(table)
    table.start_and_deal(0, 1.0)
    table.status = FINISHED
    result = result_of(table)
    assert result.absent == [0] and result.played and result.completed
    assert result.points == table.game.totals and result.places == table.game.ranking()


def test_a_tournament_lobby_stays_when_its_only_player_leaves():
    table = Table(table_id="abcdef12", game_id="jacko", engine=Jacko, guild_id=1,
                  channel_id=2, host_id=0, created_at=0.0, options=Jacko.OPTIONS(),
                  tournament_id="t", tournament_order=[10, 20], reserved=[10, 20],
                  invite_only=True)
    table.join(10, "a", 1.0)
    assert table.leave(10, 2.0) == "left"  # (an ordinary lobby would close: "empty")
    table.join(10, "a", 3.0)
    table.join(20, "b", 4.0)
    assert [s.user_id for s in table.seats] == [10, 20]
