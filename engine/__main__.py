"""``python -m engine replay FILE [--summary]``: replay a game record (records.md).

``python -m engine play GAME [--players N] [--seed S] [--level L]``: play at a terminal
table against AI players (``engine/play.py``)."""

from __future__ import annotations

import argparse
import json
import sys

from engine.records import ReplayError, replay


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m engine", description=__doc__)
    commands = parser.add_subparsers(dest="command", required=True)
    replay_cmd = commands.add_parser("replay", help="replay a game record and print what happened")
    replay_cmd.add_argument("file", help="the record's JSON file, or - for standard input")
    replay_cmd.add_argument("--summary", action="store_true", help="leave out the steps")
    play_cmd = commands.add_parser("play", help="play a game in the terminal against AI players")
    play_cmd.add_argument("game", help="jazz, jacko, california_jack or attackjack")
    play_cmd.add_argument("--players", type=int, default=None, help="seats, yours included")
    play_cmd.add_argument("--seed", type=int, default=None, help="the same seed, the same game")
    play_cmd.add_argument("--level", default="normal", help="random, easy, normal or hard")
    play_cmd.add_argument("--option", action="append", default=[], metavar="NAME=VALUE",
                          help="a rules option, e.g. --option choice=true (repeatable)")
    args = parser.parse_args(argv)
    if args.command == "play":
        from engine.play import parse_options, play  # the AI loads only to play

        return play(args.game, args.players, args.seed, args.level,
                    parse_options(args.option))

    try:
        text = _read(args.file)
        result = replay(text, summary=args.summary)
    except ReplayError as error:
        print(json.dumps({"error": error.to_dict()}))
        return 2
    print(json.dumps(result))
    return 0


def _read(path: str) -> str:
    try:
        if path == "-":
            return sys.stdin.read()
        with open(path, encoding="utf-8") as f:
            return f.read()
    except (OSError, UnicodeDecodeError) as error:
        raise ReplayError(None, None, f"Cannot read the record: {error}.") from None


if __name__ == "__main__":
    sys.exit(main())
