"""The web benchmark's figures (``python -m benchmarks web``, see benchmarks/web.py): the
run's marks, calls and pages made into its JSON result (``report``: latencies, frames,
the bot's CPU and RSS, Discord calls a DM move and a browser move, the targets) and that
result as text (``render``).
"""

from __future__ import annotations

import os
from collections import Counter
from typing import Any

from benchmarks.web_pages import SEATS, WebConfig, WebTable
from engine.registry import spec

EXEMPT = ("/interactions/", "/webhooks/")  # not counted by Discord's 50 requests/s
P99_TARGET_MS = 100.0


def _calls(calls: list[Any], moves: int, fake: Any) -> dict[str, Any]:
    budgeted = [c for c in calls if not any(part in c.route for part in EXEMPT)]
    routes: Counter[str] = Counter()
    for call in calls:
        channel = fake.world.channels.get(int(call.params.get("channel_id") or 0))
        routes[call.route + (" (DM)" if channel is not None and channel.is_dm else "")] += 1
    per = max(moves, 1)
    return {"moves": moves, "calls": len(calls), "per_move": round(len(calls) / per, 3),
            "budgeted_per_move": round(len(budgeted) / per, 3),
            "by_route_per_move": {r: round(n / per, 3) for r, n in routes.most_common()}}


def report(config: WebConfig, tables: list[WebTable], marks: dict[str, Any],
           calls: list[Any], lag: list[tuple[float, float]], frames_before: tuple[int, int],
           frames_after: tuple[int, int], links_s: float, connect_s: float, fake: Any
           ) -> dict[str, Any]:
    from testkit import scrape
    from testkit.figures import ms, quantiles

    viewers = sum(len(t.viewers) for t in tables)
    applied = [m for t in tables for m in t.moves if not m.refused and not m.unanswered]
    latencies = [s for m in applied for s in m.got.values()]
    missing = sum(len(t.viewers) - len(m.got) for t in tables for m in t.moves
                  if not m.refused and not m.unanswered)
    movers = [m.got[m.mover] for m in applied if m.mover in m.got]
    dm_moves = sum(t.players.moves for t in tables)
    dm_clicks = tables[0].players.clicks.within(marks["opened"]["at"], marks["dm_done"]["at"],
                                                "move")
    opened, dm_done = marks["opened"], marks["dm_done"]
    links_done, redeemed = marks["links_done"], marks["redeemed"]
    connected, web_done = marks["connected"], marks["web_done"]
    dm_calls = _calls(calls[opened["calls"]:dm_done["calls"]], dm_moves, fake)
    web_calls = _calls(calls[connected["calls"]:web_done["calls"]], len(applied), fake)
    dm_cpu = (dm_done["bot"].cpu - opened["bot"].cpu) / max(dm_moves, 1)
    web_cpu = (web_done["bot"].cpu - connected["bot"].cpu) / max(len(applied), 1)
    per_table = viewers / max(len(tables), 1)
    web_seconds = web_done["at"] - connected["at"]
    buckets = scrape.between(connected["metrics"].histogram("cardtable_loop_lag_seconds"),
                             web_done["metrics"].histogram("cardtable_loop_lag_seconds"))
    harness_lag = [s for at, s in lag if connected["at"] <= at < web_done["at"]]
    extra = round(web_calls["per_move"] - dm_calls["per_move"], 3)
    extra_budgeted = round(web_calls["budgeted_per_move"] - dm_calls["budgeted_per_move"], 3)
    figures = quantiles(latencies)
    frames = frames_after[0] - frames_before[0]
    result: dict[str, Any] = {
        "benchmark": "web", "game": config.game, "viewers": viewers, "tables": len(tables),
        "viewers_per_table": round(per_table, 2), "links": config.links,
        "pictures": config.pictures, "every_s": config.every,
        "offered_moves_per_s": round(len(tables) / config.every, 1),
        "web": {
            "moves": len(applied), "refused": sum(m.refused for t in tables for m in t.moves),
            "unanswered": sum(m.unanswered for t in tables for m in t.moves),
            "stuck": sum(t.stuck for t in tables), "seconds": round(web_seconds, 1),
            "moves_per_s": round(len(applied) / max(web_seconds, 1e-9), 1),
            "move_to_frame": {**figures, "samples": len(latencies), "missing": missing},
            "mover_to_frame": quantiles(movers),
            "frames": frames,
            "frames_per_move": round(frames / max(len(applied), 1), 2),
            "frame_kb": round((frames_after[1] - frames_before[1]) / 1024 / max(frames, 1), 2),
            "refusals_received": sum(v.refusals for t in tables for v in t.viewers),
        },
        "dm": {"moves": dm_moves, "refused": sum(t.players.refused for t in tables),
               "answers": quantiles([c.answer for c in dm_clicks if c.answer is not None]),
               "applied": quantiles([c.done for c in dm_clicks if c.done is not None])},
        "bot": {
            "cpu_ms_per_dm_move": ms(dm_cpu, 2), "cpu_ms_per_web_move": ms(web_cpu, 2),
            "web_cpu_ms_per_move": ms(web_cpu - dm_cpu, 2),
            "web_cpu_ms_per_move_per_viewer": ms((web_cpu - dm_cpu) / per_table, 3),
            "cpu_ms_per_web_move_per_viewer": ms(web_cpu / per_table, 3),
            "cpu_percent_web": round(100 * (web_done["bot"].cpu - connected["bot"].cpu)
                                     / max(web_seconds, 1e-9), 1),
            "rss_mb": {k: round(marks[k]["bot"].rss / 2**20, 1)
                       for k in ("opened", "dm_done", "links_done", "redeemed", "connected",
                                 "web_done")},
            "rss_kb_per_connection": round((connected["bot"].rss - redeemed["bot"].rss)
                                           / 1024 / max(viewers, 1), 1),
            "rss_kb_per_viewer_with_link": round((connected["bot"].rss - dm_done["bot"].rss)
                                                 / 1024 / max(viewers, 1), 1),
            "loop_lag": {"p50_ms_at_most": ms(scrape.quantile_bound(buckets, 0.5)),
                         "p99_ms_at_most": ms(scrape.quantile_bound(buckets, 0.99))},
        },
        "api": {"dm": dm_calls, "web": web_calls,
                "extra_per_browser_move": extra,
                "extra_budgeted_per_browser_move": extra_budgeted,
                "link_calls": links_done["calls"] - dm_done["calls"]},
        "setup": {"links_s": round(links_s, 1), "redeem_and_connect_s": round(connect_s, 1)},
        "harness": {"cpu_percent": round(100 * (web_done["harness"] - connected["harness"])
                                         / max(web_seconds, 1e-9), 1),
                    "loop_lag": quantiles(harness_lag)},
        "machine": {"cores": os.cpu_count(), "load": os.getloadavg()[0]},
    }
    p99 = figures["p99_ms"]
    result["targets"] = {
        "1000 viewers over 200 tables": viewers >= 1000 and len(tables) >= 200,
        "every page got every move": missing == 0 and bool(applied),
        "p99 < 100 ms": p99 is not None and p99 < P99_TARGET_MS,
        "0 extra Discord calls a browser move": extra <= 0 and extra_budgeted <= 0,
    }
    return result


def _n(value: Any) -> str:
    if value is None:
        return "-"
    if isinstance(value, float):
        return f"{value:,.2f}" if abs(value) < 10 else f"{value:,.1f}"
    return f"{value:,}" if isinstance(value, int) else str(value)


def _q(f: dict[str, Any]) -> str:
    return f"p50 {_n(f['p50_ms'])} ms, p99 {_n(f['p99_ms'])} ms, max {_n(f['max_ms'])} ms"


def render(r: dict[str, Any]) -> str:
    web, bot, api = r["web"], r["bot"], r["api"]
    latency = web["move_to_frame"]
    rss = bot["rss_mb"]
    lines: list[str | tuple[str, str]] = [
        f"web: {r['viewers']} pages over {r['tables']} tables of {SEATS}-player "
        f"{spec(r['game']).title} "
        f"({r['viewers_per_table']} a table), a move every {r['every_s']:g} s a table "
        f"(offered {_n(r['offered_moves_per_s'])} moves/s), links by "
        f"{'clicks on the fake Discord' if r['links'] == 'click' else 'signing here'}, "
        f"pictures {'on' if r['pictures'] else 'off'}",
        ("machine", f"{r['machine']['cores']} cores, load {r['machine']['load']:.1f}"),
        ("setup", f"links {_n(r['setup']['links_s'])} s, sessions and sockets "
                  f"{_n(r['setup']['redeem_and_connect_s'])} s"),
        ("browser moves", f"{_n(web['moves'])} in {_n(web['seconds'])} s "
                          f"({_n(web['moves_per_s'])}/s); {_n(web['refused'])} refused, "
                          f"{_n(web['unanswered'])} unanswered, {_n(web['stuck'])} turns "
                          "with no seat to act"),
        ("move → frame", f"{_q(latency)} ({_n(latency['samples'])} page×move, "
                         f"{_n(latency['missing'])} missing)"),
        ("  the mover's", _q(web["mover_to_frame"])),
        ("DM moves", f"{_n(r['dm']['moves'])}: answered {_q(r['dm']['answers'])}; "
                     f"applied {_q(r['dm']['applied'])} (no page open)"),
        ("frames", f"{_n(web['frames'])} ({_n(web['frames_per_move'])} a move, "
                   f"{_n(web['frame_kb'])} KB each)"),
        ("bot CPU", f"{_n(bot['cpu_ms_per_dm_move'])} ms a DM move (no page open), "
                    f"{_n(bot['cpu_ms_per_web_move'])} ms a browser move "
                    f"({_n(bot['cpu_ms_per_web_move_per_viewer'])} ms a page); the web's "
                    f"share {_n(bot['web_cpu_ms_per_move'])} ms a move, "
                    f"{_n(bot['web_cpu_ms_per_move_per_viewer'])} ms a move a page; "
                    f"{_n(bot['cpu_percent_web'])} % of a core"),
        ("bot RSS", f"{_n(rss['dm_done'])} MB before the links, {_n(rss['redeemed'])} MB "
                    f"with the sessions, {_n(rss['connected'])} MB with the pages open: "
                    f"{_n(bot['rss_kb_per_connection'])} KB a connection "
                    f"({_n(bot['rss_kb_per_viewer_with_link'])} KB with its link); "
                    f"{_n(rss['web_done'])} MB at the end"),
        *((f"  {method.rpartition(':')[2]}",
           f"{_n(t['calls'])} calls, p50 {_n(t['p50_ms'])} ms, p99 {_n(t['p99_ms'])} ms, "
           f"max {_n(t['max_ms'])} ms") for method, t in (bot.get("timed") or {}).items()),
        ("bot loop lag", f"p50 ≤ {_n(bot['loop_lag']['p50_ms_at_most'])} ms, p99 ≤ "
                         f"{_n(bot['loop_lag']['p99_ms_at_most'])} ms (browser moves)"),
        ("API calls", f"{_n(api['dm']['per_move'])} a DM move "
                      f"({_n(api['dm']['budgeted_per_move'])} budgeted), "
                      f"{_n(api['web']['per_move'])} a browser move "
                      f"({_n(api['web']['budgeted_per_move'])} budgeted): extra "
                      f"{_n(api['extra_per_browser_move'])} "
                      f"({_n(api['extra_budgeted_per_browser_move'])} budgeted)"),
    ]
    for name in ("dm", "web"):
        for route, n in api[name]["by_route_per_move"].items():
            lines.append((f"  {name}", f"{n:.3f}  {route}"))
    lines += [
        ("harness", f"CPU {_n(r['harness']['cpu_percent'])} %, loop lag "
                    f"{_q(r['harness']['loop_lag'])}"),
        ("targets", ", ".join(f"{name} {'yes' if met else 'no'}"
                              for name, met in r["targets"].items())),
    ]
    return "\n".join(line if isinstance(line, str) else f"  {line[0]:<14} {line[1]}"
                     for line in lines)

