"""AttackJack records: replay, --summary, the CLI, broken records, and records of random games."""

from __future__ import annotations

import copy
import json
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from engine.attackjack import AttackJack, AttackJackOptions
from engine.core import Game
from engine.records import ReplayError, replay, restore
from tests.engine.playout import random_game
from tests.engine.test_attackjack import make_deal

ROOT = Path(__file__).resolve().parents[2]


def record(hands: list[str], top: str, first: int | None = 0, actions: list | None = None,
           **options: Any) -> dict[str, Any]:
    """A record of one AttackJack game with these hands and these stock cards on top."""
    deal = make_deal(hands, top, first).to_dict()
    if first is None:
        del deal["first"]
    return {
        "format": "cardtable-record/1",
        "game": "attackjack",
        "players": len(hands),
        "options": options,
        "first_dealer": 0,
        "deals": [{**deal, "actions": actions or []}],
    }


# Example 8 with a stake of 10: seat 0 takes the whole bank of 30.
EXAMPLE_8 = record(["AS 7D", "KC 5H", "9C 9D"], "4C 9H 3S", stake=10)

# With ``choice``, first = 1: seat 1 (16) stands, seat 2 (A K) keeps with no step,
# seat 0 (12) takes the open 9 (9, 9, 3 counts 12). A K's 21 wins.
CHOICE = record(["3S 9S", "TH 6H", "AD KD"], "9C 5C", first=1,
                actions=[[1, "stand"], [0, "TAKE"]], choice=True)


def test_example_8_record_replays_with_known_points() -> None:
    result = replay(EXAMPLE_8)
    assert result == {
        "game": "attackjack",
        "deals": [{"steps": [], "points": [20, -10, -10]}],
        "totals": [20, -10, -10],
        "winners": [0],
        "complete": True,
    }


def test_choice_record_steps_and_winner() -> None:
    result = replay(json.dumps(CHOICE))
    assert result["deals"] == [{
        "steps": [{"seat": 1, "legal": ["stand", "take"], "action": "stand"},
                  {"seat": 0, "legal": ["stand", "take"], "action": "take"}],
        "points": [0, 0, 1],
    }]
    assert result["winners"] == [2] and result["totals"] == [0, 0, 1]
    assert result["complete"] is True


def test_summary_leaves_out_the_steps() -> None:
    assert replay(CHOICE, summary=True) == {
        "game": "attackjack", "deals": [{"points": [0, 0, 1]}], "totals": [0, 0, 1],
        "winners": [2], "complete": True,
    }


def test_abandoned_record_scores_nothing() -> None:
    cut = copy.deepcopy(CHOICE)
    cut["deals"][0]["actions"] = [[1, "stand"]]
    result = replay(cut, summary=True)
    assert result == {"game": "attackjack", "deals": [{"points": [0, 0, 0]}],
                      "totals": [0, 0, 0], "winners": [], "complete": False}


def test_everyone_out_record_has_no_winners() -> None:
    result = replay(record(["TS 6S", "KH 5H"], "9C 8D", stake=5), summary=True)
    assert result["winners"] == [] and result["totals"] == [0, 0] and result["complete"]


def test_blind_record_keeps_the_hand_order() -> None:
    # The second card listed is the face-down one: it makes no difference to the score.
    rec = record(["TS 6S", "AH 2H"], "9C 3D", blind=True)
    restored = restore(rec, AttackJack)
    # A restored game keeps its trailing forced turns pending, to be shown one at a time.
    assert restored.has_auto_step and restored.public_view()["seats"][1]["cards"] == ["AH"]
    restored.run_auto_steps()
    assert restored.public_view()["seats"][1]["cards"] == ["AH", "2H", "3D"]  # all shown at end
    assert restored.to_record()["deals"][0]["hands"] == [["TS", "6S"], ["AH", "2H"]]
    assert replay(rec, summary=True)["winners"] == [1]


# ---------------------------------------------------------------- broken records


def _set(path: list[Any], value: Any) -> Callable[[dict], None]:
    def change(rec: dict) -> None:
        target = rec
        for key in path[:-1]:
            target = target[key]
        target[path[-1]] = value
    return change


def _second_deal(rec: dict) -> None:
    rec["deals"].append(copy.deepcopy(rec["deals"][0]))


def _duplicate(rec: dict) -> None:
    rec["deals"][0]["stock"][5] = rec["deals"][0]["hands"][0][0]


def _no_jokers(rec: dict) -> None:
    stock = rec["deals"][0]["stock"]
    stock.remove("JK")
    stock.remove("JK")


def _no_first(rec: dict) -> None:
    del rec["deals"][0]["first"]


BROKEN = [
    # (what, base record, change, deal, step, words in the reason)
    ("wrong deck", EXAMPLE_8, _no_jokers, 0, None, "JK is missing"),
    ("duplicate card", EXAMPLE_8, _duplicate, 0, None, "AS is dealt 2 times"),
    ("three-card hand", EXAMPLE_8,
     lambda r: r["deals"][0]["hands"][0].append(r["deals"][0]["stock"].pop()), 0, None,
     "seat 0 has 3"),
    ("no lot", EXAMPLE_8, _no_first, 0, None, "which seat won the lot"),
    ("out of turn", CHOICE, _set(["deals", 0, "actions", 0, 0], 0), 0, 0,
     "it is seat 1's turn"),
    ("illegal action", CHOICE, _set(["deals", 0, "actions", 1, 1], "9C"), 0, 1,
     "You do not play cards"),
    ("pass", CHOICE, _set(["deals", 0, "actions", 0, 1], "pass"), 0, 0, "There is no pass"),
    ("action after the game", CHOICE,
     lambda r: r["deals"][0]["actions"].append([1, "take"]), 0, 2, "already over"),
    ("action in a forced game", EXAMPLE_8, _set(["deals", 0, "actions"], [[0, "take"]]), 0, 0,
     "already over"),
    ("deal after the game", EXAMPLE_8, _second_deal, 1, None, "already over"),
    ("unknown option", EXAMPLE_8, _set(["options", "jokers"], 3), None, None,
     "no option called 'jokers'"),
    ("wrongly typed option", EXAMPLE_8, _set(["options", "stake"], "10"), None, None,
     "whole number"),
    ("wrongly typed bool", EXAMPLE_8, _set(["options", "blind"], "yes"), None, None,
     "true or false"),
    ("negative stake", EXAMPLE_8, _set(["options", "stake"], -1), None, None, "at least 0"),
    ("one player", EXAMPLE_8, _set(["players"], 1), None, None, "2 to 17 players"),
    ("eighteen players", EXAMPLE_8, _set(["players"], 18), None, None, "2 to 17 players"),
]


@pytest.mark.parametrize(("base", "change", "deal", "step", "reason"),
                         [b[1:] for b in BROKEN], ids=[b[0] for b in BROKEN])
def test_broken_record_refused_where_it_breaks(base: dict, change: Callable[[dict], None],
                                               deal: int | None, step: int | None,
                                               reason: str) -> None:
    rec = copy.deepcopy(base)
    change(rec)
    with pytest.raises(ReplayError) as refused:
        replay(rec)
    assert (refused.value.deal, refused.value.step) == (deal, step)
    assert reason in refused.value.reason


# ---------------------------------------------------------------- the command line


def _cli(*args: str, stdin: str | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "engine", "replay", *args], input=stdin,
                          capture_output=True, text=True, cwd=ROOT, timeout=60)


def test_cli_replays_a_file_and_stdin(tmp_path: Path) -> None:
    path = tmp_path / "choice.json"
    path.write_text(json.dumps(CHOICE), encoding="utf-8")
    done = _cli(str(path))
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout) == replay(CHOICE)
    done = _cli("-", "--summary", stdin=json.dumps(EXAMPLE_8))
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout) == {"game": "attackjack",
                                       "deals": [{"points": [20, -10, -10]}],
                                       "totals": [20, -10, -10], "winners": [0],
                                       "complete": True}


def test_cli_refuses_a_broken_record() -> None:
    rec = copy.deepcopy(EXAMPLE_8)
    _duplicate(rec)
    done = _cli("-", stdin=json.dumps(rec))
    assert done.returncode == 2
    error = json.loads(done.stdout)["error"]
    assert (error["deal"], error["step"]) == (0, None)
    assert "AS is dealt 2 times" in error["reason"]


# ---------------------------------------------------------------- records of random games


@pytest.mark.parametrize("options", [
    AttackJackOptions(), AttackJackOptions(stake=9, choice=True),
    AttackJackOptions(blind=True, stake=2), AttackJackOptions(blind=True, choice=True),
])
def test_random_game_record_replays_to_the_same_result(options: AttackJackOptions) -> None:
    for seed, players in enumerate((2, 3, 4, 6, 9, 17)):
        game: Game = random_game(AttackJack, players, options, seed)
        rec = json.loads(json.dumps(game.to_record()))
        assert rec["deals"][0]["first"] == game.public_view()["first"]
        result = replay(rec)
        assert result["totals"] == game.totals
        assert result["winners"] == game.winners()
        assert result["deals"][0]["points"] == game.deal_points[0]
        assert result["complete"] is True
        assert [[s["seat"], s["action"]] for s in result["deals"][0]["steps"]] == (
            rec["deals"][0]["actions"])


def test_record_accepts_ten_and_lower_case() -> None:
    rec = copy.deepcopy(EXAMPLE_8)
    rec["deals"][0]["hands"][1] = ["kc", "5h"]
    stock = rec["deals"][0]["stock"]
    stock[stock.index("TS")] = "10s"
    assert replay(rec, summary=True)["totals"] == [20, -10, -10]
    assert restore(rec, AttackJack).to_record()["deals"][0]["hands"][1] == ["KC", "5H"]
