"""The bot as a program (``python -m bot``): the log, start, the ready line, stop, failure.

``run`` logs in and connects like ``Client.run`` (no logging set up: ``__main__``
did, with ``set_up_logging``), but a stop signal (SIGTERM from ``docker stop`` or
``systemctl stop``, SIGINT from Ctrl+C) closes the bot once, so the moves in flight
finish and are saved, and the process exits 0. A start that Discord or the network
refuses ends with a sentence on stderr that says what to do, and a non-zero status,
not a traceback. Neither the log nor those sentences (nor the traceback of a fault)
show the token, the database password or an interaction's token.
"""

from __future__ import annotations

import asyncio
import contextlib
import gc
import logging
import os
import re
import signal
import socket
import ssl
import sys
import traceback
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from typing import TypeAlias

import aiohttp
import discord
from discord.ext import commands
from discord.voice_client import VoiceClient

from bot.app.commandsync import CommandSyncRefused
from bot.storage import MigrationFailed, SchemaTooNew, StorageError
from bot.ui.permissions import REQUIRED_PERMISSIONS

log = logging.getLogger(__name__)

# What the bot needs in a channel, each for what uses it: the invite link asks for these
# and no more. The one source of the link's number: docs/running-the-bot.md writes the
# same link, and a test holds the two equal.
NEEDED_PERMISSIONS: tuple[str, ...] = (
    # a table at all (bot/ui/permissions.py: /<game> start names any that is missing)
    *(name for name, _label in REQUIRED_PERMISSIONS),
    "attach_files",  # the picture beside the table and each hand (bot/ui/permissions.py)
    "send_messages_in_threads",  # a table in a thread
    "create_public_threads",  # a thread per game (/settings threads)
    "create_events",  # a scheduled table's server event (/<game> start at:)
)
# Not asked for, as nothing uses them: Read Message History (the bot reads back only its
# own DMs, which needs no permission), Manage Messages (it deletes only its own
# messages; /<game> stop checks the *member's* Manage Messages), Add Reactions, Use
# External Emojis (its emoji are Unicode).
PERMISSIONS = discord.Permissions(**dict.fromkeys(NEEDED_PERMISSIONS, True))
SCOPES = ("bot", "applications.commands")

EXIT_OK = 0
EXIT_RETRY = 1  # may pass by itself (the network, Discord): a supervisor may start it again
EXIT_FIX = 2  # a person must fix something; the status of a bad setting in bot.__main__

STOP_SIGNALS = (signal.SIGINT, signal.SIGTERM)
CONNECT_END_GRACE = 5.0  # seconds connect() may take to end after close()

PORTAL = "https://discord.com/developers/applications"
BAD_TOKEN = (f"Discord refused the token (DISCORD_TOKEN): copy it again from the Developer "
             f"Portal ({PORTAL}, your application, Bot page, Reset Token) into .env, then "
             "start the bot again.")

BotType: TypeAlias = commands.Bot | commands.AutoShardedBot


# ------------------------------------------------------------------ the log

LOG_FORMAT = "%(asctime)s %(levelname)-8s %(name)s: %(message)s"
# The loggers whose DEBUG lines show what a log must not: discord.py's request bodies (a
# DM's hand), request URLs and gateway payloads holding interactions' tokens, and
# aiosqlite's every statement with its parameters (a table's saved state: every hand as
# dealt). With LOG_LEVEL=DEBUG they stay at INFO; the bot's own loggers (and the other
# libraries') log their DEBUG lines.
QUIET_AT_DEBUG = ("discord.http", "discord.gateway", "discord.webhook", "aiosqlite")
HIDDEN = "***"
SHORTEST_SECRET = 4  # a shorter one would hide pieces of every word; nothing to hide
# An interaction's token in a URL: /interactions/{id}/{token}/callback and the
# interaction webhook /webhooks/{application id}/{token} (discord.py's 429 warning).
_URL_TOKEN = re.compile(r"(/(?:interactions|webhooks)/\d+/)[^/?#\s'\"]+")


def hide(text: str, secrets: Iterable[str] = ()) -> str:
    """The text without the secrets and without interactions' tokens in URLs."""
    for secret in sorted(secrets, key=len, reverse=True):
        if len(secret) >= SHORTEST_SECRET:
            text = text.replace(secret, HIDDEN)
    return _URL_TOKEN.sub(rf"\1{HIDDEN}", text)


class HidingFormatter(logging.Formatter):
    """Every line (a traceback's too) with ``hide`` applied."""

    def __init__(self, secrets: Iterable[str] = (), fmt: str = LOG_FORMAT):
        super().__init__(fmt)
        self.secrets = tuple(secrets)

    def format(self, record: logging.LogRecord) -> str:
        return hide(super().format(record), self.secrets)


def set_up_logging(level: int, secrets: Iterable[str] = (),
                   handler: logging.Handler | None = None) -> logging.Handler:
    """The process's log at ``level`` on stderr (or ``handler``), secrets hidden; at DEBUG,
    ``QUIET_AT_DEBUG`` stay at INFO. The handler."""
    handler = handler if handler is not None else logging.StreamHandler()
    handler.setFormatter(HidingFormatter(secrets))
    root = logging.getLogger()
    root.addHandler(handler)
    root.setLevel(level)
    for name in QUIET_AT_DEBUG:
        logging.getLogger(name).setLevel(logging.INFO if level < logging.INFO
                                         else logging.NOTSET)
    return handler


# ------------------------------------------------------------------ the invite link


def invite_url(client_id: int, guild_id: int | None = None) -> str:
    """The link that adds the bot to a server with its permissions and slash commands."""
    guild = discord.Object(guild_id) if guild_id is not None else discord.utils.MISSING
    return discord.utils.oauth_url(client_id, permissions=PERMISSIONS, guild=guild,
                                   scopes=SCOPES)


# The collector's thresholds for the bot's process (CPython's: 700, 10, 10). A busy bot
# allocates a lot that dies young (payloads, embeds, snapshots): at 1,000 tables its
# collections took 18 % of the event loop's CPU, the full ones 8.9 %. With these, at
# 1,000 busy tables: 11.0 ms of CPU a move instead of 12.8, no full collection in 30 s,
# and 60 MB more RSS (cyclic garbage waits longer for one). 2,000 kept full collections
# at 3.6 % with 14 MB more.
COLLECTOR_THRESHOLDS = (5_000, 10, 10)


def tune_collector() -> None:
    """Fewer, larger young collections, and what was made at start-up (modules, code,
    discord.py's tables) frozen out of every collection: it lives as long as the process.
    For ``python -m bot`` only: tests make many bots in one process."""
    gc.collect()
    gc.freeze()
    gc.set_threshold(*COLLECTOR_THRESHOLDS)


def quiet_voice_warnings() -> None:
    """The bot never joins voice: discord.py's warnings that PyNaCl and davey are missing
    (logged when the client is made) would only look like faults. Call it before."""
    VoiceClient.warn_nacl = False
    VoiceClient.warn_dave = False


# ------------------------------------------------------------------ the ready line


def ready_line(bot: BotType) -> str:
    count = len(bot.guilds)
    servers = f"{count} server{'' if count == 1 else 's'}"
    client_id = bot.application_id or 0  # known from the log-in on
    return f"{bot.user} is ready in {servers}; invite link: {invite_url(client_id)}"


def announce_ready(bot: BotType) -> None:
    """Log the ready line at the first READY only (a new session after an outage sends
    READY again)."""
    announced = False

    async def on_ready() -> None:
        nonlocal announced
        if not announced:
            announced = True
            log.info("%s", ready_line(bot))

    bot.add_listener(on_ready, "on_ready")


# ------------------------------------------------------------------ stopping


@contextlib.contextmanager
def stop_signals(on_stop: Callable[[str], None]) -> Iterator[None]:
    """Call ``on_stop(name)`` on SIGINT and SIGTERM while inside. Where the loop has no
    signal handlers (Windows), Ctrl+C stays asyncio.run's: it cancels the main task,
    which closes the bot too, and raises KeyboardInterrupt."""
    loop = asyncio.get_running_loop()
    installed = []
    for sig in STOP_SIGNALS:
        with contextlib.suppress(NotImplementedError):
            loop.add_signal_handler(sig, on_stop, sig.name)
            installed.append(sig)
    try:
        yield
    finally:
        for sig in installed:
            loop.remove_signal_handler(sig)


async def close_once(bot: discord.Client) -> None:
    """Close the bot unless it is closed: discord.py closes it itself before it raises
    some connection errors, and ``CardTableBot.close`` must run only once."""
    if not bot.is_closed():
        await bot.close()


async def connect_until_stopped(bot: discord.Client, stop: asyncio.Event) -> None:
    """``bot.connect()`` until it ends by itself (its error is raised) or ``stop`` is set:
    then the bot is closed and the end of the connection awaited."""
    connecting = asyncio.ensure_future(bot.connect())
    stopping = asyncio.ensure_future(stop.wait())
    try:
        await asyncio.wait({connecting, stopping}, return_when=asyncio.FIRST_COMPLETED)
    finally:
        stopping.cancel()
        if not connecting.done():  # a stop (or Ctrl+C cancelling us): close, let it end
            await close_once(bot)
            await _end(connecting)
    error = None if connecting.cancelled() else connecting.exception()
    if error is not None and not stop.is_set():
        raise error
    if error is not None:
        log.debug("the connection ended with an error after the stop", exc_info=error)


async def _end(task: asyncio.Future[None]) -> None:
    """Wait for a connection closed under it; connect() returns at once, but not forever."""
    done, _ = await asyncio.wait({task}, timeout=CONNECT_END_GRACE)
    if not done:
        task.cancel()
        await asyncio.wait({task})


async def serve(bot: discord.Client, token: str) -> None:
    """Log in and connect until the bot stops by itself or a stop signal comes; the bot
    is closed once either way. A signal during the log-in (which runs ``setup_hook``)
    takes effect when the log-in is done, so the start-up is never cut in half."""
    stop = asyncio.Event()

    def on_stop(name: str) -> None:
        if stop.is_set():
            log.info("%s: already stopping", name)
            return
        log.info("%s: stopping; the moves in flight finish and are saved first", name)
        stop.set()

    with stop_signals(on_stop):
        try:
            await bot.login(token)
            if not stop.is_set():
                await connect_until_stopped(bot, stop)
        finally:
            await close_once(bot)
            log.info("closed")


# ------------------------------------------------------------------ failing to start


@dataclass(frozen=True)
class Failure:
    sentence: str  # what is wrong and what to do, for stderr
    status: int  # the exit status


def explain(error: BaseException, bot: discord.Client) -> Failure | None:
    """The plain words for an error that stops the start; None for a bug (a traceback)."""
    if isinstance(error, discord.LoginFailure):
        return Failure(BAD_TOKEN, EXIT_FIX)
    if isinstance(error, CommandSyncRefused):
        client_id = bot.application_id or 0
        return Failure(
            f"Discord refused to register the slash commands in server {error.guild_id} "
            f"(DEV_GUILD_ID): invite the bot to that server again with the "
            f"applications.commands scope: {invite_url(client_id, error.guild_id)}", EXIT_FIX)
    if isinstance(error, discord.DiscordServerError):
        return Failure(f"Discord answered with a server error ({error.status}): it may be "
                       "down (https://discordstatus.com); start the bot again in a few "
                       "minutes.", EXIT_RETRY)
    if isinstance(error, SchemaTooNew | MigrationFailed):  # a person must upgrade or repair
        return Failure(f"The database cannot be used: {error}", EXIT_FIX)
    if isinstance(error, StorageError):  # the database server may come back by itself
        return Failure(f"The database cannot be opened: {error} Check DATABASE_URL (or "
                       "DATABASE_PATH) and that the database server runs, then start the "
                       "bot again.", EXIT_RETRY)
    if isinstance(error, aiohttp.ClientError | ConnectionError | socket.gaierror):
        return Failure(f"Cannot reach Discord ({network_reason(error)}): check the network "
                       "(and any proxy or firewall), then start the bot again.", EXIT_RETRY)
    return None


def network_reason(error: BaseException) -> str:
    if isinstance(error, aiohttp.ClientConnectorError):
        return f"{error.host}:{error.port}: {_os_reason(error.os_error)}"
    if isinstance(error, OSError):
        return _os_reason(error)
    return str(error) or type(error).__name__


def _os_reason(error: OSError) -> str:
    """The system's words for errno (asyncio's own text is only the address)."""
    if isinstance(error, ssl.SSLError) or not error.errno or error.errno < 0:
        return error.strerror or str(error)  # a DNS error's strerror says it
    return os.strerror(error.errno)


def run(bot: discord.Client, token: str, secrets: Iterable[str] = ()) -> int:
    """Run the bot to its end; the exit status. Neither a failure's sentence nor a
    fault's traceback shows the token or ``secrets`` (the database password)."""
    try:
        asyncio.run(serve(bot, token))
    except KeyboardInterrupt:  # Ctrl+C without loop signal handlers: the bot was closed
        return EXIT_OK
    except Exception as error:
        hidden = (token, *secrets)
        failure = explain(error, bot)
        if failure is None:  # a fault in the bot: its traceback, as Python would print it
            print(hide("".join(traceback.format_exception(error)), hidden), end="",
                  file=sys.stderr)
            return EXIT_RETRY
        log.debug("the start failed", exc_info=error)  # LOG_LEVEL=DEBUG shows the details
        print(hide(failure.sentence, hidden), file=sys.stderr)
        return failure.status
    return EXIT_OK
