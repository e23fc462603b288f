"""``python -m benchmarks engine GAME [--seconds S] [--players N]``"""

from __future__ import annotations

import argparse
import json
import sys

from benchmarks import engine as engine_bench
from engine.registry import GAME_IDS


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m benchmarks", description=__doc__)
    commands = parser.add_subparsers(dest="command", required=True)
    eng = commands.add_parser("engine", help="random playouts of one game's engine")
    eng.add_argument("game", choices=GAME_IDS)
    eng.add_argument("--seconds", type=float, default=3.0, help="time per measurement")
    eng.add_argument("--players", type=int, default=None)
    args = parser.parse_args(argv)
    if args.command == "engine":
        result = engine_bench.run(args.game, args.seconds, args.players)
        for key, value in result.items():
            print(f"{key:>18}: {value}")
        print(json.dumps(result))
    return 0


if __name__ == "__main__":
    sys.exit(main())
