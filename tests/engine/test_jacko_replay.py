"""Jacko records through ``engine.records.replay`` and ``python -m engine replay``."""

from __future__ import annotations

import copy
import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from engine.cards import CODE
from engine.core import RECORD_FORMAT
from engine.jacko import Jacko, JackoOptions
from engine.records import ReplayError, replay
from tests.engine.playout import random_game
from tests.engine.test_jacko_examples import (
    EX8,
    EX11_BEFORE,
    EX11_HANDS,
    EX12_BEFORE,
    EX12_HANDS,
)
from tests.engine.test_jacko_support import cards_of

ROOT = Path(__file__).resolve().parents[2]


def codes_of(spec: str) -> list[list[str]]:
    """Both hands as codes: seat 0 from the compact spec, seat 1 the rest of the deck."""
    mine = cards_of(spec)
    return [[CODE[c] for c in mine], [CODE[c] for c in range(52) if c not in mine]]


def moves(text: str) -> list[list[Any]]:
    return [[int(seat), action] for seat, action in (m.split(":") for m in text.split())]


def record(deals: list[dict[str, Any]], **options: Any) -> dict[str, Any]:
    return {"format": RECORD_FORMAT, "game": "jacko", "players": 2, "options": options,
            "first_dealer": 0, "deals": deals}


# Seat 1's one spade is 7♠: 4♠ then 7♠ makes eleven for seat 1 (+3).
ELEVEN_DEAL = {"hands": codes_of("S:2345689TJQKA C:* D:2"), "stock": [], "first": None,
               "actions": moves("0:4S 1:7S")}
# Example 8: 10 6 5 makes 21, seat 1 must lay J♠, seat 0 passes, seat 1 stops for 6.
TWENTY_ONE_DEAL = {"hands": codes_of(EX8), "actions": moves("0:TS 1:6S 0:5S 1:JS 0:pass 1:stop")}
# Example 12's first round: seat 0 makes eleven (+3) and wins 21 after two zero cards (+5).
ROUND_DEAL = {"hands": [h.split() for h in EX12_HANDS], "actions": moves(EX12_BEFORE)}
FULL_DEAL = {"hands": [h.split() for h in EX11_HANDS],
             "actions": moves(EX11_BEFORE + " 1:9D 0:3D 1:pass 0:stop")}


def refused(source: Any) -> dict[str, Any]:
    with pytest.raises(ReplayError) as caught:
        replay(source)
    return caught.value.to_dict()


# ---------------------------------------------------------------- good records


def test_a_game_won_by_making_eleven() -> None:
    result = replay(record([ELEVEN_DEAL], target=3))
    assert result["deals"] == [{
        "steps": [
            {"seat": 0, "legal": ["2S", "3S", "4S", "5S", "6S", "8S", "9S", "AS", "JS", "KS",
                                  "QS", "TS"], "action": "4S"},
            {"seat": 1, "legal": ["7S"], "action": "7S"},
        ],
        "points": [0, 3],
    }]
    assert (result["totals"], result["winners"], result["complete"]) == ([0, 3], [1], True)
    assert result["game"] == "jacko"


def test_a_deal_cut_short_keeps_the_points_already_scored() -> None:
    result = replay(record([TWENTY_ONE_DEAL]))
    steps = result["deals"][0]["steps"]
    assert [s["legal"] for s in steps[3:]] == [["JS"], ["pass"], ["QS", "stop"]]
    assert result["deals"][0]["points"] == [0, 6]
    assert (result["totals"], result["winners"], result["complete"]) == ([0, 6], [], False)


def test_points_are_scored_as_they_are_earned() -> None:
    result = replay(record([ROUND_DEAL]))
    assert result["deals"][0]["points"] == [8, 0] and result["totals"] == [8, 0]
    cut = record([{**ROUND_DEAL, "actions": ROUND_DEAL["actions"][:2]}])
    assert replay(cut)["totals"] == [3, 0]  # eleven made; the round is not over


def test_two_deals_and_the_summary_form() -> None:
    result = replay(record([FULL_DEAL, TWENTY_ONE_DEAL]), summary=True)
    first = replay(record([FULL_DEAL]))["deals"][0]["points"]
    assert result["deals"] == [{"points": first}, {"points": [0, 6]}]
    assert result["totals"] == [first[0], first[1] + 6]
    assert result["complete"] is False and result["winners"] == []


def test_codes_in_any_case_and_ten_as_10() -> None:
    loose = copy.deepcopy(TWENTY_ONE_DEAL)
    loose["actions"] = [[0, "10s"], [1, "6s"], [0, "5S"], [1, "js"], [0, "PASS"], [1, "Stop"]]
    loose["hands"][0] = [c.lower() for c in loose["hands"][0]]
    assert replay(record([loose])) == replay(record([TWENTY_ONE_DEAL]))


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_a_random_games_record_replays_to_the_same_result(seed: int) -> None:
    options = JackoOptions(target=60, open_hands=seed % 2 == 0)
    game = random_game(Jacko, 2, options, seed)
    result = replay(json.dumps(game.to_record()))
    assert [d["points"] for d in result["deals"]] == game.deal_points
    assert (result["totals"], result["winners"]) == (game.totals, game.winners())
    assert result["complete"] is True
    steps = sum(len(d["steps"]) for d in result["deals"])
    assert steps == sum(len(h.actions) for h in game.history)


# ---------------------------------------------------------------- broken records


def with_deals(*deals: dict[str, Any], **options: Any) -> dict[str, Any]:
    return record([copy.deepcopy(d) for d in deals], **options)


def test_wrong_decks_are_refused_at_their_deal() -> None:
    joker = with_deals(TWENTY_ONE_DEAL)
    joker["deals"][0]["hands"][0][-1] = "JK"
    short = with_deals(TWENTY_ONE_DEAL)
    short["deals"][0]["hands"][1].append(short["deals"][0]["hands"][0].pop())
    stock = with_deals(TWENTY_ONE_DEAL)
    stock["deals"][0]["stock"] = [stock["deals"][0]["hands"][0].pop()]
    unknown = with_deals(TWENTY_ONE_DEAL)
    unknown["deals"][0]["hands"][0][0] = "1S"
    for broken, reason in ((joker, "jokers"), (short, "26 cards, not 25 and 27"),
                           (stock, "no stock"), (unknown, "not a card code")):
        error = refused(broken)
        assert (error["deal"], error["step"]) == (0, None)
        assert reason in error["reason"]


def test_a_duplicate_card_is_refused_at_its_deal() -> None:
    broken = with_deals(FULL_DEAL, TWENTY_ONE_DEAL)
    hands = broken["deals"][1]["hands"]
    hands[0][0] = hands[1][0]
    error = refused(broken)
    assert (error["deal"], error["step"]) == (1, None) and "twice" in error["reason"]


@pytest.mark.parametrize("actions, step, reason", [
    ("1:6S", 0, "seat 0's turn"),
    ("0:TS 1:6S 0:5S 1:QS", 3, "26, over 21"),
    ("0:TS 1:6S 0:5S 1:JS 0:pass 1:stop 0:2S", 6, "seat 1's turn"),
    ("0:TS 0:6S", 1, "seat 1's turn"),
    ("0:TS 1:6S 0:pass", 2, "may not pass"),
    ("0:TS 1:stop", 1, "only after your opponent has passed"),
    ("0:TS 1:2H", 1, "spades first"),
])
def test_wrong_actions_are_refused_at_their_step(actions: str, step: int, reason: str) -> None:
    error = refused(with_deals({**TWENTY_ONE_DEAL, "actions": moves(actions)}))
    assert (error["deal"], error["step"]) == (0, step)
    assert reason in error["reason"]


def test_an_action_after_the_deal_ended() -> None:
    broken = with_deals(FULL_DEAL)
    broken["deals"][0]["actions"].append([1, "2D"])
    error = refused(broken)
    assert error == {"deal": 0, "step": len(FULL_DEAL["actions"]),
                     "reason": "The deal is already over."}


def test_an_action_after_the_game_ended() -> None:
    broken = with_deals(ELEVEN_DEAL, target=3)
    broken["deals"][0]["actions"].append([0, "JS"])
    assert refused(broken) == {"deal": 0, "step": 2, "reason": "The game is already over."}


def test_a_deal_after_the_game_ended_or_after_an_unfinished_deal() -> None:
    error = refused(with_deals(ELEVEN_DEAL, TWENTY_ONE_DEAL, target=3))
    assert (error["deal"], error["step"]) == (1, None) and "already over" in error["reason"]
    error = refused(with_deals(TWENTY_ONE_DEAL, TWENTY_ONE_DEAL))
    assert (error["deal"], error["step"]) == (1, None) and "not finished" in error["reason"]


@pytest.mark.parametrize("change, reason", [
    ({"options": {"colour": "red"}}, "no option called 'colour'"),
    ({"options": {"target": "121"}}, "whole number"),
    ({"options": {"target": 0}}, "at least 1"),
    ({"options": {"open_hands": "yes"}}, "true or false"),
    ({"players": 3}, "exactly 2 players, not 3"),
    ({"players": 1}, "not 1"),
])
def test_file_level_problems_have_no_deal_or_step(change: dict[str, Any], reason: str) -> None:
    error = refused({**with_deals(TWENTY_ONE_DEAL), **change})
    assert (error["deal"], error["step"]) == (None, None)
    assert reason in error["reason"]


# ---------------------------------------------------------------- the command line


def run_cli(*args: str, stdin: str | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "engine", "replay", *args], cwd=ROOT,
                          input=stdin, capture_output=True, text=True, timeout=60)


def test_cli_replays_a_file_and_standard_input(tmp_path: Path) -> None:
    good = record([ELEVEN_DEAL], target=3)
    path = tmp_path / "game.json"
    path.write_text(json.dumps(good), encoding="utf-8")
    done = run_cli(str(path))
    assert done.returncode == 0 and json.loads(done.stdout) == replay(good)
    done = run_cli("-", "--summary", stdin=json.dumps(good))
    assert done.returncode == 0
    assert json.loads(done.stdout) == replay(good, summary=True)
    assert "steps" not in json.loads(done.stdout)["deals"][0]


def test_cli_refuses_a_broken_record_with_status_2() -> None:
    broken = with_deals({**TWENTY_ONE_DEAL, "actions": moves("0:TS 1:6S 0:5S 1:QS")})
    done = run_cli("-", stdin=json.dumps(broken))
    assert done.returncode == 2
    error = json.loads(done.stdout)["error"]
    assert (error["deal"], error["step"]) == (0, 3) and "26" in error["reason"]
