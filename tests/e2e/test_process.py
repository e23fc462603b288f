"""``python -m bot`` as a process on the fake Discord: stop signals, the log.

SIGTERM (``docker stop``, ``systemctl stop``) and SIGINT (Ctrl+C) must close the bot:
the moves in flight finish and are saved, the gateway is closed (the fake then ends
the session, as Discord does on a clean close), and the process exits 0. A new
process on the same database resumes the game with every acknowledged move.

The helpers here (``run_to_exit``, ``stop_with``, ``bot_processes``) serve the
start-up tests of test_startup.py too; ``BotProcess`` is test_restart.py's.
"""

from __future__ import annotations

import asyncio
import random
import signal
from collections.abc import Callable
from pathlib import Path
from urllib.parse import parse_qs, urlsplit

import discord
import pytest

from testkit.fakediscord import FakeChannel, FakeDiscord
from testkit.processes import (
    LAUNCHER,
    NEEDED,
    READY,
    START_TIMEOUT,
    BotProcess,
    Players,
    isolated_env,
    live_table,
    open_jazz,
    played,
    seat_users,
    stored_game,
)

pytestmark = pytest.mark.slow  # every test here runs the bot as a process

STOP_TIMEOUT = 10.0  # a stop with nothing stuck takes well under a second
CALLBACK = "POST /interactions/{interaction_id}/{token}/callback"
# Where the event loop has no signal handlers (Windows), as there, to test the fallback.
WITHOUT_LOOP_SIGNALS = """
import asyncio

def _unsupported(self, sig, callback, *args):
    raise NotImplementedError

asyncio.SelectorEventLoop.add_signal_handler = _unsupported
""" + LAUNCHER
# A start-up long enough to be signalled in the middle of (and saying when it begins).
SLOW_SET_UP = """
import asyncio
import sys

import bot.app.client

_set_up = bot.app.client.CardTableBot.setup_hook


async def slow_set_up(self):
    print("setting up", file=sys.stderr, flush=True)
    await asyncio.sleep(1)
    await _set_up(self)

bot.app.client.CardTableBot.setup_hook = slow_set_up
""" + LAUNCHER


# ------------------------------------------------------------------ helpers


def signal_to(process: BotProcess, sig: signal.Signals) -> None:
    assert process.proc is not None and process.proc.returncode is None
    process.proc.send_signal(sig)


async def exit_status(process: BotProcess) -> int:
    """The status the process exits with, within STOP_TIMEOUT."""
    assert process.proc is not None
    try:
        return await asyncio.wait_for(process.proc.wait(), STOP_TIMEOUT)
    except TimeoutError:
        raise AssertionError(f"the bot did not stop:\n{process.output()}") from None


async def stop_with(process: BotProcess, sig: signal.Signals) -> int:
    signal_to(process, sig)
    return await exit_status(process)


def closed_cleanly(fake: FakeDiscord) -> bool:
    """The gateway saw a close 1000 (a killed process leaves its session for a RESUME)."""
    return not fake.gateway.live_sessions and not fake.gateway.sessions


def starts(process: BotProcess) -> list[str]:
    """The log of each start, in order."""
    return process.log.read_text(errors="replace").split("---- start ")[1:]


# ------------------------------------------------------------------ tests


async def test_sigterm_mid_game_saves_every_move_in_flight_and_a_new_process_plays_on(
        fake: FakeDiscord, general: FakeChannel,
        bot_processes: Callable[[str], BotProcess]) -> None:
    process = bot_processes(LAUNCHER)
    users = [fake.add_user(name) for name in ("alice", "bob", "cy")]
    await process.start()
    await open_jazz(fake, general, users)
    players = Players(fake, general, users, random.Random(3))

    # 1. SIGTERM right after a move was acknowledged.
    await players.play(5)
    assert await stop_with(process, signal.SIGTERM) == 0
    assert closed_cleanly(fake)
    saved = live_table(process.database, general.id)
    assert played(saved["game"], seat_users(saved)) == players.moves

    # 2. SIGTERM while a move is being answered: Discord holds the bot's answer back
    # for a second (a 429), so the signal comes after the click reached the bot and
    # before its step is over.
    await process.start()
    await players.play(3)
    await fake.wait_for(players.fresh_menu, timeout=5)  # the move below uses no My hand
    fake.fail_next("POST", "/interactions/*/*/callback", 429, retry_after=1.0)
    moving = asyncio.create_task(players.move())
    await fake.wait_for(lambda: any(c.route == CALLBACK and c.status == 429
                                    for c in fake.errors))
    table = fake.find_message(general, label="My hand")
    assert table is not None
    versions = len(table.versions)
    signal_to(process, signal.SIGTERM)
    await fake.wait_for(lambda: "SIGTERM: stopping" in starts(process)[-1])
    signal_to(process, signal.SIGTERM)  # a second one while stopping changes nothing
    ix = await moving
    assert ix is not None and ix.response is not None and ix.response.type == 7
    assert await exit_status(process) == 0
    assert closed_cleanly(fake)
    assert "SIGTERM: already stopping" in starts(process)[-1]
    assert len(table.versions) > versions, "the table message did not show the last move"
    saved = live_table(process.database, general.id)
    assert played(saved["game"], seat_users(saved)) == players.moves

    # 3. A new process resumes; the game is played to its end; then Ctrl+C.
    await process.start()
    while await players.move() is not None:
        assert len(players.moves) < 400, "the game does not end"
    await process.idle()
    _, record, seats = stored_game(process.database, general.id)
    assert played(record, seats) == players.moves  # nothing lost, nothing applied twice
    assert await stop_with(process, signal.SIGINT) == 0
    assert closed_cleanly(fake)

    logs = starts(process)
    assert len(logs) == 3
    for log in logs:
        assert "Traceback" not in log, log
        assert "SIGTERM: stopping" in log or "SIGINT: stopping" in log
        assert log.rstrip().endswith("closed"), log[-500:]


async def test_the_log_has_one_ready_line_and_no_voice_warnings_and_sigint_stops_it(
        fake: FakeDiscord, bot_processes: Callable[[str], BotProcess]) -> None:
    process = bot_processes(LAUNCHER)
    await process.start()
    await fake.wait_for(lambda: READY.search(process.log.read_text()), timeout=5)
    assert await stop_with(process, signal.SIGINT) == 0
    assert closed_cleanly(fake)
    [log] = starts(process)
    [(name, servers, url)] = READY.findall(log)
    assert name == fake.world.bot.name and servers == "1"
    query = parse_qs(urlsplit(url).query)
    assert query["client_id"] == [str(fake.world.application_id)]
    assert query["scope"] == ["bot applications.commands"]
    assert discord.Permissions(int(query["permissions"][0])) == NEEDED
    assert "voice will NOT be supported" not in log
    assert "PyNaCl" not in log and "davey" not in log
    assert "Traceback" not in log


async def test_ctrl_c_without_loop_signal_handlers_still_closes_the_bot(
        fake: FakeDiscord, bot_processes: Callable[[str], BotProcess]) -> None:
    process = bot_processes(WITHOUT_LOOP_SIGNALS)
    await process.start()
    await fake.wait_for(lambda: READY.search(process.log.read_text()), timeout=5)
    # Python's own SIGINT handler: asyncio.run cancels the bot's task (KeyboardInterrupt).
    assert await stop_with(process, signal.SIGINT) == 0
    assert closed_cleanly(fake)
    [log] = starts(process)
    assert "SIGINT: stopping" not in log  # the loop's handler was not there
    assert log.rstrip().endswith("closed") and "Traceback" not in log


async def test_a_stop_during_the_start_up_lets_it_finish_then_closes_without_connecting(
        fake: FakeDiscord, tmp_path: Path) -> None:
    launcher = tmp_path / "slow.py"
    launcher.write_text(SLOW_SET_UP)
    proc = await asyncio.create_subprocess_exec(
        *fake.subprocess_command(str(launcher)),
        env=isolated_env(fake, tmp_path / "bot.db"), cwd=tmp_path,
        stdout=asyncio.subprocess.DEVNULL, stderr=asyncio.subprocess.PIPE)
    assert proc.stderr is not None
    try:
        seen = await asyncio.wait_for(read_until(proc.stderr, "setting up"), START_TIMEOUT)
        proc.send_signal(signal.SIGTERM)
        _, rest = await asyncio.wait_for(proc.communicate(), STOP_TIMEOUT)
    finally:
        if proc.returncode is None:
            proc.kill()
            await proc.wait()
    log = seen + rest.decode(errors="replace")
    assert proc.returncode == 0, log
    assert "restored 0 table(s)" in log  # the set-up was not cut in half
    assert not [c for c in fake.calls if c.route == "GET /gateway/bot"]  # never connected
    assert log.rstrip().endswith("closed") and "Traceback" not in log


async def read_until(stream: asyncio.StreamReader, marker: str) -> str:
    text = ""
    while marker not in text:
        line = await stream.readline()
        assert line, f"the process ended before {marker!r}:\n{text}"
        text += line.decode(errors="replace")
    return text
