"""``python -m engine replay FILE [--summary]``: replay a game record (records.md).

(The terminal table is a front end of its own: ``python -m terminal GAME``.)"""

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
    args = parser.parse_args(argv)
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
