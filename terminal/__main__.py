"""``python -m terminal GAME [--players N] [--seed S] [--level L] [--option NAME=VALUE]
[--lang LANG]``: play a game at a terminal table against AI players (``terminal.table``),
in English, Swedish, Danish or Russian."""

from __future__ import annotations

import argparse
import sys

import locales
from engine.ai import DEFAULT_LEVEL, LEVELS
from engine.registry import available_games
from locales import _
from terminal.table import parse_options, play


def main(argv: list[str] | None = None) -> int:
    with locales.speaking(_language(argv)):  # the help too is in the language asked for
        args = _parser().parse_args(argv)
        return play(args.game, args.players, args.seed, args.level,
                    parse_options(args.option))


def _language(argv: list[str] | None) -> str:
    """The ``--lang`` asked for, before the whole command line is read (an unknown one
    is English here, and refused by the parser)."""
    early = argparse.ArgumentParser(add_help=False)
    early.add_argument("--lang", default=locales.ENGLISH)
    return early.parse_known_args(argv)[0].lang


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="python -m terminal",
        description=_("Play a card game at a terminal table against AI players."))
    parser.add_argument("game", help=", ".join(available_games()))  # codes, as typed
    parser.add_argument("--players", type=int, default=None, help=_("seats, yours included"))
    parser.add_argument("--seed", type=int, default=None,
                        help=_("the same seed, the same game"))
    parser.add_argument("--level", default=DEFAULT_LEVEL, help=", ".join(LEVELS))
    parser.add_argument("--option", action="append", default=[], metavar="NAME=VALUE",
                        help=_("a rules option, e.g. --option choice=true (repeatable)"))
    # Translators: {languages} are the languages' codes, typed as they are (en, sv...).
    parser.add_argument("--lang", choices=locales.LANGUAGES, default=locales.ENGLISH,
                        help=_("the table's language: {languages} (default: en)",
                               languages=", ".join(locales.LANGUAGES)))
    return parser


if __name__ == "__main__":
    sys.exit(main())
