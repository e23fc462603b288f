"""Replaying Jazz records: good ones give the known results, broken ones are refused
at the right deal and step (records.md)."""

from __future__ import annotations

import copy
import json
import subprocess
import sys

import pytest

from engine.jazz import Jazz
from engine.records import ReplayError, replay, restore
from tests.engine.playout import random_game
from tests.engine.test_jazz import play_example_8


@pytest.fixture(scope="module")
def example_8_record() -> dict:
    return play_example_8(sevens_bonus=10).to_record()


def refusal(record: dict) -> tuple:
    with pytest.raises(ReplayError) as caught:
        replay(record)
    return caught.value.deal, caught.value.step


def test_example_8_record_replays_to_its_totals(example_8_record):
    result = replay(example_8_record)
    assert result["totals"] == [-43, 2, -28, -12]
    assert result["winners"] == [1]
    assert result["complete"] is True
    assert [d["points"] for d in result["deals"]][3] == [0, 0, -15, 0]
    first = result["deals"][0]["steps"][0]
    assert first["seat"] == 0 and first["action"] in first["legal"]
    assert first["legal"] == sorted(first["legal"])
    assert len(first["legal"]) == 13  # forehand may lead any of its 13 cards


def test_sevens_bonus_option_changes_the_replayed_totals(example_8_record):
    record = dict(example_8_record, options={"sevens_bonus": 80})
    assert replay(record)["totals"] == [-43, 72, -28, -12]


def test_summary_leaves_out_the_steps(example_8_record):
    result = replay(example_8_record, summary=True)
    assert all(set(d) == {"points"} for d in result["deals"])
    assert result["totals"] == [-43, 2, -28, -12]


def test_a_cut_record_is_incomplete_with_points_so_far(example_8_record):
    record = copy.deepcopy(example_8_record)
    record["deals"] = record["deals"][:2]
    record["deals"][1]["actions"] = record["deals"][1]["actions"][:8]  # two tricks
    result = replay(record)
    assert result["complete"] is False and result["winners"] == []
    assert sum(result["deals"][1]["points"]) >= -8
    assert result["totals"] == [a + b for a, b in zip(*[d["points"] for d in result["deals"]],
                                                      strict=True)]


def test_codes_accept_ten_and_lower_case(example_8_record):
    record = copy.deepcopy(example_8_record)
    record["deals"][0]["hands"] = [[c.lower().replace("t", "10") for c in hand]
                                   for hand in record["deals"][0]["hands"]]
    record["deals"][0]["actions"] = [[s, a.lower()] for s, a in record["deals"][0]["actions"]]
    assert replay(record)["totals"] == [-43, 2, -28, -12]


def test_pass_is_accepted_in_any_case(example_8_record):
    record = copy.deepcopy(example_8_record)
    record["deals"][5]["actions"] = [[s, "PASS" if a == "pass" else a]
                                     for s, a in record["deals"][5]["actions"]]
    assert replay(record)["totals"] == [-43, 2, -28, -12]


def test_random_records_replay_to_the_engine_results():
    for seed in range(30):
        game = random_game(Jazz, 3 + seed % 5, None, seed)
        record = json.loads(json.dumps(game.to_record()))
        result = replay(record)
        assert result["totals"] == game.totals
        assert result["winners"] == game.winners()
        assert [d["points"] for d in result["deals"]] == game.deal_points
        steps = [s for d in result["deals"] for s in d["steps"]]
        assert len(steps) == sum(len(h.actions) for h in game.history)


# ---------------------------------------------------------------- refusals


def test_refuses_a_wrong_deck(example_8_record):
    record = copy.deepcopy(example_8_record)
    hands = record["deals"][2]["hands"]
    hands[0][0] = hands[1][0]  # a duplicate, and a card missing
    assert refusal(record) == (2, None)


def test_refuses_wrong_hand_sizes(example_8_record):
    record = copy.deepcopy(example_8_record)
    hands = record["deals"][0]["hands"]
    hands[0].append(hands[1].pop())
    assert refusal(record) == (0, None)


def test_refuses_an_unknown_card_code(example_8_record):
    record = copy.deepcopy(example_8_record)
    record["deals"][1]["hands"][0][0] = "1S"
    assert refusal(record) == (1, None)


def test_refuses_an_action_out_of_turn(example_8_record):
    record = copy.deepcopy(example_8_record)
    seat, action = record["deals"][1]["actions"][5]
    record["deals"][1]["actions"][5] = [(seat + 1) % 4, action]
    assert refusal(record) == (1, 5)


def test_refuses_an_illegal_action(example_8_record):
    record = copy.deepcopy(example_8_record)
    actions = record["deals"][0]["actions"]
    # the second player plays a card of another suit although it could follow
    result = replay(example_8_record)
    legal = result["deals"][0]["steps"][1]["legal"]
    hand = record["deals"][0]["hands"][actions[1][0]]
    off_suit = [c for c in hand if c not in legal]
    assert off_suit, "the example deal lets seat 1 follow suit"
    actions[1] = [actions[1][0], off_suit[0]]
    assert refusal(record) == (0, 1)


def test_refuses_a_card_not_in_hand(example_8_record):
    record = copy.deepcopy(example_8_record)
    seat, _ = record["deals"][0]["actions"][0]
    other = record["deals"][0]["hands"][(seat + 1) % 4][0]
    record["deals"][0]["actions"][0] = [seat, other]
    assert refusal(record) == (0, 0)


def test_refuses_an_action_after_the_deal_ended(example_8_record):
    record = copy.deepcopy(example_8_record)
    record["deals"][3]["actions"].append(record["deals"][4]["actions"][0])
    assert refusal(record) == (3, len(example_8_record["deals"][3]["actions"]))


def test_refuses_an_action_after_the_game_ended(example_8_record):
    record = copy.deepcopy(example_8_record)
    n = len(record["deals"][5]["actions"])
    record["deals"][5]["actions"].append([0, "pass"])
    assert refusal(record) == (5, n)


def test_refuses_a_deal_after_the_game_ended(example_8_record):
    record = copy.deepcopy(example_8_record)
    record["deals"].append(copy.deepcopy(record["deals"][0]))
    assert refusal(record) == (6, None)


def test_refuses_a_deal_after_an_unfinished_deal(example_8_record):
    record = copy.deepcopy(example_8_record)
    record["deals"][1]["actions"] = record["deals"][1]["actions"][:3]
    assert refusal(record) == (2, None)


@pytest.mark.parametrize(("options", "players"), [
    ({"no_such_option": 1}, 4),
    ({"sevens_bonus": "80"}, 4),
    ({"sevens_bonus": True}, 4),
    ({"norwegian": 1}, 4),
    ({"norwegian": True}, 6),
    ({}, 2),
    ({}, 8),
])
def test_refuses_bad_options_and_player_counts(example_8_record, options, players):
    record = dict(example_8_record, options=options, players=players)
    assert refusal(record) == (None, None)


@pytest.mark.parametrize("broken", [
    {"format": "cardtable-record/2"},
    {"game": "poker"},
    {"players": "4"},
    {"first_dealer": 4},
    {"deals": {}},
])
def test_refuses_a_malformed_file(example_8_record, broken):
    assert refusal(dict(example_8_record, **broken)) == (None, None)


def test_refuses_a_record_missing_a_required_key(example_8_record):
    for key in ("format", "game", "players", "options", "first_dealer", "deals"):
        record = {k: v for k, v in example_8_record.items() if k != key}
        assert refusal(record) == (None, None)


def test_extra_top_level_keys_are_ignored(example_8_record):
    assert replay(dict(example_8_record, comment="hi"))["winners"] == [1]


# ---------------------------------------------------------------- the command line


def run_cli(*args: str, stdin: str | None = None) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "engine", "replay", *args], input=stdin,
                          capture_output=True, text=True, timeout=60, check=False)


def test_cli_replays_a_file_and_stdin(example_8_record, tmp_path):
    path = tmp_path / "game.json"
    path.write_text(json.dumps(example_8_record))
    done = run_cli(str(path))
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)["totals"] == [-43, 2, -28, -12]
    done = run_cli("-", "--summary", stdin=json.dumps(example_8_record))
    out = json.loads(done.stdout)
    assert done.returncode == 0 and "steps" not in out["deals"][0]


def test_cli_refuses_with_exit_2_and_the_error_object(example_8_record):
    record = copy.deepcopy(example_8_record)
    record["deals"][1]["actions"][0][0] = 3
    done = run_cli("-", stdin=json.dumps(record))
    assert done.returncode == 2
    assert json.loads(done.stdout) == {"error": {
        "deal": 1, "step": 0, "reason": json.loads(done.stdout)["error"]["reason"]}}
    assert "turn" in json.loads(done.stdout)["error"]["reason"]
    bad_json = run_cli("-", stdin="{not json")
    assert bad_json.returncode == 2
    assert json.loads(bad_json.stdout)["error"]["deal"] is None


def test_restore_refuses_a_corrupt_save():
    game = random_game(Jazz, 4, None, 3)
    data = game.to_data()
    data["deals"][0]["actions"][0][0] = (data["deals"][0]["actions"][0][0] + 1) % 4
    with pytest.raises(ValueError, match="cannot be restored"):
        restore(data, Jazz)
    assert restore(game.to_data(), Jazz).totals == game.totals


def test_first_dealer_decides_forehand_in_replay(example_8_record):
    record = dict(example_8_record, first_dealer=0)
    assert refusal(record) == (0, 0)  # seat 1 would now lead, not seat 0
