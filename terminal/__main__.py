"""``python -m terminal GAME [--players N] [--seed S] [--level L] [--option NAME=VALUE]``:
play a game at a terminal table against AI players (``terminal.table``)."""

from __future__ import annotations

import argparse
import sys

from engine.ai import DEFAULT_LEVEL, LEVELS
from engine.registry import available_games
from terminal.table import parse_options, play


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m terminal", description=__doc__)
    parser.add_argument("game", help=", ".join(available_games()))
    parser.add_argument("--players", type=int, default=None, help="seats, yours included")
    parser.add_argument("--seed", type=int, default=None, help="the same seed, the same game")
    parser.add_argument("--level", default=DEFAULT_LEVEL, help=", ".join(LEVELS))
    parser.add_argument("--option", action="append", default=[], metavar="NAME=VALUE",
                        help="a rules option, e.g. --option choice=true (repeatable)")
    args = parser.parse_args(argv)
    return play(args.game, args.players, args.seed, args.level, parse_options(args.option))


if __name__ == "__main__":
    sys.exit(main())
