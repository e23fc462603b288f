"""bot.features.hints without Discord: when a hint is allowed and offered, the checks of a click,
the mark it leaves on a table and its snapshot, the button in the hand's menu, and what
a hinted game changes in storage."""

from __future__ import annotations

import dataclasses
import json
import random
import re

import discord
import pytest

from bot.app import components
from bot.play.endings import finished_game
from bot.storage import SQLiteStorage, is_rated
from bot.storage.ratings import default_rating
from bot.table import hint_rules
from bot.table.state import StaleClick, Table, TableError
from bot.ui import buttons, feature_buttons, hint_text
from bot.ui.game_ui import GameUI
from engine import cards
from engine.core import action_code
from engine.jazz import Jazz
from tests.bot.test_storage import GUILD, finished
from tests.bot.test_tables import HOST, lobby


class JazzUI(GameUI):
    GAME_ID = "jazz"


def with_ai(table: Table) -> Table:
    table.add_ai(HOST, "normal", 0.0)
    return table


def playing(players: int = 3, ai: bool = False, allowed: bool = False) -> Table:
    table = lobby(players)
    if ai:
        with_ai(table)
    table.hints_allowed = allowed
    table.start(HOST, 10.0)
    table.run_automation("deal", 10.0)
    return table


def human_to_act(table: Table) -> int:
    """Play (as anyone) until a person is to act; their user id."""
    rng = random.Random(3)
    while table.seats[table.to_act].is_ai or table.automation() is not None:
        kind = table.automation()
        if kind in ("deal", "forced", "auto"):
            table.run_automation(kind, 0.0)
        else:
            table.apply(table.to_act, rng.choice(table.game.legal_actions()), 0.0)
    return table.seats[table.to_act].user_id


# ------------------------------------------------------------------ who may ask


@pytest.mark.parametrize(("people", "ai", "expected"), [
    (3, False, True), (2, True, False), (1, True, False), (1, False, False)])
def test_would_be_rated_is_what_storage_rates(people, ai, expected):
    table = lobby(people)
    if ai:
        with_ai(table)
    points = [(None if s.is_ai else s.user_id, 3) for s in table.seats]
    assert hint_rules.would_be_rated(table) == expected == is_rated(finished(points))


def test_hints_are_allowed_unrated_or_where_the_server_allows_them():
    assert not hint_rules.allowed(lobby(3))  # rated, the server keeps hints out (the default)
    assert hint_rules.allowed(with_ai(lobby(2)))  # an AI seat: not rated
    rated = lobby(3)
    rated.hints_allowed = True
    assert hint_rules.allowed(rated)


def test_the_button_is_offered_to_the_seat_to_act_only():
    table = playing(2, ai=True)
    user = human_to_act(table)
    seat = table.seated(user)
    assert hint_rules.offered(table, seat)
    assert not any(hint_rules.offered(table, s) for s in range(len(table.seats)) if s != seat)
    rated = playing(3)
    assert not any(hint_rules.offered(rated, s) for s in range(3))


def test_a_click_is_checked_like_a_move_and_changes_nothing():
    table = playing(2, ai=True)
    user = human_to_act(table)
    seat = table.seated(user)
    assert hint_rules.check_hint(table, user, table.step) == seat
    before = table.to_data()
    with pytest.raises(StaleClick, match="out of date"):
        hint_rules.check_hint(table, user, table.step - 1)
    with pytest.raises(TableError, match="not seated"):
        hint_rules.check_hint(table, 999, table.step)
    other = next(s.user_id for s in table.seats if s.user_id != user and not s.is_ai)
    with pytest.raises(TableError, match="not your turn"):
        hint_rules.check_hint(table, other, table.step)
    assert table.to_data() == before
    with pytest.raises(TableError, match="not started"):
        hint_rules.check_hint(with_ai(lobby(2)), HOST, 0)


def test_a_rated_table_refuses_a_hint_even_on_its_turn():
    table = playing(3)
    user = table.seats[table.to_act].user_id
    with pytest.raises(TableError, match="Hints are not allowed at this table"):
        hint_rules.check_hint(table, user, table.step)


# ------------------------------------------------------------------ the mark


def test_the_mark_is_kept_once_per_seat_in_the_snapshot_without_a_step():
    table = playing(3, allowed=True)
    kept = table.clone()
    step = table.step
    hint_rules.mark(table, 1)
    hint_rules.mark(table, 1)
    hint_rules.mark(table, 0)
    assert table.hinted == [0, 1] and kept.hinted == []  # a clone keeps its own mark
    assert table.step == step  # nobody's menu went stale
    asked = [e for e in table.lines if "asked the AI for a hint" in e]
    assert len(asked) == 2 and "p1" in asked[0]
    data = json.loads(json.dumps(table.to_data()))
    assert Table.from_data(data, Jazz, version=0).hinted == [0, 1]
    del data["hinted"]  # a snapshot from before hints
    assert Table.from_data(data, Jazz, version=0).hinted == []


def test_a_hinted_game_is_recorded_as_such():
    table = playing(3, allowed=True)
    plain = finished_game(table, JazzUI(), completed=True, now=100.0)
    assert not plain.hinted and "hinted" not in plain.record
    assert plain.record == table.game.to_record()
    hint_rules.mark(table, 2)
    marked = finished_game(table, JazzUI(), completed=True, now=100.0)
    assert marked.hinted and marked.record["hinted"] == [2]
    assert {k: v for k, v in marked.record.items() if k != "hinted"} == plain.record


def test_the_final_result_says_hints_were_used():
    embed = discord.Embed(title="Jazz")
    hint_text.note_on_result(embed)
    assert "Hints were used" in embed.footer.text
    footed = discord.Embed(title="Jazz").set_footer(text="Table 1")
    hint_text.note_on_result(footed)
    assert footed.footer.text.startswith("Table 1\n💡")


async def test_a_hinted_game_counts_but_changes_no_rating(store: SQLiteStorage):
    result = [(7, 10), (8, 3)]
    await store.record_game(dataclasses.replace(finished(result), hinted=True))
    rows = {r.user_id: r for r in await store.leaderboard("jazz", GUILD)}
    assert {u: (r.games, r.wins, r.points) for u, r in rows.items()} == {
        7: (1, 1, 10), 8: (1, 0, 3)}
    prior = default_rating()
    assert all((r.mu, r.sigma) == (prior.mu, prior.sigma) for r in rows.values())
    (summary,) = await store.history(GUILD)
    assert not summary.rated
    await store.record_game(finished(result))  # the same game, without a hint
    rows = {r.user_id: r for r in await store.leaderboard("jazz", GUILD)}
    assert rows[7].mu > prior.mu > rows[8].mu and rows[7].games == 2


# ------------------------------------------------------------------ the button


def custom_ids_of(view: discord.ui.View | None) -> list[str]:
    assert view is not None
    return [str(getattr(item, "custom_id", "")) for item in view.children]


def test_the_hand_menu_gets_the_hint_button_only_when_asked():
    legal = ["2S", "3S", "pass"]
    assert not any(c.startswith("ct:hint:") for c in custom_ids_of(
        buttons.hand_view("abcd1234", 4, legal)))
    ids = custom_ids_of(buttons.hand_view("abcd1234", 4, legal, hint=True))
    assert "ct:hint:abcd1234:4" in ids
    assert buttons.hand_view("abcd1234", 4, [], hint=True) is None  # no menu, no hint


def test_the_hint_button_needs_a_row_with_room():
    every = [action_code(c) for c in (*cards.DECK, cards.JOKER)]  # five selects: no room
    full = buttons.hand_view("abcd1234", 4, every, hint=True)
    assert len(full.children) == buttons.MAX_ROWS
    assert not any(c.startswith("ct:hint:") for c in custom_ids_of(full))
    with_keyword = buttons.hand_view("abcd1234", 4, [*every[:52], "pass"], hint=True)
    assert "ct:hint:abcd1234:4" in custom_ids_of(with_keyword)  # beside the Pass button


def test_the_hint_id_is_checked_and_claimed_by_the_hint_button_only():
    assert feature_buttons.hint_id("abcd1234", 12) == "ct:hint:abcd1234:12"
    with pytest.raises(ValueError):
        feature_buttons.hint_id("not-hex", 1)
    claiming = [cls for cls in components.DYNAMIC_ITEMS
                if re.fullmatch(cls.__discord_ui_compiled_template__, "ct:hint:abcd1234:12")]
    assert claiming == [feature_buttons.HintButton]
