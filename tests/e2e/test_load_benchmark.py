"""The load benchmark's machinery at a tiny size, so that it can never silently measure
nothing: moves made and answered, figures read from the bot process, and the moves it
counted equal to the moves the bot counted and stored.

(It asserts no speed: speed is the benchmark's to measure, never a test's.)
"""

from __future__ import annotations

import math

import pytest

from benchmarks.load import configs, marginal, render
from testkit import scrape
from testkit.load import GAMES, LoadConfig, measure, player_moves, shard_layout


@pytest.mark.slow
async def test_a_tiny_load_run_counts_real_moves_and_consistent_figures():
    # One table of each game, a move every second: a few dozen moves in 12 s.
    config = LoadConfig(tables=len(GAMES), every=1.0, burst=2, duration=12.0, warmup=2.0)
    result = await measure(config)

    assert result["moves"] > 0 and result["moves_per_s"] > 0
    answers = result["move_answers"]
    assert answers["clicks"] >= result["moves"] and answers["p50_ms"] is not None
    assert answers["failed"] == 0, "every click was answered within 3 s"
    starts = result["start_answers"]
    assert starts["clicks"] == len(GAMES) and starts["failed"] == 0
    assert [b["opened"] for b in starts["bursts"]] == [2, 2]

    same = result["consistency"]
    assert same["moves_counted"] > 0
    assert same["moves_counted"] == same["moves_bot_counted"] == same["moves_stored"], same
    assert same["bot_idle_at_end"]

    (process,) = result["bot"]["processes"]
    assert process["loop_lag"]["samples"] > 0, "the bot's loop lag was read from /metrics"
    # The same window, read from the bot: apart only by the clicks in flight at its two
    # edges (one a table at most at each).
    assert abs(process["moves"] - result["moves"]) <= 2 * len(GAMES)
    assert result["bot"]["cpu_s_per_move"] > 0
    assert result["bot"]["rss_end_mb"] > 0
    assert result["database"]["end_kb"] > result["database"]["start_kb"]
    assert result["api"]["calls_per_move"] > 1, "an answer and at least a next hand"
    assert result["api"]["upload_kb_per_move"] > 0, "pictures are on"
    assert result["harness"]["loop_lag"]["p50_ms"] is not None
    assert "moves/s" in render(result)


def test_stored_player_moves_leave_out_the_forced_passes():
    record = {"deals": [{"actions": [[0, "TH"], [1, "pass"], [2, "QS"]]},
                        {"actions": [[1, "take"], [0, "stand"]]}]}
    assert player_moves(record) == 4
    assert player_moves({"deals": []}) == 0


def test_shard_processes_share_the_shards_evenly_or_not_at_all():
    assert shard_layout(LoadConfig()) == [{}]
    two = shard_layout(LoadConfig(backend="postgres", shards=2, shard_count=4))
    assert [p["SHARD_IDS"] for p in two] == ["0,1", "2,3"]
    assert {p["SHARD_COUNT"] for p in two} == {"4"}
    with pytest.raises(ValueError, match="evenly"):
        shard_layout(LoadConfig(backend="postgres", shards=3, shard_count=4))
    with pytest.raises(ValueError, match="PostgreSQL"):
        shard_layout(LoadConfig(shards=2))


def test_histogram_quantiles_are_the_bucket_they_fall_in():
    before = {0.01: 10.0, 0.025: 10.0, 0.1: 10.0, math.inf: 10.0}
    after = {0.01: 108.0, 0.025: 109.0, 0.1: 110.0, math.inf: 110.0}
    window = scrape.between(before, after)  # 98 ≤ 10 ms, 1 ≤ 25 ms, 1 ≤ 100 ms
    assert window == {0.01: 98.0, 0.025: 99.0, 0.1: 100.0, math.inf: 100.0}
    assert scrape.quantile_bound(window, 0.5) == 0.01
    assert scrape.quantile_bound(window, 0.99) == 0.025
    assert scrape.quantile_bound(window, 1.0) == 0.1
    assert scrape.share_above(window, 0.025) == pytest.approx(0.01)
    assert scrape.quantile_bound({math.inf: 0.0}, 0.99) is None


def test_the_exposition_is_read_back():
    text = ("# TYPE cardtable_moves_total counter\ncardtable_moves_total 42\n"
            'cardtable_loop_lag_seconds_bucket{le="0.005"} 3\n'
            'cardtable_loop_lag_seconds_bucket{le="+Inf"} 4\n'
            'cardtable_live_tables{status="playing"} 7\n')
    read = scrape.parse(text)
    assert read.value("cardtable_moves_total") == 42
    assert read.histogram("cardtable_loop_lag_seconds") == {0.005: 3.0, math.inf: 4.0}
    assert "cardtable_live_tables" not in read.values  # other labels are not ours


def test_the_marginal_run_halves_the_tables_at_the_same_moves_per_second():
    import argparse

    from benchmarks.load import add_arguments

    parser = argparse.ArgumentParser()
    add_arguments(parser)
    half, whole = configs(parser.parse_args(["--tables", "1000", "--move-every", "4",
                                             "--marginal"]))
    assert (half.tables, whole.tables) == (500, 1000)
    assert half.tables / half.every == whole.tables / whole.every  # the same moves/s offered
    grown = marginal({"tables": 500, "bot": {"rss_end_mb": 177.0}},
                     {"tables": 1000, "bot": {"rss_end_mb": 189.0}})
    assert grown["rss_per_live_table_kb"] == round(12 * 1024 / 500, 1)
    assert grown["at_most_80kb"]
