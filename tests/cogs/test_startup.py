"""Start-up: commands synced only when the tree changed; cogs of missing engines left out."""

from __future__ import annotations

import asyncio

from bot import client as client_module
from tests.cogs.harness import make_bot
from tests.cogs.test_commands import ALL


async def test_commands_are_synced_once_and_again_only_after_a_change(fake_discord, tmp_path):
    fake = fake_discord
    path = tmp_path / "db.sqlite"
    first = await make_bot(path, extensions=ALL)
    async with fake.running(first):
        assert first.synced and fake.syncs == 1
    names = {c["name"] for c in fake.world.commands[None]}
    assert names == {"help", "jazz", "jacko", "californiajack", "attackjack"}
    again = await make_bot(path, extensions=ALL)
    async with fake.running(again):
        assert not again.synced and fake.syncs == 1  # same tree: no sync on this boot
    fewer = await make_bot(path, extensions={"cogs.help": None, "cogs.jazz": "jazz"})
    async with fake.running(fewer):
        assert fewer.synced and fake.syncs == 2
    assert {c["name"] for c in fake.world.commands[None]} == {"help", "jazz"}


async def test_a_cog_whose_engine_is_missing_does_not_load(fake_discord, tmp_path, monkeypatch):
    fake = fake_discord
    monkeypatch.setattr(client_module, "available_games", lambda: ["jazz"])
    bot = await make_bot(tmp_path / "db.sqlite", extensions=ALL)
    async with fake.running(bot):
        assert set(bot.game_uis) == {"jazz"}
        assert "cogs.jacko" not in bot.extensions
    assert {c["name"] for c in fake.world.commands[None]} == {"help", "jazz"}


async def test_the_default_extension_list_loads_every_landed_game(fake_discord, tmp_path):
    fake = fake_discord
    bot = await make_bot(tmp_path / "db.sqlite", extensions=None)
    async with fake.running(bot):
        assert set(bot.game_uis) == set(client_module.available_games())
        assert bot.intents.value == bot.intents.default().value  # nothing privileged


async def test_python_m_bot_runs_a_table(fake_discord, tmp_path):
    fake = fake_discord
    alice = fake.add_user("alice")
    general = fake.channel("general")
    env = fake.subprocess_env()
    env.update({"DATABASE_PATH": str(tmp_path / "bot.db"), "LOG_LEVEL": "WARNING"})
    proc = await asyncio.create_subprocess_exec(
        *fake.subprocess_command("bot"), env=env, cwd=tmp_path,
        stdout=asyncio.subprocess.DEVNULL, stderr=asyncio.subprocess.DEVNULL)
    try:
        await fake.wait_for(lambda: fake.world.commands.get(None), timeout=30)
        await fake.wait_for(lambda: fake.gateway.live_sessions, timeout=30)
        ix = await fake.slash(alice, general, "jazz start")
        await ix.wait_answered()
        assert fake.find_message(general, label="Join") is not None
        assert (tmp_path / "bot.db").exists()
    finally:
        proc.kill()
        await proc.wait()
