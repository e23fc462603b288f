"""The terminal table's loop: ``python -m terminal GAME [--players N] [--seed S] [--level L]``.

You sit at seat 0 against AI players. Everything shown comes from your seat's
view (``seat_view(0)``) and from the events of each step, so the other hands are
never on screen; the AI seats decide from their own views. Your legal actions
are numbered from 1: answer with the number or the action's code (``7H``,
``10h``, ``pass``). Forced steps and the AI seats play themselves, and the game
runs to its final scores. Bad input is answered and asked again; end of input
ends the program cleanly.

Input and output are two functions (``read(prompt) -> line``, raising
``EOFError`` at the end, and ``write(text)``), so tests drive a whole game. What
is written is in the current language (``locales.speaking``; ``python -m terminal
--lang``); the codes typed in (``7H``, ``pass``, ``quit``) are the same in all.
"""

from __future__ import annotations

import json
import random
from collections.abc import Callable
from typing import Any

from engine import cards, registry
from engine.ai import LEVELS, AIPlayer
from engine.core import Game, RulesError, action_code, action_label, parse_action
from engine.events import Event
from locales import _, _c, _n, say
from terminal.render import HUMAN, renderer_for

Read = Callable[[str], str]
Write = Callable[[str], None]

QUIT_WORDS = ("quit", "exit")

__all__ = ["HUMAN", "Quit", "TerminalTable", "parse_options", "play"]


class Quit(Exception):
    """The player asked to leave."""


class TerminalTable:
    def __init__(self, game: Game, seed: int, level: str, read: Read, write: Write) -> None:
        self.game = game
        self.read = read
        self.write = write
        self.level = level
        self.deal_rng = random.Random(seed)
        self.ais = {s: AIPlayer(level, seed=seed * 1000 + s) for s in range(game.players)
                    if s != HUMAN}
        self.show = renderer_for(game.GAME_ID)(game.players)

    def run(self) -> int:
        """Play to the end; 0 when the game ends or the input does."""
        try:
            self._loop()
        except EOFError:
            self.write("\n" + _("End of input: leaving the table, the game unfinished. "
                                "Goodbye."))
            return 0
        except Quit:
            self.write(_("You leave the table, the game unfinished. Goodbye."))
            return 0
        self._final()
        return 0

    def _loop(self) -> None:
        game = self.game
        while not game.is_over:
            events: list[Event]
            if game.needs_deal:
                events = game.start_deal(game.random_deal(self.deal_rng))
            elif game.has_auto_step:
                events = game.auto_step()
            else:
                seat = game.to_act
                assert seat is not None
                action = (self._ask(game.seat_view(HUMAN)) if seat == HUMAN
                          else self.ais[seat].choose(game, seat))
                events = game.apply(seat, action)
            self.tell(events)

    def tell(self, events: list[Event]) -> None:
        """Say what happened in a step, from its events."""
        for line in self.show.step(events, self.game.seat_view(HUMAN)):
            self.write(line)

    def _ask(self, view: dict[str, Any]) -> int:
        # In hand order (suit, then rank), keywords last: as the hand is shown.
        legal = sorted((parse_action(code) for code in view["legal"]),
                       key=lambda a: cards.sort_key(a) if a <= cards.JOKER else (9, a))
        self.write("")
        for line in self.show.table(view):
            self.write(line)
        if len(legal) == 1:  # a forced move (one card to follow with, a forced pass)
            self.write(_("Your only legal action: {action}.", action=action_label(legal[0])))
            return legal[0]
        self._list(legal)
        while True:
            # Translators: the question before your move; {last} is the number of the last
            # action listed. The space after it is kept outside.
            answer = self.read(_("Your move (1-{last} or a code):", last=len(legal)) + " ")
            answer = answer.strip()
            if not answer:
                self._list(legal)
                continue
            if answer.lower() in QUIT_WORDS:
                raise Quit
            if answer in ("?", "help"):
                # Translators: 7H, 10h, pass and quit are typed as they are, in English.
                self.write(_("Type the number of an action or its code (7H, 10h, pass); "
                             "'quit' leaves the table."))
                continue
            action, problem = self._understand(answer, legal)
            if action is not None:
                return action
            self.write(problem)

    def _understand(self, answer: str, legal: list[int]) -> tuple[int | None, str]:
        if answer.isdigit():
            number = int(answer)
            if 1 <= number <= len(legal):
                return legal[number - 1], ""
            return None, _("There is no action {number}: choose from 1 to {last}.",
                           number=number, last=len(legal))
        try:
            action = parse_action(answer)
        except RulesError as error:
            # Translators: {problem} is a whole sentence: why the answer is no action code.
            return None, _("{problem} Type a number from 1 to {last}, or a code.",
                           problem=say(error), last=len(legal))
        if action in legal:
            return action, ""
        reason = self.game.why_illegal(action)
        if reason:
            return None, say(reason)
        return None, _("{action} cannot be played now.", action=action_label(action))

    def _list(self, legal: list[int]) -> None:
        self.write(_("Your legal actions:"))
        items = [f"{i:>2}) {say(action_label(a))} [{action_code(a)}]"
                 for i, a in enumerate(legal, 1)]
        for start in range(0, len(items), 6):  # six to a line: a whole hand stays readable
            self.write("  " + "   ".join(items[start:start + 6]))

    def _final(self) -> None:
        view = self.game.seat_view(HUMAN)
        self.write("")
        self.write(_("Game over. Final scores: {scores}", scores=self.show.scores(view["totals"])))
        winners = view["winners"]
        if not winners:
            self.write(_("Nobody wins."))
        elif HUMAN in winners:
            others = ", ".join(self.show.name(s) for s in winners if s != HUMAN)
            self.write(_("You win!") if len(winners) == 1 else
                       _("You share the win with {names}.", names=others))
        else:
            names = ", ".join(self.show.name(s) for s in winners)
            # Translators: {names} are the winning AI seats, one or more ("AI 1, AI 3").
            self.write(_n("Winner: {names}.", "Winner: {names}.", len(winners), names=names))


# ---------------------------------------------------------------- setting up


def level_word(level: str) -> str:
    """An AI level (a code: ``easy``) in words."""
    words = {
        # Translators: the AI level that plays any legal move at random.
        "random": _c("AI level", "random"),
        # Translators: the easiest AI level of the thinking ones.
        "easy": _c("AI level", "easy"),
        # Translators: the usual AI level.
        "normal": _c("AI level", "normal"),
        # Translators: the strongest AI level.
        "hard": _c("AI level", "hard"),
    }
    return words.get(level, level)


def play(game_id: str, players: int | None = None, seed: int | None = None,
         level: str = "normal", options: dict[str, Any] | None = None,
         read: Read = input, write: Write = print) -> int:
    """Set up a table and play it through ``read`` / ``write``; the exit status."""
    if game_id not in registry.available_games():
        # Translators: {games} and {levels} are codes, typed as they are (jazz, easy).
        write(_("Unknown game {game}: choose one of {games}.", game=repr(game_id),
                games=", ".join(registry.available_games())))
        return 2
    if level not in LEVELS:
        write(_("Unknown level {level}: choose one of {levels}.", level=repr(level),
                levels=", ".join(LEVELS)))
        return 2
    spec = registry.spec(game_id)
    cls = spec.engine_class
    n = players or spec.default_players
    seed = seed if seed is not None else random.randrange(1_000_000)
    try:
        opts = cls.OPTIONS.from_dict(options or {}, n)
        game = cls(n, opts, first_dealer=random.Random(seed).randrange(n))
    except RulesError as error:
        write(say(error))
        return 2
    # Translators: {game} is the game's name, {players} the seats in all, {n} the AI seats.
    write(_n("{game} for {players}: you are seat 0, against {n} AI player ({level}). "
             "Seed {seed}.",
             "{game} for {players}: you are seat 0, against {n} AI players ({level}). "
             "Seed {seed}.", n - 1, game=cls.TITLE, players=n, level=level_word(level),
             seed=seed))
    return TerminalTable(game, seed, level, read, write).run()


def parse_options(pairs: list[str]) -> dict[str, Any]:
    """``name=value`` pairs, values as JSON (``true``, ``80``) or else plain text."""
    out: dict[str, Any] = {}
    for pair in pairs:
        name, _, value = pair.partition("=")
        try:
            out[name.strip()] = json.loads(value)
        except json.JSONDecodeError:
            out[name.strip()] = value.strip()
    return out
