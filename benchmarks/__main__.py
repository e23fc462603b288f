"""``python -m benchmarks engine GAME [--seconds S] [--players N]``
``python -m benchmarks ai-speed GAME [--level L] [--positions N] [--players N]``
``python -m benchmarks ai-strength GAME --a LEVEL --b LEVEL [--games N] [--players N]``
``python -m benchmarks step GAME [--moves N] [--backend sqlite|postgres] [--database-url URL]``
``python -m benchmarks storage [--backend sqlite|postgres|both] [--seconds S] [--database-url URL]``
``python -m benchmarks answers [GAME] [--moves N] [--hold S] [--every S] [--pictures K]``
``python -m benchmarks ai-pool [--tables N] [--workers N] [--level L] [--seconds S]``
``python -m benchmarks images [--states N] [--format png|webp] [--encoders]``
``python -m benchmarks budget [--tables N] [--seconds S] [--every S] [--rate R]``
``python -m benchmarks shards [--tables N] [--seconds S]``
``python -m benchmarks load [--tables N] [--pictures on|off] [--backend B] [--shards K]``
``python -m benchmarks floor [--moves-per-second R] [--seconds S] [--clients N] [--work W]``
``python -m benchmarks web [--viewers N] [--tables M] [--moves K] [--every S] [--links click|mint]``
``python -m benchmarks soak [--tables N] [--kills N] [--pg-restarts N] [--backend B] [--seed N]``"""

from __future__ import annotations

import argparse
import json
import sys

from benchmarks import engine as engine_bench
from engine.registry import game_ids

AI_LEVELS = ("random", "easy", "normal", "hard")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m benchmarks", description=__doc__)
    commands = parser.add_subparsers(dest="command", required=True)
    eng = commands.add_parser("engine", help="random playouts of one game's engine")
    eng.add_argument("game", choices=game_ids())
    eng.add_argument("--seconds", type=float, default=3.0, help="time per measurement")
    eng.add_argument("--players", type=int, default=None)
    spd = commands.add_parser("ai-speed", help="AI decision time per level")
    spd.add_argument("game", choices=game_ids())
    spd.add_argument("--level", choices=AI_LEVELS, default="normal")
    spd.add_argument("--positions", type=int, default=100)
    spd.add_argument("--players", type=int, default=None)
    stg = commands.add_parser("ai-strength", help="a tournament between two AI levels")
    stg.add_argument("game", choices=game_ids())
    stg.add_argument("--a", choices=AI_LEVELS, required=True)
    stg.add_argument("--b", choices=AI_LEVELS, required=True)
    stg.add_argument("--games", type=int, default=100)
    stg.add_argument("--players", type=int, default=None)
    stg.add_argument("--jobs", type=int, default=1, help="games played in parallel processes")
    stg.add_argument("--seed", type=int, default=1)
    stp = commands.add_parser("step", help="the move step (check, apply, save)")
    stp.add_argument("game", choices=game_ids())
    stp.add_argument("--moves", type=int, default=3000)
    stp.add_argument("--backend", choices=("sqlite", "postgres"), default="sqlite")
    stp.add_argument("--database-url", default=None,
                     help="a PostgreSQL database to use (else a throw-away cluster)")
    sto = commands.add_parser("storage", help="storage operations per second, SQLite "
                                               "and PostgreSQL")
    sto.add_argument("--backend", choices=("sqlite", "postgres", "both"), default="both")
    sto.add_argument("--seconds", type=float, default=3.0, help="time per measurement")
    sto.add_argument("--database-url", default=None,
                     help="a PostgreSQL database to use (else a throw-away cluster)")
    ans = commands.add_parser("answers", help="click answer latency while the database "
                                                "is slow (the bot on the fake Discord)")
    ans.add_argument("game", choices=game_ids(), nargs="?", default=game_ids()[0])
    ans.add_argument("--moves", type=int, default=600)
    ans.add_argument("--hold", type=float, default=3.5, help="seconds the lock is held")
    ans.add_argument("--every", type=float, default=5.0,
                     help="seconds from one hold to the next")
    ans.add_argument("--pictures", choices=("thread", "process"), default=None,
                     help="where the pictures are drawn (default: the bot's)")
    ans.add_argument("--picture-workers", type=int, default=None,
                     help="workers drawing them (default: the bot's)")
    img = commands.add_parser("images", help="table and hand pictures: render time and size")
    img.add_argument("--states", type=int, default=200, help="states drawn per game (at least)")
    img.add_argument("--format", choices=("png", "webp"), default="png")
    img.add_argument("--encoders", action="store_true",
                     help="compare the PNG's zlib settings (time against bytes) instead")
    bud = commands.add_parser("budget", help="API calls per move against Discord's global "
                                              "budget (many tables on the fake Discord)")
    bud.add_argument("--tables", type=int, default=200)
    bud.add_argument("--seconds", type=float, default=60.0, help="time of play measured")
    bud.add_argument("--every", type=float, default=4.0, help="seconds between a table's moves")
    bud.add_argument("--rate", type=float, default=None, help="the bot's requests/s budget")
    bud.add_argument("--watch-factor", type=float, default=None,
                     help="a running table's edits merge over edit_interval × this")
    aip = commands.add_parser("ai-pool", help="click answers while many tables' AI seats "
                                              "think (the bot on the fake Discord)")
    aip.add_argument("--tables", type=int, default=8)
    aip.add_argument("--workers", type=int, default=None,
                     help="AI processes (besides 1); default: the cores less one")
    aip.add_argument("--level", choices=("easy", "normal", "hard"), default="normal")
    aip.add_argument("--seconds", type=float, default=60.0, help="time measured per run")
    aip.add_argument("--pause", type=float, default=1.5, help="the bot's pause before a move")
    shd = commands.add_parser("shards", help="moves/s as one process and as two shard "
                                             "processes on one PostgreSQL (fake Discord)")
    shd.add_argument("--tables", type=int, default=8)
    shd.add_argument("--seconds", type=float, default=30.0, help="time of play measured")
    from benchmarks import load as load_bench  # (its arguments; it runs only when asked)

    load_bench.add_arguments(commands.add_parser(
        "load", help="many tables of every game: moves/s, click answers, loop lag, CPU, "
                     "memory and database per table (the bot as a process)"))
    from benchmarks import floor as floor_bench  # (its arguments; it runs only when asked)

    floor_bench.add_arguments(commands.add_parser(
        "floor", help="the least bot CPU a move can cost: discord.py alone, no cardtable "
                      "code (a bot process on the fake Discord)"))
    from benchmarks import web as web_bench  # (its arguments; it runs only when asked)

    web_bench.add_arguments(commands.add_parser(
        "web", help="the web table: N pages over M tables, moves from the browser: "
                    "move-to-frame latency of every page, the bot's CPU and RSS, and "
                    "Discord calls a browser move against a DM move"))
    sok = commands.add_parser("soak", help="the bot process killed at random moments "
                                           "while people play (and PostgreSQL restarted)")
    sok.add_argument("--tables", type=int, default=20)
    sok.add_argument("--kills", type=int, default=100)
    sok.add_argument("--pg-restarts", type=int, default=5)
    sok.add_argument("--backend", choices=("sqlite", "postgres", "both"), default="both")
    sok.add_argument("--seed", type=int, default=1)
    sok.add_argument("--sabotage", choices=("lose", "twice", "record", "stop"), default=None,
                     help="a bot broken on purpose: its count must come out above 0")
    args = parser.parse_args(argv)
    if args.command == "load":
        return load_bench.main(args)
    if args.command == "floor":
        return floor_bench.main(args)
    if args.command == "web":
        return web_bench.main(args)
    if args.command == "soak":
        from benchmarks import soak as soak_bench  # the bot as a process, a cluster

        soaked = soak_bench.run(args.tables, args.kills, args.pg_restarts, args.backend,
                                args.seed, args.sabotage)
        print(json.dumps(soaked))
        return 1 if soaked["failed"] else 0  # a count above 0
    if args.command == "shards":
        from benchmarks import shards as shards_bench  # two bot processes and a cluster

        result = shards_bench.run(args.tables, args.seconds)
    elif args.command == "budget":
        from benchmarks import budget as budget_bench  # the bot and the fake Discord

        result = budget_bench.run(args.tables, args.seconds, args.every, args.rate,
                                  args.watch_factor)
    elif args.command == "images":
        from benchmarks import images as images_bench  # Pillow and the cogs load for this one

        result = (images_bench.encoders() if args.encoders
                  else images_bench.run(args.states, args.format))
    elif args.command == "ai-pool":
        from benchmarks import ai_pool as pool_bench  # the bot, the fake Discord, the AI

        result = pool_bench.run(args.tables, args.workers, args.level, args.seconds,
                                args.pause)
    elif args.command == "answers":
        from benchmarks import answers as answers_bench  # the bot and the fake Discord

        result = answers_bench.run(args.game, args.moves, args.hold, args.every,
                                   args.pictures, args.picture_workers)
    elif args.command == "step":
        from benchmarks import step as step_bench  # the bot only loads for this one

        result = step_bench.run(args.game, args.moves, args.backend, args.database_url)
    elif args.command == "storage":
        from benchmarks import storage as storage_bench  # the backends and a cluster

        result = storage_bench.run(args.backend, args.seconds, args.database_url)
    elif args.command == "engine":
        result = engine_bench.run(args.game, args.seconds, args.players)
    elif args.command == "ai-speed":
        from benchmarks import ai as ai_bench  # the AI only loads for the AI commands

        result = ai_bench.speed(args.game, args.level, args.positions, args.players)
    else:
        from benchmarks import ai as ai_bench

        result = ai_bench.strength(args.game, args.a, args.b, args.games, args.players,
                                   args.jobs, args.seed)
    for key, value in result.items():
        print(f"{key:>18}: {value}")
    print(json.dumps(result))
    return 0


if __name__ == "__main__":
    sys.exit(main())
