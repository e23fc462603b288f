"""The replay's stepping without Discord (``bot.views.replay``) and its buttons' targets
(``bot.ui.replay_buttons.targets``): frames kept small for Discord, names escaped only
where the words say them, and where ⏮ ◀ ▶ ⏭ lead from every frame."""

from __future__ import annotations

import re

import pytest

from bot.app import components
from bot.ui.replay_buttons import (
    OPEN_TEMPLATE,
    STEP_TEMPLATE,
    ReplayButton,
    StepButton,
    open_id,
    step_id,
    targets,
)
from bot.views.replay import MAX_STEPS, Frame, TooLong, frame_of, replay_steps
from engine import registry
from tests.engine.playout import random_game


def test_each_frame_keeps_the_public_view_and_every_hand_as_the_engine_had_them():
    seen: list[tuple[dict, list[list[str]]]] = []

    def check(game):  # each state the engine went through, as a front end reads it
        seen.append((game.public_view(), [game.seat_view(s)["hand"]
                                          for s in range(game.players)]))

    game = random_game(registry.game_class("jazz"), 4, None, 3, check=check)
    replayed = replay_steps(game.to_record(), ["Ann", "Bo", "Cy", "Di"], "en", frame_of)
    assert all(isinstance(f, Frame) for f in replayed.frames)
    assert [(f.public, [list(h) for h in f.hands]) for f in replayed.frames] == seen
    assert [f.moment.deal for f in replayed.frames[:1]] == [0]
    assert replayed.frames[-1].moment.result is not None


def test_names_are_escaped_in_lines_and_results_and_kept_as_typed_for_the_pictures():
    game = random_game(registry.game_class("jacko"), 2, None, 1)
    replayed = replay_steps(game.to_record(), ["*Ann*", "Bo"], "en", frame_of,
                            escape=lambda name: f"<{name}>")
    assert replayed.players == ["*Ann*", "Bo"]  # the scenes get them as typed
    starts = set(replayed.deals)  # (each deal's start says it is dealt)
    lines = [f.moment.line for i, f in enumerate(replayed.frames) if i not in starts]
    assert all(line.startswith(("<*Ann*> ", "<Bo> ")) for line in lines), lines
    assert "<*Ann*> " in (replayed.frames[-1].moment.result or "")


def test_a_record_over_the_bound_is_refused_before_any_frame():
    record = random_game(registry.game_class("jacko"), 2, None, 1).to_record()
    record["deals"][0]["actions"] = [[0, "??"]] * (MAX_STEPS + 1)
    kept: list[object] = []
    with pytest.raises(TooLong):
        replay_steps(record, None, "en", lambda *args: kept.append(args))
    assert kept == []


def test_the_step_buttons_lead_deal_by_deal_and_stop_at_the_ends():
    deals = [0, 5, 9]  # three deals; frames 0..11
    assert targets(0, 12, deals) == {"p": None, "b": None, "n": 1, "d": 5}
    assert targets(3, 12, deals) == {"p": 0, "b": 2, "n": 4, "d": 5}
    assert targets(5, 12, deals) == {"p": 0, "b": 4, "n": 6, "d": 9}  # at a start: the one before
    assert targets(7, 12, deals) == {"p": 5, "b": 6, "n": 8, "d": 9}
    assert targets(10, 12, deals) == {"p": 9, "b": 9, "n": 11, "d": 11}  # last deal: the end
    assert targets(11, 12, deals) == {"p": 9, "b": 10, "n": None, "d": None}
    assert targets(0, 1, [0]) == {"p": None, "b": None, "n": None, "d": None}


def test_custom_ids_fit_and_are_refused_when_malformed():
    assert len(step_id(10**19 - 1, 999_999, "d")) <= 100
    assert open_id(table_id="0123456789abcdef") == "ct:replay:t0123456789abcdef"
    assert open_id(game_id=42) == "ct:replay:42"
    with pytest.raises(ValueError):
        step_id(42, 3, "x")
    for bad in ("ct:replay:", "ct:replay:tXYZ", "ct:replay:1:2:x", "ct:replay:1:2"):
        assert not re.fullmatch(OPEN_TEMPLATE, bad) and not re.fullmatch(STEP_TEMPLATE, bad)


@pytest.mark.parametrize(("item", "text"), [
    (ReplayButton, open_id(table_id="abcd1234")), (ReplayButton, open_id(game_id=7)),
    (StepButton, step_id(7, 12, "n"))])
def test_each_replay_id_is_claimed_by_exactly_its_own_component(item, text):
    matching = [cls for cls in components.DYNAMIC_ITEMS
                if re.fullmatch(cls.__discord_ui_compiled_template__, text)]
    assert matching == [item]
