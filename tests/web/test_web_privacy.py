"""No web frame shows a viewer a card hidden from them, in every game of the registry.

For each registered game (and the variants whose options hide more: AttackJack's
blind card, Jacko's closed hands) a table is played on the fake Discord by a bot that
serves the web table. A spectator (Watch, by someone not seated) and every seated
player have a page open; the seats move from their page, from their DMs, or by turns
from both. Every saved version of the table is followed on the table bus and, at that
version, what each viewer may not see is worked out from the engine: the cards in
players' hands that the public view does not show, less those the viewer's own seat
view names (their hand; the opponent's under Jacko's open hands). Every frame each
page received is then checked against the version it carries: no card code (a
``code``/``card`` field anywhere) nor card label (10♥, in any text) of a hidden card;
a spectator's frame has no hand; a seat's hand holds exactly its own cards.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import random
import re
import time
from collections.abc import AsyncIterator, Iterator
from dataclasses import dataclass, field
from typing import Any

import aiohttp
import pytest

from bot.app.client import CardTableBot
from bot.config.web_settings import WebSettings
from bot.table.bus import Saved
from bot.table.state import Table
from engine import cards
from engine.core import Game
from engine.registry import game_ids, specs
from testkit.clock import ManualClock
from testkit.fakediscord import FakeChannel, FakeDiscord, FakeUser
from testkit.games import command, extensions, seats
from testkit.harness import (
    CODE_TOKEN,
    MakeBot,
    choose,
    idle,
    live_menu,
    my_hand_id,
    shows_card,
    table_message,
)
from testkit.tables import open_and_start
from testkit.webtable import WEB_EXTENSION, Page, link_from, token_of, web_settings
from web.tokens import Role, Signer

MOVES = 60  # moves per game at most: past the first deal of every game
TABLES = 3  # tables (a series' deals) per game at most
NAMES = ("alice", "bob", "cy", "dee", "eve")
# How each seat moves, by seat: from the page, from DMs, or by turns from both.
MODES = ("web", "dm", "mixed", "web", "dm")
# Options that hide more than a game's defaults do.
VARIANTS: tuple[tuple[str, dict[str, Any]], ...] = (
    ("attackjack", {"blind": True, "choice": True, "stake": 10}),
    ("jacko", {"open_hands": False}),
)
CARD = re.compile(CODE_TOKEN.pattern.strip('"'))


def cases() -> Iterator[Any]:
    for spec in specs():
        yield pytest.param(spec.id, {}, id=spec.id)
    for game_id, options in VARIANTS:
        if game_id in game_ids():
            name = "-".join(k if v is True else f"{k}={v}" for k, v in options.items())
            yield pytest.param(game_id, options, id=f"{game_id}-{name}")


# ------------------------------------------------------------------ what each may see


def named(view: dict[str, Any]) -> frozenset[int]:
    """Every card a view names (as a JSON string value)."""
    return frozenset(cards.parse_card(c) for c in CODE_TOKEN.findall(json.dumps(view)))


@dataclass(frozen=True)
class Secrets:
    """One version of the table: the cards hidden from the public, what each seat's own
    view names, and each seat's hand."""

    hidden: frozenset[int] = frozenset()
    seen: tuple[frozenset[int], ...] = ()
    hands: tuple[frozenset[int], ...] = ()

    @classmethod
    def of(cls, game: Game | None) -> Secrets:
        if game is None:  # a lobby, or a series between two deals: nothing dealt
            return cls()
        public = named(game.public_view())
        views = [game.seat_view(s) for s in range(game.players)]
        hands = tuple(frozenset(cards.parse_card(c) for c in v.get("hand") or ())
                      for v in views)
        hidden = frozenset().union(*hands) - public
        return cls(hidden, tuple(named(v) for v in views), hands)

    def hidden_from(self, seat: int | None) -> frozenset[int]:
        if seat is None or not self.hidden:
            return self.hidden
        return self.hidden - self.seen[seat]


@dataclass
class Versions:
    """The secrets of every table of the channel at every version the bus announced (a
    series' next deal is a table of its own)."""

    bot: CardTableBot
    at: dict[tuple[str, int], Secrets] = field(default_factory=dict)

    def saved(self, saved: Saved) -> None:
        table = self.bot.croupier.manager.get(saved.table_id)
        assert table is not None, f"{saved} of a table this process does not hold"
        self.at[saved.table_id, saved.version] = Secrets.of(table.game)

    def newest(self, table_id: str) -> int:
        return max(v for t, v in self.at if t == table_id)


# ------------------------------------------------------------------ frames


def codes_in(frame: Any) -> set[str]:
    """Every card code in a ``code`` or ``card`` field, anywhere in the frame."""
    found: set[str] = set()
    if isinstance(frame, dict):
        for key, value in frame.items():
            if key in ("code", "card") and isinstance(value, str):
                if CARD.fullmatch(value):
                    found.add(value)
            else:
                found |= codes_in(value)
    elif isinstance(frame, list):
        for item in frame:
            found |= codes_in(item)
    return found


def texts_in(frame: Any, key: str = "") -> Iterator[tuple[str, str]]:
    """Every text of the frame with its key (not the card codes, nor the table's id)."""
    if isinstance(frame, dict):
        for k, value in frame.items():
            if k not in ("code", "card", "table"):
                yield from texts_in(value, k)
    elif isinstance(frame, list):
        for item in frame:
            yield from texts_in(item, key)
    elif isinstance(frame, str):
        yield key, frame


def leaks(frame: dict[str, Any], seat: int | None, table_id: str,
          versions: Versions) -> list[str]:
    """What the frame shows that its viewer may not see at the frame's version."""
    if frame["type"] != "snapshot":  # refused, error: one sentence
        newest = versions.at[table_id, versions.newest(table_id)]
        return [f"{frame['type']} names {cards.label(c)}" for c in newest.hidden_from(seat)
                if shows_card(frame.get("reason", ""), c)]
    version = frame["version"]
    if frame["table"] != table_id:
        return [f"v{version}: a frame of another table, {frame['table']}"]
    secrets = versions.at.get((table_id, version))
    if secrets is None:
        return [f"a snapshot at version {version}, which the bus never announced"]
    hidden = secrets.hidden_from(seat)
    shown = {cards.parse_card(c) for c in codes_in(frame)}
    found = [f"v{version}: the card {cards.label(c)}" for c in shown & hidden]
    # (The page's own words, ``strings``, name no card of this deal: "Joker" is a word.)
    for key, text in texts_in({k: v for k, v in frame.items() if k != "strings"}):
        found += [f"v{version}: {cards.label(c)} in {key} {text!r}" for c in hidden
                  if shows_card(text, c)]
    if seat is None and frame["hand"] is not None:
        found.append(f"v{version}: a spectator's frame with a hand")
    return found


def wrong_hand(frame: dict[str, Any], seat: int | None, table_id: str,
               versions: Versions) -> str | None:
    """How a seat's hand differs from its cards at the frame's version, if it does."""
    secrets = versions.at.get((table_id, frame.get("version", -1)))
    if frame["type"] != "snapshot" or seat is None or secrets is None or not secrets.hands:
        return None
    hand = frame["hand"]
    held = {cards.parse_card(a["card"]) for a in (hand or {"actions": []})["actions"]
            if a["card"]}
    if hand is not None and held == secrets.hands[seat]:
        return None
    own = sorted(map(cards.label, secrets.hands[seat]))
    return (f"v{frame['version']} ({frame['status']}): the hand "
            f"{sorted(map(cards.label, held))}, not {own}")


@dataclass
class Viewer:
    """An open page and the task that keeps every frame it receives."""

    name: str
    seat: int | None
    table_id: str
    page: Page
    reader: asyncio.Task[None] | None = None

    def start(self) -> None:
        async def read() -> None:
            with contextlib.suppress(ConnectionError):
                while True:
                    await self.page.next(timeout=3600)

        self.reader = asyncio.get_running_loop().create_task(read())

    def frames(self) -> list[dict[str, Any]]:
        """The frames of this viewer's table (a page moves on to a series' next deal by
        itself: that deal has pages of its own here)."""
        return [f for f in self.page.frames if f.get("table", self.table_id) == self.table_id]

    def snapshots(self) -> list[dict[str, Any]]:
        return [f for f in self.frames() if f["type"] == "snapshot"]

    def latest(self) -> dict[str, Any]:
        return self.snapshots()[-1]

    async def stop(self) -> None:
        await self.page.close()
        if self.reader is not None:
            self.reader.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self.reader


# ------------------------------------------------------------------ the players


@dataclass
class WebPlayers:
    fake: FakeDiscord
    bot: CardTableBot
    channel: FakeChannel
    users: list[FakeUser]
    viewers: list[Viewer]
    versions: Versions
    rng: random.Random
    made: list[str]  # how each move was made: "web" or "dm"

    @property
    def table(self) -> Table | None:
        """The pages' table while it is open."""
        return self.bot.croupier.manager.get(self.viewers[0].table_id)

    async def synced(self) -> None:
        """The bot is idle and every page has its table's newest version."""
        await idle(self.bot)
        await self.fake.wait_for(
            lambda: all(v.snapshots() and v.latest()["version"] >= self.versions.newest(
                v.table_id) for v in self.viewers), timeout=10)

    async def play_one(self, n: int) -> bool:
        """The seat to act moves (from its page or its DMs); False if nobody can."""
        await self.synced()
        table = self.table
        if table is None or table.game is None or table.to_act is None \
                or table.automation() is not None:
            return False
        seat = table.to_act
        mode = MODES[seat]
        if mode == "mixed":
            mode = ("web", "dm")[n % 2]
        if mode == "web":
            await self.web_move(seat, table)
        else:
            await self.dm_move(next(u for u in self.users if table.seat_of(u.id) == seat),
                               table)
        self.made.append(mode)
        return True

    async def web_move(self, seat: int, table: Table) -> None:
        viewer = next(v for v in self.viewers if v.seat == seat)
        shown = viewer.latest()
        assert shown["version"] == table.version
        hand = shown["hand"]
        assert hand is not None and hand["your_turn"], hand
        action = self.rng.choice([a for a in hand["actions"] if a["legal"]])
        seen = len(viewer.page.frames)
        await viewer.page.send(type="move", step=hand["step"], code=action["code"])
        answer = await self.fake.wait_for(lambda: next(
            (f for f in viewer.page.frames[seen:] if f["type"] == "refused"
             or (f["type"] == "snapshot" and f["version"] > shown["version"])), None),
            timeout=10)
        assert answer["type"] == "snapshot", answer

    async def dm_move(self, user: FakeUser, table: Table) -> None:
        step = table.step
        menu = live_menu(self.fake, user)
        if menu is None:  # no DM hand: My hand on the table
            message = table_message(self.fake, self.channel)
            assert message is not None
            await (await self.fake.click(user, message, my_hand_id(message))).wait_answered()
            await idle(self.bot)
            menu = live_menu(self.fake, user)
        assert menu is not None, f"{user.name} has no menu"
        await (await choose(self.fake, user, menu[0], self.rng)).wait_answered()
        await idle(self.bot)
        assert table.step > step or table is not self.table, f"{user.name}'s DM move was lost"


# ------------------------------------------------------------------ the test


@pytest.fixture
def settings() -> WebSettings:
    return web_settings()


@pytest.fixture
async def http() -> AsyncIterator[aiohttp.ClientSession]:
    async with aiohttp.ClientSession() as session:
        yield session


async def open_pages(fake: FakeDiscord, bot: CardTableBot, channel: FakeChannel,
                     users: list[FakeUser], outsider: FakeUser, settings: WebSettings,
                     http: aiohttp.ClientSession) -> list[Viewer]:
    """The outsider watches, every player opens the table: from the buttons on the table
    message, or (a series' next deal, which has no message before it starts) from links
    made as the bot makes them."""
    table = bot.croupier.manager.in_channel(channel.id)
    assert table is not None
    message = table_message(fake, channel) if table.game is not None else None
    viewers = []
    for user, seat in ((outsider, None), *((u, table.seat_of(u.id)) for u in users)):
        role: Role = "watch" if seat is None else "seat"
        label = "Watch" if seat is None else "Open table"
        if message is not None:
            url = await link_from(fake, user, message, label)
            token = token_of(url)
        else:
            token = Signer(settings.secret).link(user.id, table.table_id, role, time.time())
        page = Page(settings.public_url, http)
        status, body = await page.redeem(token)
        assert status == 200 and body["role"] == role, body
        viewers.append(Viewer(user.name, seat, table.table_id, page))
    for viewer in viewers:
        first = await viewer.page.connect()
        assert first["type"] == "snapshot" and first["seat"] == viewer.seat, first
        viewer.start()
    return viewers


@pytest.mark.slow
@pytest.mark.parametrize(("game_id", "options"), list(cases()))
async def test_no_frame_shows_a_viewer_a_card_hidden_from_them(
        game_id: str, options: dict[str, Any], fake: FakeDiscord, general: FakeChannel,
        run_bot: MakeBot, clock: ManualClock, settings: WebSettings,
        http: aiohttp.ClientSession) -> None:
    fewest, most = seats(game_id)
    players = min(max(fewest, 4), most)
    users = [fake.add_user(name) for name in NAMES[:players]]
    outsider = fake.add_user("wes")
    bot = await run_bot(extensions={**extensions([game_id]), **WEB_EXTENSION}, clock=clock,
                        web=settings)
    versions = Versions(bot)
    unsubscribe = bot.croupier.manager.bus.subscribe(versions.saved)
    viewers: list[Viewer] = []
    modes: list[str] = []
    n = tables = 0
    try:
        await open_and_start(fake, general, users, command(game_id), **options)
        await idle(bot)
        # Each table of the channel in turn (a series deals each deal at a table of its
        # own), until MOVES moves or a table after which none waits.
        while n < MOVES and tables < TABLES:
            tables += 1
            table = bot.croupier.manager.in_channel(general.id)
            if table is None or (table.game is None and table.series_start_at is None):
                break
            pages = await open_pages(fake, bot, general, users, outsider, settings, http)
            viewers += pages
            if table.game is None:  # a series' next deal: it starts with the pages open
                assert table.series_start_at is not None
                clock.advance(table.series_start_at - clock.now() + 1)
                await idle(bot)
            assert table.game is not None
            for key, value in options.items():
                assert getattr(table.game.options, key) == value
            play = WebPlayers(fake, bot, general, users, pages, versions, random.Random(n),
                              modes)
            while n < MOVES and await play.play_one(n):
                n += 1
            await play.synced()
            for page in pages:
                await page.stop()
    finally:
        for viewer in viewers:
            await viewer.stop()
        unsubscribe()
    moved = {mode: sum(1 for m in modes if m == mode) for mode in ("web", "dm")}
    print(f"\n{game_id} {options}: {n} moves {moved}, {len(viewers)} pages, "
          f"{sum(len(v.page.frames) for v in viewers)} frames, {len(versions.at)} versions")
    if n > 4:  # both ways of moving were used
        assert moved["web"] and moved["dm"], moved
    found = [f"{v.name}: {p}" for v in viewers for f in v.frames()
             for p in leaks(f, v.seat, v.table_id, versions)]
    assert found == [], "\n".join(found[:30])
    wrong = [(f, f"{v.name}: {w}") for v in viewers for f in v.frames()
             if (w := wrong_hand(f, v.seat, v.table_id, versions)) is not None]
    assert not wrong, "\n".join(w for _, w in wrong[:30])
    for viewer in viewers:  # every page followed its table to its last version
        assert viewer.latest()["version"] == versions.newest(viewer.table_id), viewer.name


# ------------------------------------------------------------------ only saved versions


async def test_a_page_is_shown_a_step_only_once_it_is_saved(
        fake: FakeDiscord, general: FakeChannel, users: list[FakeUser], run_bot: MakeBot,
        clock: ManualClock, settings: WebSettings, http: aiohttp.ClientSession,
        monkeypatch: pytest.MonkeyPatch) -> None:
    bot = await run_bot(extensions={**extensions(["jazz"]), **WEB_EXTENSION}, clock=clock,
                        web=settings)
    await open_and_start(fake, general, users, "jazz")
    await idle(bot)
    table = bot.croupier.manager.in_channel(general.id)
    assert table is not None and table.to_act is not None
    mover = next(u for u in users if table.seat_of(u.id) == table.to_act)
    watcher = next(u for u in users if u is not mover)
    message = table_message(fake, general)
    assert message is not None
    page = Page(settings.public_url, http)
    assert (await page.redeem(token_of(await link_from(fake, watcher, message))))[0] == 200
    before = await page.connect()
    # Storage takes its time over the mover's save, then fails it.
    saving, fail = asyncio.Event(), asyncio.Event()

    async def slow_failing_save(*args: Any, **kwargs: Any) -> int:
        saving.set()
        await fail.wait()
        raise RuntimeError("the database went away")

    monkeypatch.setattr(bot.store, "save_table", slow_failing_save)
    menu = live_menu(fake, mover)
    assert menu is not None
    click = await choose(fake, mover, menu[0], random.Random(1))
    await asyncio.wait_for(saving.wait(), 5)
    await page.send(type="sync")  # the page asks meanwhile (a hello would do the same)
    during = await page.snapshot()
    fail.set()
    await click.wait_answered()
    await idle(bot)
    assert table.version == before["version"]  # nothing was saved: the table is as it was
    for frame in (during, page.frames[-1]):
        assert (frame["version"], frame["scene"], frame["lines"]) == (
            before["version"], before["scene"], before["lines"])
    await page.close()
