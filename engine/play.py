"""The terminal table: ``python -m engine play GAME [--players N] [--seed S] [--level L]``.

You sit at seat 0 against AI players. Everything shown comes from your seat's
view (``seat_view(0)``), so the other hands are never on screen; the AI seats
decide from their own views. Your legal actions are numbered from 1: answer
with the number or the action's code (``7H``, ``10h``, ``pass``). Forced steps
and the AI seats play themselves, and the game runs to its final scores. Bad
input is answered and asked again; end of input ends the program cleanly.

Input and output are two functions (``read(prompt) -> line``, raising
``EOFError`` at the end, and ``write(text)``), so tests drive a whole game.
"""

from __future__ import annotations

import json
import random
from collections.abc import Callable
from typing import Any

from engine import cards
from engine.ai import LEVELS, AIPlayer
from engine.core import Game, RulesError, action_code, action_label, parse_action
from engine.registry import available_games, game_class

Read = Callable[[str], str]
Write = Callable[[str], None]

DEFAULT_PLAYERS = {"jazz": 4, "jacko": 2, "california_jack": 2, "attackjack": 4}
HUMAN = 0
QUIT_WORDS = ("quit", "exit")


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
        self.show = _RENDERERS.get(game.GAME_ID, _Renderer)(game.players)

    def run(self) -> int:
        """Play to the end; 0 when the game ends or the input does."""
        try:
            self._loop()
        except EOFError:
            self.write("\nEnd of input: leaving the table, the game unfinished. Goodbye.")
            return 0
        except Quit:
            self.write("You leave the table, the game unfinished. Goodbye.")
            return 0
        self._final()
        return 0

    def _loop(self) -> None:
        game = self.game
        while not game.is_over:
            before = game.seat_view(HUMAN)
            if game.needs_deal:
                game.start_deal(game.random_deal(self.deal_rng))
                self.write("")
                self.write(self.show.deal_header(game.seat_view(HUMAN)))
                continue
            acted: tuple[int, int] | None = None
            if game.has_auto_step:
                game.auto_step()
            else:
                seat = game.to_act
                assert seat is not None
                action = (self._ask(before) if seat == HUMAN
                          else self.ais[seat].choose(game, seat))
                game.apply(seat, action)
                acted = (seat, action)
            for line in self.show.events(before, game.seat_view(HUMAN), acted):
                self.write(line)

    def _ask(self, view: dict[str, Any]) -> int:
        # In hand order (suit, then rank), keywords last: as the hand is shown.
        legal = sorted((parse_action(code) for code in view["legal"]),
                       key=lambda a: cards.sort_key(a) if a <= cards.JOKER else (9, a))
        self.write("")
        for line in self.show.table(view):
            self.write(line)
        if len(legal) == 1:  # a forced move (one card to follow with, a forced pass)
            self.write(f"Your only legal action: {action_label(legal[0])}.")
            return legal[0]
        self._list(legal)
        while True:
            answer = self.read(f"Your move (1-{len(legal)} or a code): ").strip()
            if not answer:
                self._list(legal)
                continue
            if answer.lower() in QUIT_WORDS:
                raise Quit
            if answer in ("?", "help"):
                self.write("Type the number of an action or its code (7H, 10h, pass); "
                           "'quit' leaves the table.")
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
            return None, f"There is no action {number}: choose from 1 to {len(legal)}."
        try:
            action = parse_action(answer)
        except RulesError as error:
            return None, f"{error} Type a number from 1 to {len(legal)}, or a code."
        if action in legal:
            return action, ""
        return None, self.game.why_illegal(action)

    def _list(self, legal: list[int]) -> None:
        self.write("Your legal actions:")
        items = [f"{i:>2}) {action_label(a)} [{action_code(a)}]" for i, a in enumerate(legal, 1)]
        for start in range(0, len(items), 6):  # six to a line: a whole hand stays readable
            self.write("  " + "   ".join(items[start:start + 6]))

    def _final(self) -> None:
        view = self.game.seat_view(HUMAN)
        self.write("")
        self.write("Game over. Final scores: " + self.show.scores(view["totals"]))
        winners = view["winners"]
        if not winners:
            self.write("Nobody wins.")
        elif HUMAN in winners:
            self.write("You win!" if len(winners) == 1 else
                       "You share the win with " + ", ".join(
                           self.show.name(s) for s in winners if s != HUMAN) + ".")
        else:
            self.write("Winner: " + ", ".join(self.show.name(s) for s in winners) + ".")


# ---------------------------------------------------------------- drawing


def hand_line(codes: list[str]) -> str:
    """A hand grouped by suit: ``♠ 2 9 K   ♥ 10 A``."""
    groups: dict[str, list[str]] = {}
    for code in codes:
        c = cards.parse_card(code)
        if c == cards.JOKER:
            groups.setdefault("Joker", []).append("Joker")
        else:
            groups.setdefault(cards.SUIT_SYMBOLS[cards.SUIT[c]], []).append(
                cards.RANK_NAMES[cards.RANK[c]])
    return "   ".join(suit + " " + " ".join(ranks) if suit != "Joker" else " ".join(ranks)
                       for suit, ranks in groups.items()) or "(empty)"


def label(code: str) -> str:
    return cards.label(cards.parse_card(code))


def sign(x: int) -> str:
    return f"+{x}" if x > 0 else str(x).replace("-", "−")


class _Renderer:
    """Drawing from views only. Games override what their table shows."""

    def __init__(self, players: int) -> None:
        self.players = players

    def name(self, seat: int) -> str:
        return "You" if seat == HUMAN else f"AI {seat}"

    def scores(self, totals: list[int]) -> str:
        return " · ".join(f"{self.name(s)} {sign(t)}" for s, t in enumerate(totals))

    def deal_header(self, view: dict[str, Any]) -> str:
        return f"=== Deal {view['deal'] + 1} ==="

    def table(self, view: dict[str, Any]) -> list[str]:
        return [f"Scores: {self.scores(view['totals'])}", f"Your hand: {hand_line(view['hand'])}"]

    def events(self, before: dict[str, Any], after: dict[str, Any],
               acted: tuple[int, int] | None) -> list[str]:
        """What to say after a step: ``acted`` is (seat, action), None for a forced step."""
        return [] if acted is None else [self.action_line(*acted)]

    def action_line(self, seat: int, action: int) -> str:
        code = action_code(action)
        you = seat == HUMAN
        verbs = {"pass": ("pass", "passes"), "stop": ("stop", "stops"),
                 "take": ("take the open card", "takes the open card"),
                 "stand": ("stand", "stands")}
        if code in verbs:
            verb = verbs[code][0 if you else 1]
        else:
            verb = f"{'play' if you else 'plays'} {action_label(action)}"
        return f"{self.name(seat)} {verb}."


class _JazzRenderer(_Renderer):
    def deal_header(self, view: dict[str, Any]) -> str:
        return (f"=== Deal {view['deal'] + 1} of 6: {view['deal_name']} — "
                f"{self.name(view['forehand'])} to start ===")

    def table(self, view: dict[str, Any]) -> list[str]:
        lines = [f"Deal {view['deal'] + 1} of 6: {view['deal_name']}. "
                 f"Scores: {self.scores(view['totals'])}"]
        if view["deal_kind"] == "sevens":
            rows = view["rows"]
            shown = [f"{label(lo)}–{label(hi)}" for lo, hi in rows.values()]
            lines.append("Rows: " + ("  ".join(shown) if shown else "none yet (a seven opens)"))
        else:
            trick = ", ".join(f"{self.name(t['seat'])} {label(t['card'])}"
                              for t in view["trick"])
            lines.append("Trick: " + (trick or "you lead"))
        lines.append(f"Your hand: {hand_line(view['hand'])}")
        return lines

    def events(self, before: dict[str, Any], after: dict[str, Any],
               acted: tuple[int, int] | None) -> list[str]:
        lines = super().events(before, after, acted)
        if after["last_trick"] and after["last_trick"] != before["last_trick"]:
            lines.append(f"  {self.name(after['last_trick']['winner'])} take"
                         f"{'' if after['last_trick']['winner'] == HUMAN else 's'} the trick.")
        lines.extend(_deal_end(self, before, after))
        return lines


class _CaliforniaJackRenderer(_Renderer):
    def deal_header(self, view: dict[str, Any]) -> str:
        trump = cards.SUIT_NAMES[cards.SUIT_LETTERS.index(view["trump"])]
        return (f"=== Deal {view['deal'] + 1}: trumps are {trump} "
                f"(stock top {label(view['stock_top'])}), {self.name(view['leader'])} "
                f"lead{'' if view['leader'] == HUMAN else 's'} ===")

    def table(self, view: dict[str, Any]) -> list[str]:
        trump = cards.SUIT_SYMBOLS[cards.SUIT_LETTERS.index(view["trump"])]
        top = label(view["stock_top"]) if view["stock_top"] else "empty"
        lines = [f"Trumps {trump} · stock top {top} ({view['stock_size']} left) · tricks "
                 + " · ".join(f"{self.name(s)} {n}" for s, n in enumerate(view["tricks_won"]))
                 + f" · game points {self.scores(view['totals'])} (to {view['target']})"]
        known = view["known"][1]
        if known:
            lines.append(f"{self.name(1)} drew and holds: {hand_line(known)}")
        if view["trick"]:
            lines.append(f"{self.name(view['trick'][0]['seat'])} led "
                         f"{label(view['trick'][0]['card'])}.")
        lines.append(f"Your hand: {hand_line(view['hand'])}")
        return lines

    def events(self, before: dict[str, Any], after: dict[str, Any],
               acted: tuple[int, int] | None) -> list[str]:
        lines = super().events(before, after, acted)
        if after["last_trick"] and after["last_trick"] != before["last_trick"]:
            winner = after["last_trick"]["winner"]
            draws = ", ".join(f"{self.name(d['seat'])} {label(d['card'])}"
                              for d in after["draws"])
            lines.append(f"  {self.name(winner)} win{'' if winner == HUMAN else 's'} the "
                         f"trick." + (f" Drawn: {draws}." if draws else ""))
        result = after["last_result"]
        if result and result != before["last_result"]:
            parts = [f"{k} {self.name(result[k])}" for k in ("high", "jack", "low")]
            game = "nobody" if result["game"] is None else self.name(result["game"])
            lines.append(f"Deal {result['deal'] + 1} scored: " + ", ".join(parts)
                         + f", game {game} (trick points {result['trick_points'][0]}–"
                         f"{result['trick_points'][1]}). Totals: {self.scores(after['totals'])}")
        return lines


class _JackoRenderer(_Renderer):
    def table(self, view: dict[str, Any]) -> list[str]:
        rnd = ", ".join(f"{self.name(c['seat'])} {label(c['card'])}" for c in view["round"])
        extra = " (king led: doubling)" if view["doubling"] else ""
        lines = [f"Sum {view['sum']}{extra} · round: {rnd or 'you lead'} · scores "
                 f"{self.scores(view['totals'])} (to {view['target']})"]
        if view["passed"] is not None:
            lines.append(f"{self.name(view['passed'])} passed: you continue alone.")
        if view.get("opponent_hand") is not None:
            lines.append(f"{self.name(1)} holds: {hand_line(view['opponent_hand'])}")
        lines.append(f"Your hand (play {view['current_suit']}): {hand_line(view['hand'])}")
        return lines

    def events(self, before: dict[str, Any], after: dict[str, Any],
               acted: tuple[int, int] | None) -> list[str]:
        lines = super().events(before, after, acted)
        round_over = after["last_round"] and after["last_round"] != before["last_round"]
        if lines and not round_over:  # a finished round says its sum below
            lines[-1] = lines[-1][:-1] + f" (sum {after['sum']})."
        for s in range(2):
            gained = after["totals"][s] - before["totals"][s]
            if gained:
                lines.append(f"  {self.name(s)} score{'' if s == HUMAN else 's'} "
                             f"{sign(gained)}: {self.scores(after['totals'])}")
        if round_over:
            r = after["last_round"]
            lines.append(f"  Round over at {r['sum']}: {self.name(r['winner'])} "
                         f"win{'' if r['winner'] == HUMAN else 's'} it.")
        return lines


class _AttackJackRenderer(_Renderer):
    def deal_header(self, view: dict[str, Any]) -> str:
        first = view["first"]
        return f"=== AttackJack: {self.name(first)} act{'' if first == HUMAN else 's'} first ==="

    def _seat(self, view: dict[str, Any], s: int) -> str:
        info = view["seats"][s]
        shown = " ".join(label(c) for c in info["cards"]) + " ?" * info["hidden"]
        value = f" = {info['value']}" if info["value"] is not None else ""
        return f"{self.name(s)}: {shown}{value} ({info['status']})"

    def table(self, view: dict[str, Any]) -> list[str]:
        lines = [f"Open card {label(view['open_card'])} · deck {view['deck']}"]
        lines += ["  " + self._seat(view, s) for s in range(len(view["seats"]))]
        lines.append(f"Your hand: {hand_line(view['hand'])} = {view['hand_value']}")
        return lines

    def events(self, before: dict[str, Any], after: dict[str, Any],
               acted: tuple[int, int] | None) -> list[str]:
        last = after["last_action"]
        if not last or (last == before["last_action"] and acted is None):
            return []
        lines = super().events(before, after, acted)
        lines.append(f"  {self._seat(after, last['seat'])}")
        if after["over"]:
            lines.append("Showdown: " + " · ".join(self._seat(after, s)
                                                    for s in range(len(after["seats"]))))
        return lines


def _deal_end(r: _Renderer, before: dict[str, Any], after: dict[str, Any]) -> list[str]:
    done_before, done_after = len(before["all_deal_points"]), len(after["all_deal_points"])
    if after["to_act"] is None and before["to_act"] is not None and done_after == done_before:
        points = after["all_deal_points"][-1]
        return [f"Deal {done_after} over: " + r.scores(points)
                + f". Totals: {r.scores(after['totals'])}"]
    return []


_RENDERERS: dict[str, type[_Renderer]] = {
    "jazz": _JazzRenderer,
    "california_jack": _CaliforniaJackRenderer,
    "jacko": _JackoRenderer,
    "attackjack": _AttackJackRenderer,
}


# ---------------------------------------------------------------- command line


def play(game_id: str, players: int | None = None, seed: int | None = None,
         level: str = "normal", options: dict[str, Any] | None = None,
         read: Read = input, write: Write = print) -> int:
    """Set up a table and play it through ``read`` / ``write``; the exit status."""
    if game_id not in available_games():
        write(f"Unknown game {game_id!r}: choose one of {', '.join(available_games())}.")
        return 2
    if level not in LEVELS:
        write(f"Unknown level {level!r}: choose one of {', '.join(LEVELS)}.")
        return 2
    cls = game_class(game_id)
    n = players or DEFAULT_PLAYERS[game_id]
    seed = seed if seed is not None else random.randrange(1_000_000)
    try:
        opts = cls.OPTIONS.from_dict(options or {}, n)
        game = cls(n, opts, first_dealer=random.Random(seed).randrange(n))
    except RulesError as error:
        write(str(error))
        return 2
    write(f"{cls.TITLE} for {n}: you are seat 0, against {n - 1} AI player"
          f"{'s' if n > 2 else ''} ({level}). Seed {seed}.")
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
