"""California Jack records through ``engine.records.replay`` and ``python -m engine replay``."""

from __future__ import annotations

import copy
import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from engine.california_jack import CaliforniaJack, CaliforniaJackOptions
from engine.cards import CODE
from engine.records import ReplayError, replay
from tests.engine.playout import random_game
from tests.engine.test_california_jack import Script, scripted, sweep

ROOT = Path(__file__).resolve().parents[2]

def words(text: str) -> list[str]:
    return text.split()


# A deal written out by hand: seat 0 leads (seat 1 deals first), clubs are trumps.
HAND_0 = ["AH", "KH", "QH", "JH", "TH", "9H"]
HAND_1 = ["2H", "2C", "3S", "4S", "5S", "6S"]
STOCK = words("5C 2S 7S 8S 9S TS JS QS KS AS 3H 4H 5H 6H 7H 8H 3C 4C 6C 7C 8C 9C TC JC QC KC AC "
              "2D 3D 4D 5D 6D 7D 8D 9D TD JD QD KD AD")


def short_record(actions: list[list[Any]], **top: Any) -> dict[str, Any]:
    record = {"format": "cardtable-record/1", "game": "california_jack", "players": 2,
              "options": {}, "first_dealer": 1,
              "deals": [{"hands": [HAND_0, HAND_1], "stock": STOCK, "actions": actions}]}
    record.update(top)
    return record


# Spades trump. Seat 0 leads spades then hearts and wins the first 20 tricks while seat 1
# (no spade or heart until late) throws clubs and diamonds; then seat 1 wins the last six,
# capturing the 2♠ with the 3♠ and leading the J♠. High and Game (79–1) to seat 0, Low and
# Jack to seat 1: 2–2.
SPLIT_2_2 = [
    *(f"0 {a} {b}" for a, b in zip(
        words("4S 5S 6S 7S 8S 9S TS QS KS AS 2H 6H 7H 8H 9H TH JH QH KH AH"),
        words("5C 6C 7C 8C 9C TC JC QC KC AC 5D 6D 7D 8D 9D TD JD QD KD AD"), strict=True)),
    "1 3S 2S", "1 JS 3H", "1 3C 2C", "1 3D 2D", "1 4C 4H", "1 4D 5H",
]


def deal_entry(script: Script) -> dict[str, Any]:
    deal, actions, _ = script
    return {"hands": [[CODE[c] for c in hand] for hand in deal.hands],
            "stock": [CODE[c] for c in deal.stock],
            "actions": [[seat, CODE[action]] for seat, action in actions]}


def record(options: dict[str, Any], first_dealer: int, deals: list[Script]) -> dict[str, Any]:
    return {"format": "cardtable-record/1", "game": "california_jack", "players": 2,
            "options": options, "first_dealer": first_dealer,
            "deals": [deal_entry(script) for script in deals]}


def tie_then_win() -> dict[str, Any]:
    """Target 2: 2–2 (a tie at the target: another deal), then seat 1 sweeps: 2–6."""
    return record({"target": 2}, 1, [scripted(0, SPLIT_2_2), scripted(1, sweep(1))])


def one_deal_game() -> dict[str, Any]:
    """Target 1: seat 0 sweeps the only deal."""
    return record({"target": 1}, 1, [scripted(0, sweep(0))])


# ---------------------------------------------------------------- good records


def test_a_short_record_reports_its_steps_and_scores_nothing_yet() -> None:
    out = replay(short_record([[0, "AH"], [1, "2H"], [0, "5c"]]))
    assert out == {
        "game": "california_jack",
        "deals": [{"steps": [
            {"seat": 0, "legal": ["9H", "AH", "JH", "KH", "QH", "TH"], "action": "AH"},
            {"seat": 1, "legal": ["2H"], "action": "2H"},
            {"seat": 0, "legal": ["5C", "9H", "JH", "KH", "QH", "TH"], "action": "5C"},
        ], "points": [0, 0]}],
        "totals": [0, 0], "winners": [], "complete": False,
    }


def test_a_tie_at_the_target_plays_another_deal() -> None:
    out = replay(tie_then_win())
    assert [deal["points"] for deal in out["deals"]] == [[2, 2], [0, 4]]
    assert out["totals"] == [2, 6] and out["winners"] == [1] and out["complete"] is True
    steps = out["deals"][0]["steps"]
    assert len(steps) == 52 and len(out["deals"][1]["steps"]) == 52
    assert steps[41] == {"seat": 1, "legal": ["3S", "JS"], "action": "3S"}  # must follow 2♠
    assert steps[42]["seat"] == 1 and steps[42]["action"] == "JS"  # the 3♠ won: seat 1 leads


def test_after_the_first_deal_alone_the_tie_is_not_over() -> None:
    tied = tie_then_win()
    del tied["deals"][1]
    out = replay(tied, summary=True)
    assert out == {"game": "california_jack", "deals": [{"points": [2, 2]}],
                   "totals": [2, 2], "winners": [], "complete": False}


def test_summary_leaves_out_the_steps() -> None:
    full, summary = replay(tie_then_win()), replay(tie_then_win(), summary=True)
    assert summary == {**full, "deals": [{"points": d["points"]} for d in full["deals"]]}
    assert all("steps" not in deal for deal in summary["deals"])


def test_the_default_target_is_not_reached_by_one_sweep() -> None:
    game = one_deal_game()
    game["options"] = {}
    out = replay(json.dumps(game), summary=True)
    assert out["totals"] == [4, 0] and out["winners"] == [] and out["complete"] is False


@pytest.mark.parametrize("options", [CaliforniaJackOptions(),
                                     CaliforniaJackOptions(scoring="simple", target=5),
                                     CaliforniaJackOptions(follow_or_trump=True, target=15)])
def test_a_recorded_random_game_replays_to_the_same_result(
        options: CaliforniaJackOptions) -> None:
    for seed in range(3):
        game = random_game(CaliforniaJack, 2, options, seed)
        out = replay(json.loads(json.dumps(game.to_record())), summary=True)
        assert out["totals"] == game.totals and out["winners"] == game.winners()
        assert [d["points"] for d in out["deals"]] == game.deal_points
        assert out["complete"] is True


# ---------------------------------------------------------------- broken records


def refused(source: dict[str, Any]) -> tuple[int | None, int | None, str]:
    with pytest.raises(ReplayError) as caught:
        replay(source)
    return caught.value.deal, caught.value.step, caught.value.reason


def with_deal(change: Any, base: dict[str, Any] | None = None, deal: int = 0) -> dict[str, Any]:
    made = copy.deepcopy(base if base is not None else short_record([]))
    change(made["deals"][deal])
    return made


def test_a_wrong_deck_is_refused_at_its_deal() -> None:
    seven = with_deal(lambda d: d["hands"][0].append(d["stock"].pop()))
    assert refused(seven) == (0, None, "Each player must be dealt exactly 6 cards.")
    short_stock = with_deal(lambda d: d["stock"].pop())
    assert refused(short_stock) == (0, None, "The stock must hold the other 40 cards.")
    joker = with_deal(lambda d: d["stock"].__setitem__(-1, "JK"))
    assert refused(joker)[:2] == (0, None) and "no jokers" in refused(joker)[2]


def test_a_duplicate_card_is_refused_at_its_deal() -> None:
    in_the_second_deal = with_deal(lambda d: d["stock"].__setitem__(39, d["hands"][0][0]),
                                   tie_then_win(), deal=1)
    deal, step, reason = refused(in_the_second_deal)
    assert (deal, step) == (1, None) and "dealt twice" in reason


def test_an_action_out_of_turn_is_refused() -> None:
    assert refused(short_record([[0, "AH"], [0, "KH"]])) == (
        0, 1, "Seat 0 acted, but it is seat 1's turn.")


def test_an_illegal_action_is_refused_with_the_reason() -> None:
    assert refused(short_record([[0, "AH"], [1, "2C"]])) == (
        0, 1, "2C is not legal here: You must follow suit: play a heart.")
    assert refused(short_record([[0, "2H"]])) == (
        0, 0, "2H is not legal here: You do not hold the 2♥.")
    deal, step, reason = refused(short_record([[0, "pass"]]))
    assert (deal, step) == (0, 0) and "only play a card" in reason


def test_an_unknown_action_code_is_refused() -> None:
    deal, step, reason = refused(short_record([[0, "AH"], [1, "1X"]]))
    assert (deal, step) == (0, 1) and "not an action code" in reason


def test_an_action_after_the_deal_ended_is_refused() -> None:
    extra = with_deal(lambda d: d["actions"].append([0, "AS"]), tie_then_win())
    assert refused(extra) == (0, 52, "The deal is already over.")


def test_an_action_after_the_game_ended_is_refused() -> None:
    extra = with_deal(lambda d: d["actions"].append([0, "AS"]), one_deal_game())
    assert refused(extra) == (0, 52, "The game is already over.")


def test_a_deal_after_the_game_ended_is_refused() -> None:
    game = one_deal_game()
    game["deals"].append(copy.deepcopy(game["deals"][0]))
    assert refused(game) == (1, None, "The game was already over before this deal.")


def test_a_deal_after_an_unfinished_deal_is_refused() -> None:
    unfinished = short_record([[0, "AH"]])
    unfinished["deals"].append(copy.deepcopy(unfinished["deals"][0]))
    assert refused(unfinished) == (1, None, "The previous deal is not finished.")


@pytest.mark.parametrize(("top", "reason"), [
    ({"options": {"trumps": "S"}}, "There is no option called 'trumps'."),
    ({"options": {"target": "10"}}, "The option 'target' must be a whole number."),
    ({"options": {"target": 0}}, "The option 'target' must be at least 1."),
    ({"options": {"follow_or_trump": "yes"}},
     "The option 'follow_or_trump' must be true or false."),
    ({"options": {"scoring": "fancy"}}, "The option 'scoring' must be one of: standard, simple."),
    ({"players": 3}, "California Jack is for exactly 2 players, not 3."),
    ({"first_dealer": 2}, "The first dealer must be a seat from 0 to 1."),
])
def test_bad_game_settings_are_refused_before_any_deal(top: dict[str, Any], reason: str) -> None:
    assert refused(short_record([], **top)) == (None, None, reason)


# ---------------------------------------------------------------- the command line


def run_cli(*args: str, stdin: str | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "engine", "replay", *args], input=stdin,
                          capture_output=True, text=True, cwd=ROOT, timeout=60, check=False)


def test_cli_replays_a_file(tmp_path: Path) -> None:
    path = tmp_path / "game.json"
    path.write_text(json.dumps(tie_then_win()), encoding="utf-8")
    done = run_cli(str(path), "--summary")
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout) == {"game": "california_jack",
                                       "deals": [{"points": [2, 2]}, {"points": [0, 4]}],
                                       "totals": [2, 6], "winners": [1], "complete": True}


def test_cli_reads_standard_input_and_refuses_a_broken_record() -> None:
    done = run_cli("-", stdin=json.dumps(short_record([[0, "AH"], [1, "2C"]])))
    assert done.returncode == 2
    assert json.loads(done.stdout) == {"error": {
        "deal": 0, "step": 1,
        "reason": "2C is not legal here: You must follow suit: play a heart."}}
    good = run_cli("-", stdin=json.dumps(short_record([[0, "AH"]])))
    assert good.returncode == 0 and json.loads(good.stdout)["deals"][0]["steps"][0]["seat"] == 0
