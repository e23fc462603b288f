"""The web table's page in headless Chromium against the fake Discord, as people use it.

A bot serves the web table on loopback; each person opens the link Discord gave them
(Open table, Watch, /history's Replay) in a browser context of their own
(``testkit.browser``: Debian's Chromium, never skipped). A whole Jazz game is played by
two players from their pages (clicks on cards picked at random among those the page
lights) and one from his DMs, while someone not seated watches; keyboard-only play;
axe-core on the table (a player's page, a spectator's, the final result), the replay
and the error page; screenshots at phone and desktop sizes (also in /tmp/webshots); the
server's sentence for a forged, spent or expired link.
"""

from __future__ import annotations

import asyncio
import random
import time
from collections.abc import AsyncIterator
from datetime import timedelta
from pathlib import Path
from typing import Any

import pytest

from bot.app.client import CardTableBot
from bot.config.web_settings import WebSettings
from bot.storage import FinishedGame, SeatResult
from bot.table.state import Table
from engine import cards
from engine.jazz import SEVENS_DEAL, Jazz
from engine.registry import game_class
from locales import say
from testkit.browser import DESKTOP, PHONE, Browser, TablePage, chromium, missing
from testkit.clock import ManualClock
from testkit.fakediscord import FakeChannel, FakeDiscord, FakeMessage, FakeUser
from testkit.games.jazz import JAZZ_ONLY
from testkit.harness import MakeBot, idle, live_menu, shows_card, table_message
from testkit.results import T0
from testkit.tables import live, move, start_jazz
from testkit.webtable import WEB_EXTENSION, link_from, web_settings
from tests.engine.playout import random_game
from web.server import LINK_BAD, LINK_USED
from web.tokens import Signer

from .test_web_privacy import Versions, codes_in, leaks, wrong_hand

pytestmark = pytest.mark.slow


@pytest.fixture
def settings() -> WebSettings:
    return web_settings()


@pytest.fixture
async def bot(run_bot: MakeBot, clock: ManualClock, settings: WebSettings) -> CardTableBot:
    return await run_bot(extensions={**JAZZ_ONLY, **WEB_EXTENSION, "cogs.history": None},
                         clock=clock, web=settings)


@pytest.fixture
async def browser(tmp_path: Path) -> AsyncIterator[Browser]:
    why = missing()
    if why is not None:
        pytest.fail(why, pytrace=False)  # never a skip: .ci/run installs them
    async with chromium(tmp_path / "shots") as opened:
        yield opened


# ------------------------------------------------------------------ helpers


async def open_link(fake: FakeDiscord, browser: Browser, user: FakeUser, message: FakeMessage,
                    label: str, settings: WebSettings, **options: Any) -> TablePage:
    """``user`` clicks ``label`` in Discord and opens the link it answers with."""
    url = await link_from(fake, user, message, label)
    assert url.startswith(f"{settings.public_url}/table#"), url
    return await browser.open(url, user.name, **options)


def card_name(card: int, strings: dict[str, str]) -> str:
    """The page's words for a card (a card's aria-label): "10 of hearts"."""
    code = cards.CODE[card]
    rank, suit = code[:-1], code[-1]
    rank = "10" if rank == "T" else strings.get(f"rank_{rank}", rank)
    return strings["card_name"].format(rank=rank, suit=strings[f"suit_{suit}"])


class Shown:
    """The card codes a page's snapshots showed it, up to a version (asked in order)."""

    def __init__(self, page: TablePage):
        self.page, self.read, self.codes = page, 0, set[str]()

    def upto(self, version: int) -> set[str]:
        snapshots = self.page.snapshots
        while self.read < len(snapshots) and snapshots[self.read]["version"] <= version:
            self.codes |= codes_in(snapshots[self.read])
            self.read += 1
        return self.codes


def dom_leaks(state: dict[str, Any], shown_before: Shown, versions: Versions,
              table_id: str) -> list[str]:
    """The hidden cards a spectator's page shows (its elements' data-code, its words:
    text, aria-labels, titles, data-* attributes), at the version it has rendered. The
    motion's ghosts (copies of cards that just left the table, fading) may only be
    cards an earlier snapshot showed this page."""
    shown, dom = state["rendered"], state["dom"]
    assert shown["table"] == table_id, shown
    hidden = versions.at[table_id, shown["version"]].hidden
    strings = shown_before.page.snapshots[-1]["strings"]
    words = "\n".join([dom["text"], *dom["attrs"], dom["title"]])
    labels = "\n".join(dom["attrs"])
    found = [f"v{shown['version']}: data-code {c}" for c in dom["codes"]
             if c and cards.parse_card(c) in hidden]
    # (A card's name only where cards are named, in labels: Jazz's fourth deal is called
    # "King of clubs" in the heading's text.)
    found += [f"v{shown['version']}: {cards.label(c)} in the page's words" for c in hidden
              if shows_card(words, c) or card_name(c, strings) in labels]
    seen = shown_before.upto(shown["version"])
    found += [f"v{shown['version']}: a ghost of {c}, never shown" for c in dom["ghosts"]
              if c not in seen]
    return found


def check_hand(hand: dict[str, Any] | None, table: Table, seat: int, who: str) -> None:
    """The page shows exactly the seat's hand as buttons, the legal moves lit (only
    them, only on its turn)."""
    assert table.game is not None
    view = table.game.seat_view(seat)
    held = sorted(view["hand"])
    assert hand is not None, f"{who}: no hand"
    assert sorted(hand["cards"]) == held, (who, hand["cards"], held)
    assert sorted(hand["buttons"]) == held, (who, hand["buttons"], held)
    if table.to_act == seat:
        legal = sorted(view["legal"])
        assert sorted(p.split(":", 1)[1] for p in hand["playable"]) == legal, (who, hand, legal)
        assert sorted(hand["lit"]) == [c for c in legal if c in held], (who, hand, legal)
    else:
        assert hand["playable"] == [] and hand["lit"] == [], (who, hand)


def seat_of(table: Table, user: FakeUser) -> int:
    seat = table.seat_of(user.id)
    assert seat is not None, f"{user.name} has no seat"
    return seat


async def newer(table: Table, version: int, timeout: float = 10.0) -> None:
    """Until the table is past ``version`` (a move from a page was played)."""
    async with asyncio.timeout(timeout):
        while table.version <= version:
            await asyncio.sleep(0.002)


def axe_report(where: str, violations: list[dict[str, Any]]) -> list[str]:
    return [f"{where}: {v['impact']} {v['id']} ({v['help']}): "
            + "; ".join(f"{n['target']} {n['summary']!r}" for n in v["nodes"])
            for v in violations]


# ------------------------------------------------------------------ a whole game


async def look(pages: list[TablePage], stage: str, axe_each_size: bool) -> list[str]:
    """Screenshots of each page at phone and desktop sizes; what is wrong in them:
    axe-core's serious findings (at each size, or at the page's own), and cards whose
    corner another card hides at the page's own size, the pointer away (none is lifted
    by it)."""
    found = []
    for page in pages:
        if not axe_each_size:
            found += axe_report(f"{stage} {page.name}", await page.axe())
        await page.page.mouse.move(0, 0)
        found += [f"{stage} {page.name}: the corner of {a} under {b}"
                  for a, b in await page.covered_corners()]
        for size in (PHONE, DESKTOP):
            await page.screenshot(f"{stage}-{page.name}", size)
            if axe_each_size:
                found += axe_report(f"{stage} {page.name} {size[0]}x{size[1]}", await page.axe())
    return found


async def test_a_whole_jazz_game_two_play_in_browsers_one_in_dms_and_a_spectator_follows(
        fake: FakeDiscord, general: FakeChannel, users: list[FakeUser], bot: CardTableBot,
        settings: WebSettings, browser: Browser) -> None:
    alice, bob, cy = users
    dora = fake.add_user("dora")  # not seated: she watches
    versions = Versions(bot)
    unsubscribe = bot.croupier.manager.bus.subscribe(versions.saved)
    try:
        await start_jazz(fake, general, users)
        await idle(bot)
        table = live(bot, general)
        assert table is not None and isinstance(table.game, Jazz)
        game: Jazz = table.game
        table_id = table.table_id
        message = table_message(fake, general)
        assert message is not None
        # Alice on a desktop, Bob on a phone, their pages without motion (reduced motion,
        # as their OS may ask): ~170 clicks then wait for no animation. Dora's page moves
        # as it does by default.
        alice_page = await open_link(fake, browser, alice, message, "Open table", settings,
                                     size=DESKTOP, reduced_motion=True)
        bob_page = await open_link(fake, browser, bob, message, "Open table", settings,
                                   size=PHONE, reduced_motion=True)
        watcher = await open_link(fake, browser, dora, message, "Watch", settings,
                                  size=DESKTOP)
        pages = [alice_page, bob_page, watcher]
        watcher_saw = Shown(watcher)
        by_seat = {seat_of(table, u): u for u in users}
        seat_page = {seat_of(table, alice): alice_page, seat_of(table, bob): bob_page}
        page_seat = {page.name: seat for seat, page in seat_page.items()}
        rng = random.Random(11)
        made = {"web": 0, "dm": 0}
        made_by: list[str] = []  # the page of each click
        dom_found: list[str] = []
        look_found: list[str] = []
        deals: list[int] = []
        moves_in_deal = 0
        await idle(bot)
        while table.game is not None and table.to_act is not None:
            version, seat = table.version, table.to_act
            if not deals or deals[-1] != game.deal_number:
                deals.append(game.deal_number)
                moves_in_deal = 0
            # Every page has this version: each player's page shows their hand exactly,
            # lit where legal; the spectator's has no hand and shows no hidden card.
            *states, seen = await asyncio.gather(
                *(page.state(version) for page in seat_page.values()),
                watcher.state(version, dom=True))
            hands = {s: state["hand"] for s, state in zip(seat_page, states, strict=True)}
            for page_seat_, page in seat_page.items():
                check_hand(hands[page_seat_], table, page_seat_, page.name)
            assert seen["hand"] is None
            dom_found += dom_leaks(seen, watcher_saw, versions, table_id)
            # Pictures and axe-core: a trick deal under way, then the Sevens deal (Pass).
            if game.deal_number == 0 and moves_in_deal == 7:
                look_found += await look(pages, "tricks", True)
            if game.deal_number == SEVENS_DEAL and moves_in_deal == 12:
                look_found += await look(pages, "sevens", False)
            before = table_message(fake, general)
            assert before is not None
            edits = (before.id, len(before.versions))
            if seat in seat_page:
                page = seat_page[seat]
                step = next(f["hand"]["step"] for f in reversed(page.snapshots)
                            if f["version"] == version)
                nav = rng.choice(hands[seat]["playable"])
                # Playwright's full checks (visible, steady, not covered) now and then.
                await page.click_move(nav, None if made["web"] % 6 == 0 else hands[seat])
                await newer(table, version)
                await idle(bot)
                made["web"] += 1
                made_by.append(page.name)
                # One click, one move frame: the step and code of the hand shown.
                sent = await page.sent_moves(made_by.count(page.name))
                assert sent[-1] == {"type": "move", "step": step, "code": nav.split(":", 1)[1]}
                assert len(sent) == made_by.count(page.name), sent
                # Discord follows: the table message, and the next player's DM menu.
                after = table_message(fake, general)
                if after is not None:  # (None: the game is over)
                    assert (after.id, len(after.versions)) != edits, "the table message stayed"
                    if table.to_act is not None:
                        nxt = by_seat[table.to_act]
                        assert live_menu(fake, nxt) is not None, f"{nxt.name} has no DM menu"
            else:
                assert await move(fake, bot, general, users, rng) is cy
                made["dm"] += 1
            moves_in_deal += 1
        await idle(bot)
        await fake.settle()
        last = table.version
        assert game.is_over and deals == list(range(6)), deals
        assert made["web"] > 100 and made["dm"] > 40, made

        # The end: every page shows the game's final result, with the channel's totals.
        standings = fake.messages(general)[-1].text()
        assert "Standings" in standings, standings
        for page in pages:
            state = await page.state(last)
            assert state["rendered"]["status"] == "closed", state["rendered"]
            result = page.snapshots[-1]["result"]
            assert result["final"], result
            shown = await page.result()
            assert shown is not None, f"{page.name}: no result"
            assert shown[0] == page.snapshots[-1]["strings"]["final_result"], shown
            assert shown[1].split() == result["text"].split(), (shown, result)
            for seat, total in enumerate(game.totals):
                name = table.seats[seat].name
                assert f"{name} {total}" in shown[1] and f"**{name}** {total}" in standings
            for winner in result["winners"]:
                assert f"👑 **{winner}**" in standings, standings
            # A player's page keeps what they held at the end, nothing lit or playable.
            if page is watcher:
                assert state["hand"] is None
            else:
                check_hand(state["hand"], table, page_seat[page.name], page.name)
        look_found += await look(pages, "final", False)
        # The host's page offers the rematch under the result; the others' do not.
        rematch = {p.name: await p.page.locator("#result button.rematch").count()
                   for p in pages}

        # No frame the spectator received names a hidden card (by code or label, at the
        # frame's own version); the players' frames hold no other player's card (by code)
        # and their hand exactly.
        frames_found = [f"dora: {x}" for f in watcher.received
                        for x in leaks(f, None, table_id, versions)]
        for page in (alice_page, bob_page):
            for frame in page.received:
                if frame.get("type") != "snapshot":
                    continue
                secret = versions.at[table_id, frame["version"]].hidden_from(
                    page_seat[page.name])
                frames_found += [f"{page.name} v{frame['version']}: {c}"
                                 for c in codes_in(frame) if cards.parse_card(c) in secret]
                wrong = wrong_hand(frame, page_seat[page.name], table_id, versions)
                frames_found += [f"{page.name}: {wrong}"] if wrong else []
        assert all(f.get("hand") is None for f in watcher.snapshots)
        assert frames_found == [], "\n".join(frames_found[:20])
        assert dom_found == [], "\n".join(dom_found[:20])
        errors = [f"{p.name}: {e}" for p in pages for e in p.errors]
        assert errors == [], errors
        # What the pages look like, all at once. The page's bugs these catch: (1) the card
        # that takes a clicked card's place keeps the focus, and ".slot:focus-within"
        # lifts it over its neighbour's corner (as for the keyboard) until the player
        # clicks elsewhere; (2) the final result comes first in a snapshot still
        # "playing", then again "closed": the page keeps the box it drew for the first
        # (same text) and never adds the host's Rematch button.
        wanted = {"alice": 1, "bob": 0, "dora": 0}
        look_found += [] if rematch == wanted else [f"Rematch buttons {rematch}, not {wanted}"]
        assert look_found == [], "\n".join(look_found)
        print(f"\n{made}, {last} versions, deals {deals}, "
              f"{sum(len(p.received) for p in pages)} frames")
    finally:
        unsubscribe()


# ------------------------------------------------------------------ the keyboard


async def test_a_player_plays_several_moves_with_the_keyboard_alone(
        fake: FakeDiscord, general: FakeChannel, users: list[FakeUser], bot: CardTableBot,
        settings: WebSettings, browser: Browser) -> None:
    alice = users[0]
    await start_jazz(fake, general, users)
    await idle(bot)
    table = live(bot, general)
    assert table is not None and table.game is not None
    message = table_message(fake, general)
    assert message is not None
    page = await open_link(fake, browser, alice, message, "Open table", settings)
    keys = page.page.keyboard
    seat = seat_of(table, alice)
    rng = random.Random(5)
    played: list[str] = []
    refused_once = False
    while len(played) < 4:
        await idle(bot)
        version = table.version
        state = await page.state(version)
        check_hand(state["hand"], table, seat, "alice")
        strings = page.snapshots[-1]["strings"]
        if table.to_act != seat:
            if played and not refused_once:
                # Enter on a card out of turn: the page says so and sends nothing.
                refused_once = True
                assert (await page.focused())["inHand"]
                await keys.press("Enter")
                toast = page.page.locator(".toast:not([hidden])")
                assert (await toast.text_content() or "").strip() == strings["not_your_turn"]
                assert len(page.moves) == len(played)
            await move(fake, bot, general, users, rng)
            continue
        if not played:
            # From the top of the page (once the focus is in the document: headless, the
            # first Tab brings it there): the first stop is "Skip to your hand", and
            # Enter on it puts the focus on the hand, on a card that may be played.
            for _ in range(3):
                await keys.press("Tab")
                if (await page.focused())["tag"] != "BODY":
                    break
            assert (await page.focused())["text"] == strings["skip_to_hand"]
            await keys.press("Enter")
            where = await page.focused()
            assert where["inHand"] and where["nav"] in state["hand"]["playable"], where
            # The whole hand is one Tab stop: Tab leaves it, Shift+Tab comes back there.
            await keys.press("Tab")
            assert not (await page.focused())["inHand"]
            await keys.press("Shift+Tab")
            assert (await page.focused())["nav"] == where["nav"]
        elif len(played) == 2:
            await keys.press("End")
        focused = await page.focused()
        assert focused["inHand"], focused
        order = [n["nav"] for n in await page.navs()]
        playable = state["hand"]["playable"]
        assert playable and set(playable) <= set(order)
        # The arrow keys to a card picked among the lit ones; Enter plays it.
        target = rng.choice(playable)
        steps = order.index(target) - order.index(focused["nav"])
        for _ in range(abs(steps)):
            await keys.press("ArrowRight" if steps > 0 else "ArrowLeft")
        assert (await page.focused())["nav"] == target
        await keys.press("Enter")
        await newer(table, version)
        await idle(bot)
        code = target.split(":", 1)[1]
        assert (await page.sent_moves(len(played) + 1))[-1]["code"] == code
        assert code not in table.game.seat_view(seat)["hand"]
        played.append(code)
        # The focus stays in the hand once the card has gone (the next one, or the last).
        await page.wait_rendered(table.version)
        assert (await page.focused())["inHand"]
    assert refused_once
    assert page.errors == [], page.errors


# ------------------------------------------------------------------ the replay


async def test_the_replay_page_shows_every_hand_steps_and_passes_axe(
        fake: FakeDiscord, general: FakeChannel, alice: FakeUser, bot: CardTableBot,
        settings: WebSettings, browser: Browser) -> None:
    game = random_game(game_class("jazz"), 3, None, seed=3)
    totals = game.totals
    game_id = await bot.store.record_game(FinishedGame(
        fake.world.guild.id, general.id, "jazz", T0, T0 + timedelta(minutes=20), True,
        game.to_record(), [SeatResult(i, 700 + i, name, totals[i], i, False, 0)
                           for i, name in enumerate(("Ann", "Bo", "Cy"))], stakes=False))
    listing = await (await fake.slash(alice, general, "history")).wait_answered()
    assert listing.message is not None
    got = await (await fake.select(alice, listing.message, "ct:rec",
                                   [str(game_id)])).wait_answered()
    assert got.message is not None
    (link,) = [c["url"] for c in got.message.buttons() if c.get("url")]
    assert link.startswith(f"{settings.public_url}/replay#")
    page = await browser.open(link, "replay")
    counter = page.page.locator("#counter")
    await counter.wait_for()
    assert "#" not in page.page.url  # the token left the address bar
    hands = page.page.locator("#hands .hand-box")

    async def faces() -> list[list[str]]:
        return [list(await box.locator("[data-code]").evaluate_all(
            "els => els.map(e => e.dataset.code)")) for box in await hands.all()]

    # Every hand face up: three hands of 17 (2♦ out), none shown twice.
    first = await faces()
    assert [len(h) for h in first] == [17, 17, 17], first
    assert len({c for h in first for c in h}) == 51
    text = str(await counter.text_content())
    assert text.startswith("Deal 1 · Move 1 of ") and int(text.rsplit(" ", 1)[1]) > 100, text
    axe_found: list[str] = []
    for size in (PHONE, DESKTOP):
        await page.screenshot("replay-start", size)
        axe_found += axe_report(f"replay start {size[0]}x{size[1]}", await page.axe())
    # Stepped by the keyboard and by its buttons: a card leaves a hand for the table.
    await page.page.keyboard.press("ArrowRight")
    await page.page.keyboard.press("ArrowRight")
    assert sum(map(len, await faces())) == 51 - 2
    await page.page.get_by_role("button", name="Back").click()
    assert sum(map(len, await faces())) == 51 - 1
    await page.page.keyboard.press("End")
    shown = await page.result()
    assert shown is not None and "won" in shown[1], shown
    for size in (PHONE, DESKTOP):
        await page.screenshot("replay-end", size)
        axe_found += axe_report(f"replay end {size[0]}x{size[1]}", await page.axe())
    assert axe_found == [], "\n".join(axe_found)
    assert page.errors == [], page.errors
    # The players by the names they played under (the game's stored seats), as the
    # protocol's "players" says: on the seats, in the result, each hand titled as its
    # player's, not the reader's. The bugs this catches: GET /api/replay passes no names
    # and the bot's records hold none, so every replay from /history says "Player 1"…;
    # and each hand is titled as its player's own hand picture is, "Your hand · …".
    seats = await page.page.locator("#main .seat").evaluate_all(
        "els => els.map(e => e.dataset.name)")
    titles = [str(t).strip() for t in await hands.locator(":scope > h3").all_text_contents()]
    wrong = [] if sorted(seats) == ["Ann", "Bo", "Cy"] else [f"the seats say {seats}"]
    wrong += [] if all(n in shown[1] for n in ("Ann", "Bo", "Cy")) else [f"the result: {shown}"]
    wrong += [f"a hand titled {t!r}" for t in titles if t.startswith("Your hand")]
    assert wrong == [], "\n".join(wrong)


# ------------------------------------------------------------------ bad links


async def test_a_forged_spent_or_expired_link_shows_the_servers_sentence(
        fake: FakeDiscord, general: FakeChannel, users: list[FakeUser], bot: CardTableBot,
        settings: WebSettings, browser: Browser) -> None:
    bob = users[1]
    await start_jazz(fake, general, users)
    await idle(bot)
    table = live(bot, general)
    assert table is not None
    message = table_message(fake, general)
    assert message is not None
    bad, used = say(LINK_BAD, "en"), say(LINK_USED, "en")
    base = settings.public_url

    forged = await browser.open(f"{base}/table#forged.link-token", "forged", size=PHONE)
    assert await forged.alert() == bad
    assert "#" not in forged.page.url  # even a bad token leaves the address bar
    for size in (PHONE, DESKTOP):
        await forged.screenshot("error-forged", size)
    axe_found = axe_report("error page", await forged.axe())
    # A link opened once, then again (a second browser, a forwarded link): spent.
    url = await link_from(fake, bob, message, "Open table")
    first = await browser.open(url, "bob")
    await first.page.locator("#hand button[data-code]").first.wait_for()
    again = await browser.open(url, "bob-again")
    assert await again.alert() == used
    # A link signed right but older than its five minutes, and one signed by another key.
    expired = Signer(settings.secret).link(bob.id, table.table_id, "seat", time.time() - 301)
    assert await (await browser.open(f"{base}/table#{expired}", "expired")).alert() == bad
    foreign = Signer(b"another-secret-entirely-0123456789").link(
        bob.id, table.table_id, "seat", time.time())
    assert await (await browser.open(f"{base}/table#{foreign}", "foreign")).alert() == bad
    # A replay link that was never made.
    replay = await browser.open(f"{base}/replay#forged.replay-token", "replay-forged")
    assert await replay.alert() == bad
    for page in (forged, again):
        assert await page.page.locator("#hand, #status, button").count() == 0
    assert axe_found == [], "\n".join(axe_found)
