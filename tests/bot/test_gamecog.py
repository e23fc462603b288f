"""/<game> start is built from each engine's OPTIONS: names, types, choices, bounds, help."""

from __future__ import annotations

import dataclasses

import pytest
from discord.ext import commands

from bot.app import game_cog
from bot.ui.game_ui import GameUI
from engine.registry import available_games, game_class

COGS = {"jazz": "cogs.jazz", "jacko": "cogs.jacko", "california_jack": "cogs.california_jack",
        "attackjack": "cogs.attackjack"}
TYPES = {bool: 5, int: 4, str: 3}  # Discord's option types


class FakeBot(commands.Bot):
    def __init__(self) -> None:
        import discord

        super().__init__(command_prefix="!", intents=discord.Intents.none())
        self.game_uis: dict[str, GameUI] = {}


def start_options(game_id: str) -> dict[str, dict]:
    module = __import__(COGS[game_id], fromlist=["setup"])
    cog_class = next(v for v in vars(module).values()
                     if isinstance(v, type) and issubclass(v, game_cog.GameCog)
                     and v is not game_cog.GameCog)
    bot = FakeBot()
    cog = cog_class(bot)
    payload = cog.group.to_dict(bot.tree)
    start = next(o for o in payload["options"] if o["name"] == "start")
    return {o["name"]: o for o in start["options"]}


@pytest.mark.parametrize("game_id", available_games())
def test_every_engine_option_is_a_command_option_with_its_rules(game_id):
    options = start_options(game_id)
    for f in dataclasses.fields(game_class(game_id).OPTIONS):
        got = options[f.name]
        assert got["type"] == TYPES[type(f.default)]
        assert not got["required"]
        assert 0 < len(got["description"]) <= 100
        assert "(default" in got["description"]
        meta = f.metadata
        if meta.get("choices"):
            assert [c["value"] for c in got["choices"]] == list(meta["choices"])
        if meta.get("minimum") is not None:
            assert got["min_value"] == meta["minimum"]
        if meta.get("maximum") is not None:
            assert got["max_value"] == meta["maximum"]


@pytest.mark.parametrize("game_id", available_games())
def test_every_start_has_the_table_options(game_id):
    options = start_options(game_id)
    assert [c["value"] for c in options["hands"]["choices"]] == ["dm", "channel"]
    # A duration in words (bot.table.durations): a string, checked by the bot, not by Discord.
    assert options["turn_timer"]["type"] == 3 and "min_value" not in options["turn_timer"]


def test_the_group_has_every_subcommand():
    bot = FakeBot()
    from cogs.jazz import JazzCog

    names = {c.name for c in JazzCog(bot).group.commands}
    assert names == {"start", "join", "leave", "hand", "stop", "rules", "status", "invite"}


def test_an_option_description_is_cut_to_100_with_its_default():
    @dataclasses.dataclass(frozen=True)
    class Long:
        wordy: int = dataclasses.field(default=3, metadata={"help": "w" * 150})

    text = game_cog.option_description(dataclasses.fields(Long)[0])
    assert len(text) == 100 and text.endswith("…")


async def test_a_cog_whose_engine_is_missing_is_not_added(monkeypatch):
    from cogs.jazz import JazzCog

    monkeypatch.setattr(game_cog, "available_games", lambda: ["jacko"])
    bot = FakeBot()
    await game_cog.add_game_cog(bot, JazzCog)
    assert bot.cogs == {} and bot.tree.get_command("jazz") is None
