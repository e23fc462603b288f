"""Finished games as storage keeps them (seeded straight through ``Store.record_game``),
and the pages and records that show them again."""

from __future__ import annotations

import asyncio
import json
import re
import sys
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

from bot.storage import FinishedGame, SeatResult
from engine.registry import game_ids, spec
from testkit.fakediscord import FakeMessage

ROOT = Path(__file__).resolve().parents[1]
T0 = datetime(2025, 3, 1, 12, 0, tzinfo=UTC)
Seat = tuple[int | None, str, int]  # user id (None: an AI seat), name, points
FIRST_GAME = game_ids()[0]  # the game of a seeded one unless told: the registry's first


# ------------------------------------------------------------------ seeding


def record_of(game: str, players: int) -> dict[str, Any]:
    return {"format": "cardtable-record/1", "game": game, "players": players, "options": {},
            "first_dealer": 0, "deals": []}


def finished(guild: int, channel: int, seats: list[Seat], *, game: str = FIRST_GAME,
             completed: bool = True, chips: list[int] | None = None, when: datetime = T0
             ) -> FinishedGame:
    totals = [points for _, _, points in seats]
    results = []
    for index, (user_id, name, points) in enumerate(seats):
        place = sum(1 for other in totals if other > points)  # as Game.ranking() gives
        results.append(SeatResult(index, user_id, name, points, place, place == 0,
                                  chips[index] if chips else 0))
    return FinishedGame(guild, channel, game, when - timedelta(minutes=30), when, completed,
                        record_of(game, len(seats)), results, stakes=spec(game).chips)


# ------------------------------------------------------------------ reading back


def lines(message: FakeMessage) -> list[str]:
    return (message.embeds[0].get("description") or "").splitlines()


def listed_ids(message: FakeMessage) -> list[int]:
    ids = []
    for line in lines(message):
        found = re.match(r"`#(\d+)`", line)
        assert found is not None, line
        ids.append(int(found[1]))
    return ids


def option_values(message: FakeMessage) -> list[int]:
    [select] = message.selects()
    return [int(o["value"]) for o in select["options"]]


async def replay_cli(path: Path) -> dict[str, Any]:
    proc = await asyncio.create_subprocess_exec(
        sys.executable, "-m", "engine", "replay", str(path), "--summary", cwd=ROOT,
        stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE)
    out, err = await proc.communicate()
    assert proc.returncode == 0, (out, err)
    return json.loads(out)
