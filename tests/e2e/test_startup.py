"""Start-up: commands synced only when the tree changed, and cleared in a former dev
server; cogs of missing engines left out; a start that fails says why in a sentence;
the ready line; no voice warnings."""

from __future__ import annotations

import asyncio
import dataclasses
import json
import logging
import random
import re
import socket
from typing import Any
from urllib.parse import parse_qs, urlsplit

import discord
import pytest
from discord.voice_client import VoiceClient

from bot.app import client as client_module
from bot.app import lifecycle
from testkit.fakediscord import FakeMessage
from testkit.harness import make_bot
from testkit.processes import READY, BotProcess, Players, open_jazz, run_to_exit
from testkit.tables import ALL_GAMES


async def test_commands_are_synced_once_and_again_only_after_a_change(fake, new_bot):
    first = await new_bot(extensions=ALL_GAMES)
    async with fake.running(first):
        assert first.synced and fake.syncs == 1
    names = {c["name"] for c in fake.world.commands[None]}
    assert names == {"help", "jazz", "jacko", "californiajack", "attackjack"}
    again = await new_bot(extensions=ALL_GAMES)
    async with fake.running(again):
        assert not again.synced and fake.syncs == 1  # same tree: no sync on this boot
    fewer = await new_bot(extensions={"cogs.help": None, "cogs.jazz": "jazz"})
    async with fake.running(fewer):
        assert fewer.synced and fake.syncs == 2
    assert {c["name"] for c in fake.world.commands[None]} == {"help", "jazz"}


async def test_a_cog_whose_engine_is_missing_does_not_load(fake, monkeypatch, new_bot):
    monkeypatch.setattr(client_module, "available_games", lambda: ["jazz"])
    bot = await new_bot(extensions=ALL_GAMES)
    async with fake.running(bot):
        assert set(bot.game_uis) == {"jazz"}
        assert "cogs.jacko" not in bot.extensions
    assert {c["name"] for c in fake.world.commands[None]} == {"help", "jazz"}


async def test_the_default_extension_list_loads_every_landed_game(fake, run_bot):
    bot = await run_bot(extensions=None)
    assert set(bot.game_uis) == set(client_module.available_games())
    # Only the guilds' events: no privileged intent, and no chat message, reaction or
    # typing event (nor the bot's own table messages) sent to it to parse and cache.
    assert bot.intents == discord.Intents(guilds=True)
    assert bot._connection.max_messages is None


@pytest.mark.slow
async def test_python_m_bot_runs_a_table(fake, alice, general, tmp_path):
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


# ------------------------------------------------------------------ failing to start


def one_or_two_sentences(text: str) -> bool:
    return 1 <= len(re.findall(r"[.!?](?:\s|$)", text)) <= 2


@pytest.mark.slow
async def test_python_m_bot_with_a_token_discord_refuses_says_so(fake_discord, tmp_path):
    exited = await run_to_exit(fake_discord, tmp_path, DISCORD_TOKEN="not-the-token")
    assert exited.status == 2  # as a bad setting: starting again does not help
    assert "Traceback" not in exited.stderr
    [sentence] = [line for line in exited.stderr.splitlines() if "DISCORD_TOKEN" in line]
    assert sentence.startswith("Discord refused the token (DISCORD_TOKEN)")
    assert "Developer Portal" in sentence and one_or_two_sentences(sentence)
    assert not (tmp_path / "bot.db").exists()  # it stopped before it opened anything


_HELD: list[socket.socket] = []  # the sockets of closed_port(), bound until the worker exits


def closed_port() -> int:
    """A port where a connection is refused: bound here, never listening, and kept bound,
    so that no other test (another xdist worker's server) can take it meanwhile."""
    sock = socket.socket()
    sock.bind(("127.0.0.1", 0))
    _HELD.append(sock)
    return sock.getsockname()[1]


@pytest.mark.slow
@pytest.mark.parametrize("where, reason", [
    ("closed port", "Connection refused"),
    ("unknown host", ""),  # the resolver's words differ between systems
])
async def test_python_m_bot_without_network_says_so(fake_discord, tmp_path, where, reason):
    url = (f"http://127.0.0.1:{closed_port()}" if where == "closed port"
           else "http://discord.invalid")  # .invalid never resolves (RFC 2606)
    exited = await run_to_exit(fake_discord, tmp_path, FAKEDISCORD_URL=url)
    assert exited.status == 1  # it may pass by itself: a supervisor may start it again
    assert "Traceback" not in exited.stderr
    [sentence] = [line for line in exited.stderr.splitlines()
                  if line.startswith("Cannot reach Discord")]
    host = urlsplit(url).hostname
    assert f"({host}:" in sentence and reason in sentence
    assert "check the network" in sentence and one_or_two_sentences(sentence)


@pytest.mark.slow
@pytest.mark.parametrize(("written", "pieces"), [
    ("secret", ["secret"]),
    ("zx9w%23kq7v%2Fpw4t", ["zx9w", "kq7v", "pw4t"]),  # zx9w#kq7v/pw4t, percent-encoded
    ("1234%2Fzx9w%23kq7v", ["1234", "zx9w", "kq7v"]),
])
async def test_python_m_bot_says_when_its_postgresql_cannot_be_reached(
        fake_discord, tmp_path, written, pieces):
    url = f"postgresql://cardtable:{written}@127.0.0.1:{closed_port()}/cardtable"
    # (LOG_LEVEL=DEBUG: the log holds the details, the error's traceback, before it.)
    exited = await run_to_exit(fake_discord, tmp_path, DATABASE_URL=url, LOG_LEVEL="DEBUG")
    assert exited.status == 1  # it may come back
    sentence = exited.stderr.rstrip().splitlines()[-1]  # the end: a sentence, no traceback
    assert sentence.startswith("The database cannot be opened")
    assert "Cannot connect to PostgreSQL at postgresql://cardtable@127.0.0.1:" in sentence
    assert not [p for p in [written, *pieces] if p in exited.stderr], \
        "the password stays out of the sentence and the log"
    assert "Check DATABASE_URL" in sentence


@pytest.mark.parametrize("password", ["zx9w#kq7v/pw4t", "1234/zx9w#kq7v", "zx9w?kq7v@pw4t"])
async def test_python_m_bot_refuses_a_password_it_cannot_read_without_showing_it(
        fake_discord, tmp_path, password):
    url = f"postgresql://cardtable:{password}@127.0.0.1:{closed_port()}/cardtable"
    exited = await run_to_exit(fake_discord, tmp_path, DATABASE_URL=url)
    assert exited.status == 2 and "Traceback" not in exited.stderr  # a person must fix it
    assert exited.stderr.startswith("DATABASE_URL cannot be read")
    assert "# as %23" in exited.stderr and "/ as %2F" in exited.stderr
    assert not [p for p in [password, *re.split(r"[#/?@]", password)] if p in exited.stderr]


@pytest.mark.slow
async def test_python_m_bot_says_when_discord_has_a_server_error(fake_discord, tmp_path):
    fake_discord.fail_next("GET", "/users/@me", 503)  # the log-in's first request
    exited = await run_to_exit(fake_discord, tmp_path)
    assert exited.status == 1 and "Traceback" not in exited.stderr
    [sentence] = [line for line in exited.stderr.splitlines() if "server error" in line]
    assert sentence.startswith("Discord answered with a server error (503)")
    assert "discordstatus.com" in sentence and one_or_two_sentences(sentence)


@pytest.mark.slow
async def test_python_m_bot_without_the_commands_scope_says_how_to_invite_it(fake, tmp_path):
    guild = fake.world.guild.id
    # Discord's answer when the bot was invited without the applications.commands scope.
    fake.fail_next("PUT", "/applications/*/guilds/*/commands", 403, 50001,
                   message="Missing Access")
    exited = await run_to_exit(fake, tmp_path, DEV_GUILD_ID=str(guild))
    assert exited.status == 2
    assert "Traceback" not in exited.stderr
    [sentence] = [line for line in exited.stderr.splitlines() if "applications.commands" in line]
    assert sentence.startswith(
        f"Discord refused to register the slash commands in server {guild}")
    assert one_or_two_sentences(sentence.split(": http")[0] + ".")
    url = sentence.rsplit(" ", 1)[1]
    query = parse_qs(urlsplit(url).query)
    assert query["client_id"] == [str(fake.world.application_id)]
    assert query["scope"] == ["bot applications.commands"]
    assert query["guild_id"] == [str(guild)]
    assert int(query["permissions"][0]) == lifecycle.PERMISSIONS.value
    assert fake.world.commands.get(guild) is None  # nothing was registered


# ------------------------------------------------------------------ the former dev server


def names(commands: list[dict[str, Any]] | None) -> set[str]:
    return {c["name"] for c in commands or []}


async def dev_bot(path, guild_id: int | None):
    bot = await make_bot(path, extensions=ALL_GAMES)
    bot.settings = dataclasses.replace(bot.settings, dev_guild_id=guild_id)
    return bot


def guild_syncs(fake, since: int = 0) -> list[Any]:
    return [c for c in fake.calls_since(since)
            if c.route == "PUT /applications/{application_id}/guilds/{guild_id}/commands"]


async def test_the_commands_of_a_former_dev_server_are_cleared(fake, db_path):
    guild = fake.world.guild.id
    expected = {"help", "jazz", "jacko", "californiajack", "attackjack"}
    async with fake.running(await dev_bot(db_path, guild)):
        pass
    assert names(fake.world.commands[guild]) == expected
    assert names(fake.world.commands.get(None)) == set()

    async with fake.running(await dev_bot(db_path, None)):  # DEV_GUILD_ID unset
        pass
    assert fake.world.commands[guild] == []  # not twice in the test server
    assert names(fake.world.commands[None]) == expected

    mark = fake.mark()
    async with fake.running(await dev_bot(db_path, None)):
        pass
    assert guild_syncs(fake, mark) == []  # cleared once, then forgotten

    # Back to the dev server: its commands are synced again, not taken as unchanged.
    async with fake.running(await dev_bot(db_path, guild)):
        pass
    assert names(fake.world.commands[guild]) == expected


@pytest.mark.parametrize("status, code", [(403, 50001), (404, 10004)])
async def test_a_former_dev_server_the_bot_left_is_forgotten(fake, db_path, caplog, status, code):
    guild = fake.world.guild.id
    async with fake.running(await dev_bot(db_path, guild)):
        pass
    fake.fail_next("PUT", "/applications/*/guilds/*/commands", status, code)  # bot removed
    caplog.set_level(logging.WARNING, logger="bot.app.commandsync")
    async with fake.running(await dev_bot(db_path, None)) as bot:
        assert bot.is_ready()  # not fatal
    [warning] = [r for r in caplog.records if r.name == "bot.app.commandsync"]
    assert str(guild) in warning.getMessage() and str(status) in warning.getMessage()
    assert names(fake.world.commands[None]) == {"help", "jazz", "jacko", "californiajack",
                                                "attackjack"}
    mark = fake.mark()
    async with fake.running(await dev_bot(db_path, None)):
        pass
    assert guild_syncs(fake, mark) == []  # not tried again at every start


# ------------------------------------------------------------------ the ready line, voice


async def test_the_ready_line_is_logged_once_with_name_servers_and_invite(fake, caplog, new_bot):
    caplog.set_level(logging.INFO, logger="bot.app.lifecycle")
    bot = await new_bot(extensions={"cogs.help": None})
    readies = []

    async def count_ready():
        readies.append(1)

    bot.add_listener(count_ready, "on_ready")

    async def quick_identify(shard_id, *, initial=False):  # discord.py waits 5 s
        return None

    bot.before_identify_hook = quick_identify
    lifecycle.announce_ready(bot)
    async with fake.running(bot):
        await fake.wait_for(lambda: readies)
        fake.invalidate_sessions()  # a new session, as after a long outage: READY again
        await fake.drop_connections()
        await fake.wait_for(lambda: len(readies) == 2, timeout=5)
    lines = [r.getMessage() for r in caplog.records if r.name == "bot.app.lifecycle"
             and "is ready" in r.getMessage()]
    assert len(lines) == 1
    found = READY.fullmatch(lines[0])
    assert found is not None
    assert found[1] == fake.world.bot.name and found[2] == "1"
    query = parse_qs(urlsplit(found[3]).query)
    assert query["client_id"] == [str(fake.world.application_id)]
    assert query["scope"] == ["bot applications.commands"]
    assert int(query["permissions"][0]) == lifecycle.PERMISSIONS.value


def test_the_voice_warnings_are_silenced_and_other_warnings_are_not(monkeypatch, caplog):
    # As on a first import of discord.py without PyNaCl and davey.
    monkeypatch.setattr(VoiceClient, "warn_nacl", True)
    monkeypatch.setattr(VoiceClient, "warn_dave", True)
    lifecycle.quiet_voice_warnings()
    caplog.set_level(logging.WARNING)
    discord.Client(intents=discord.Intents.default())
    logging.getLogger("discord.client").warning("something else")
    assert [r.getMessage() for r in caplog.records] == ["something else"]


# ------------------------------------------------------------------ LOG_LEVEL=DEBUG


def texts_of(message: FakeMessage) -> list[str]:
    """What a message shows in words: its content and its embeds' texts, every version."""
    found: list[str] = []
    for version in message.versions:
        found.append(version.get("content") or "")
        for embed in version.get("embeds") or []:
            found += [embed.get("title") or "", embed.get("description") or ""]
            found += [f.get("value") or "" for f in embed.get("fields") or []]
    return [text for text in found if len(text) >= 12]  # long enough to be a hand


async def test_a_debug_log_shows_no_hand_and_no_interaction_token(
        fake, users, general, bot_process: BotProcess):
    """LOG_LEVEL=DEBUG logs the bot's DEBUG lines (and discord.py's others), but not
    discord.py's request bodies and URLs or gateway payloads: no DM hand, no interaction
    token, no menu's custom_id (each names a card of a hand)."""
    bot_process.environment["LOG_LEVEL"] = "DEBUG"
    await bot_process.start()
    await open_jazz(fake, general, users)
    players = Players(fake, general, users, random.Random(3))
    await players.play(4)  # from the DM hands: each click an interaction with its token
    await (await fake.click(users[0], fake.find_message(general, label="My hand"),
                            label="My hand")).wait_answered()  # a hand in an ephemeral
    await fake.settle()
    await bot_process.stop()
    log = bot_process.log.read_text(errors="replace")
    assert re.search(r" DEBUG +discord\.client: Dispatching event", log), "DEBUG is on"
    hands = [m for user in users for m in fake.dm(user).messages if m.components]
    hands += [m for m in general.ephemerals if m.components]
    dealt = (await bot_process.live_table(general.id))["game"]["deals"][0]["hands"]
    assert hands and fake.by_token and len(dealt) == 3
    leaks = [token for token in fake.by_token if token in log]
    leaks += [text for message in hands for text in texts_of(message) if text in log]
    leaks += [marker for marker in ("ct:play:", "ct:act:", "ct:hand:") if marker in log]
    # The saved table (each hand as dealt), as a statement's parameter would show it.
    leaks += [form for hand in dealt for form in (json.dumps(hand), json.dumps(hand)[1:-1]
                                                   .replace(" ", "")) if form in log]
    assert leaks == [], leaks[:3]
