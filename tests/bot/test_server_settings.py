"""bot.config.server_settings: the settings of a server, their plain data, parsing; their storage;
the table fields they set."""

from __future__ import annotations

import json
import random
from typing import Any

import pytest

from bot.config import server_settings
from bot.config.server_settings import (
    MAX_CHANNELS,
    ServerSettings,
    SettingError,
    SettingsUnavailable,
    option_kinds,
    options_text,
    parse_options,
)
from bot.storage import Storage
from bot.table.durations import DAY
from bot.table.state import Table, TableError
from engine.core import OptionError
from engine.jacko import Jacko
from engine.jazz import Jazz

JAZZ = option_kinds(Jazz.OPTIONS)


def test_the_defaults_are_the_bots_behaviour_without_settings() -> None:
    s = ServerSettings()
    assert (s.language, s.turn_timer, s.ai_allowed, s.images, s.hints_allowed, s.channels,
            s.threads, s.house_rules) == (None, None, True, True, False, (), False, {})
    assert ServerSettings.from_data(None) == ServerSettings.from_data({}) == s
    assert s.allows_channel(5) and s.rules_for("jazz") == {}


def test_settings_survive_their_plain_data_as_json() -> None:
    s = ServerSettings(language="sv", turn_timer=2 * 3600, ai_allowed=False, images=False,
                       hints_allowed=True, channels=(11, 12), threads=True,
                       house_rules={"jazz": {"sevens_bonus": 20, "norwegian": True}})
    data = json.loads(json.dumps(s.to_data()))
    assert data["version"] == 1
    assert ServerSettings.from_data(data) == s


def test_an_unreadable_value_reads_back_as_its_default_and_the_rest_is_kept() -> None:
    data = {"language": "fr", "turn_timer": 5, "ai_allowed": "no", "images": False,
            "channels": [3, "4", True, 3, 5], "threads": 1,
            "house_rules": {"jazz": {"sevens_bonus": 20}, "jacko": [], "attackjack": {}},
            "unknown": 1}
    s = ServerSettings.from_data(data)
    assert (s.language, s.turn_timer, s.ai_allowed, s.images, s.threads) == (
        None, None, True, False, False)
    assert s.channels == (3, 5)
    assert s.house_rules == {"jazz": {"sevens_bonus": 20}}
    for timer, kept in ((0, 0), (60, 60), (14 * DAY, 14 * DAY), (14 * DAY + 1, None),
                        (True, None), (90.5, None)):
        assert ServerSettings.from_data({"turn_timer": timer}).turn_timer == kept, timer


def test_options_are_read_as_their_options_type() -> None:
    parsed = parse_options("sevens_bonus=20 norwegian=true play-out=off", JAZZ)
    assert parsed == {"sevens_bonus": 20, "norwegian": True, "play_out": False}
    assert Jazz.OPTIONS.from_dict(parsed).sevens_bonus == 20
    assert parse_options("sevens_bonus=20, norwegian=no", JAZZ) == {
        "sevens_bonus": 20, "norwegian": False}
    assert parse_options("", JAZZ) == {} and parse_options("   ", JAZZ) == {}
    assert options_text(parsed) == "sevens_bonus=20 norwegian=true play_out=false"


def test_a_value_of_the_wrong_type_is_kept_for_the_engine_to_refuse() -> None:
    for typed, reason in (("norwegian=maybe", "must be true or false"),
                          ("sevens_bonus=lots", "must be a whole number"),
                          ("colour=red", "There is no option called 'colour'")):
        parsed = parse_options(typed, JAZZ)
        with pytest.raises(OptionError, match=reason):
            Jazz.OPTIONS.from_dict(parsed)
    low = parse_options("target=0", option_kinds(Jacko.OPTIONS))
    assert low == {"target": 0}
    with pytest.raises(OptionError, match="must be at least 1"):
        Jacko.OPTIONS.from_dict(low)


@pytest.mark.parametrize(("typed", "reason"), [
    ("sevens_bonus", "name=value"), ("=20", "name=value"), ("sevens_bonus=", "name=value"),
    ("norwegian=true norwegian=false", "given twice")])
def test_options_not_written_as_name_value_are_refused(typed: str, reason: str) -> None:
    with pytest.raises(SettingError, match=reason):
        parse_options(typed, JAZZ)


def test_channels_are_added_once_removed_and_threads_follow_their_channel() -> None:
    s = ServerSettings().with_channel(7).with_channel(8).with_channel(7)
    assert s.channels == (7, 8)
    assert s.allows_channel(7) and not s.allows_channel(9)
    assert s.allows_channel(99, parent_id=8) and not s.allows_channel(99, parent_id=9)
    assert s.without_channel(7).channels == (8,) and s.without_channel(5) == s
    full = ServerSettings(channels=tuple(range(1, MAX_CHANNELS + 1)))
    with pytest.raises(SettingError, match=f"at most {MAX_CHANNELS}"):
        full.with_channel(1000)


def test_house_rules_are_set_per_game_and_cleared_by_none() -> None:
    s = ServerSettings().with_rules("jazz", {"sevens_bonus": 20}).with_rules(
        "jacko", {"target": 50})
    assert s.rules_for("jazz") == {"sevens_bonus": 20}
    cleared = s.with_rules("jazz", {})
    assert cleared.house_rules == {"jacko": {"target": 50}}
    assert s.rules_for("jazz") == {"sevens_bonus": 20}  # frozen: the old one is unchanged


class BrokenStore:
    async def server_settings(self, guild_id: int) -> dict[str, Any] | None:
        raise RuntimeError("the database is locked")


class OneStore:
    def __init__(self, data: dict[str, Any] | None) -> None:
        self.data, self.asked = data, []

    async def server_settings(self, guild_id: int) -> dict[str, Any] | None:
        self.asked.append(guild_id)
        return self.data


async def test_reading_refuses_when_storage_fails_and_never_lifts_the_restrictions(
        caplog) -> None:
    with pytest.raises(SettingsUnavailable):
        await server_settings.read(BrokenStore(), 5)
    assert "cannot read the settings of guild 5" in caplog.text
    store = OneStore({"threads": True})
    assert (await server_settings.read(store, 5)).threads and store.asked == [5]
    assert await server_settings.read(store, None) == ServerSettings() and store.asked == [5]
    assert await server_settings.read(OneStore(None), 5) == ServerSettings()  # never set


@pytest.mark.parametrize("data", [
    ["channels", 7], "ai_allowed=false",  # not an object
    {"channels": "7"}, {"channels": None}, {"channels": [7, "8"]}, {"channels": [True]},
    {"ai_allowed": "no"}, {"ai_allowed": 0}, {"images": None},
], ids=repr)
async def test_a_corrupt_row_is_refused_rather_than_read_as_no_restrictions(
        data: Any, caplog) -> None:
    with pytest.raises(SettingsUnavailable, match="corrupt"):
        await server_settings.read(OneStore(data), 5)
    assert "the settings of guild 5 are corrupt" in caplog.text


async def test_values_that_restrict_nothing_still_read_back_as_their_defaults() -> None:
    # (A language or a timer the bot no longer offers, odd house rules: not restrictions.)
    read = await server_settings.read(OneStore({
        "language": "fr", "turn_timer": 5, "threads": 1, "hints_allowed": "yes",
        "house_rules": [], "channels": [3], "ai_allowed": False}), 5)
    assert read == ServerSettings(channels=(3,), ai_allowed=False)


async def test_settings_are_stored_per_server_and_the_latest_wins(tmp_path) -> None:
    path = tmp_path / "settings.db"
    async with await Storage.open(path) as store:
        assert await store.server_settings(1) is None
        await store.save_server_settings(1, {"threads": True, "language": "sv"})
        await store.save_server_settings(2, {"images": False})
        await store.save_server_settings(1, {"threads": False, "name": "Kortklubben ♠"})
    async with await Storage.open(path) as store:
        assert await store.server_settings(1) == {"threads": False, "name": "Kortklubben ♠"}
        assert await store.server_settings(2) == {"images": False}
        assert await store.server_settings(3) is None


# ------------------------------------------------------------------ the table's fields


def table(**fields: Any) -> Table:
    made = Table(table_id="abcd1234", game_id="jazz", engine=Jazz, guild_id=1, channel_id=2,
                 host_id=100, created_at=0.0, options=Jazz.OPTIONS.from_dict({}),
                 rng=random.Random(1), **fields)
    made.join(100, "host", 0.0)
    return made


def test_a_table_refuses_ai_players_when_the_server_allows_none() -> None:
    closed = table(ai_allowed=False)
    with pytest.raises(TableError, match="does not allow AI players"):
        closed.add_ai(100, "normal", 1.0)
    assert len(closed.seats) == 1 and closed.step == 1
    open_ = table()
    open_.add_ai(100, "normal", 1.0)
    assert open_.seats[-1].is_ai


def test_the_servers_choices_are_kept_in_the_snapshot_and_old_ones_get_the_defaults() -> None:
    kept = table(ai_allowed=False, hints_allowed=False)
    data = json.loads(json.dumps(kept.to_data()))
    back = Table.from_data(data, Jazz, version=1)
    assert (back.ai_allowed, back.hints_allowed) == (False, False)
    old = {k: v for k, v in data.items() if k not in ("ai_allowed", "hints_allowed")}
    before = Table.from_data(old, Jazz, version=1)
    assert (before.ai_allowed, before.hints_allowed) == (True, False)
