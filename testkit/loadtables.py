"""The players of one table under load: they open it, join, start, and then make a
move every few seconds from what Discord shows them, for as long as they are asked.

Used by the load benchmark (``testkit.load``). Each table's players act only on what
they see on the fake Discord: their DM hand's menu (the live one, never one they already
used), the lobby's buttons, **Rematch** under a finished game's result (an AttackJack
series deals on by itself); a hand that does not come is asked for with the table's
**My hand**, and a channel left without a table gets a new one. Every click is
timed as Discord times it: from the interaction sent to the bot's first response.

Waiting is done by polling a few recent messages (every ``POLL`` s), never with
``FakeDiscord.wait_for``: that wakes every waiter on every API call, and with a
thousand tables the harness would spend its time there instead of serving the bot.
"""

from __future__ import annotations

import asyncio
import random
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, TypeVar

from engine.registry import spec
from testkit.fakediscord import FakeChannel, FakeDiscord, FakeMessage, FakeUser, Interaction
from testkit.fakediscord.interactions import FakeDiscordError
from testkit.games import command
from testkit.harness import TO_PLAY, menu_choices

MOVE_PREFIXES = ("ct:play:", "ct:act:")
REMATCH = "ct:rematch:"
HAND = "ct:hand:"
SERIES_GOES_ON = "ct:endseries:"  # a series' result: its next deal starts by itself
DEADLINE = 3.0  # Discord's: a click without a first response by then failed
DONE_PATIENCE = 15.0  # a deferred click's edit (the move applied) may come this late
POLL = 0.1  # seconds between two looks at what a player was sent
UPDATE, DEFERRED_UPDATE = 7, 6  # component responses: the message updated, or later

T = TypeVar("T")


def start_command(game_id: str) -> str:
    """The game's slash command group (``californiajack``), from its cog's UI."""
    return command(game_id)


@dataclass
class Click:
    """One interaction of a player and what came of it."""

    kind: str  # move, start, join, begin, rematch, hand
    game: str
    sent: float  # time.monotonic() when it was dispatched
    answer: float | None = None  # seconds to the first response; None: none came
    done: float | None = None  # seconds until the move was applied (a deferral's edit)
    deferred: bool = False
    applied: bool = False  # a move the bot applied (the hand updated)
    burst: int | None = None  # for a start: which burst of openings

    @property
    def failed(self) -> bool:
        """No first response within Discord's 3 s (the user saw "interaction failed")."""
        return self.answer is None or self.answer > DEADLINE


@dataclass
class Clicks:
    """Every click of every table, in the order they were sent."""

    all: list[Click] = field(default_factory=list)
    hand_waits: list[tuple[float, float]] = field(default_factory=list)  # (at, seconds)

    async def follow(self, ix: Interaction, kind: str, game: str, *,
                     burst: int | None = None) -> Click:
        """Wait for the bot's answer to ``ix`` (and, if it deferred, for its edit)."""
        click = Click(kind, game, ix.dispatched_at, burst=burst)
        self.all.append(click)
        try:
            await ix.wait_until(lambda i: i.answered, timeout=DEADLINE + 2)
        except FakeDiscordError:
            return click  # none came (or came too late and was refused): failed
        assert ix.response is not None and ix.responded_at is not None
        click.answer = ix.responded_at - ix.dispatched_at
        click.deferred = ix.response.type == DEFERRED_UPDATE
        if ix.response.type == UPDATE:
            click.applied, click.done = True, click.answer
        elif click.deferred:
            try:
                await ix.wait_until(lambda i: bool(i.edits), timeout=DONE_PATIENCE)
                click.applied, click.done = True, time.monotonic() - ix.dispatched_at
            except FakeDiscordError:
                pass
        return click

    def within(self, start: float, end: float, kind: str | None = None) -> list[Click]:
        return [c for c in self.all if start <= c.sent < end and kind in (None, c.kind)]


async def poll(found: Callable[[], T | None], timeout: float) -> T | None:
    """``found()`` once it is not None, looked at every ``POLL`` s; None after ``timeout``."""
    deadline = time.monotonic() + timeout
    while True:
        result = found()
        if result is not None or time.monotonic() >= deadline:
            return result
        await asyncio.sleep(POLL)


def _live(message: FakeMessage) -> list[dict[str, Any]]:
    if message.deleted:
        return []
    return [c for c in message.leaf_components() if not c.get("disabled")]


@dataclass
class LoadTable:
    """One channel and its players (the first is the host)."""

    fake: FakeDiscord
    channel: FakeChannel
    users: list[FakeUser]
    game: str
    command: str
    clicks: Clicks
    rng: random.Random
    pictures: bool = True
    used: set[str] = field(default_factory=set)  # menus ("table:version") and rematches
    moves: int = 0  # applied moves, the whole run
    refused: int = 0  # move clicks answered without a move (a stale menu, not their turn)
    rematches: int = 0
    asked_my_hand: int = 0
    reopened: int = 0
    lobbies_filled: int = 0  # lobbies found unstarted, joined and started
    stuck: int = 0  # turns in a row that found nothing to do
    stopping: bool = False

    # -- opening ---------------------------------------------------------------------

    async def open(self, burst: int | None = None) -> bool:
        """``/<game> start`` by the host, the others join, the host starts; whether the
        game runs (a start refused or a lobby that never came: False)."""
        host = self.users[0]
        # The game's options where its players decide (AttackJack: choice, else the
        # bot plays every turn itself).
        options: dict[str, Any] = dict(spec(self.game).benchmark_options)
        if not self.pictures:
            options["images"] = False
        ix = await self.fake.slash(host, self.channel, f"{self.command} start", **options)
        # (Even if the answer failed: the bot posts the lobby before it answers.)
        await self.clicks.follow(ix, "start", self.game, burst=burst)
        lobby = await poll(lambda: self._lobby_after(ix.id), timeout=30)
        if lobby is None:
            return False
        for user in self.users[1:]:
            await self._press(user, lobby, "join", "join")
        await self._press(host, lobby, "start", "begin")
        return True

    def _lobby_after(self, since: int) -> FakeMessage | None:
        for message in reversed(self.channel.messages[-6:]):
            if message.id > since and self._lobby_button(message, "join") is not None:
                return message
        return None

    @staticmethod
    def _lobby_button(message: FakeMessage, action: str) -> str | None:
        return next((c["custom_id"] for c in _live(message)
                     if str(c.get("custom_id", "")).startswith("ct:lobby:")
                     and c["custom_id"].endswith(f":{action}")), None)

    async def _press(self, user: FakeUser, message: FakeMessage, action: str,
                     kind: str) -> None:
        custom_id = self._lobby_button(message, action)
        if custom_id is None:
            return
        await self.clicks.follow(await self.fake.click(user, message, custom_id), kind,
                                 self.game)

    # -- playing ---------------------------------------------------------------------

    async def play(self, every: float) -> None:
        """A move every ``every`` s (±25 %, tables out of step) until ``stopping``."""
        loop = asyncio.get_running_loop()
        due = loop.time() + self.rng.uniform(0, every)
        while not self.stopping:
            await asyncio.sleep(max(0.0, due - loop.time()))
            if self.stopping:
                return
            # A player waits a while for their hand before asking for it, and longer each
            # time it did not come (so an overloaded bot is not asked ever more often).
            await self.turn(patience=max(4 * every, 15.0) * 2 ** min(self.stuck, 3))
            # Behind (the hand came late): the next move is due at once, not a catch-up burst.
            due = max(due + every * self.rng.uniform(0.75, 1.25), loop.time())

    async def turn(self, patience: float) -> None:
        """One move: the live hand's menu once it is there; Rematch under a finished
        game; My hand (or a new table) if nothing came within ``patience`` s."""
        started = time.monotonic()
        found: tuple[FakeUser, FakeMessage] | str | None = await poll(
            self._something_to_do, timeout=patience)
        if self.stopping:  # the run is over: what the poll found is left alone
            return
        if found is None:
            self.stuck += 1
            await self._unstick()
            return
        self.stuck = 0
        waited = time.monotonic() - started
        if isinstance(found, str):
            self.used.add(found)
            self.rematches += 1
            result = self._rematch_message(found)
            if result is not None:
                await self.clicks.follow(await self.fake.click(self.users[0], result, found),
                                         "rematch", self.game)
            return
        self.clicks.hand_waits.append((started, waited))
        user, message = found
        await self._move(user, message)

    def _something_to_do(self) -> tuple[FakeUser, FakeMessage] | str | None:
        if self.stopping:
            return "stop"  # ends the poll at once
        return self._fresh_menu() or self._rematch()

    def _fresh_menu(self) -> tuple[FakeUser, FakeMessage] | None:
        """The newest DM hand with a menu not used yet, of any of the players."""
        best: tuple[int, FakeUser, FakeMessage] | None = None
        for user in self.users:
            for message in self.fake.dm(user).messages[-2:]:
                if (best is None or message.id > best[0]) and self._menu_key(message):
                    best = (message.id, user, message)
        return (best[1], best[2]) if best else None

    def _menu_key(self, message: FakeMessage) -> str | None:
        for comp in _live(message):
            cid = str(comp.get("custom_id", ""))
            if cid.startswith(MOVE_PREFIXES):
                key = ":".join(cid.split(":")[2:4])  # the table and its version
                return None if key in self.used else key
        return None

    def _rematch(self) -> str | None:
        for message in reversed(self.channel.messages[-4:]):
            for comp in _live(message):
                cid = str(comp.get("custom_id", ""))
                if cid.startswith(REMATCH) and cid not in self.used:
                    return cid
        return None

    def _rematch_message(self, custom_id: str) -> FakeMessage | None:
        return next((m for m in reversed(self.channel.messages[-4:])
                     if any(c.get("custom_id") == custom_id for c in _live(m))), None)

    async def _move(self, user: FakeUser, message: FakeMessage) -> None:
        key = self._menu_key(message)
        if key is None:
            return
        self.used.add(key)
        comp, value = self.rng.choice(menu_choices(message))
        try:
            if value is None:
                ix = await self.fake.click(user, message, comp["custom_id"])
            else:
                ix = await self.fake.select(user, message, comp["custom_id"], [value])
        except FakeDiscordError:  # the hand changed under the player's finger
            self.refused += 1
            return
        click = await self.clicks.follow(ix, "move", self.game)
        if click.applied:
            self.moves += 1
        elif click.answer is not None:
            self.refused += 1

    async def _unstick(self) -> None:
        """No hand came: between two deals of a series, wait; a lobby left unstarted (its
        /start answered too late), fill and start it; a table, press its My hand once, as
        the player it names to play (or each player in turn, once per call) would; no
        table in the channel any more, open a new one."""
        recent = list(reversed(self.channel.messages[-8:]))
        if any(str(c.get("custom_id", "")).startswith(SERIES_GOES_ON)
               for m in recent[:3] for c in _live(m)):
            return  # between two deals of a series: the next one starts by itself
        lobby = next((m for m in recent[:3] if self._lobby_button(m, "join")), None)
        if lobby is not None:  # a lobby nobody started (its /start answer came too late)
            self.lobbies_filled += 1
            for user in self.users[1:]:
                await self._press(user, lobby, "join", "join")
            await self._press(self.users[0], lobby, "start", "begin")
            return
        board = next((m for m in recent if any(str(c.get("custom_id", "")).startswith(HAND)
                                               for c in _live(m))), None)
        if board is None:
            self.reopened += 1
            await self.open()
            return
        self.asked_my_hand += 1
        hand = next(c["custom_id"] for c in _live(board)
                    if str(c.get("custom_id", "")).startswith(HAND))
        named = TO_PLAY.search(board.content)
        user = next((u for u in self.users if named and u.id == int(named.group(1))),
                    self.users[self.stuck % len(self.users)])
        try:
            ix = await self.fake.click(user, board, hand)
        except FakeDiscordError:
            return  # the table moved on meanwhile
        await self.clicks.follow(ix, "hand", self.game)
        shown = ix.original
        if shown is not None and self._menu_key(shown) is not None:
            await self._move(user, shown)
