"""The kill soak's players: the people at one table, clicking as real users do.

A ``TablePlayers`` plays one channel's games through the fake Discord only: the newest
move menu any of its people can see (a DM hand, or the ephemeral hand of the table's
**My hand** button, or the hand a refusal shows again), a random choice in it, and the
answer read (``done``, ``refused``, or ``unknown`` when the bot process died first).
Sometimes a click is doubled (two devices), and a click the bot never answered is
sometimes tried again once the bot is back, as people do. At tables whose hands are
shown only in the channel, the player the table names presses My hand. When a game
ends, its host presses **Rematch** while the soak wants more games; at AttackJack the
host presses **End series** after a deal or two.

When nothing comes for a while, the players ask the bot whether it is done
(``Stage.quiet``: its /metrics) and then storage who is to act: if that person has no
hand at the table's step, or the table waits for the bot, they wait ``Stage.stall``
seconds from the last disruption for it to come, and if it does not the table has
*stopped* (the reason is kept for the report; the player to act then presses My hand,
so that the soak goes on measuring the rest).

What every table's players share with the soak's conductor is ``testkit.soak_stage``;
how they read a click's answer and a menu, ``testkit.soak_answers``.
"""

from __future__ import annotations

import asyncio
import functools
import random
import time
from collections import Counter, deque
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import Any

from engine.core import PASS
from engine.records import restore
from testkit.fakediscord import FakeChannel, FakeDiscord, FakeDiscordError, FakeMessage, FakeUser
from testkit.fakediscord.interactions import Interaction
from testkit.games import plays_series
from testkit.harness import TO_PLAY, is_move, menu_choices
from testkit.soak_answers import END_SERIES, HAND, REMATCH, Menu, final, parts, settled
from testkit.soak_judge import DONE, REFUSED, UNKNOWN, Click, TableRow
from testkit.soak_stage import ANSWER_PATIENCE, Stage
from testkit.soak_storage import live_in, newest_in

MENU_PATIENCE = 1.5  # seconds a player waits for a DM hand before asking whether one comes
CHANNEL_PATIENCE = 0.3  # at a table of channel hands: before reading whom the table names
DOUBLE_CLICKS = 0.04  # the share of clicks made twice at once
RETRIES = 0.5  # the share of clicks a kill left unanswered that are tried again
RETRYABLE = "try again"  # a refusal that asks for another click (storage trouble)
TRY_AGAIN = 20  # clicks on one menu that such refusals may take before it is given up
TRAIL = 16  # events of a table kept for the report of a stopped one


@dataclass
class TablePlayers:
    """The people at one soak table (``users[0]`` hosts)."""

    stage: Stage
    channel: FakeChannel
    users: list[FakeUser]
    game: str
    hands: str  # "dm" or "channel"
    rng: random.Random
    series_deals: int = 1  # AttackJack: the host ends a series after this many deals
    clicks: list[Click] = field(default_factory=list)
    stops: list[str] = field(default_factory=list)  # why the table could not go on
    unshown: list[str] = field(default_factory=list)  # games over whose result never came
    games: int = 0  # finished (their result seen)
    hand_presses: int = 0  # My hand presses
    doubled: int = 0
    retried: int = 0
    _dead: set[tuple[int, str]] = field(default_factory=set)  # menus used up
    _tries: Counter[tuple[int, str]] = field(default_factory=Counter)
    _spent: set[tuple[int, str]] = field(default_factory=set)  # never to be taken up again
    _try_again: set[tuple[int, str]] = field(default_factory=set)  # refused: "try again"
    _over_seen: int = 0  # the newest result with Rematch handled
    _series_seen: int = 0  # the newest result with End series handled
    _asked: dict[int, tuple[int, int]] = field(default_factory=dict)  # My hand pressed at
    _rematch_tries: int = 0
    _rematch_cut: bool = False  # the last Rematch press got no answer: a kill came first
    _progress_at: float = field(default_factory=time.monotonic)  # a move played, a game over
    trail: deque[tuple[float, str]] = field(default_factory=lambda: deque(maxlen=TRAIL))

    def note(self, what: str) -> None:
        """One more event of this table's (kept for the report of a stopped one)."""
        self.trail.append((time.monotonic() - self.stage.began, what))

    def stop(self, why: str) -> None:
        """This table cannot go on."""
        self.stops.append(self.told(why))

    def told(self, why: str) -> str:
        """``why``, what the players did last and what the channel shows (for the report)."""
        shown = "; ".join(
            f"{m.id}: {m.text()[:70]!r} "
            f"{[str(c.get('custom_id')) for c in m.leaf_components()][:3]}"
            for m in self.channel.messages[-3:])
        since = self.trail[0][0] if self.trail else 0.0
        events = sorted([*self.trail, *((t, w) for t, w in self.stage.disruptions if t >= since)])
        return (f"{why}; its last events: " + " | ".join(f"{t:.2f} {w}" for t, w in events)
                + f"; the channel's last messages: {shown}")

    @property
    def fake(self) -> FakeDiscord:
        return self.stage.fake

    @property
    def host(self) -> FakeUser:
        return self.users[0]

    # ------------------------------------------------------------------ the game loop

    async def play(self) -> None:
        while True:
            over = self.new_result()
            if over is not None:
                self._over_seen = over.id
                self.games += 1
                self._progress_at = time.monotonic()
                self._rematch_tries = 0
                if self.stage.finishing or not await self.rematch(over):
                    return
                continue
            if await self.end_series():
                continue
            menu = self.menu()
            if menu is not None:
                await self.move(menu)
                continue
            patience = CHANNEL_PATIENCE if self.hands == "channel" else MENU_PATIENCE
            if self.named() is not None and await self.ask_named():
                continue
            if await self.news(patience):
                continue
            if not await self.unstick():
                return

    async def news(self, timeout: float, also: Callable[[], Any] = lambda: None) -> bool:
        """Wait up to ``timeout`` for something to do: a menu, a result, a series' end,
        or ``also``."""
        try:
            await self.fake.wait_for(lambda: self.new_result() or self.series_result()
                                     or self.menu() or self.named() or also(),
                                     timeout=max(timeout, 0.01))
        except FakeDiscordError:
            return False
        return True

    # ------------------------------------------------------------------ what they see

    def _recent(self) -> list[tuple[FakeUser, FakeMessage]]:
        seen = []
        for user in self.users:
            dm = self.fake.dm(user)
            seen += [(user, m) for m in dm.messages[-3:]]
            seen += [(user, m) for m in dm.ephemerals[-3:] if m.ephemeral_for is user]
        seen += [(m.ephemeral_for, m) for m in self.channel.ephemerals[-24:]
                 if m.ephemeral_for in self.users]
        return seen

    def menu(self) -> Menu | None:
        """The newest move menu anyone here can use, not used up yet."""
        best: Menu | None = None
        for user, message in self._recent():
            if message.deleted or (best is not None and message.id <= best.message.id):
                continue
            choices = [(c, v) for c, v in menu_choices(message)
                       if (message.id, c["custom_id"]) not in self._dead]
            if choices:
                best = Menu(user, message, choices)
        return best

    def hand_at(self, user: FakeUser, table_id: str, step: int, dm_only: bool) -> Menu | None:
        """Any menu of ``user``'s for the table at ``step``, used up or not."""
        dm = self.fake.dm(user)
        pool = dm.messages + [m for m in dm.ephemerals if m.ephemeral_for is user]
        if not dm_only:
            pool += [m for m in self.channel.ephemerals if m.ephemeral_for is user]
        for message in sorted(pool, key=lambda m: -m.id):
            choices = [(c, v) for c, v in menu_choices(message)
                       if parts(c["custom_id"])[:2] == (table_id, step)]
            if choices and not message.deleted:
                return Menu(user, message, choices)
        return None

    def seen_by(self, user: FakeUser) -> str:
        """What ``user`` was last shown, in short (for a stopped table's report)."""
        dm = self.fake.dm(user)
        shown = sorted(dm.messages[-3:] + [m for m in self.channel.ephemerals[-24:]
                                           if m.ephemeral_for is user][-2:],
                       key=lambda m: m.id)
        return "; ".join(
            f"{'ephemeral' if m.ephemeral else 'DM'} {m.id}"
            f"{' (deleted)' if m.deleted else ''}: {m.content[:60]!r} "
            f"{[c['custom_id'] for c in m.leaf_components() if is_move(c)][:2]}"
            for m in shown) or "nothing"

    def their_hand(self, user: FakeUser | None, live: TableRow) -> Menu | None:
        """A hand of ``user`` (to act at the stored table ``live``) at its step, not used
        up: their DM's (or, at a table of channel hands, My hand's too)."""
        if user is None:
            return None
        found = self.hand_at(user, live.table_id, live.data["step"], dm_only=self.hands == "dm")
        if found is None or any((found.message.id, c["custom_id"]) in self._spent
                                for c, _ in found.choices):
            return None
        return found

    def _with_button(self, prefix: str, after: int) -> FakeMessage | None:
        for message in reversed(self.channel.messages):
            if message.id <= after:
                return None
            if not message.deleted and any(
                    str(c.get("custom_id", "")).startswith(prefix) and not c.get("disabled")
                    for c in message.leaf_components()):
                return message
        return None

    def new_result(self) -> FakeMessage | None:
        """A game's final result not handled yet (it offers Rematch)."""
        return self._with_button(REMATCH, self._over_seen)

    def shown(self, table: TableRow) -> bool:
        """Whether the end of ``table`` (closed, as stored) is in the channel: a message
        offering its Rematch, or (a series' next deal, closed) the last deal's."""
        wanted = {f"{REMATCH}{table.table_id}"}
        if table.status == "stopped" and table.data.get("follows"):
            wanted.add(f"{REMATCH}{table.data['follows']}")
        return any(str(c.get("custom_id", "")) in wanted
                   for m in self.channel.messages for c in m.leaf_components())

    def series_result(self) -> FakeMessage | None:
        """An AttackJack deal's result offering End series, not handled yet."""
        if not plays_series(self.game):
            return None
        return self._with_button(END_SERIES, max(self._series_seen, self._over_seen))

    # ------------------------------------------------------------------ clicking

    async def send(self, dispatch: Callable[[], Awaitable[Interaction]],
                   answered: Callable[[Interaction], bool] = settled
                   ) -> Interaction | None:
        """One click, once the bot is up, and its final answer awaited (or the process's
        death); None if it could not be sent (the component is gone, the bot went)."""
        await self.stage.ready()
        generation = self.stage.generation
        try:
            ix = await dispatch()
        except FakeDiscordError as error:
            self.note(f"could not click: {str(error)[:80]}")
            return None
        self.stage.in_flight.add(ix)
        try:
            await self.fake.wait_for(lambda: answered(ix)
                                     or self.stage.generation != generation,
                                     timeout=ANSWER_PATIENCE)
        except FakeDiscordError:
            self.stage.unanswered_while_up += 1
        finally:
            self.stage.in_flight.discard(ix)
        response = ix.response.type if ix.response else None
        killed = " (killed)" if generation != self.stage.generation else ""
        self.note(f"{ix.user.name} {ix.data.get('custom_id')} {ix.data.get('values', '')} -> "
                  f"{response} {final(ix)}{killed} {ix.text()[:50]!r}")
        return ix

    async def move(self, menu: Menu) -> None:
        comp, value = self.rng.choice(menu.choices)
        custom_id = comp["custom_id"]
        table_id, step, arg = parts(custom_id)
        code = value if value is not None else arg
        user, message = menu.user, menu.message

        def dispatch() -> Awaitable[Interaction]:
            if value is None:
                return self.fake.click(user, message, custom_id)
            return self.fake.select(user, message, custom_id, [value])

        if (message.id, custom_id) in self._try_again:  # "try again": once storage is back
            await self.stage.database_up.wait()
        times = 2 if self.rng.random() < DOUBLE_CLICKS else 1
        self.doubled += times - 1
        sent = await asyncio.gather(*(self.send(dispatch, lambda ix: final(ix) is not None)
                                      for _ in range(times)))
        outcomes = []
        for ix in sent:
            if ix is None:
                continue
            outcome = final(ix) or UNKNOWN
            outcomes.append(outcome)
            self.clicks.append(Click(table_id, user.id, step, code, outcome,
                                     _answer(ix) if outcome == REFUSED else ""))
        self._judge_menu(menu, custom_id, outcomes)

    def _judge_menu(self, menu: Menu, custom_id: str, outcomes: list[str]) -> None:
        """What the person makes of that menu after the answers: used up (played, gone,
        or refused for good), put aside (the bot died; some click it again later), or
        clicked again once storage is back (the answer said to try again)."""
        key = (menu.message.id, custom_id)
        self._tries[key] += 1
        self._try_again.discard(key)
        if not outcomes or DONE in outcomes:
            whole = {(menu.message.id, c["custom_id"]) for c, _ in menu.choices}
            self._dead |= whole
            self._spent |= whole
            self.stage.acknowledged += outcomes.count(DONE)
            if DONE in outcomes:
                self._progress_at = time.monotonic()
        elif UNKNOWN in outcomes:  # the bot died: that person may click it again now,
            if self.rng.random() < RETRIES and self._tries[key] < 3:  # or once stuck
                self.retried += 1
            else:
                self._dead.add(key)
        elif any(RETRYABLE in c.answer.lower() for c in self.clicks[-len(outcomes):]) \
                and self._tries[key] < TRY_AGAIN:
            self._try_again.add(key)
        else:
            self._dead.add(key)
            self._spent.add(key)

    async def press(self, user: FakeUser, message: FakeMessage, custom_id: str
                    ) -> Interaction | None:
        """A button that is not a move (My hand, Rematch, End series, Start)."""
        if message.component(custom_id) is None:
            return None
        return await self.send(lambda: self.fake.click(user, message, custom_id))

    async def rematch(self, result: FakeMessage) -> bool:
        """The host starts the next game; False if the result offers no Rematch."""
        buttons = [c["custom_id"] for c in result.leaf_components()
                   if str(c.get("custom_id", "")).startswith(REMATCH) and not c.get("disabled")]
        if not buttons:
            return False
        ix = await self.press(self.host, result, buttons[0])
        self._rematch_cut = ix is not None and ix.response is None  # a kill came first
        return True

    async def rematch_again(self) -> bool:
        """The host presses the last result's Rematch again (its first press got no
        answer, or nothing came of it), at most three times a game that were not cut
        short by a kill (the stall bounds those)."""
        last = next((m for m in self.channel.messages if m.id == self._over_seen), None)
        if last is None or self._rematch_tries >= 3:
            return False
        pressed = await self.rematch(last)
        if not self._rematch_cut:
            self._rematch_tries += 1
        return pressed

    async def end_series(self) -> bool:
        """At AttackJack, the host ends the series once it played its deals."""
        result = self.series_result()
        if result is None:
            return False
        deals = sum(1 for m in self.channel.messages if m.id > self._over_seen and any(
            str(c.get("custom_id", "")).startswith(END_SERIES) for c in m.leaf_components()))
        if deals < self.series_deals:
            self._series_seen = result.id  # the next deal is played first
            return True
        [button] = [c["custom_id"] for c in result.leaf_components()
                    if str(c.get("custom_id", "")).startswith(END_SERIES)]
        ix = await self.press(self.host, result, button)
        if ix is not None and settled(ix):
            self._series_seen = result.id
        return True

    def table_message(self) -> FakeMessage | None:
        return self.fake.find_message(self.channel, label="My hand")

    async def my_hand(self, user: FakeUser) -> bool:
        """``user`` presses My hand on the table message; whether a menu came of it."""
        table = self.table_message()
        if table is None:
            return False
        hand = next((c["custom_id"] for c in table.leaf_components()
                     if str(c.get("custom_id", "")).startswith(HAND)), None)
        if hand is None:
            return False
        self.hand_presses += 1
        await self.press(user, table, hand)
        return self.menu() is not None

    def named(self) -> FakeUser | None:
        """At a table of channel hands: the player the table message names, if they have
        not pressed My hand since it changed."""
        if self.hands != "channel":
            return None
        table = self.table_message()
        found = TO_PLAY.search(table.content) if table is not None else None
        user = next((u for u in self.users if found and u.id == int(found[1])), None)
        if user is None or table is None or \
                self._asked.get(user.id) == (table.id, len(table.versions)):
            return None
        return user

    async def ask_named(self) -> bool:
        """The player the table names presses My hand (once per version of the table
        message)."""
        user, table = self.named(), self.table_message()
        if user is None or table is None:
            return False
        self._asked[user.id] = (table.id, len(table.versions))
        return await self.my_hand(user)

    # ------------------------------------------------------------------ nothing comes

    async def unstick(self) -> bool:
        """Nothing to do for a while: find out why, and wait (boundedly) for the bot.
        False when the table cannot go on (the reason is in ``stops``) or is over."""
        since = time.monotonic()
        while True:
            idle_since = max(self._progress_at, self.stage.last_disruption)
            if time.monotonic() > idle_since + 2 * self.stage.stall:  # whatever the reason
                self.stop(f"no move for {time.monotonic() - idle_since:.0f} s since the last "
                          "disruption")
                return False
            async with self.stage.quiet():
                if self.new_result() or self.series_result() or self.menu() or self.named():
                    return True
                try:
                    live = await live_in(self.stage.where, self.channel.id)
                except Exception:  # (the database restarting: look again)
                    continue
            self.note(f"stuck; stored: {live.status if live else 'no open table'} step "
                      f"{live.data.get('step') if live else '-'}")
            bound = max(since, self.stage.last_disruption) + self.stage.stall
            if live is None:  # no open table: a result, or a rematch cut short by a kill
                if not self.stage.finishing and await self.rematch_again():
                    return True
                if await self.news(bound - time.monotonic()):
                    return True
                if time.monotonic() < bound:
                    continue
                newest = await newest_in(self.stage.where, self.channel.id)
                if newest is not None and self.stage.finishing and self.shown(newest):
                    return False  # its end is there; the Rematch a kill cut short is not due
                if newest is not None and newest.status in ("finished", "stopped"):
                    self.unshown.append(self.told(
                        f"table {newest.table_id} is {newest.status} in storage, but no "
                        "result came to the channel" + (": the series ended there"
                                                        if plays_series(self.game) else "")))
                else:
                    self.stop("no open table, and no result came to the channel")
                return False
            if live.status == "lobby":
                if await self.start_lobby(live.table_id):
                    return True
                if live.data.get("series_start_at") is None and await self.rematch_again():
                    continue  # (a rematch whose start a kill cut short: what is said now?)
                if await self.news(bound - time.monotonic()):
                    return True
                if time.monotonic() < bound:
                    continue
                self.stop(f"table {live.table_id} stays in its lobby")
                return False
            game = restore(live.data["game"])
            game.run_auto_steps()  # (forced steps are not in a record: the bot replays them)
            seat = game.to_act
            people = {u.id: u for u in self.users}
            user = people.get(live.data["seats"][seat]["user_id"]) if seat is not None else None
            waits_for_bot = user is None or game.legal_actions() == [PASS] or \
                game.is_over or game.needs_deal
            to_act = None if waits_for_bot else user
            found = self.their_hand(to_act, live)
            if found is not None:  # a hand they had put aside: play it after all
                self._dead.difference_update((found.message.id, c["custom_id"])
                                             for c, _ in found.choices)
                return True
            if await self.news(bound - time.monotonic(),
                               also=functools.partial(self.their_hand, to_act, live)):
                continue  # (look again: what came?)
            if time.monotonic() < bound:
                continue
            if waits_for_bot:
                self.stop(f"table {live.table_id} waited for the bot at step "
                          f"{live.data['step']} for {self.stage.stall:.0f} s")
                return False
            assert user is not None
            self.stop(f"<@{user.id}>, to act at table {live.table_id} step "
                      f"{live.data['step']}, got no hand in {self.stage.stall:.0f} s"
                      f" (they see: {self.seen_by(user)})")
            return await self.my_hand(user)  # and play on, to measure the rest

    async def start_lobby(self, table_id: str) -> bool:
        """A lobby that shows a Start button (a rematch cut short): the host presses it."""
        start = f"ct:lobby:{table_id}:"
        for message in reversed(self.channel.messages):
            for comp in message.leaf_components():
                cid = str(comp.get("custom_id", ""))
                if cid.startswith(start) and cid.endswith(":start") and not comp.get("disabled"):
                    await self.press(self.host, message, cid)
                    return True
        return False


def _answer(ix: Interaction) -> str:
    """What a refused click was told: a deferred click's answer is a follow-up after the
    message it deferred (its hand), so the whole text, bounded, not its first words."""
    return ix.text()[:2000]
