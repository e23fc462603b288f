"""Shared helpers of the end-to-end tests: a fast bot on the fake Discord, players that
only use what they see, and the hidden-card scan."""

from __future__ import annotations

import asyncio
import concurrent.futures
import json
import random
import re
import sqlite3
import threading
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from bot.app.client import CardTableBot
from bot.config.settings import Limits, Settings, Timing
from bot.config.web_settings import WebSettings
from bot.storage import Storage
from bot.table.ai_runner import AIRunner
from bot.table.timers import Clock
from engine import cards
from engine.core import Game
from testkit.clock import ManualClock
from testkit.fakediscord import FakeChannel, FakeDiscord, FakeMessage, FakeUser

MAIN_THREAD = threading.main_thread()
FAST = Timing(pause=0, edit_interval=0, turn_timer=300, lobby_idle=900, retire_after=3000,
              lock_patience=2.0, request_rate=1e9,  # the fake Discord has no limit
              # (a /start's early "thinking…" only where a test asks for it: on a busy
              # machine it would change which response a test sees)
              start_answer_within=2.2)


# ``make_bot`` with its path bound (the end-to-end tests' ``new_bot`` and ``run_bot``).
MakeBot = Callable[..., Awaitable[CardTableBot]]


def cheap_ai() -> AIRunner:
    """AI decisions in a thread with a tiny, uncapped search: fast and reproducible."""
    return AIRunner(concurrent.futures.ThreadPoolExecutor(max_workers=1), iterations=20,
                    time_limit=None, owns_executor=True)


async def make_bot(path: Path, *, timing: Timing = FAST, clock: Clock | None = None,
                   extensions: dict[str, str | None] | None = None, seed: int | None = 7,
                   ai: AIRunner | None = None, store_wait_ms: int = 5000,
                   limits: Limits | None = None, web: WebSettings | None = None
                   ) -> CardTableBot:
    store = await Storage.open(path, busy_timeout_ms=store_wait_ms)
    settings = Settings(token="fake-token", database_path=path, dev_guild_id=None,
                        log_level=20, timing=timing, limits=limits or Limits(), web=web)
    bot = CardTableBot(settings, store=store, clock=clock or ManualClock(), timing=timing,
                       extensions=extensions, seed=seed, ai=ai or cheap_ai())
    bot._owns_store = True  # closed with the bot (a killed bot: close bot.store yourself)
    return bot


async def hold_for(path: Path, seconds: float) -> None:
    """Another process holds the database's write lock for ``seconds`` (a slow storage).

    Taking and giving back the lock run in a thread: SQLite waits for a lock the bot
    holds by blocking, and on the event loop that would stall the bot itself."""
    other = await asyncio.to_thread(sqlite3.connect, path, isolation_level=None,
                                    timeout=30, check_same_thread=False)
    try:
        await asyncio.to_thread(other.execute, "BEGIN IMMEDIATE")
        await asyncio.sleep(seconds)
        await asyncio.to_thread(other.execute, "ROLLBACK")
    finally:
        await asyncio.to_thread(other.close)


def is_move(component: dict[str, Any]) -> bool:
    return str(component.get("custom_id", "")).startswith(("ct:play:", "ct:act:"))


def live_menu(fake: FakeDiscord, user: FakeUser) -> tuple[FakeMessage, dict[str, Any]] | None:
    """The newest move menu this user can see (DM or ephemeral), if any."""
    menus = [(m, c) for m, c in fake.visible_components(user) if is_move(c)]
    if not menus:
        return None
    return max(menus, key=lambda mc: mc[0].id)


def menu_choices(message: FakeMessage) -> list[tuple[dict[str, Any], str | None]]:
    """Every (component, value) a player can pick on a message's latest version."""
    out: list[tuple[dict[str, Any], str | None]] = []
    for comp in message.leaf_components():
        if not is_move(comp):
            continue
        if comp.get("type") == 3:
            out += [(comp, o["value"]) for o in comp.get("options", [])]
        else:
            out.append((comp, None))
    return out


async def choose(fake: FakeDiscord, user: FakeUser, message: FakeMessage,
                 rng: random.Random) -> Any:
    comp, value = rng.choice(menu_choices(message))
    if value is None:
        return await fake.click(user, message, comp["custom_id"])
    return await fake.select(user, message, comp["custom_id"], [value])


# The table message's content ends with the "<@id> to play" line, in any language: its
# last mention is the player to act (the start's first line mentions every player).
TO_PLAY = re.compile(r"<@!?(\d+)>[^<]*$")


def table_message(fake: FakeDiscord, channel: FakeChannel) -> FakeMessage | None:
    """The live table message: the one with the My hand button (found by its custom_id,
    so in any language)."""
    return fake.find_message(channel, custom_id_prefix="ct:hand:")


def my_hand_id(message: FakeMessage) -> str:
    return next(c["custom_id"] for c in message.leaf_components()
                if str(c.get("custom_id", "")).startswith("ct:hand:"))


def whose_turn(fake: FakeDiscord, channel: FakeChannel, users: list[FakeUser]
               ) -> FakeUser | None:
    """The player the table message names in its "to play" line."""
    message = table_message(fake, channel)
    if message is None:
        return None
    found = TO_PLAY.search(message.content)
    if not found:
        return None
    return next((u for u in users if u.id == int(found.group(1))), None)


async def idle(bot: CardTableBot, timeout: float = 5.0) -> None:
    """Wait until the bot finished everything a click started (steps, its own moves, edits)."""
    loop = asyncio.get_running_loop()
    deadline = loop.time() + timeout
    quiet = 0
    while quiet < 2:  # twice in a row: a timer just woken gets to take its lock first
        await asyncio.sleep(0.0005)
        quiet = quiet + 1 if not bot.is_set_up or not bot.croupier.busy() else 0
        assert loop.time() < deadline, "the bot is still busy"


@dataclass
class GameDriver:
    """Plays a game through what the users see: DM menus, or My hand + ephemeral menus."""

    fake: FakeDiscord
    bot: CardTableBot
    channel: FakeChannel
    users: list[FakeUser]
    rng: random.Random
    moves: int = 0
    answered: list[Any] = field(default_factory=list)

    async def play_one(self) -> bool:
        """One applied move by whoever has a live menu; False when nobody can move.

        A menu that turns out stale (answered with a fresh hand) is not a move: the
        fresh hand's menu is used next.
        """
        for _ in range(5):
            await idle(self.bot)
            user = next((u for u in self.users if live_menu(self.fake, u)), None)
            if user is None:
                return await self._via_my_hand()
            menu = live_menu(self.fake, user)
            assert menu is not None
            ix = await choose(self.fake, user, menu[0], self.rng)
            await ix.wait_answered()
            self.answered.append(ix)
            if ix.response.type == 7:  # applied: the clicked hand message was updated
                self.moves += 1
                return True
        raise AssertionError("only stale menus")

    async def _via_my_hand(self) -> bool:
        user = whose_turn(self.fake, self.channel, self.users)
        message = table_message(self.fake, self.channel)
        if user is None or message is None:
            return False
        ix = await self.fake.click(user, message, my_hand_id(message))
        await ix.wait_answered()
        await idle(self.bot)
        menu = live_menu(self.fake, user)
        if menu is None:
            return False
        ix = await choose(self.fake, user, menu[0], self.rng)
        await ix.wait_answered()
        self.answered.append(ix)
        self.moves += 1
        return ix.response.type == 7

    async def play_to_end(self, limit: int = 2000) -> None:
        while await self.play_one():
            assert self.moves < limit, "the game does not end"


# ------------------------------------------------------------------------ leak scan


@dataclass
class HiddenLog:
    """The cards hidden in players' hands at each change of the engine's state, with how
    many versions each public channel message had at that moment."""

    fake: FakeDiscord
    channels: list[FakeChannel]
    snapshots: list[tuple[frozenset[int], dict[int, int]]] = field(default_factory=list)

    def record(self, game: Game) -> None:
        # Hidden: in someone's hand and not shown to everyone (California Jack's drawn
        # cards and AttackJack's face-up cards are in hands but public).
        in_hands = {cards.parse_card(c) for seat in range(game.players)
                    for c in game.seat_view(seat).get("hand", [])}
        hidden = frozenset(in_hands - public_cards(game.public_view()))
        counts = {m.id: len(m.versions) for ch in self.channels for m in ch.messages}
        self.snapshots.append((hidden, counts))

    def leaks(self) -> list[str]:
        """Every public version that shows a card hidden when that version was made."""
        found = []
        for channel in self.channels:
            for message in channel.messages:
                for k, text in enumerate(message.all_texts()):
                    hidden = self._hidden_at(message.id, k)
                    found += [f"{message.id} v{k}: {cards.label(c)}" for c in hidden
                              if shows_card(text, c)]
        return found

    def _hidden_at(self, message_id: int, version: int) -> frozenset[int]:
        # Version k was made after the last snapshot at which it did not exist yet.
        state: frozenset[int] = frozenset()
        for hidden, counts in self.snapshots:
            if counts.get(message_id, 0) <= version:
                state = hidden
        return state


CODE_TOKEN = re.compile(r'"([2-9TJQKA][SHCD]|JK)"')


def public_cards(view: dict[str, Any]) -> set[int]:
    """Every card the public view names (as a JSON string value)."""
    return {cards.parse_card(c) for c in CODE_TOKEN.findall(json.dumps(view))}


def shows_card(text: str, card: int) -> bool:
    label = re.escape(cards.label(card))
    code = re.escape(cards.CODE[card])
    return bool(re.search(rf"(?<![0-9A-Za-z]){label}", text)
                or re.search(rf"(?<![0-9A-Za-z]){code}(?![0-9A-Za-z])", text))


def watch_engine(monkeypatch: Any, engine: type[Game], log: HiddenLog) -> None:
    """Record the hidden cards after every change of the engine's state."""
    for name in ("apply", "start_deal", "auto_step"):
        original: Callable[..., Any] = getattr(engine, name)

        def wrapped(self: Game, *args: Any, _original: Callable[..., Any] = original) -> Any:
            result = _original(self, *args)
            # Not an AI copy, nor the AI's own restored game (in an executor thread).
            if self.history is not None and threading.current_thread() is MAIN_THREAD:
                log.record(self)
            return result

        monkeypatch.setattr(engine, name, wrapped)
