"""The load run's report: its readings (``Moment``s, the clicks timed, the fake's call
log) turned into one dict of figures (answers' quantiles, CPU, memory, loop lag, API
calls, database size, consistency) and the issue's targets met or not; as JSON."""

from __future__ import annotations

import json
import math
import os
import statistics
from collections import Counter
from dataclasses import asdict
from typing import Any

from testkit import scrape
from testkit.figures import ms, quantiles
from testkit.load_config import LoadConfig, Moment, World
from testkit.loadtables import Click
from testkit.processes import BotProcess

EXEMPT = ("/interactions/", "/webhooks/")  # not counted by Discord's 50 requests/s
LAG_TARGET = 0.025  # seconds: the loop-lag p99 target is under this bucket


def _clicks(clicks: list[Click]) -> dict[str, Any]:
    return {"clicks": len(clicks), **quantiles([c.answer for c in clicks if c.answer is not None]),
            "failed": sum(c.failed for c in clicks), "deferred": sum(c.deferred for c in clicks)}


def _lag(before: scrape.Scrape, after: scrape.Scrape) -> dict[str, Any]:
    buckets = scrape.between(before.histogram("cardtable_loop_lag_seconds"),
                             after.histogram("cardtable_loop_lag_seconds"))
    p50, p99 = scrape.quantile_bound(buckets, 0.5), scrape.quantile_bound(buckets, 0.99)
    over = scrape.share_above(buckets, LAG_TARGET)
    return {"samples": int(buckets.get(math.inf, 0)), "p50_ms_at_most": ms(p50),
            "p99_ms_at_most": ms(p99),
            "over_25ms_percent": None if over is None else round(over * 100, 2)}


def timeline(moves: list[Click], start: float, end: float, step: float = 5.0
             ) -> list[dict[str, Any]]:
    """The window in slices of ``step`` s: moves sent and their answers' p50 / max, to
    tell a steady slowness from stalls that come now and then (a checkpoint, a burst)."""
    out = []
    at = start
    while at < end:
        answers = sorted(c.answer for c in moves
                         if at <= c.sent < at + step and c.answer is not None)
        out.append({"at_s": round(at - start), "moves": len(answers),
                    "p50_ms": ms(statistics.median(answers)) if answers else None,
                    "max_ms": ms(answers[-1]) if answers else None})
        at += step
    return out


def _route(call: Any) -> str:
    return str(call.route)


def report(config: LoadConfig, world: World, bots: list[BotProcess],
           layout: list[dict[str, str]], bursts: list[dict[str, Any]],
           lag: list[tuple[float, float]], moments: tuple[Moment, ...], stored: int
           ) -> dict[str, Any]:
    start, opened, first, last, ended = moments
    took = last.at - first.at
    window = world.clicks.within(first.at, last.at)
    moves = [c for c in window if c.kind == "move"]
    applied = sum(c.applied for c in moves)
    calls = [c for c in world.fake.calls[first.calls:last.calls]]
    budgeted = [c for c in calls if not any(part in c.route for part in EXEMPT)]
    routes = Counter(_route(c) for c in calls)
    uploads = sum(f["size"] for c in calls for f in c.files)
    starts = [c for c in world.clicks.all if c.kind == "start"]
    harness_lag = sorted(s for at, s in lag if first.at <= at < last.at)
    bot_cpu = sum(b.cpu for b in last.bots) - sum(b.cpu for b in first.bots)
    rss_start = sum(b.rss for b in start.bots)
    per_table = config.tables or 1
    processes: list[dict[str, Any]] = []
    for k, shards in enumerate(layout):
        processes.append({
            "shards": shards.get("SHARD_IDS", "all"),
            "cpu_percent": round(100 * (last.bots[k].cpu - first.bots[k].cpu) / took, 1),
            # Ready to run but waiting for a core: the machine's other work held it back.
            "waited_for_cpu_percent": round(
                100 * (last.bots[k].waited - first.bots[k].waited) / took, 1),
            "rss_mb": round(last.bots[k].rss / 2**20, 1),
            "tree_rss_mb": round(last.bots[k].tree_rss / 2**20, 1),
            "interactions": int(last.metrics[k].value("cardtable_interactions_total")
                                - first.metrics[k].value("cardtable_interactions_total")),
            "moves": int(last.metrics[k].value("cardtable_moves_total")
                         - first.metrics[k].value("cardtable_moves_total")),
            "loop_lag": _lag(first.metrics[k], last.metrics[k]),
            "bot_answer_p99_ms_at_most": ms(scrape.quantile_bound(scrape.between(
                first.metrics[k].histogram("cardtable_interaction_answer_seconds"),
                last.metrics[k].histogram("cardtable_interaction_answer_seconds")), 0.99)),
        })
    counted = sum(t.moves for t in world.tables)
    bot_counted = int(sum(m.value("cardtable_moves_total") for m in ended.metrics)
                      - sum(m.value("cardtable_moves_total") for m in start.metrics))
    result: dict[str, Any] = {
        "benchmark": "load", "tables": config.tables, "games": list(config.games),
        "pictures": config.pictures, "backend": config.backend,
        "shard_processes": config.shards,
        "shard_count": config.shard_count if config.shards is not None else None,
        "every_s": config.every, "burst": config.burst, "seconds": round(took, 1),
        "request_rate": config.rate,
        "machine": {"cores": os.cpu_count(), "load_before": _load(start.load),
                    "load_during": _load(last.load), "load_after": _load(ended.load)},
        "moves": applied, "moves_per_s": round(applied / took, 1),
        "offered_moves_per_s": round(config.tables / config.every, 1),
        "move_answers": _clicks(moves),
        "move_answers_by_game": {game: _clicks([c for c in moves if c.game == game])
                                 for game in config.games},
        "move_done": quantiles([c.done for c in moves if c.done is not None]),
        "refused_moves": sum(1 for c in moves if c.answer is not None and not c.applied),
        "timeline": timeline(moves, first.at, last.at),
        "hand_wait": quantiles([s for at, s in world.clicks.hand_waits
                                 if first.at <= at < last.at]),
        "start_answers": {**_clicks(starts), "bursts": bursts,
                          "last_burst": _clicks([c for c in starts
                                                 if c.burst == len(bursts) - 1])},
        "other_clicks": _clicks([c for c in window if c.kind not in ("move", "start")]),
        "bot": {
            "cpu_s_per_move": round(bot_cpu / max(applied, 1), 4),
            "cpu_percent": round(100 * bot_cpu / took, 1),
            "rss_start_mb": round(rss_start / 2**20, 1),
            "rss_opened_mb": round(sum(b.rss for b in opened.bots) / 2**20, 1),
            "rss_end_mb": round(sum(b.rss for b in last.bots) / 2**20, 1),
            "rss_per_table_kb": round((sum(b.rss for b in last.bots) - rss_start)
                                      / per_table / 1024, 1),
            "rss_per_table_opened_kb": round((sum(b.rss for b in opened.bots) - rss_start)
                                             / per_table / 1024, 1),
            "tree_rss_per_table_kb": round((sum(b.tree_rss for b in last.bots)
                                            - sum(b.tree_rss for b in start.bots))
                                           / per_table / 1024, 1),
            "processes": processes,
        },
        "database": {"start_kb": round(start.database_bytes / 1024),
                     "end_kb": round(ended.database_bytes / 1024),
                     "bytes_per_table": round((ended.database_bytes - start.database_bytes)
                                              / per_table)},
        "api": {"calls_per_move": round(len(calls) / max(applied, 1), 3),
                "budgeted_per_move": round(len(budgeted) / max(applied, 1), 3),
                "budgeted_per_s": round(len(budgeted) / took, 1),
                "upload_kb_per_move": round(uploads / max(applied, 1) / 1024, 1),
                "http_429": sum(1 for c in calls if c.status == 429),
                "by_route_per_move": {r: round(n / max(applied, 1), 3)
                                      for r, n in routes.most_common(8)}},
        "harness": {"cpu_percent": round(100 * (last.harness_cpu - first.harness_cpu) / took, 1),
                    "waited_for_cpu_percent": round(
                        100 * (last.harness_waited - first.harness_waited) / took, 1),
                    "loop_lag": quantiles(harness_lag)},
        "players": {"asked_my_hand": sum(t.asked_my_hand for t in world.tables),
                    "reopened": sum(t.reopened for t in world.tables),
                    "lobbies_filled": sum(t.lobbies_filled for t in world.tables),
                    "rematches": sum(t.rematches for t in world.tables)},
        "consistency": {"moves_counted": counted, "moves_bot_counted": bot_counted,
                        "moves_stored": stored},
    }
    if last.postgres is not None and first.postgres is not None:
        result["postgres"] = {
            "cpu_percent": round(100 * (last.postgres.cpu - first.postgres.cpu) / took, 1),
            "waited_for_cpu_percent": round(
                100 * (last.postgres.waited - first.postgres.waited) / took, 1),
            "processes": last.postgres.processes}
    if config.shards is not None:
        dm = [p["interactions"] for p in processes]
        result["shard0_interaction_share"] = round(dm[0] / max(sum(dm), 1), 3)
    result["targets"] = targets(result)
    return result


def _load(load: tuple[float, float, float]) -> list[float]:
    return [round(x, 2) for x in load]


def targets(result: dict[str, Any]) -> dict[str, bool | None]:
    """The issue's targets, met or not (None: not measured in this run)."""
    answers = result["move_answers"]
    lags = [p["loop_lag"]["over_25ms_percent"] for p in result["bot"]["processes"]]
    last_burst = result["start_answers"]["last_burst"]
    return {
        "no_failed_clicks": answers["failed"] == 0 and result["start_answers"]["failed"] == 0,
        "answer_p99_under_100ms": (answers["p99_ms"] is not None
                                   and answers["p99_ms"] < 100),
        "loop_lag_p99_under_25ms": (None if any(x is None for x in lags)
                                    else all(x < 1.0 for x in lags)),
        "burst_of_200_p99_under_500ms": (
            None if result["burst"] < 200 or last_burst["p99_ms"] is None
            else last_burst["p99_ms"] < 500),
        "rss_per_table_at_most_80kb": result["bot"]["rss_per_table_kb"] <= 80,
    }


def as_json(result: dict[str, Any]) -> str:
    return json.dumps(result, default=lambda o: asdict(o) if hasattr(o, "__dataclass_fields__")
                      else str(o))
