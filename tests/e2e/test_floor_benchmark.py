"""The floor benchmark's machinery at a tiny size (``benchmarks.floor``): discord.py
alone as a bot process, every click answered, the CPU per move read from the process,
and exactly the API calls each variant makes per move. (It asserts no speed: speed is
the benchmark's to measure, never a test's.)"""

from __future__ import annotations

import math

import pytest

from benchmarks.floor import CALLS, FloorConfig, measure, render

ROUTES = {"full": {"POST /interactions/{interaction_id}/{token}/callback": 1.0,
                   "PATCH /channels/{channel_id}/messages/{message_id}": 2.0},
          "none": {"POST /interactions/{interaction_id}/{token}/callback": 1.0}}


@pytest.mark.slow
@pytest.mark.parametrize("work", ["full", "none"])
async def test_a_tiny_floor_run_answers_every_click_and_counts_its_calls(work: str):
    config = FloorConfig(rate=20.0, seconds=2.0, clients=6, work=work, warmup=0.5)
    result = await measure(config)

    answers = result["answers"]
    assert answers["clicks"] > 0 and answers["answered"] == answers["clicks"]
    assert answers["unanswered"] == 0 and answers["late"] == 0
    assert answers["p50_ms"] is not None
    assert result["moves"] > 0 and result["moves_per_s"] > 0
    assert result["tables"] == 2  # four players and two
    cpu = result["bot"]["cpu_ms_per_move"]
    assert 0 < cpu < math.inf
    api = result["api"]
    assert api["calls_per_move"] == CALLS[work]
    assert api["by_route_per_move"] == ROUTES[work]
    assert api["errors"] == 0
    # The click, and a MESSAGE_UPDATE for each of the bot's edits (Intents.default()).
    assert api["gateway_events_per_move"] == CALLS[work] + (1 if work == "full" else 0)
    assert "bot CPU / move" in render(result)
