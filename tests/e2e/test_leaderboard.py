"""/leaderboard, /chips and /stats on the fake Discord, against results computed here.

Games are stored straight through ``Store.record_game`` (what a finished table does),
then the pages are read as a user sees them. Expected ratings come from openskill
itself, rated game by game in this file, and the counts from the seeded results, so
the test does not lean on ``bot.storage.ratings`` or the storage queries it checks.
"""

from __future__ import annotations

import random
import re
from dataclasses import dataclass, field
from datetime import timedelta
from typing import Any

import discord
import pytest
from openskill.models import PlackettLuce

from bot.app.client import CardTableBot
from bot.storage import FinishedGame
from bot.ui.pages import Page, nav_view
from cogs.leaderboard import BOARD_TEMPLATE, CHIPS_TEMPLATE, board_id, chips_id
from testkit.bots import Bots
from testkit.fakediscord import FakeDiscord, FakeMessage, FakeUser
from testkit.results import T0, Seat, finished

OTHER_GUILD = 4242
LINE = re.compile(r"^\*\*(\d+)\.\*\* (.+?) — \*\*(-?\d+\.\d)\*\*( \*\(provisional\)\*)? · "
                  r"(\d+) games? · (\d+) wins? \((\d+)%\) · ([+-]\d+) points( ⬅️ you)?$")


# ------------------------------------------------------------------ seeding and expectations


@dataclass
class Player:
    name: str
    mu: float = 25.0
    sigma: float = 25.0 / 3
    games: int = 0
    wins: int = 0
    points: int = 0
    rated: int = 0  # rated games (provisional: fewer than five)

    @property
    def ordinal(self) -> float:
        return self.mu - 3 * self.sigma


@dataclass
class Expected:
    """The leaderboard of one scope, worked out from the games as the rules state them:
    every finished game counts for its human seats; only games of two or more humans and
    no AI seat change ratings (issue 8)."""

    players: dict[int, Player] = field(default_factory=dict)
    model: PlackettLuce = field(default_factory=PlackettLuce)

    def add(self, game: FinishedGame) -> None:
        humans = [s for s in game.seats if s.user_id is not None]
        if not game.completed or not humans:
            return
        people = [self.players.setdefault(s.user_id, Player(s.name)) for s in humans]
        if len(humans) >= 2 and len(humans) == len(game.seats):
            # Ties shared: the dense rank of the points.
            levels = sorted({s.points for s in humans}, reverse=True)
            ranks = [levels.index(s.points) for s in humans]
            teams = [[self.model.rating(mu=p.mu, sigma=p.sigma)] for p in people]
            for person, team in zip(people, self.model.rate(teams, ranks=ranks), strict=True):
                person.mu, person.sigma = team[0].mu, team[0].sigma
                person.rated += 1
        for person, seat in zip(people, humans, strict=True):
            person.games += 1
            person.wins += int(seat.won)
            person.points += seat.points
            person.name = seat.name

    def board(self) -> list[tuple[int, Player]]:
        return sorted(self.players.items(), key=lambda kv: (-kv[1].ordinal, -kv[1].games, kv[0]))


def random_games(rng: random.Random, guild: int, channel: int, people: list[tuple[int, str]],
                 weak: int, count: int) -> list[FinishedGame]:
    """Games of 2 to 4 of ``people`` (sometimes with an AI seat); ``weak`` always comes last."""
    games = []
    for n in range(count):
        table = rng.sample(people, rng.randint(2, 4))
        seats: list[Seat] = [(uid, name, rng.randint(-20, 20)) for uid, name in table]
        seats = [(uid, name, -99 if uid == weak else pts) for uid, name, pts in seats]
        if n % 7 == 3:
            seats.append((None, "AI (easy)", rng.randint(-20, 20)))
        games.append(finished(guild, channel, seats, when=T0 + timedelta(minutes=n)))
    return games


# ------------------------------------------------------------------ reading what users see


def parse_page(message: FakeMessage) -> list[tuple[Any, ...]]:
    embed = message.embeds[0]
    rows = []
    for line in (embed.get("description") or "").splitlines():
        found = LINE.match(line)
        assert found, f"not a leaderboard line: {line!r}"
        rank, name, ordinal, prov, games, wins, rate, points, you = found.groups()
        rows.append((int(rank), name, float(ordinal), bool(prov), int(games), int(wins),
                     int(rate), int(points), bool(you)))
    return rows


def field_value(message: FakeMessage, name: str) -> str | None:
    for f in message.embeds[0].get("fields") or []:
        if f["name"] == name:
            return f["value"]
    return None


def button(message: FakeMessage, label: str) -> dict[str, Any]:
    [found] = [b for b in message.buttons() if b["label"] == label]
    return found


def footer(message: FakeMessage) -> str:
    return message.embeds[0]["footer"]["text"]


@dataclass
class Club:
    fake: FakeDiscord
    bots: Bots
    bot: CardTableBot
    alice: FakeUser
    bob: FakeUser
    cy: FakeUser
    expected: Expected
    expected_global: Expected


@pytest.fixture
async def club(fake_discord: FakeDiscord, bots: Bots) -> Club:
    """25 rated players of Jazz on this server (alice always last), a few games elsewhere."""
    fake = fake_discord
    alice, bob, cy = fake.add_user("alice"), fake.add_user("bob"), fake.add_user("cy")
    general = fake.channel("general")
    guild = fake.world.guild.id
    people = [(alice.id, "Alice"), (bob.id, "Bob")] + [(900 + i, f"Player {i:02d}")
                                                      for i in range(23)]
    rng = random.Random(7)
    here = random_games(rng, guild, general.id, people, alice.id, 70)
    elsewhere = random_games(rng, OTHER_GUILD, 77, people[1:6], alice.id, 6)
    not_counted = [finished(guild, general.id, [(bob.id, "Bob", 5), (None, "AI", 9)]),
                   finished(guild, general.id, [(bob.id, "Bob", 5), (900, "Player 00", 1)],
                            completed=False)]
    bot = await bots.new()
    assert bot.store is not None
    expected, expected_global = Expected(), Expected()
    for game in here + elsewhere + not_counted:
        await bot.store.record_game(game)
        if game.guild_id == guild:
            expected.add(game)
        expected_global.add(game)
    await fake.start_bot(bot)
    return Club(fake, bots, bot, alice, bob, cy, expected, expected_global)


def as_rows(expected: Expected, viewer: int) -> list[tuple[Any, ...]]:
    return [(rank, p.name, p.ordinal, p.rated < 5, p.games, p.wins, round(100 * p.wins / p.games),
             p.points, uid == viewer) for rank, (uid, p) in enumerate(expected.board(), 1)]


def same_rows(shown: list[tuple[Any, ...]], wanted: list[tuple[Any, ...]]) -> bool:
    """Equal, with ratings compared to the one decimal a page shows."""
    if len(shown) != len(wanted):
        return False
    for a, b in zip(shown, wanted, strict=True):
        if a[:2] != b[:2] or a[3:] != b[3:] or abs(a[2] - b[2]) > 0.051:
            return False
    return True


# ------------------------------------------------------------------ the ratings board


async def test_every_page_matches_ratings_computed_independently(club: Club) -> None:
    fake, alice = club.fake, club.alice
    general = fake.channel("general")
    wanted = as_rows(club.expected, alice.id)
    assert len(wanted) == 25 and wanted[-1][1] == "Alice"  # three pages, alice on the last

    ix = await (await fake.slash(alice, general, "leaderboard", game="jazz")).wait_answered()
    board = ix.message
    assert not ix.ephemeral  # a leaderboard is for the channel to see
    assert same_rows(parse_page(board), wanted[:10])
    assert footer(board).startswith("Page 1 of 3 · 25 players")
    # Her own rank is shown although she is not on the page.
    mine = field_value(board, "Your rank")
    assert mine is not None and mine.startswith("#25 of 25 · rating ")
    assert button(board, "⏮ First")["disabled"] and button(board, "◀ Prev")["disabled"]
    assert not button(board, "Next ▶").get("disabled")

    seen = parse_page(board)
    for label in ("Next ▶", "Next ▶"):
        turn = await (await fake.click(alice, board, label=label)).wait_answered()
        assert turn.response.type == 7  # the owner's click turns the page in place
        seen += parse_page(board)
    assert same_rows(seen, wanted)
    assert footer(board).startswith("Page 3 of 3")
    assert field_value(board, "Your rank") is None  # her row is on the page, marked
    assert parse_page(board)[-1][-1] is True
    assert button(board, "Next ▶")["disabled"] and button(board, "Last ⏭")["disabled"]
    assert button(board, "My rank")["disabled"]

    await (await fake.click(alice, board, label="⏮ First")).wait_answered()
    assert same_rows(parse_page(board), wanted[:10])


async def test_a_provisional_player_is_marked_until_five_rated_games(club: Club) -> None:
    fake = club.fake
    wanted = as_rows(club.expected, 0)
    provisional = [row for row in wanted if row[3]]
    settled = [row for row in wanted if not row[3]]
    assert provisional and settled  # the seeding has both kinds
    rated = {p.name: p.rated for p in club.expected.players.values()}
    assert all(rated[row[1]] < 5 for row in provisional)
    assert all(rated[row[1]] >= 5 for row in settled)
    ix = await (await fake.slash(club.bob, fake.channel("general"), "leaderboard",
                                 game="jazz")).wait_answered()
    marked = {row[1] for row in parse_page(ix.message) if row[3]}
    assert marked == {row[1] for row in wanted[:10] if row[3]}


async def test_another_users_click_gets_a_page_of_their_own(club: Club) -> None:
    fake, alice, bob = club.fake, club.alice, club.bob
    ix = await (await fake.slash(alice, fake.channel("general"), "leaderboard",
                                 game="jazz")).wait_answered()
    board = ix.message
    versions = len(board.versions)
    other = await (await fake.click(bob, board, label="Next ▶")).wait_answered()
    assert other.response.type == 4 and other.ephemeral
    assert f"belong to <@{alice.id}>" in other.content
    assert len(board.versions) == versions  # alice's message did not move
    assert [r[0] for r in parse_page(other.message)] == list(range(11, 21))
    # bob's copy is his own: its buttons carry his id and turn his page in place.
    assert all(f":{bob.id}:" in b["custom_id"] for b in other.message.buttons())
    turn = await (await fake.click(bob, other.message, label="Next ▶")).wait_answered()
    assert turn.response.type == 7
    assert [r[0] for r in parse_page(other.message)] == list(range(21, 26))


async def test_buttons_on_an_old_leaderboard_work_after_a_restart(club: Club) -> None:
    fake, alice = club.fake, club.alice
    ix = await (await fake.slash(alice, fake.channel("general"), "leaderboard",
                                 game="jazz")).wait_answered()
    board = ix.message
    club.bot = await club.bots.restart(club.bot)
    jump = await (await fake.click(alice, board, label="My rank")).wait_answered()
    assert jump.response.type == 7
    rows = parse_page(board)
    assert rows[-1][1] == "Alice" and rows[-1][-1] is True
    assert footer(board).startswith("Page 3 of 3")


async def test_global_scope_counts_every_server(club: Club) -> None:
    fake = club.fake
    ix = await (await fake.slash(club.bob, fake.channel("general"), "leaderboard", game="jazz",
                                 scope="global")).wait_answered()
    assert "all servers" in ix.message.embeds[0]["title"]
    wanted = as_rows(club.expected_global, club.bob.id)
    assert same_rows(parse_page(ix.message), wanted[:10])
    assert footer(ix.message).startswith(f"Page 1 of 3 · {len(wanted)} players")
    # The other server's games changed the global numbers, not this server's.
    games_here = {p.name: p.games for p in club.expected.players.values()}
    games_all = {p.name: p.games for p in club.expected_global.players.values()}
    assert games_here != games_all


async def test_an_empty_board_says_so_and_has_no_page_buttons(club: Club) -> None:
    ix = await (await club.fake.slash(club.cy, club.fake.channel("general"), "leaderboard",
                                      game="california_jack")).wait_answered()
    assert "Nobody is on this leaderboard yet" in ix.message.embeds[0]["description"]
    assert ix.message.buttons() == []
    assert "You are not on this leaderboard yet" in (field_value(ix.message, "Your rank") or "")


# ------------------------------------------------------------------ what counts


async def test_the_footer_states_what_storage_counts(
        fake: FakeDiscord, alice: FakeUser, bob: FakeUser, bots: Bots) -> None:
    """A game with AI seats counts for the humans (games, wins, points) but changes no
    rating, and a stopped game counts for nothing: the footer says so."""
    general, guild = fake.channel("general"), fake.world.guild.id
    bot = await bots.new()
    assert bot.store is not None
    for game in (
        finished(guild, general.id, [(alice.id, "Alice", 3), (None, "AI", 30), (bob.id, "Bob", 1)]),
        finished(guild, general.id, [(alice.id, "Alice", 50), (None, "AI", 0)]),
        finished(guild, general.id, [(alice.id, "Alice", 0), (bob.id, "Bob", 70)],
                 completed=False),
    ):
        await bot.store.record_game(game)
    async with fake.running(bot):
        ix = await (await fake.slash(alice, general, "leaderboard", game="jazz")).wait_answered()
    rows = parse_page(ix.message)
    # Alice: two games (the AI won one, she won the other); Bob: one. Nobody is rated:
    # both keep the starting rating (ordinal 0), provisional; ties go to more games.
    assert [(r[1], r[2], r[3], r[4], r[5], r[7]) for r in rows] == [
        ("Alice", 0.0, True, 2, 1, 53), ("Bob", 0.0, True, 1, 0, 1)]
    text = footer(ix.message)
    assert "only games without AI seats change ratings" in text
    assert "stopped game counts for nothing" in text


# ------------------------------------------------------------------ chips


async def test_chips_board_and_balances(fake: FakeDiscord, bots: Bots) -> None:
    alice, bob, dee = (fake.add_user(n) for n in ("alice", "bob", "dee"))
    general, guild = fake.channel("general"), fake.world.guild.id
    bot = await bots.new()
    assert bot.store is not None
    people = [(alice.id, "Alice"), (bob.id, "Bob")] + [(700 + i, f"Gambler {i:02d}")
                                                      for i in range(12)]
    rng = random.Random(3)
    balances = dict.fromkeys((uid for uid, _ in people), 1000)
    seated: set[int] = set()  # who has a balance row: everyone who sat at a counted game
    for n in range(30):
        table = rng.sample(people, 3)
        chips = [rng.choice((-50, -20, 20, 50)) for _ in range(2)]
        chips.append(-sum(chips))
        seats: list[Seat] = [(uid, name, c) for (uid, name), c in zip(table, chips, strict=True)]
        await bot.store.record_game(finished(guild, general.id, seats, game="attackjack",
                                             chips=chips, when=T0 + timedelta(minutes=n)))
        for (uid, _), c in zip(table, chips, strict=True):
            balances[uid] += c
            seated.add(uid)
    # With an AI seat nobody's chips move (the AI holds none).
    await bot.store.record_game(finished(guild, general.id, [(dee.id, "Dee", 1), (None, "AI", 0)],
                                         game="attackjack", chips=[500, -500]))
    order = sorted(((uid, b) for uid, b in balances.items() if uid in seated),
                   key=lambda kv: (-kv[1], kv[0]))
    assert alice.id in seated
    async with fake.running(bot):
        ix = await (await fake.slash(alice, general, "chips")).wait_answered()
        lines = ix.message.embeds[0]["description"].splitlines()
        shown = [int(re.search(r"— ([\d,]+) chips", line)[1].replace(",", "")) for line in lines]
        assert shown == [b for _, b in order[:10]]
        assert sum(balances.values()) == 1000 * len(balances)  # chips only change hands
        alice_rank = [uid for uid, _ in order].index(alice.id) + 1
        mine = field_value(ix.message, "Your balance")
        if alice_rank <= 10:
            assert mine is None and any("⬅️ you" in line for line in lines)
        else:
            assert mine == f"{balances[alice.id]:,} chips (#{alice_rank} of {len(order)})"
        fresh = await (await fake.slash(dee, general, "chips")).wait_answered()
        assert field_value(fresh.message, "Your balance") == "1,000 chips"
        assert "without AI seats" in footer(fresh.message)
        turn = await (await fake.click(alice, ix.message, label="Next ▶")).wait_answered()
        assert turn.response.type == 7
        assert "**11.**" in ix.message.embeds[0]["description"]


# ------------------------------------------------------------------ stats


async def test_stats_of_a_player_per_game(club: Club) -> None:
    fake, bob = club.fake, club.bob
    general = fake.channel("general")
    ix = await (await fake.slash(club.alice, general, "stats", {"user": bob})).wait_answered()
    embed = ix.message.embeds[0]
    assert embed["title"].startswith("Stats of Bob")
    board = club.expected.board()
    rank = [uid for uid, _ in board].index(bob.id) + 1
    me = club.expected.players[bob.id]
    [jazz] = [f for f in embed["fields"] if f["name"] == "Jazz"]
    assert jazz["value"].startswith(
        f"**{me.games}** games · **{me.wins}** wins ({me.wins / me.games:.0%}) · "
        f"**{me.points:+d}** points\nRating **")
    # Its rank, then its winning streaks (tests/e2e/test_stats_rivals.py checks those).
    assert jazz["value"].splitlines()[1].endswith(f"rank **#{rank}** of {len(board)}")
    shown = float(re.search(r"Rating \*\*(-?\d+\.\d)\*\*", jazz["value"])[1])
    assert abs(shown - me.ordinal) <= 0.051
    assert field_value(ix.message, "AttackJack chips") == "1,000"

    glob = await (await fake.slash(bob, general, "stats", scope="global",
                                   game="jazz")).wait_answered()
    everywhere = club.expected_global.players[bob.id]
    assert f"**{everywhere.games}** games" in glob.message.embeds[0]["fields"][0]["value"]
    assert everywhere.games != me.games
    assert field_value(glob.message, "AttackJack chips") is None  # chips are per server

    none = await (await fake.slash(club.cy, general, "stats", game="jazz")).wait_answered()
    assert "has not finished a counted game of Jazz here yet" in \
        none.message.embeds[0]["description"]


# ------------------------------------------------------------------ limits and ids


async def test_long_and_odd_names_stay_within_discord_limits(
        fake: FakeDiscord, alice: FakeUser, bots: Bots) -> None:
    general, guild = fake.channel("general"), fake.world.guild.id
    bot = await bots.new()
    assert bot.store is not None
    odd = "**_~`|>" + "W" * 200
    seats: list[Seat] = [(800 + i, f"{odd}{i}", i) for i in range(17)]
    for n in range(3):
        await bot.store.record_game(finished(guild, general.id, seats, game="attackjack",
                                             when=T0 + timedelta(minutes=n)))
    async with fake.running(bot):
        for command, options in (("leaderboard", {"game": "attackjack"}), ("stats", {}),
                                 ("history", {})):
            ix = await (await fake.slash(alice, general, command, **options)).wait_answered()
            assert ix.response.type == 4
        board = fake.find_message(general, text="AttackJack leaderboard")
        assert board is not None
        assert "\\*\\*\\_\\~\\`\\|>WWW" in board.embeds[0]["description"]  # shown, not styled
    assert fake.violations == []  # every payload passed Discord's limits


def test_custom_ids_fit_and_round_trip() -> None:
    longest = board_id("california_jack", "global", 2**64 - 1, "last", 999_999)
    assert len(longest) <= 100 and re.fullmatch(BOARD_TEMPLATE, longest)
    assert len(chips_id(2**64 - 1, "prev", 999_999)) <= 100
    assert re.fullmatch(CHIPS_TEMPLATE, chips_id(5, "me", 0))
    with pytest.raises(ValueError):
        board_id("jazz", "server", 1, "sideways", 0)


def test_pages_clamp_and_lead_only_to_pages_that_exist() -> None:
    page = Page.of(7, total=25)
    assert (page.index, page.count, page.offset) == (2, 3, 20)  # a stale page number
    assert [page.target(a) for a in ("first", "prev", "next", "last")] == [0, 1, 2, 2]
    assert page.disabled("next") and not page.disabled("prev")
    assert Page.of_rank(11, 25).index == 1 and Page.of_rank(10, 25).index == 0
    assert Page.of(0, 0).count == 1 and Page.of(-3, 0).index == 0
    assert Page.of(1, 25).shows(11) and not Page.of(1, 25).shows(21)


def test_one_page_needs_no_buttons_and_more_pages_get_five() -> None:
    made: list[tuple[str, int, bool]] = []

    def make(action: str, target: int, disabled: bool) -> Any:
        made.append((action, target, disabled))
        return discord.ui.Button(label=action, custom_id=f"x:{action}:{target}")

    assert nav_view(Page.of(0, 7), make, me=0) is None
    assert nav_view(Page.of(0, 7), make) is None
    view = nav_view(Page.of(0, 30), make, me=2)
    assert view is not None and len(view.children) == 5
    assert made[-1] == ("me", 2, False) and made[0] == ("first", 0, True)
