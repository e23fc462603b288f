"""A thousand tables in one bot: what each costs, and whether the clicks stay fast.

``python -m benchmarks load --tables N [--games jazz,jacko,california_jack,attackjack]
[--move-every 4] [--burst 50] [--duration S] [--pictures on|off]
[--backend sqlite|postgres] [--shards K[,K...]] [--profile PATH] [--json PATH]
[--marginal]``

The bot runs as its own process (``python -m bot`` on the tests' fake Discord, the
product's timing but no request budget unless ``--rate``), the fake Discord and the
simulated players in this one (``testkit.load``). The tables (of the games in turn, each
game's default seats) are opened ``--burst`` at a time (``--burst-gap`` s apart)
while the ones opened before play on; then every table makes a move every
``--move-every`` s, its players clicking their DM hands. After ``--warmup`` s,
``--duration`` s are measured:

* moves/s (and the offered rate, tables / move-every);
* click answers, from the interaction sent to the bot's first response, p50 / p99 /
  max, and failed clicks (no response within 3 s); the ``/start`` answers of the bursts
  apart (and of the last burst, opened while all the others play);
* the bot's event-loop lag (its ``cardtable_loop_lag_seconds``: p50 and p99 as the
  histogram bucket they fall in, and the share over 25 ms);
* the bot's CPU seconds per move (utime + stime of the process and its children,
  from /proc), its RSS per live table ((RSS at N tables − RSS at start) / N), the
  database's growth per table (SQLite file and WAL, or ``pg_database_size``), and the
  API calls per move (the fake's log; ``budgeted``: those Discord's 50/s counts);
* this process's own CPU and loop lag: if it cannot keep up, the answers above are
  late because of it, not of the bot.

With ``--backend postgres --shards K`` the bot runs as K shard processes over one
throw-away PostgreSQL (``--shard-count`` shards, 4 by default, spread evenly; K may be a
list such as ``1,2,4``, one run each on a fresh database), and each process's CPU,
interactions (every DM click goes to shard 0's process, as on Discord) and loop lag are
shown with PostgreSQL's CPU. ``--profile PATH`` runs the (first) bot process under
cProfile during the measured window and prints the top of it (a profiled run is slower:
its figures are not the bot's). ``--marginal`` first runs half the tables offered the same
moves/s (a move every half as long), and shows the RSS one more live table costs: the
working set of the moves and the pictures' bounded caches, which the per-table figure
above shares out over the tables, are in both runs and cancel. The last line is the JSON
of every run (``--json PATH`` also writes it to a file).
"""

from __future__ import annotations

import argparse
import dataclasses
import io
import pstats
from collections import defaultdict
from pathlib import Path
from typing import TYPE_CHECKING, Any

from engine.registry import game_ids

if TYPE_CHECKING:
    from testkit.load import LoadConfig


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--tables", type=int, default=200)
    parser.add_argument("--games", default=",".join(game_ids()),
                        help="the games of the tables, in turn (comma-separated ids)")
    parser.add_argument("--move-every", type=float, default=4.0,
                        help="seconds between two moves of a table")
    parser.add_argument("--burst", type=int, default=50, help="tables opened at once")
    parser.add_argument("--burst-gap", type=float, default=5.0,
                        help="seconds from a burst's tables started to the next burst")
    parser.add_argument("--duration", type=float, default=60.0, help="seconds measured")
    parser.add_argument("--warmup", type=float, default=10.0,
                        help="seconds of play after the openings, not measured")
    parser.add_argument("--pictures", choices=("on", "off"), default="on")
    parser.add_argument("--backend", choices=("sqlite", "postgres"), default="sqlite")
    parser.add_argument("--shards", default=None,
                        help="shard processes on one PostgreSQL: K, or a list 1,2,4")
    parser.add_argument("--shard-count", type=int, default=4,
                        help="Discord shards the processes share")
    parser.add_argument("--tables-per-guild", type=int, default=25)
    parser.add_argument("--rate", type=float, default=None,
                        help="the bot's requests/s budget (default: none, to measure the "
                             "bot and not its pacer)")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--profile", type=Path, default=None,
                        help="profile the bot over the measured window, into this file")
    parser.add_argument("--profiler", choices=("cprofile", "sample", "memory"),
                        default="cprofile",
                        help="cProfile (every call, slow), the loop thread's stack "
                             "sampled every 5 ms of CPU (cheap), or memory: the bot's "
                             "objects by type and its picture caches at the window's "
                             "close")
    parser.add_argument("--timed", nargs="?", const="default", default=None,
                        help="time the calls of these methods in the bot (module:Class."
                             "method,...; without a list: the move's path, lock, save, "
                             "DM, edit and HTTP)")
    parser.add_argument("--json", type=Path, default=None, help="write the results here")
    parser.add_argument("--marginal", action="store_true",
                        help="also run half the tables at the same moves/s (a move every "
                             "half as long) first: the RSS one more live table costs, "
                             "without the working set and bounded caches both runs share")


def configs(args: argparse.Namespace) -> list[LoadConfig]:
    from testkit.load import TIMED, LoadConfig  # the bot, the fake Discord: only when run

    games = tuple(g.strip() for g in args.games.split(",") if g.strip())
    unknown = [g for g in games if g not in game_ids()]
    if unknown or not games:
        raise SystemExit(f"--games: unknown {', '.join(unknown) or 'nothing'}; "
                         f"choose among {', '.join(game_ids())}")
    base = LoadConfig(tables=args.tables, games=games, every=args.move_every,
                      burst=args.burst, burst_gap=args.burst_gap, duration=args.duration,
                      warmup=args.warmup,
                      pictures=args.pictures == "on", backend=args.backend,
                      shard_count=args.shard_count, tables_per_guild=args.tables_per_guild,
                      rate=args.rate, seed=args.seed, profile=args.profile,
                      profiler=args.profiler,
                      timed=(() if args.timed is None else TIMED if args.timed == "default"
                             else tuple(args.timed.split(","))))
    if args.shards is None:
        if args.marginal:  # half the tables first, at the same offered moves/s
            return [dataclasses.replace(base, tables=base.tables // 2, every=base.every / 2),
                    base]
        return [base]
    if args.marginal:
        raise SystemExit("--marginal is for one process (no --shards)")
    if args.backend != "postgres":
        raise SystemExit("--shards needs --backend postgres (the processes share it)")
    return [dataclasses.replace(base, shards=int(k)) for k in args.shards.split(",")]


def main(args: argparse.Namespace) -> int:
    from testkit.load import as_json, run
    from testkit.pgcluster import PostgresCluster

    runs = configs(args)
    results = []
    if args.marginal:
        results = [run(config) for config in runs]
        for result in results:
            print(render(result), flush=True)
        results[1]["marginal"] = marginal(results[0], results[1])
        print(render_marginal(results[1]["marginal"]))
    elif len(runs) > 1:  # one cluster, a fresh database for each run
        with PostgresCluster() as cluster:
            for config in runs:
                results.append(run(dataclasses.replace(
                    config, database_url=cluster.create_database())))
                print(render(results[-1]), flush=True)
    else:
        results.append(run(runs[0]))
        print(render(results[0]))
    if len(results) > 1 and not args.marginal:
        print(render_scaling(results))
    if args.profile is not None and args.profile.exists():
        shown = {"cprofile": profile_top, "sample": samples_top, "memory": memory_top}
        print(shown[args.profiler](args.profile))
    text = as_json(results[0] if len(results) == 1 else {"runs": results})
    if args.json is not None:
        args.json.write_text(text + "\n")
    print(text)
    return 0


def _n(value: Any) -> str:
    if value is None:
        return "-"
    if isinstance(value, float):
        return f"{value:,.1f}" if abs(value) < 100 else f"{value:,.0f}"
    return f"{value:,}" if isinstance(value, int) else str(value)


def _answers(figures: dict[str, Any]) -> str:
    return (f"p50 {_n(figures['p50_ms'])} ms, p99 {_n(figures['p99_ms'])} ms, max "
            f"{_n(figures['max_ms'])} ms ({_n(figures['clicks'])} clicks, "
            f"{_n(figures['failed'])} failed, {_n(figures['deferred'])} deferred)")


def render(r: dict[str, Any]) -> str:
    """The figures of one run, as a table for people."""
    bot, api, db = r["bot"], r["api"], r["database"]
    machine, harness, same = r["machine"], r["harness"], r["consistency"]
    shards = (f", {r['shard_processes']} shard processes of {r['shard_count']} shards"
              if r["shard_processes"] else "")
    lines = [
        f"load: {r['tables']} tables ({', '.join(r['games'])}), pictures "
        f"{'on' if r['pictures'] else 'off'}, {r['backend']}{shards}, a move every "
        f"{r['every_s']:g} s, {r['seconds']} s measured",
        ("machine", f"{machine['cores']} cores, load average "
                    f"{' / '.join(str(x[0]) for x in (machine['load_before'], machine['load_during'], machine['load_after']))}"  # noqa: E501
                    " (1 min: before / during / after)"),
        ("moves/s", f"{_n(r['moves_per_s'])} (offered {_n(r['offered_moves_per_s'])}; "
                    f"{_n(r['moves'])} moves)"),
        ("move answers", _answers(r["move_answers"])),
        *((f"  {game}", _answers(figures))
          for game, figures in r["move_answers_by_game"].items()),
        ("moves applied", f"p50 {_n(r['move_done']['p50_ms'])} ms, p99 "
                          f"{_n(r['move_done']['p99_ms'])} ms; {_n(r['refused_moves'])} "
                          "refused"),
        ("answers by 5 s", "  ".join(f"{_n(t['p50_ms'])}/{_n(t['max_ms'])}"
                                     for t in r["timeline"]) + " (p50/max ms)"),
        ("hand waited", f"p50 {_n(r['hand_wait']['p50_ms'])} ms, p99 "
                        f"{_n(r['hand_wait']['p99_ms'])} ms (a move due, its hand not "
                        "there yet)"),
        ("/start answers", _answers(r["start_answers"]) + f"; bursts of {r['burst']}"),
        ("last burst", _answers(r["start_answers"]["last_burst"])),
        ("other clicks", _answers(r["other_clicks"])),
    ]
    for p in bot["processes"]:
        lag = p["loop_lag"]
        name = f"bot {p['shards']}" if r["shard_processes"] else "bot"
        lines.append((f"{name} loop lag",
                      f"p50 ≤ {_n(lag['p50_ms_at_most'])} ms, p99 ≤ "
                      f"{_n(lag['p99_ms_at_most'])} ms ({_n(lag['over_25ms_percent'])} % "
                      f"of {_n(lag['samples'])} over 25 ms)"))
        for method, t in (p.get("timed") or {}).items():
            lines.append((f"  {method.rpartition(':')[2]}",
                          f"{_n(t['calls'])} calls, p50 {_n(t['p50_ms'])} ms, p99 "
                          f"{_n(t['p99_ms'])} ms, max {_n(t['max_ms'])} ms, "
                          f"{_n(t['total_s'])} s in all"))
        lines.append((f"{name} process", f"CPU {_n(p['cpu_percent'])} % (its threads waited "
                                         f"for a core {_n(p['waited_for_cpu_percent'])} %), RSS "
                                         f"{_n(p['rss_mb'])} MB (with children "
                                         f"{_n(p['tree_rss_mb'])}), {_n(p['interactions'])} "
                                         f"interactions, its answers p99 ≤ "
                                         f"{_n(p['bot_answer_p99_ms_at_most'])} ms"))
    lines += [
        ("bot CPU", f"{_n(bot['cpu_s_per_move'] * 1000)} ms a move "
                    f"({_n(bot['cpu_percent'])} % of a core)"),
        ("bot RSS", f"{_n(bot['rss_start_mb'])} MB at start, {_n(bot['rss_end_mb'])} MB "
                    f"at {r['tables']} tables: {_n(bot['rss_per_table_kb'])} KB a table "
                    f"({_n(bot['rss_per_table_opened_kb'])} KB once opened; with "
                    f"children {_n(bot['tree_rss_per_table_kb'])} KB)"),
        ("database", f"{_n(db['start_kb'])} KB → {_n(db['end_kb'])} KB: "
                     f"{_n(db['bytes_per_table'])} bytes a table"),
        ("API calls", f"{_n(api['calls_per_move'])} a move, {_n(api['budgeted_per_move'])} "
                      f"that count against the 50/s ({_n(api['budgeted_per_s'])}/s); "
                      f"{_n(api['upload_kb_per_move'])} KB of pictures a move; "
                      f"{_n(api['http_429'])} × 429"),
        ("harness", f"CPU {_n(harness['cpu_percent'])} % (waited for a core "
                    f"{_n(harness['waited_for_cpu_percent'])} %), loop lag p50 "
                    f"{_n(harness['loop_lag']['p50_ms'])} ms, p99 "
                    f"{_n(harness['loop_lag']['p99_ms'])} ms, max "
                    f"{_n(harness['loop_lag']['max_ms'])} ms; its garbage collections "
                    f"{_n(harness['gc']['seconds'])} s, the longest "
                    f"{_n(harness['gc']['max_ms'])} ms"),
        ("consistency", f"moves counted {_n(same['moves_counted'])}, by the bot "
                        f"{_n(same['moves_bot_counted'])}, stored "
                        f"{_n(same['moves_stored'])} (whole run)"),
    ]
    if "postgres" in r:
        lines.append(("postgresql", f"CPU {_n(r['postgres']['cpu_percent'])} % "
                                    f"({r['postgres']['processes']} processes)"))
    if "shard0_interaction_share" in r:
        lines.append(("shard 0's share", f"{_n(100 * r['shard0_interaction_share'])} % "
                                         "of the interactions (every DM click)"))
    lines.append(("targets", ", ".join(f"{name} {'yes' if met else 'no' if met is False else '-'}"
                                       for name, met in r["targets"].items())))
    return "\n".join(line if isinstance(line, str) else f"  {line[0]:<18} {line[1]}"
                     for line in lines)


def render_scaling(results: list[dict[str, Any]]) -> str:
    """One line per shard-process count."""
    out = ["scale-out (one PostgreSQL):",
           f"  {'processes':>9} {'moves/s':>8} {'p99 ms':>8} {'failed':>6} "
           f"{'CPU % each':>22} {'PG CPU %':>8} {'shard 0':>8} {'load':>5}"]
    for r in results:
        cpus = "/".join(_n(p["cpu_percent"]) for p in r["bot"]["processes"])
        out.append(f"  {r['shard_processes']:>9} {_n(r['moves_per_s']):>8} "
                   f"{_n(r['move_answers']['p99_ms']):>8} "
                   f"{_n(r['move_answers']['failed']):>6} {cpus:>22} "
                   f"{_n(r.get('postgres', {}).get('cpu_percent')):>8} "
                   f"{_n(100 * r.get('shard0_interaction_share', 1.0)):>7}% "
                   f"{r['machine']['load_during'][0]:>5}")
    return "\n".join(out)


def samples_top(path: Path, lines: int = 25) -> str:
    """The sampled stacks summed up, as shares of the event loop thread's CPU time: each
    function on its own (the innermost frame), and with what it called (anywhere in the
    stack; the loop's own frames, in every stack, left out)."""
    own: dict[str, float] = defaultdict(float)
    inclusive: dict[str, float] = defaultdict(float)
    total = 0.0
    collections: dict[str, float] = defaultdict(float)
    for line in path.read_text().splitlines():
        weight, _, stack = line.partition("\t")
        seconds, frames = float(weight), stack.split(";")
        if stack.startswith("gc:"):  # already inside the samples: told apart, not added
            collections[stack[3:]] += seconds
            continue
        total += seconds
        own[frames[-1]] += seconds
        for frame in set(frames):
            inclusive[frame] += seconds
    total = max(total, 1e-9)
    out = [f"the bot's event loop thread, {total:.1f} CPU seconds sampled; shares of them:",
           "  own time:"]
    out += [f"    {100 * n / total:5.1f} %  {name}" for name, n in _largest(own)[:lines]]
    out.append("  with what it calls:")
    calls = [(name, n) for name, n in _largest(inclusive) if n < 0.995 * total]
    out += [f"    {100 * n / total:5.1f} %  {name}" for name, n in calls[:lines]]
    if collections:
        out.append("  garbage collections (inside the frames above that allocated): " + ", ".join(
            f"{name} {100 * n / total:.1f} %" for name, n in sorted(collections.items())))
    return "\n".join(out)


def marginal(half: dict[str, Any], whole: dict[str, Any]) -> dict[str, Any]:
    """What one more live table costs: the RSS between half the tables and all of them,
    offered the same moves/s, so the working set of the moves and the pictures' bounded
    caches, which both runs hold, cancel out."""
    tables = whole["tables"] - half["tables"]
    grown = whole["bot"]["rss_end_mb"] - half["bot"]["rss_end_mb"]
    per_table = round(grown * 1024 / max(tables, 1), 1)
    return {"tables": [half["tables"], whole["tables"]],
            "rss_end_mb": [half["bot"]["rss_end_mb"], whole["bot"]["rss_end_mb"]],
            "rss_per_live_table_kb": per_table, "at_most_80kb": per_table <= 80}


def render_marginal(m: dict[str, Any]) -> str:
    (few, many), (small, large) = m["tables"], m["rss_end_mb"]
    return (f"RSS a live table, marginal: {small} MB at {few} tables, {large} MB at {many} "
            f"(the same moves/s): {m['rss_per_live_table_kb']} KB a table")


def memory_top(path: Path) -> str:
    """What the bot held at the window's close (testkit.loadbot.memory)."""
    out = []
    for line in path.read_text().splitlines():
        kind, *fields = line.split("\t")
        if kind == "rss":
            before, after, trimmed = (int(f) for f in fields)
            out.append(f"the bot's RSS at the window's close: {before / 2**20:.1f} MB; after a "
                       f"collection{' and malloc_trim' if trimmed else ''}: "
                       f"{after / 2**20:.1f} MB")
        elif kind == "map":
            out.append(f"  resident {int(fields[0]) / 2**20:7.1f} MB  {fields[1]}")
        elif kind == "objects":
            out.append(f"the bot's Python objects: {int(fields[0]):,}, "
                       f"{int(fields[1]) / 2**20:.1f} MB (their own sizes); by type:")
        elif kind == "cache":
            out.append(f"  a picture cache: {int(fields[0]):,} entries, "
                       f"{int(fields[1]) / 2**20:.1f} MB")
        else:
            count, size, name = fields
            out.append(f"  {int(size) / 1024:9,.0f} KB  {int(count):9,}  {name}")
    return "\n".join(out)


def _largest(seconds: dict[str, float]) -> list[tuple[str, float]]:
    return sorted(seconds.items(), key=lambda item: -item[1])


def profile_top(path: Path, lines: int = 30) -> str:
    out = io.StringIO()
    stats = pstats.Stats(str(path), stream=out)
    stats.strip_dirs().sort_stats("tottime").print_stats(lines)
    stats.sort_stats("cumulative").print_stats(lines)
    return out.getvalue()
