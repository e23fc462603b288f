"""The terminal table, driven through its input and output functions (and once as
a real process): whole games to the final scores, bad input, end of input."""

from __future__ import annotations

import os
import random
import subprocess
import sys
from collections.abc import Callable, Iterable
from pathlib import Path

import pytest

from engine import cards
from engine.attackjack import AttackJack, AttackJackOptions
from engine.california_jack import CaliforniaJack, CaliforniaJackOptions
from engine.core import Game, action_code
from engine.jacko import Jacko, JackoOptions
from engine.jazz import Jazz
from terminal.table import HUMAN, TerminalTable, play

ROOT = Path(__file__).resolve().parents[2]


class Console:
    """Scripted input and captured output. ``answer`` decides each reply from the prompt
    and the table (``None`` ends the input, as Ctrl-D does)."""

    def __init__(self, answer: Callable[[str], str | None]) -> None:
        self.answer = answer
        self.lines: list[str] = []
        self.prompts = 0

    def read(self, prompt: str) -> str:
        self.lines.append(prompt)
        self.prompts += 1
        reply = self.answer(prompt)
        if reply is None:
            raise EOFError
        return reply

    def write(self, text: str) -> None:
        self.lines.extend(text.split("\n"))

    @property
    def text(self) -> str:
        return "\n".join(self.lines)


def scripted(replies: Iterable[str | None]) -> Callable[[str], str | None]:
    it = iter(replies)
    return lambda prompt: next(it, None)


def table_for(game: Game, console: Console, level: str = "easy", seed: int = 1) -> TerminalTable:
    return TerminalTable(game, seed, level, console.read, console.write)


def final_line(totals: list[int]) -> str:
    names = ["You"] + [f"AI {s}" for s in range(1, len(totals))]
    signed = [f"+{t}" if t > 0 else str(t).replace("-", "−") for t in totals]
    return "Game over. Final scores: " + " · ".join(
        f"{n} {t}" for n, t in zip(names, signed, strict=True))


@pytest.mark.parametrize(("game", "level"), [
    (Jazz(4), "easy"),
    (CaliforniaJack(2, CaliforniaJackOptions(target=4)), "normal"),
    (Jacko(2, JackoOptions(target=30)), "easy"),
    (AttackJack(3, AttackJackOptions(choice=True, blind=True)), "hard"),
], ids=lambda x: x.GAME_ID if isinstance(x, Game) else x)
def test_a_whole_game_is_played_to_its_final_scores_by_numbers(game, level):
    console = Console(lambda prompt: "1")
    table = table_for(game, console, level)
    table.ais = {s: type(ai)(level, ai.seed, iterations=20, time_limit=None)
                 for s, ai in table.ais.items()}
    assert table.run() == 0
    assert game.is_over
    assert final_line(game.totals) in console.lines
    human_moves = sum(1 for h in game.history for seat, _ in h.actions if seat == HUMAN)
    assert human_moves >= console.prompts  # every answer became a move (some were forced)
    assert console.prompts > 0


def test_the_table_shows_only_the_human_seats_cards():
    # At every question, nothing printed in this deal names a card still in an AI's hand.
    game = Jazz(4)
    console = Console(lambda prompt: "1")

    def answer(prompt: str) -> str:
        printed = console.text
        printed = printed[printed.rindex("=== Deal"):]
        for seat in range(1, 4):
            for code in game.seat_view(seat)["hand"]:
                assert cards.label(cards.parse_card(code)) not in printed
        mine = game.seat_view(HUMAN)["hand"]
        assert any(line.startswith("Your hand:") and all(
            cards.RANK_NAMES[cards.RANK[cards.parse_card(x)]] in line for x in mine)
            for line in console.lines[-6:])
        return "1"

    console.answer = answer
    table_for(game, console).run()
    assert game.deal_number >= 1  # it went through at least a whole deal and more


def test_an_action_is_taken_by_its_code_in_any_case():
    game = Jazz(4)
    chosen: list[str] = []

    def answer(prompt: str) -> str | None:
        if len(chosen) == 3:
            return None
        legal = game.seat_view(HUMAN)["legal"]
        chosen.append(legal[-1])
        return legal[-1].lower() if len(chosen) % 2 else legal[-1]

    console = Console(answer)
    table_for(game, console).run()
    mine = [a for h in game.history for seat, a in h.actions if seat == HUMAN]
    assert [action_code(a) for a in mine] == chosen


def test_bad_input_is_answered_and_asked_again():
    game = CaliforniaJack(2, first_dealer=1)  # seat 0 leads: the first question is ours
    console = Console(scripted(["", "banana", "0", "99", "JK", "?", None]))
    table = table_for(game, console)
    assert table.run() == 0
    text = console.text
    assert "'banana' is not an action code." in text
    assert "There is no action 0: choose from 1 to 6." in text
    assert "There is no action 99: choose from 1 to 6." in text
    assert "There is no joker in California Jack." in text
    assert "Type the number of an action" in text
    assert console.prompts == 7  # the same question, asked again after each bad answer
    assert game.history[-1].actions == []  # and nothing was played for us


def test_an_illegal_card_gets_the_rules_reason():
    game = CaliforniaJack(2, first_dealer=1)
    game.start_deal(game.random_deal(random.Random(3)))
    not_mine = next(c for c in cards.DECK if cards.CODE[c] not in game.seat_view(HUMAN)["hand"])
    console = Console(scripted([cards.CODE[not_mine], None]))
    table_for(game, console).run()
    assert f"You do not hold the {cards.label(not_mine)}." in console.lines


def test_end_of_input_ends_the_program_cleanly():
    game = Jazz(3)
    console = Console(scripted(["1", "1", None]))
    assert table_for(game, console).run() == 0
    assert console.lines[-1] == "End of input: leaving the table, the game unfinished. Goodbye."
    assert not game.is_over


def test_quit_leaves_the_table():
    console = Console(scripted(["quit"]))
    assert table_for(Jazz(4), console).run() == 0
    assert "You leave the table" in console.lines[-1]


def test_attackjack_without_choice_plays_itself_to_the_end():
    game = AttackJack(4)
    console = Console(lambda prompt: pytest.fail("there is nothing to decide"))
    assert table_for(game, console).run() == 0
    assert game.is_over and console.prompts == 0
    assert any(line.startswith("Showdown:") for line in console.lines)


def test_the_same_seed_and_answers_give_the_same_game():
    def transcript() -> list[str]:
        console = Console(lambda prompt: "2" if console.prompts % 3 else "1")
        play("california_jack", None, 77, "easy", {"target": 3}, console.read, console.write)
        return console.lines

    assert transcript() == transcript()


def test_unknown_game_level_or_option_is_refused_with_status_2():
    lines: list[str] = []
    assert play("poker", read=input, write=lines.append) == 2
    assert play("jazz", level="godlike", read=input, write=lines.append) == 2
    assert play("jazz", players=9, read=input, write=lines.append) == 2
    assert play("jazz", options={"sevens_bonus": "lots"}, read=input, write=lines.append) == 2
    assert lines[0].startswith("Unknown game 'poker'")
    assert lines[1].startswith("Unknown level 'godlike'")
    assert lines[2] == "Jazz is for 3 to 7 players, not 9."
    assert lines[3] == "The option 'sevens_bonus' must be a whole number."


def run_cli(args: list[str], stdin: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PYTHONIOENCODING": "utf-8"}
    return subprocess.run([sys.executable, "-m", "terminal", *args], input=stdin,
                          capture_output=True, text=True, cwd=ROOT, env=env, timeout=120,
                          check=False)


def test_the_command_line_plays_a_whole_game_and_stops_cleanly_at_end_of_input():
    done = run_cli(["california_jack", "--seed", "5", "--level", "easy",
                    "--option", "target=3"], "1\n" * 300)
    assert done.returncode == 0, done.stderr
    assert "California Jack for 2: you are seat 0, against 1 AI player (easy). Seed 5." \
        in done.stdout
    assert "Game over. Final scores: You " in done.stdout
    cut = run_cli(["jazz", "--players", "5", "--seed", "5", "--level", "easy"], "1\n2\n")
    assert cut.returncode == 0, cut.stderr
    assert cut.stdout.rstrip().endswith("End of input: leaving the table, the game "
                                        "unfinished. Goodbye.")
    assert cut.stderr == ""
