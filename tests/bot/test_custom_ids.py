"""custom_id encoding: round trips, Discord's 100-character limit, and foreign ids."""

from __future__ import annotations

import re

import pytest
from hypothesis import given
from hypothesis import strategies as st

from bot.app import components
from bot.ui import buttons, custom_ids

TABLE_IDS = st.text("0123456789abcdef", min_size=6, max_size=16)
STEPS = st.integers(min_value=0, max_value=10**12 - 1)


@given(TABLE_IDS, STEPS, st.sampled_from(custom_ids.LOBBY_ACTIONS + custom_ids.AI_ACTIONS))
def test_lobby_ids_round_trip_within_the_limit(table, step, action):
    text = custom_ids.lobby(table, step, action)
    assert len(text) <= 100
    assert custom_ids.parse(text) == custom_ids.ComponentId("lobby", table, step, action)


@given(TABLE_IDS, STEPS, st.integers(0, 4), st.sampled_from(["AS", "TH", "JK", "pass", "stop"]))
def test_move_ids_round_trip(table, step, group, code):
    assert custom_ids.parse(custom_ids.play(table, step, group)) == \
        custom_ids.ComponentId("play", table, step, str(group))
    assert custom_ids.parse(custom_ids.act(table, step, code)) == \
        custom_ids.ComponentId("act", table, step, code)
    assert custom_ids.parse(custom_ids.hand(table, step)) == \
        custom_ids.ComponentId("hand", table, step, "")


@pytest.mark.parametrize("text", [
    "", "ct:lobby:abcd1234:1:dance", "ct:play:abcd1234:1:9", "ct:hand:ABCD1234:1",
    "ct:hand:abcd1234:-1", "other:hand:abcd1234:1", "ct:hand:abcd1234:1:extra",
    "ct:act:abcd1234:1:" + "x" * 6,
])
def test_ids_that_are_not_ours_parse_to_none(text):
    assert custom_ids.parse(text) is None


def test_building_a_bad_id_raises():
    with pytest.raises(ValueError):
        custom_ids.lobby("abcd1234", 1, "dance")
    with pytest.raises(ValueError):
        custom_ids.play("not-hex", 1, 0)


@pytest.mark.parametrize(("item", "text"), [
    (buttons.LobbyButton, custom_ids.lobby("abcd1234", 3, "join")),
    (buttons.HandButton, custom_ids.hand("abcd1234", 3)),
    (buttons.MoveSelect, custom_ids.play("abcd1234", 3, 1)),
    (buttons.ActButton, custom_ids.act("abcd1234", 3, "pass")),
])
def test_each_dynamic_item_claims_exactly_its_own_ids(item, text):
    # discord.py routes a click by fullmatch on the templates: exactly one must match.
    matching = [cls for cls in components.DYNAMIC_ITEMS
                if re.fullmatch(cls.__discord_ui_compiled_template__, text)]
    assert matching == [item]
