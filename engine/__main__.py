"""``python -m engine replay FILE [--summary] [--lang LANG]``: replay a game record
(records.md).

The output is JSON; with ``--lang`` its sentences for people (an error's ``reason``)
are in that language, the rest (codes, numbers) stays as it is.

(The terminal table is a front end of its own: ``python -m terminal GAME``.)"""

from __future__ import annotations

import argparse
import json
import sys

import locales
from engine.records import ReplayError, replay
from engine.text import T


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m engine", description=__doc__)
    commands = parser.add_subparsers(dest="command", required=True)
    replay_cmd = commands.add_parser("replay", help="replay a game record and print what happened")
    replay_cmd.add_argument("file", help="the record's JSON file, or - for standard input")
    replay_cmd.add_argument("--summary", action="store_true", help="leave out the steps")
    replay_cmd.add_argument("--lang", choices=locales.LANGUAGES, default=locales.ENGLISH,
                            help="the language of the sentences in the output (default: en)")
    args = parser.parse_args(argv)
    try:
        text = _read(args.file)
        result = replay(text, summary=args.summary)
    except ReplayError as error:
        print(json.dumps({"error": said(error, args.lang)}))
        return 2
    print(json.dumps(result))
    return 0


def said(error: ReplayError, language: str) -> dict[str, object]:
    """``error.to_dict()`` with its reason in ``language``."""
    out = error.to_dict()
    out["reason"] = locales.say(error.reason, language)
    return out


def _read(path: str) -> str:
    try:
        if path == "-":
            return sys.stdin.read()
        with open(path, encoding="utf-8") as f:
            return f.read()
    except (OSError, UnicodeDecodeError) as error:
        # Translators: {problem} is the system's own English words for what went wrong.
        raise ReplayError(None, None, T("Cannot read the record: {problem}.",
                                        problem=str(error))) from None


if __name__ == "__main__":
    sys.exit(main())
