"""``python -m benchmarks web`` at a tiny size, so that it can never silently measure
nothing: every page got every browser move, the figures are read from the bot process,
and the Discord calls of a browser move are compared with a DM move's.

(It asserts no speed: speed is the benchmark's to measure, never a test's.)
"""

from __future__ import annotations

from typing import Any

import pytest

from benchmarks.web import WebConfig, render, run

VIEWERS, TABLES, MOVES = 7, 2, 3


@pytest.fixture(scope="module")
def result() -> dict[str, Any]:
    # 2 tables of 3 seats and one spectator: 7 pages; 3 moves a table from DMs, then 3
    # from the pages, the links from the fake Discord's Open table and Watch buttons.
    return run(WebConfig(viewers=VIEWERS, tables=TABLES, moves=MOVES, every=0.3,
                         pictures=False))


@pytest.mark.slow
def test_every_page_gets_every_browser_move_and_the_figures_are_read(
        result: dict[str, Any]) -> None:
    assert (result["viewers"], result["tables"]) == (VIEWERS, TABLES)
    web = result["web"]
    assert web["moves"] == TABLES * MOVES and web["refused"] == web["unanswered"] == 0
    latency = web["move_to_frame"]
    assert latency["missing"] == 0, "every page got a snapshot of every move's version"
    assert latency["samples"] == web["moves"] * (VIEWERS // TABLES) + MOVES  # 4 + 3 pages
    assert latency["p50_ms"] is not None and latency["max_ms"] >= latency["p50_ms"] > 0
    assert web["frames"] >= latency["samples"]
    assert result["dm"]["moves"] == TABLES * MOVES
    bot = result["bot"]
    assert bot["cpu_ms_per_web_move"] > 0 and bot["cpu_ms_per_dm_move"] > 0
    assert bot["rss_mb"]["connected"] > 0
    api = result["api"]
    assert api["link_calls"] >= VIEWERS, "each link came from a click on the fake Discord"
    assert api["dm"]["by_route_per_move"], "the DM moves' calls were counted"
    assert not any("/interactions/" in route for route in api["web"]["by_route_per_move"]), \
        "no click was answered for a browser move"
    assert "move → frame" in render(result)


@pytest.mark.slow
def test_a_browser_move_makes_no_more_discord_calls_than_a_dm_move(
        result: dict[str, Any]) -> None:
    api = result["api"]
    assert api["extra_per_browser_move"] <= 0, api
    assert api["extra_budgeted_per_browser_move"] <= 0, api
    assert result["targets"]["0 extra Discord calls a browser move"]
