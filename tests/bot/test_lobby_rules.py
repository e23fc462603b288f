"""The lobby's seat limits and the host's controls, without Discord: who may remove whom,
which option changes fit the players seated, and options shown in words."""

from __future__ import annotations

import json
import random

import pytest

from bot.actions import host_controls
from bot.features.rematch import next_table
from bot.table.seats import fresh_seats
from bot.table.state import Table, TableError
from bot.ui import lobby_controls
from cogs.attackjack import AttackJackUI
from cogs.california_jack import CaliforniaJackUI
from cogs.jacko import JackoUI
from cogs.jazz import JazzUI
from engine.core import Game
from engine.jazz import Jazz
from tests.bot.test_tables import HOST, lobby


def snapshot(table: Table) -> str:
    return json.dumps(table.to_data(), sort_keys=True)


def test_a_norwegian_lobby_refuses_a_sixth_seat_naming_the_limit():
    table = lobby(5, norwegian=True)
    assert table.seat_range == (3, 5) and table.count_fits
    assert table.player_range() == "3 to 5"
    before = snapshot(table)
    with pytest.raises(TableError, match="With the options chosen, Jazz seats at most 5"):
        table.join(HOST + 9, "late", 1.0)
    with pytest.raises(TableError, match="With the options chosen, Jazz seats at most 5"):
        table.add_ai(HOST, "easy", 1.0)
    assert snapshot(table) == before


def test_a_plain_jazz_lobby_still_seats_seven():
    table = lobby(7)
    assert table.seat_range == (3, 7) and table.player_range() == "3 to 7"
    with pytest.raises(TableError, match="The table is full: Jazz is for at most 7 players"):
        table.join(HOST + 9, "late", 1.0)


def test_the_host_removes_people_and_ai_seats_and_nobody_else_does():
    table = lobby(3)
    table.add_ai(HOST, "easy", 1.0)
    before = snapshot(table)
    with pytest.raises(TableError, match="Only the host"):
        host_controls.remove_player(table, HOST + 1, HOST + 2, 2.0)
    with pytest.raises(TableError, match="press Leave"):
        host_controls.remove_player(table, HOST, HOST, 2.0)
    with pytest.raises(TableError, match="no longer seated"):
        host_controls.remove_player(table, HOST, 4242, 2.0)
    assert snapshot(table) == before
    step = table.step
    ai = table.seats[-1].user_id
    host_controls.remove_player(table, HOST, ai, 2.0)
    host_controls.remove_player(table, HOST, HOST + 1, 3.0)
    assert [s.user_id for s in table.seats] == [HOST, HOST + 2]
    assert table.step == step + 2 and table.last_activity == 3.0
    assert table.lines[-1] == "p0 removed p1 from the table."


def test_a_removed_player_cannot_join_that_lobby_again_whoever_hosts_it():
    table = lobby(3)
    table.add_ai(HOST, "easy", 1.0)
    host_controls.remove_player(table, HOST, HOST + 1, 2.0)
    host_controls.remove_player(table, HOST, table.seats[-1].user_id, 2.0)
    assert table.removed == [HOST + 1]  # a person; a removed AI seat is simply gone
    before = snapshot(table)
    with pytest.raises(TableError) as refused:
        table.join(HOST + 1, "p1", 3.0)
    assert str(refused.value) == ("The host removed you from this table, so you cannot join "
                                  "it again.")
    assert snapshot(table) == before
    table.join(HOST + 5, "newcomer", 3.0)  # anybody else still joins
    table.add_ai(HOST, "easy", 3.0)  # and the host may seat another AI player
    # Kept in the snapshot: a restart does not let them back in; an older snapshot loads.
    data = json.loads(json.dumps(table.to_data()))
    back = Table.from_data(data, Jazz, version=1)
    assert back.removed == [HOST + 1]
    with pytest.raises(TableError, match="removed you"):
        back.join(HOST + 1, "p1", 4.0)
    older = Table.from_data({k: v for k, v in data.items() if k != "removed"}, Jazz, 1)
    assert older.removed == []
    # The host leaving hands the lobby on; the removal stands.
    table.leave(HOST, 5.0)
    assert table.host_id == HOST + 2
    with pytest.raises(TableError, match="removed you"):
        table.join(HOST + 1, "p1", 6.0)
    # A table that follows this one (a rematch, a series' next deal) removes nobody.
    assert next_table(table, fresh_seats(table.seats), 7.0).removed == []


def test_a_removal_put_back_by_a_failed_step_lets_them_join():
    table = lobby(3)
    kept = table.clone()
    host_controls.remove_player(table, HOST, HOST + 1, 2.0)
    table.restore(kept)  # the step kernel's roll back (a failed save)
    assert table.removed == [] and kept.removed == []
    table.leave(HOST + 1, 3.0)
    table.join(HOST + 1, "p1", 4.0)


def test_an_option_change_is_checked_like_the_start_command():
    table = lobby(6)
    before = snapshot(table)
    with pytest.raises(TableError, match="must be at least 0"):
        host_controls.set_option(table, HOST, "sevens_bonus", -5, 1.0)
    with pytest.raises(TableError, match="must be true or false"):
        host_controls.set_option(table, HOST, "norwegian", 1, 1.0)
    with pytest.raises(TableError, match="at most 5 players and 6 are seated"):
        host_controls.set_option(table, HOST, "norwegian", True, 1.0)
    with pytest.raises(TableError, match="Only the host"):
        host_controls.set_option(table, HOST + 1, "sevens_bonus", 80, 1.0)
    assert snapshot(table) == before
    assert not host_controls.set_option(table, HOST, "sevens_bonus", 10, 1.0)  # the same
    assert host_controls.set_option(table, HOST, "sevens_bonus", 80, 2.0)
    assert table.options.sevens_bonus == 80 and table.step == json.loads(before)["step"] + 1
    assert table.lines[-1] == "p0 set Sevens bonus to 80."


def test_menu_values_are_within_the_bounds_and_keep_the_current_one():
    bonus = next(f for f in Jazz.OPTIONS.__dataclass_fields__.values()
                 if f.name == "sevens_bonus")
    assert lobby_controls.menu_values(bonus, 37) == [0, 5, 10, 20, 37, 40, 80, 100]
    assert host_controls.decode(bonus, "80") == 80
    with pytest.raises(TableError):
        host_controls.decode(bonus, "eighty")


def test_a_lobby_saved_before_the_bounds_loads_and_is_refused_at_start():
    table = lobby(3)
    data = table.to_data()
    data["options"]["sevens_bonus"] = -5  # accepted by an older version of the bot
    old = Table.from_data(data, Jazz, version=1)
    assert old.options.sevens_bonus == -5
    with pytest.raises(TableError, match="'sevens_bonus' must be at least 0"):
        old.start(HOST, 5.0)
    assert old.game is None


@pytest.mark.parametrize(("ui", "lines"), [
    (JazzUI, ["Sevens bonus: 10", "Norwegian variant: off", "Play every trick: off"]),
    (JackoUI, ["Target: 121", "Open hands: on"]),
    (CaliforniaJackUI, ["Target: 10", "Scoring: most trick points",
                        "Trump instead of following: off"]),
    (AttackJackUI, ["Blind card: off", "Stake: 0", "Standing allowed: off"]),
])
def test_the_lobby_shows_every_option_in_words(ui, lines):
    game = ui()
    engine: type[Game] = game.ENGINE
    table = Table(table_id="abcd1234", game_id=engine.GAME_ID, engine=engine, guild_id=1,
                  channel_id=2, host_id=HOST, created_at=0.0, options=engine.OPTIONS(),
                  rng=random.Random(1))
    shown = game.options_text(table).splitlines()
    assert shown[:-2] == lines and shown[-2] == "Hands: by DM"
    assert shown[-1].startswith("Turn timer: 5 min")
    rules = game.rules_text(None)
    assert all(line in rules for line in lines)
    for name in engine.OPTIONS.__dataclass_fields__:
        assert name not in game.options_text(table) and f"`{name}`" not in rules
