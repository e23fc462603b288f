"""The bot as a real process on the fake Discord, and players who use only what they see.

``BotProcess`` runs ``python -m bot`` (through ``LAUNCHER``: production's entry point with
no visible pauses) against a ``FakeDiscord``; ``kill`` is a real SIGKILL. ``Players`` make
the moves the bot shows them (DM menus, the table's My hand button) and keep every move
the bot acknowledged. Used by the end-to-end tests (tests/e2e) and the shard benchmark.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import random
import re
import signal
import sqlite3
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import aiohttp
import asyncpg  # type: ignore[import-untyped]  # asyncpg ships no type information
import discord

from testkit.fakediscord import (
    FakeChannel,
    FakeDiscord,
    FakeDiscordError,
    FakeMessage,
    FakeUser,
    Interaction,
)
from testkit.harness import menu_choices
from testkit.pgcluster import free_port

MOVE_PREFIXES = ("ct:play:", "ct:act:")
BUSY_NOW = re.compile(r"^cardtable_busy (\d)$", re.MULTILINE)
# discord.py, the bot and the fake's patch are imported before the gateway connects.
START_TIMEOUT = 30.0
MENU_PATIENCE = 1.0  # seconds a player waits for their menu before pressing My hand
GIVE_UP = 60.0  # seconds with nobody able to move before a test calls the game stuck

# ``python -m bot`` as it runs in production, with one test setting the environment
# cannot give it yet: no visible pauses between the bot's own moves.
LAUNCHER = """
import dataclasses
import runpy

import bot.config.settings

FAST = bot.config.settings.Timing(pause=0, edit_interval=0, request_rate=1e9)
_load = bot.config.settings.load_settings
bot.config.settings.load_settings = lambda *a, **k: dataclasses.replace(_load(*a, **k), timing=FAST)
runpy.run_module("bot", run_name="__main__", alter_sys=True)
"""


# ------------------------------------------------------------------ the bot process


@dataclass
class BotProcess:
    """One ``python -m bot`` on the fake; ``kill`` is a real SIGKILL."""

    fake: FakeDiscord
    database: Path
    launcher: Path
    log: Path
    proc: asyncio.subprocess.Process | None = None
    starts: int = 0
    url: str | None = None  # DATABASE_URL: PostgreSQL instead of the SQLite file
    health_port: int | None = None  # its /healthz and /metrics, a fresh port each start
    environment: dict[str, str] = field(default_factory=dict)  # more settings (shards)

    async def start(self, wait: bool = True, retries: int = 3) -> None:
        env = self.fake.subprocess_env() | {"DATABASE_PATH": str(self.database),
                                            "LOG_LEVEL": "INFO"} | self.environment
        if self.url is not None:
            env["DATABASE_URL"] = self.url
        if "HEALTH_PORT" not in self.environment:
            self.health_port = free_port()
            env |= {"HEALTH_PORT": str(self.health_port), "HEALTH_HOST": "127.0.0.1"}
        self.starts += 1
        with self.log.open("a") as log:
            log.write(f"---- start {self.starts}\n")
            self.proc = await asyncio.create_subprocess_exec(
                *self.fake.subprocess_command(str(self.launcher)), env=env,
                stdout=log, stderr=log)
        if wait:
            try:
                await self.fake.wait_for(self._connected, timeout=START_TIMEOUT)
            except AssertionError:
                # The free port we chose was taken before the bot bound it (another
                # process on the machine): a new port, a new start.
                if not (retries and self._lost_its_port()):
                    raise
                await self.start(wait, retries - 1)

    def _lost_its_port(self) -> bool:
        return (self.proc is not None and self.proc.returncode is not None
                and "HEALTH_PORT" not in self.environment
                and "the health endpoint cannot listen on" in self.output()[-1500:])

    def _connected(self) -> bool:
        self.check_running()
        return bool(self.fake.gateway.live_sessions) and self.fake.syncs > 0

    async def idle(self, timeout: float = 60.0) -> None:
        """Wait until the bot process says it has nothing left to do: its /metrics'
        ``cardtable_busy`` is 0 (the tables restored and resumed, every step, bot move,
        table edit and save done). Asked of the bot, never guessed from a quiet spell:
        on a busy machine the bot can be silent for a while in the middle of its work.
        ``timeout`` only bounds a failing run."""
        assert self.health_port is not None, "the bot process runs no health endpoint"
        loop = asyncio.get_running_loop()
        deadline = loop.time() + timeout
        async with aiohttp.ClientSession() as http:
            while True:
                self.check_running()
                # Read at every look: a process started meanwhile has a port of its own.
                url = f"http://127.0.0.1:{self.health_port}/metrics"
                with contextlib.suppress(aiohttp.ClientError):
                    async with http.get(url) as response:
                        busy = BUSY_NOW.search(await response.text())
                    if busy is not None and busy[1] == "0":
                        return
                if loop.time() > deadline:
                    raise AssertionError(f"the bot was still busy after {timeout} s")
                await asyncio.sleep(0.02)

    def check_running(self) -> None:
        if self.proc is not None and self.proc.returncode is not None:
            raise AssertionError(f"the bot exited ({self.proc.returncode}):\n{self.output()}")

    async def kill(self, wait: bool = True) -> None:
        assert self.proc is not None
        self.proc.send_signal(signal.SIGKILL)
        assert await self.proc.wait() == -signal.SIGKILL
        if wait:
            await self.fake.wait_for(lambda: not self.fake.gateway.live_sessions, timeout=5)

    # What the database holds now, on either backend.

    async def live_table(self, channel_id: int) -> dict[str, Any]:
        if self.url is None:
            return live_table(self.database, channel_id)
        [row] = await pg_rows(self.url, "SELECT data FROM live_tables WHERE channel_id = $1"
                                        " AND status = 'playing'", channel_id)
        return json.loads(row["data"])

    async def stored_game(self, channel_id: int) -> tuple[int, dict[str, Any], list[int]]:
        if self.url is None:
            return stored_game(self.database, channel_id)
        [row] = await pg_rows(self.url, "SELECT game_id, record FROM games"
                                        " WHERE channel_id = $1", channel_id)
        seats = await pg_rows(self.url, "SELECT user_id FROM results WHERE game_id = $1"
                                        " ORDER BY seat", row["game_id"])
        return row["game_id"], json.loads(row["record"]), [r["user_id"] for r in seats]

    async def stop(self) -> None:
        if self.proc is not None and self.proc.returncode is None:
            self.proc.send_signal(signal.SIGKILL)
            await self.proc.wait()

    def output(self) -> str:
        return self.log.read_text(errors="replace")[-4000:]


async def pg_rows(url: str, sql: str, *params: Any) -> list[Any]:
    conn = await asyncpg.connect(url)
    try:
        return list(await conn.fetch(sql, *params))
    finally:
        await conn.close()


# ------------------------------------------------------------------ players


def step_of(custom_id: str) -> int:
    return int(custom_id.split(":")[3])


@dataclass
class Players:
    """Users who act only on what they see; every move the bot acknowledged is kept."""

    fake: FakeDiscord
    channel: FakeChannel
    users: list[FakeUser]
    rng: random.Random
    moves: list[tuple[int, str]] = field(default_factory=list)  # (user id, action code)
    last_step: int = -1
    asked: int = 0  # how often nobody had a menu and My hand was pressed instead

    def fresh_menu(self) -> tuple[FakeUser, FakeMessage] | None:
        """The newest move menu drawn after the last move, in anyone's DM or ephemerals."""
        best: tuple[int, int, FakeUser, FakeMessage] | None = None
        shown_here = self.channel.ephemerals[-12:]  # only the latest can be current
        for user in self.users:
            recent = self.fake.dm(user).messages[-3:] + [
                m for m in shown_here if m.ephemeral_for is user]
            for message in recent:
                if message.deleted:
                    continue
                for comp in message.leaf_components():
                    cid = str(comp.get("custom_id", ""))
                    if cid.startswith(MOVE_PREFIXES) and step_of(cid) > self.last_step \
                            and (best is None or (step_of(cid), message.id) > best[:2]):
                        best = (step_of(cid), message.id, user, message)
        return (best[2], best[3]) if best else None

    def over(self) -> bool:
        return self.fake.find_message(self.channel, text="final result") is not None

    async def move(self) -> Interaction | None:
        """One move by whoever can move; None once the game is over."""
        if self.over():
            return None
        loop = asyncio.get_running_loop()
        give_up = loop.time() + GIVE_UP
        while True:
            try:
                found = await self.fake.wait_for(lambda: self.over() or self.fresh_menu(),
                                                 timeout=MENU_PATIENCE)
            except FakeDiscordError:  # nobody was told it is their turn (yet)
                found = await self.via_my_hand()
            if found is True:
                return None
            if found is not None:
                break
            # Nobody's turn yet: the bot may still be between two steps (another process
            # hears of a DM click by a notice, then plays its AI seat). Ask again later,
            # as a person would; only a game that never goes on fails.
            if loop.time() > give_up:
                raise AssertionError("nobody can move, but the game is not over")
        user, message = found
        comp, value = self.rng.choice(menu_choices(message))
        if value is None:
            ix = await self.fake.click(user, message, comp["custom_id"])
        else:
            ix = await self.fake.select(user, message, comp["custom_id"], [value])
        await ix.wait_answered()
        if ix.response is not None and ix.response.type == 7:  # applied, saved, answered
            self.moves.append((user.id, value or comp["custom_id"].rsplit(":", 1)[1]))
            self.last_step = step_of(comp["custom_id"])
        return ix

    async def via_my_hand(self) -> tuple[FakeUser, FakeMessage] | None:
        """No menu came: press My hand on the table message until someone gets one; None
        if nobody can move now."""
        self.asked += 1
        table = self.fake.find_message(self.channel, label="My hand")
        assert table is not None, "no table message with a My hand button"
        for user in self.users:
            ix = await (await self.fake.click(user, table, label="My hand")).wait_answered()

            def shown(ix: Interaction = ix) -> bool:
                return ix.message is not None

            await self.fake.wait_for(shown)
            menu = self.fresh_menu()
            if menu is not None:
                return menu
        return None

    async def play(self, count: int) -> Interaction:
        """``count`` acknowledged moves; returns the last one's interaction."""
        target = len(self.moves) + count
        while True:
            ix = await self.move()
            assert ix is not None, "the game ended early"
            if len(self.moves) == target:
                return ix


# ------------------------------------------------------------------ reading the database


def database_rows(path: Path, sql: str, params: tuple[Any, ...] = ()) -> list[sqlite3.Row]:
    conn = sqlite3.connect(f"file:{path}?mode=ro", uri=True, timeout=5)
    conn.row_factory = sqlite3.Row
    try:
        return conn.execute(sql, params).fetchall()
    finally:
        conn.close()


def played(record: dict[str, Any], seats: list[int]) -> list[tuple[int, str]]:
    """The players' own moves in a record: Jazz's passes are forced, the bot plays them."""
    return [(seats[seat], code) for deal in record["deals"] for seat, code in deal["actions"]
            if code != "pass"]


def live_table(path: Path, channel_id: int) -> dict[str, Any]:
    [row] = database_rows(path, "SELECT data FROM live_tables WHERE channel_id = ?"
                                " AND status = 'playing'", (channel_id,))
    return json.loads(row["data"])


def stored_game(path: Path, channel_id: int) -> tuple[int, dict[str, Any], list[int]]:
    """The one finished game of a channel: its id, its record and its seats' users."""
    [row] = database_rows(path, "SELECT game_id, record FROM games WHERE channel_id = ?",
                          (channel_id,))
    seats = database_rows(path, "SELECT user_id FROM results WHERE game_id = ? ORDER BY seat",
                          (row["game_id"],))
    return row["game_id"], json.loads(row["record"]), [r["user_id"] for r in seats]



def seat_users(data: dict[str, Any]) -> list[int]:
    return [seat["user_id"] for seat in data["seats"]]


async def open_jazz(fake: FakeDiscord, channel: FakeChannel, users: list[FakeUser],
                    start: bool = True, **options: Any) -> FakeMessage:
    """/jazz start by the first user, the others join, the host starts (unless not
    ``start``); the lobby message."""
    await (await fake.slash(users[0], channel, "jazz start", **options)).wait_answered()
    lobby = fake.find_message(channel, label="Join")
    assert lobby is not None
    for user in users[1:]:
        await (await fake.click(user, lobby, label="Join")).wait_answered()
    if start:
        await (await fake.click(users[0], lobby, label="Start")).wait_answered()
    return lobby


# ------------------------------------------------------------------ a whole run

READY = re.compile(r"(\S+) is ready in (\d+) servers?; invite link: (\S+)")


# What the invite link must ask for: what the bot uses (docs/running-the-bot.md).
NEEDED = discord.Permissions(
    view_channel=True, send_messages=True, send_messages_in_threads=True, embed_links=True,
    attach_files=True, create_public_threads=True, create_events=True)


def isolated_env(fake: FakeDiscord, database: Path, **changes: str) -> dict[str, str]:
    """The fake's subprocess environment, without a DEV_GUILD_ID of the caller's."""
    return fake.subprocess_env() | {"DATABASE_PATH": str(database), "DEV_GUILD_ID": "",
                                    "LOG_LEVEL": "INFO"} | changes


@dataclass
class Exited:
    status: int
    stderr: str


async def run_to_exit(fake: FakeDiscord, cwd: Path, **env: str) -> Exited:
    """``python -m bot`` on the fake with ``env`` changes, until it exits by itself."""
    proc = await asyncio.create_subprocess_exec(
        *fake.subprocess_command("bot"), env=isolated_env(fake, cwd / "bot.db", **env),
        cwd=cwd, stdout=asyncio.subprocess.DEVNULL, stderr=asyncio.subprocess.PIPE)
    try:
        _, err = await asyncio.wait_for(proc.communicate(), START_TIMEOUT)
    finally:
        if proc.returncode is None:
            proc.kill()
            await proc.wait()
    assert proc.returncode is not None
    return Exited(proc.returncode, err.decode(errors="replace"))
