"""What follows a finished game, without Discord: the next table (bot.features.rematch), a series'
standings (bot.features.series), their snapshot fields, the timer of a waiting deal, and the one
table storage keeps by id whatever its status."""

from __future__ import annotations

import random
from pathlib import Path

import pytest

from bot.config.server_settings import ServerSettings
from bot.features.rematch import next_table
from bot.features.series import counted
from bot.storage import CorruptTable, Storage, TableRow
from bot.table.seats import Seat, fresh_seats
from bot.table.state import FINISHED, LOBBY, PLAYING, Table
from bot.table.timers import next_due
from bot.ui.feature_buttons import end_series_id, rematch_id
from tests.bot.test_storage import raw
from tests.bot.test_tables import HOST, started


def finished_game() -> Table:
    table = started(3, sevens_bonus=80)
    table.hands_mode, table.images, table.language, table.turn_timer = "channel", False, "sv", 420.0
    table.seats[1].away = table.seats[1].left = True
    table.seats[2].expiries = 2
    table.posts.dm_channels[HOST] = 555
    table.posts.dm_closed.add(HOST + 2)
    table.posts.message_id = 999
    table.status = FINISHED
    return table


def test_the_next_table_keeps_every_setting_and_starts_the_game_afresh() -> None:
    old = finished_game()
    old.hinted, old.nudged_at = [1], 45.0  # a hint asked, a nudge sent in the last game
    new = next_table(old, fresh_seats(old.seats), 50.0, random.Random(2))
    assert new.table_id != old.table_id and new.follows == old.table_id
    assert (new.hinted, new.nudged_at) == ([], None)
    assert (new.options, new.hands_mode, new.images, new.language, new.turn_timer) == (
        old.options, "channel", False, "sv", 420.0)
    assert (new.guild_id, new.channel_id, new.host_id) == (old.guild_id, old.channel_id, HOST)
    assert (new.status, new.version, new.step, new.game, new.lines) == (LOBBY, 0, 0, None, [])
    assert (new.created_at, new.last_activity, new.started_at) == (50.0, 50.0, None)
    # The same people in the same order, with nothing of the last game.
    assert [(s.user_id, s.name) for s in new.seats] == [(s.user_id, s.name) for s in old.seats]
    assert not any(s.away or s.left or s.expiries for s in new.seats)
    assert old.seats[1].left  # the finished table is left as it was
    # Where the DMs are is still true; the table message is the new table's own.
    assert new.posts.dm_channels == {HOST: 555} and new.posts.dm_closed == {HOST + 2}
    assert new.posts.message_id is None and new.posts is not old.posts
    assert new.rng is not old.rng
    new.start(HOST, 60.0)  # and it starts like any lobby
    assert new.status == PLAYING


def test_the_next_table_seats_ai_players_and_hands_the_host_on() -> None:
    old = finished_game()
    old.seats.append(Seat(-1, "Normal AI", ai="normal"))
    seats = fresh_seats(old.seats[1:])  # the host does not play on
    new = next_table(old, seats, 50.0, series_id="s1", series_deal=2)
    assert new.host_id == HOST + 1 and [s.ai for s in new.seats] == [None, None, "normal"]
    assert (new.series_id, new.series_deal) == ("s1", 2)


def test_the_next_table_under_the_servers_settings_now_keeps_only_the_tables_own_choices(
        ) -> None:
    old = finished_game()  # pictures off, Swedish, a 7-minute timer, channel hands
    old.images, old.hints_allowed = True, False
    old.seats.append(Seat(-1, "Normal AI", ai="normal"))
    now = ServerSettings(ai_allowed=False, hints_allowed=True, images=False, language="da",
                         turn_timer=3600, house_rules={"jazz": {"sevens_bonus": 20}})
    new = next_table(old, fresh_seats(old.seats), 50.0, settings=now)
    # Server policy, as it is now: no AI seat, hints in rated games, no pictures.
    assert [s.user_id for s in new.seats] == [s.user_id for s in old.seats[:3]]
    assert (new.ai_allowed, new.hints_allowed, new.images) == (False, True, False)
    # The table's own choices stay: options, hands mode, timer, language.
    assert (new.options, new.hands_mode, new.turn_timer, new.language) == (
        old.options, "channel", 420.0, "sv")
    assert new.options.sevens_bonus == 80
    # A server that turns pictures on does not turn on a table that chose none; AI seats
    # allowed again are kept, and the server's no to hints in rated games is followed.
    old.images, old.ai_allowed, old.hints_allowed = False, False, True
    again = next_table(old, fresh_seats(old.seats), 60.0, settings=ServerSettings())
    assert (again.images, again.ai_allowed, again.hints_allowed) == (False, True, False)
    assert [s.ai for s in again.seats] == [None, None, None, "normal"]
    # Without the settings (a caller that did not read them): all as the old table had it.
    kept = next_table(old, fresh_seats(old.seats), 70.0)
    assert (kept.images, kept.ai_allowed, kept.hints_allowed) == (False, False, True)
    assert len(kept.seats) == 4


def test_the_series_fields_are_in_the_snapshot_and_old_snapshots_load() -> None:
    table = finished_game()
    table.series_id, table.series_deal, table.series_over = "abcd1234", 3, True
    table.series_totals, table.series_start_at, table.follows = [[HOST, "p0", 5, None]], 7.0, "f"
    data = table.to_data()
    back = Table.from_data(data, table.engine, table.version)
    assert (back.series_id, back.series_deal, back.series_over, back.series_totals,
            back.series_start_at, back.follows) == ("abcd1234", 3, True,
                                                    [[HOST, "p0", 5, None]], 7.0, "f")
    old = {k: v for k, v in data.items() if not k.startswith("series_") and k != "follows"}
    before = Table.from_data(old, table.engine, table.version)
    assert (before.series_id, before.series_deal, before.series_totals, before.follows,
            before.series_start_at, before.series_over) == (None, 0, [], None, None, False)


def test_standings_add_each_deal_per_player_in_a_new_list() -> None:
    seats = [Seat(1, "Ann"), Seat(2, "Bo"), Seat(-1, "Easy AI", ai="easy")]
    after_one = counted([], seats, [20, -10, -10])
    assert after_one == [[1, "Ann", 20, None], [2, "Bo", -10, None], [-1, "Easy AI", -10, "easy"]]
    after_two = counted(after_one, [seats[1], seats[0]], [5, -5])  # the AI sat out
    assert after_two == [[1, "Ann", 15, None], [2, "Bo", -5, None],
                         [-1, "Easy AI", -10, "easy"]]
    assert after_one[0][2] == 20  # never changed in place (a clone shares the list)
    with pytest.raises(ValueError):
        counted([], seats, [1, 2])


def test_a_waiting_deal_is_due_at_its_start_and_a_lobby_otherwise() -> None:
    table = finished_game()
    waiting = next_table(table, fresh_seats(table.seats), 50.0)
    assert next_due(waiting) == (50.0 + waiting.lobby_idle, "lobby")
    waiting.series_start_at = 58.0
    assert next_due(waiting) == (58.0, "series")


def test_the_custom_ids_fit_and_refuse_what_is_not_a_table_id() -> None:
    assert rematch_id("abcd1234") == "ct:rematch:abcd1234"
    assert end_series_id("abcd1234") == "ct:endseries:abcd1234"
    for bad in ("", "ABCD1234", "a" * 17, "abc:1"):
        with pytest.raises(ValueError):
            rematch_id(bad)
        with pytest.raises(ValueError):
            end_series_id(bad)


async def test_storage_loads_one_table_by_id_whatever_its_status(tmp_path: Path) -> None:
    path = tmp_path / "db.sqlite"
    async with await Storage.open(path) as store:
        await store.create_table(TableRow("t1", 1, 10, "jazz", data={"n": 1}))
        await store.save_table("t1", "playing", {"n": 2}, 0)
        await store.close_table("t1", "finished")
        await store.create_table(TableRow("t2", 1, 10, "jacko", data={"n": 3}))
        first, second = await store.load_table("t1"), await store.load_table("t2")
        assert isinstance(first, TableRow) and isinstance(second, TableRow)
        assert (first.status, first.version, first.data, first.game) == ("finished", 2,
                                                                          {"n": 2}, "jazz")
        assert (second.status, second.data) == ("lobby", {"n": 3})
        assert await store.load_table("ghost") is None
        raw(path, "UPDATE live_tables SET data = '{\"broken' WHERE table_id = 't1'")
        broken = await store.load_table("t1")
        assert isinstance(broken, CorruptTable) and broken.table_id == "t1"
