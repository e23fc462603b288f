"""``python -m terminal GAME --lang LANG``: the table says everything in that language.

The catalogues may not have the table's sentences translated yet, so a stand-in
catalogue marks every id it is asked for: a line without the mark was written
without going through the catalogue.
"""

from __future__ import annotations

import io

import pytest

import locales
from engine import registry
from terminal.__main__ import main
from tests.locales.marking import Marking

SHORT = {"jacko": ["--option", "target=25"], "california_jack": ["--option", "target=3"],
         "attackjack": ["--option", "choice=true", "--option", "blind=true"]}




def played(monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str],
           args: list[str], answers: str) -> list[str]:
    monkeypatch.setattr(locales, "translations", Marking)
    monkeypatch.setattr("sys.stdin", io.StringIO(answers))
    assert main(args) == 0
    return capsys.readouterr().out.split("\n")


@pytest.mark.parametrize("game_id", registry.game_ids())
def test_every_line_is_said_in_the_language_asked_for(game_id, monkeypatch, capsys):
    # Bad answers first (each refused in words), then the first action until the end.
    answers = "\nbanana\n0\nJK\n?\n" + "1\n" * 600
    lines = played(monkeypatch, capsys, [game_id, "--seed", "3", "--level", "easy",
                                         "--lang", "da", *SHORT.get(game_id, [])], answers)
    assert any(line.startswith("[da] Game over. Final scores:") for line in lines)
    unmarked = [line for line in lines if line.strip() and "[da]" not in line]
    assert unmarked == []


def test_english_by_default_and_the_language_ends_with_the_game(monkeypatch, capsys):
    lines = played(monkeypatch, capsys, ["jacko", "--seed", "3", "--level", "easy",
                                         "--option", "target=5"], "1\n" * 300)
    assert not any("[en]" in line for line in lines)  # English is the code's own text
    assert any(line.startswith("Game over. Final scores:") for line in lines)
    played(monkeypatch, capsys, ["jacko", "--seed", "3", "--level", "easy", "--lang", "sv",
                                 "--option", "target=5"], "1\n" * 300)
    assert locales.current() == locales.ENGLISH


def test_a_refused_option_is_said_in_the_language(monkeypatch, capsys):
    monkeypatch.setattr(locales, "translations", Marking)
    assert main(["jazz", "--players", "9", "--lang", "ru"]) == 2
    assert capsys.readouterr().out == "[ru] Jazz is for 3 to 7 players, not 9.\n"
