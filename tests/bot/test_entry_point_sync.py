"""The global command sync keeps the Activity's Entry Point command (bot.app.commandsync).

Discord makes an Entry Point command (type 4) when an application's Activity is switched
on; discord.py's ``tree.sync()`` sends only the tree's commands, and Discord refuses a
bulk overwrite that leaves the Entry Point out (400, 50240). On the fake Discord, which
refuses it the same way.
"""

from __future__ import annotations

from pathlib import Path

import discord
import pytest
from discord import app_commands

from bot.app.client import CardTableBot
from bot.app.commandsync import sync_global
from testkit.fakediscord import FakeDiscord
from testkit.harness import make_bot
from testkit.tables import ALL_GAMES

GLOBAL_PUT = "PUT /applications/{application_id}/commands"
GLOBAL_GET = "GET /applications/{application_id}/commands"
JAZZ_AND_HELP = {"cogs.help": None, "cogs.jazz": "jazz"}


def by_name(fake: FakeDiscord) -> dict[str, dict]:
    return {c["name"]: c for c in fake.world.commands[None]}


async def started(fake: FakeDiscord, path: Path, extensions: dict[str, str | None]
                  ) -> CardTableBot:
    bot = await make_bot(path, extensions=extensions)
    async with fake.running(bot):
        pass
    await bot.store.close()
    return bot


async def test_our_commands_are_updated_and_the_entry_point_stays(
        fake_discord: FakeDiscord, tmp_path: Path) -> None:
    fake = fake_discord
    entry = fake.enable_activities()
    assert entry is not None and entry["type"] == 4 and entry["handler"] == 2
    db = tmp_path / "db.sqlite"
    first = await started(fake, db, JAZZ_AND_HELP)
    assert first.synced and fake.syncs == 1
    commands = by_name(fake)
    assert set(commands) == {"help", "jazz", "launch"}
    launch = commands["launch"]
    assert (launch["id"], launch["type"], launch["handler"]) == (entry["id"], 4, 2)
    assert launch["description"] == entry["description"]
    assert launch["contexts"] == entry["contexts"]
    assert launch["integration_types"] == entry["integration_types"]
    [put] = [c for c in fake.calls if c.route == GLOBAL_PUT]
    sent = {c["name"]: c for c in put.body}
    assert set(sent["launch"]) >= {"id", "name", "type", "handler", "description"}
    assert not set(sent["launch"]) & {"application_id", "version"}

    jazz_id = commands["jazz"]["id"]
    more = await started(fake, db, ALL_GAMES)  # the tree changed: synced again
    assert more.synced and fake.syncs == 2
    commands = by_name(fake)
    assert set(commands) == {"help", "jazz", "jacko", "californiajack", "attackjack",
                             "launch"}
    assert commands["launch"]["id"] == entry["id"] and commands["jazz"]["id"] == jazz_id
    assert [c for c in commands.values() if c["type"] == 4] == [commands["launch"]]
    assert fake.errors == []

    again = await started(fake, db, ALL_GAMES)  # the same tree: nothing sent, nothing read
    assert not again.synced and fake.syncs == 2
    assert len([c for c in fake.calls if c.route == GLOBAL_GET]) == 2


async def test_without_an_entry_point_the_sync_sends_our_commands_alone(
        fake_discord: FakeDiscord, tmp_path: Path) -> None:
    fake = fake_discord
    fake.enable_activities(entry_point=False)
    bot = await started(fake, tmp_path / "db.sqlite", JAZZ_AND_HELP)
    assert bot.synced and fake.syncs == 1
    [put] = [c for c in fake.calls if c.route == GLOBAL_PUT]
    assert sorted(c["name"] for c in put.body) == ["help", "jazz"]
    assert all(c.get("type", 1) == 1 for c in put.body)
    assert set(by_name(fake)) == {"help", "jazz"}
    assert fake.errors == []


class Plain(discord.Client):
    """discord.py alone, its tree empty until the test adds a command."""

    def __init__(self) -> None:
        super().__init__(intents=discord.Intents.none())
        self.tree = app_commands.CommandTree(self)


@app_commands.command(name="play", description="play a game")
async def play(interaction: discord.Interaction) -> None:
    await interaction.response.launch_activity()


async def test_discord_py_alone_is_refused_with_50240_by_the_fake(
        fake_discord: FakeDiscord) -> None:
    """What ``sync_global`` is for: a plain ``tree.sync()`` drops the Entry Point."""
    fake = fake_discord
    entry = fake.enable_activities()
    bot = Plain()
    async with fake.running(bot):
        bot.tree.add_command(play)
        with pytest.raises(discord.HTTPException) as refused:
            await bot.tree.sync()
        assert refused.value.status == 400 and refused.value.code == 50240
        [violation] = fake.take_violations()
        assert "Entry Point" in violation.detail
        assert by_name(fake) == {"launch": entry}  # nothing changed
        await sync_global(bot.tree)  # ours: both
        assert set(by_name(fake)) == {"play", "launch"}
        assert by_name(fake)["launch"]["id"] == entry["id"]


@pytest.mark.parametrize("wrong", ["in a guild", "two of them", "a handler on a slash"])
async def test_the_fake_checks_entry_point_commands(fake_discord: FakeDiscord,
                                                    wrong: str) -> None:
    fake = fake_discord
    fake.enable_activities(entry_point=False)
    bot = Plain()
    async with fake.running(bot):
        app_id = fake.world.application_id
        entry = {"name": "launch", "type": 4, "handler": 2, "description": "Launch"}
        route = discord.http.Route("PUT", "/applications/{application_id}/commands",
                                   application_id=app_id)
        if wrong == "in a guild":
            route = discord.http.Route(
                "PUT", "/applications/{application_id}/guilds/{guild_id}/commands",
                application_id=app_id, guild_id=fake.world.guild.id)
            body = [entry]
        elif wrong == "two of them":
            body = [entry, {**entry, "name": "start"}]
        else:
            body = [{"name": "play", "type": 1, "handler": 2, "description": "Play"}]
        with pytest.raises(discord.HTTPException) as refused:
            await bot.http.request(route, json=body)
    assert refused.value.code == 50035
    [violation] = fake.take_violations()
    assert "50035" in violation.detail
