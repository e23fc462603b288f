"""``python -m benchmarks engine GAME [--seconds S] [--players N]``
``python -m benchmarks ai-speed GAME [--level L] [--positions N] [--players N]``
``python -m benchmarks ai-strength GAME --a LEVEL --b LEVEL [--games N] [--players N]``
``python -m benchmarks step GAME [--moves N]``
``python -m benchmarks answers [GAME] [--moves N] [--hold S] [--every S]``
``python -m benchmarks images [--states N] [--format png|webp]``"""

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
    stp = commands.add_parser("step", help="the move step (check, apply, save) on SQLite")
    stp.add_argument("game", choices=game_ids())
    stp.add_argument("--moves", type=int, default=3000)
    ans = commands.add_parser("answers", help="click answer latency while the database "
                                                "is slow (the bot on the fake Discord)")
    ans.add_argument("game", choices=game_ids(), nargs="?", default=game_ids()[0])
    ans.add_argument("--moves", type=int, default=600)
    ans.add_argument("--hold", type=float, default=3.5, help="seconds the lock is held")
    ans.add_argument("--every", type=float, default=5.0,
                     help="seconds from one hold to the next")
    img = commands.add_parser("images", help="table and hand pictures: render time and size")
    img.add_argument("--states", type=int, default=200, help="states drawn per game (at least)")
    img.add_argument("--format", choices=("png", "webp"), default="png")
    args = parser.parse_args(argv)
    if args.command == "images":
        from benchmarks import images as images_bench  # Pillow and the cogs load for this one

        result = images_bench.run(args.states, args.format)
    elif args.command == "answers":
        from benchmarks import answers as answers_bench  # the bot and the fake Discord

        result = answers_bench.run(args.game, args.moves, args.hold, args.every)
    elif args.command == "step":
        from benchmarks import step as step_bench  # the bot only loads for this one

        result = step_bench.run(args.game, args.moves)
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
