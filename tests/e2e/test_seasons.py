"""Seasons, time windows and role rewards on the fake Discord (issue #31, part A).

Games are stored at controlled times straight through ``Store.record_game`` (what a
finished table does; a rated one carries its season, as ``bot.play.endings`` sets it), or
played to their end; the bot's clock is a ``ManualClock`` moved by hand, so a season of
thirty days ends in no time. What users see is read from the channel, the leaderboard's
embeds, and the fake's roles.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from datetime import UTC, datetime

import pytest

from bot.app.client import CardTableBot
from bot.config.competition import day_at
from bot.features.seasons import GRACE
from bot.storage import FinishedGame
from testkit.bots import Bots
from testkit.clock import ManualClock
from testkit.fakediscord import FakeChannel, FakeDiscord, FakeMessage, FakeUser
from testkit.fakediscord.world import FakeRole
from testkit.harness import idle
from testkit.results import finished
from testkit.tables import GAMES, open_and_start, play_out
from tests.e2e.test_settings import manager

EXTENSIONS: dict[str, str | None] = {"cogs.leaderboard": None, "cogs.settings": None}
DAY = 86400.0
SEASON = 30  # days


def at(clock: ManualClock, days: float = 0.0) -> datetime:
    return datetime.fromtimestamp(clock.now() + days * DAY, UTC)


def jazz(fake: FakeDiscord, seats: Sequence[tuple[FakeUser, int]], when: datetime,
         season: int | None = None) -> FinishedGame:
    played = finished(fake.world.guild.id, fake.channel("general").id,
                      [(user.id, user.display_name, points) for user, points in seats],
                      game="jazz", when=when)
    return dataclasses.replace(played, season=season)


async def ask(fake: FakeDiscord, user: FakeUser, where: FakeChannel, command: str, /,
              **options) -> object:
    ix = await fake.slash(user, where, command, options)
    await ix.wait_answered()
    return ix


def board_lines(ix: object) -> list[str]:
    message = ix.message  # type: ignore[attr-defined]
    return (message.embeds[0].get("description") or "").splitlines()


def posts(channel: FakeChannel, text: str) -> list[FakeMessage]:
    return [m for m in channel.history() if text in m.text()]


# ------------------------------------------------------------------ windows


async def test_a_weeks_leaderboard_leaves_out_older_games(
        fake: FakeDiscord, alice: FakeUser, bob: FakeUser, cy: FakeUser, general: FakeChannel,
        clock: ManualClock, run_bot) -> None:
    bot = await run_bot(extensions=EXTENSIONS, clock=clock)
    store = bot.store
    await store.record_game(jazz(fake, [(cy, 40), (alice, 1)], at(clock, -8)))  # 8 days ago
    await store.record_game(jazz(fake, [(cy, 40), (bob, 1)], at(clock, -10)))
    await store.record_game(jazz(fake, [(alice, 12), (bob, 5)], at(clock, -2)))
    await store.record_game(jazz(fake, [(bob, 9), (alice, 3)], at(clock, -1)))
    await store.record_game(jazz(fake, [(alice, 7), (bob, 6)], at(clock)))

    week = await ask(fake, alice, general, "leaderboard", game="jazz", period="week")
    assert not week.response.ephemeral
    embed = week.message.embeds[0]
    assert "last 7 days" in embed["title"]
    assert "A rolling window: the games that ended in the last 7 days" in (
        embed["footer"]["text"])
    lines = board_lines(week)
    # Cy won both his games, but 8 and 10 days ago: not this week's.
    assert len(lines) == 2 and "Cy" not in "\n".join(lines)
    assert lines[0].startswith("**1.** Alice — **2** wins (67%) · 3 games · +22 points")
    assert lines[0].endswith("⬅️ you")
    assert lines[1].startswith("**2.** Bob — **1** win (33%) · 3 games · +20 points")

    month = await ask(fake, bob, general, "leaderboard", game="jazz", period="month")
    assert [line.split(" — ")[0] for line in board_lines(month)] == [
        "**1.** Cy", "**2.** Alice", "**3.** Bob"]
    # A week on, the window has moved: only today's game is left in it.
    clock.advance(6.5 * DAY)
    later = await ask(fake, alice, general, "leaderboard", game="jazz", period="week")
    assert [line.split(" · ")[1] for line in board_lines(later)] == ["1 game", "1 game"]
    # Every server together keeps all-time only: said politely, privately.
    world = await ask(fake, alice, general, "leaderboard", game="jazz", scope="global",
                      period="week")
    assert world.response.ephemeral
    assert "Only the all-time leaderboard spans every server" in world.response.content


async def test_a_windows_board_turns_its_pages(
        fake: FakeDiscord, alice: FakeUser, bob: FakeUser, general: FakeChannel,
        clock: ManualClock, run_bot) -> None:
    bot = await run_bot(extensions=EXTENSIONS, clock=clock)
    guild, channel = fake.world.guild.id, general.id
    for n in range(11):  # Alice beats eleven others, each by another margin
        await bot.store.record_game(finished(guild, channel, [
            (alice.id, "Alice", 20), (900 + n, f"Player {n:02d}", n)], game="jazz",
            when=at(clock, -0.5)))
    board = await ask(fake, bob, general, "leaderboard", game="jazz", period="week")
    assert board.message.embeds[0]["footer"]["text"].startswith("Page 1 of 2 · 12 players")
    assert len(board_lines(board)) == 10
    turned = await fake.click(bob, board.message, label="Next ▶")
    await turned.wait_answered()
    assert turned.response.type == 7  # the owner's own message turns
    lines = board_lines(turned)
    assert [line.split(" — ")[0] for line in lines] == ["**11.** Player 01",
                                                        "**12.** Player 00"]
    someone = await fake.click(alice, board.message, label="⏮ First")
    await someone.wait_answered()
    assert someone.response.ephemeral and "Those buttons belong to" in someone.text()


# ------------------------------------------------------------------ seasons' boards


async def test_season_boards_are_apart_from_all_time_and_past_ones_stay_viewable(
        fake: FakeDiscord, alice: FakeUser, bob: FakeUser, cy: FakeUser, general: FakeChannel,
        clock: ManualClock, run_bot) -> None:
    fake.world.now = clock.now
    boss = manager(fake)
    bot = await run_bot(extensions=EXTENSIONS, clock=clock)
    none_yet = await ask(fake, alice, general, "leaderboard", game="jazz", period="season")
    assert "This server keeps no seasons" in none_yet.response.content
    said = await ask(fake, boss, general, "settings season", length="30")
    assert "Seasons of 30 days" in said.response.content
    assert "Season 1 runs now" in said.response.content
    store = bot.store
    await store.record_game(jazz(fake, [(cy, 30), (alice, 2)], at(clock, -40)))  # before
    for _ in range(3):
        await store.record_game(jazz(fake, [(bob, 20), (alice, 2)], at(clock), season=1))
    clock.advance(SEASON * DAY + GRACE)  # season 2
    await store.record_game(jazz(fake, [(alice, 20), (cy, 3)], at(clock), season=2))

    current = await ask(fake, alice, general, "leaderboard", game="jazz", period="season")
    embed = current.message.embeds[0]
    assert "season 2" in embed["title"]
    assert [f["name"] for f in embed.get("fields", [])][:1] == ["Season 2"]
    assert [line.split(" — ")[0] for line in board_lines(current)] == [
        "**1.** Alice", "**2.** Cy"]
    assert " · 1 game · 1 win (100%)" in board_lines(current)[0]
    past = await ask(fake, cy, general, "leaderboard", game="jazz", season=1)
    assert "season 1" in past.message.embeds[0]["title"]
    assert [line.split(" — ")[0] for line in board_lines(past)] == [
        "**1.** Bob", "**2.** Alice"]
    assert " · 3 games · 0 wins (0%)" in board_lines(past)[1]
    mine = {f["name"]: f["value"] for f in past.message.embeds[0]["fields"]}
    assert "You are not on this season's board" in mine["Your rank"]
    # All time: every game, the one before seasons too.
    all_time = await ask(fake, alice, general, "leaderboard", game="jazz")
    assert {line.split(" — ")[0].split(" ", 1)[1] for line in board_lines(all_time)} == {
        "Alice", "Bob", "Cy"}
    assert " · 5 games · " in next(line for line in board_lines(all_time) if "Alice" in line)
    future = await ask(fake, alice, general, "leaderboard", game="jazz", season=4)
    assert future.response.ephemeral
    assert "Season 4 has not started yet: this is season 2." in future.response.content


# ------------------------------------------------------------------ seasons' ends


@pytest.fixture
def bot_extensions() -> dict[str, str | None]:
    """The cogs of the ``bots``: the leaderboards and the settings."""
    return EXTENSIONS


@dataclasses.dataclass
class Club:
    fake: FakeDiscord
    clock: ManualClock
    news: FakeChannel
    boss: FakeUser
    alice: FakeUser
    bob: FakeUser
    champion: FakeRole


@pytest.fixture
def club(fake: FakeDiscord, alice: FakeUser, bob: FakeUser, clock: ManualClock) -> Club:
    """A server with a news channel, a Champion role below the bot's, Manage Roles for
    the bot, and Bob holding the role from a season the bot crowned him in."""
    fake.world.now = clock.now
    boss = manager(fake)
    news = fake.world.add_channel("news")
    champion = fake.roles.add("Champion")
    fake.roles.give(bob, champion)
    fake.set_bot_guild_permissions(manage_roles=True)
    return Club(fake, clock, news, boss, alice, bob, champion)


async def set_up_seasons(club: Club, bot: CardTableBot) -> None:
    fake, boss, general = club.fake, club.boss, club.fake.channel("general")
    start = day_at(club.clock.now(), None).isoformat()
    await ask(fake, boss, general, "settings season", length=str(SEASON), start=start)
    await ask(fake, boss, general, "settings channel", channel=club.news)
    said = await ask(fake, boss, general, "settings rewards", game="jazz",
                     champion=club.champion)
    assert "Champion of Jazz" in said.response.content
    await bot.store.hold_role(fake.world.guild.id, club.champion.id, club.bob.id, True)
    for points in (9, 12):  # Alice wins both rated games of season 1
        await bot.store.record_game(jazz(fake, [(club.alice, points), (club.bob, 1)],
                                         at(club.clock), season=1))


async def test_a_season_ends_with_its_standings_and_the_champion_role_moved(
        club: Club, bots: Bots) -> None:
    fake, clock, alice, bob, role = club.fake, club.clock, club.alice, club.bob, club.champion
    bot = await bots.new(clock)
    await fake.start_bot(bot)
    await set_up_seasons(club, bot)
    assert posts(club.news, "is over") == []
    shown = await ask(fake, club.boss, fake.channel("general"), "settings show")
    fields = {f["name"]: f["value"] for f in shown.response.embeds[0]["fields"]}
    assert fields["Seasons"].startswith("Seasons of 30 days, the first from ")
    assert f"posted in <#{club.news.id}>" in fields["Season channel"]
    assert fields["Role rewards"] == (f"Champion of Jazz: <@&{role.id}>, moved to the winner "
                                      "at each season's end.")

    clock.advance(SEASON * DAY + GRACE)  # season 1 ends
    [ended] = await fake.wait_for(lambda: posts(club.news, "Season 1 is over"))
    await fake.wait_for(lambda: posts(club.news, "Champion roles of season 1"))
    await fake.settle()
    [standings] = ended.embeds
    assert standings["title"] == "Jazz · season 1"
    lines = standings["description"].splitlines()
    assert lines[0].startswith("🥇 Alice — **") and " · 2 games · 2 wins" in lines[0]
    assert lines[1].startswith("🥈 Bob — ")
    assert fake.roles.has(alice, role) and not fake.roles.has(bob, role)
    [log] = posts(club.news, "Champion roles of season 1")
    assert f"↩️ <@&{role.id}> was taken back from <@{bob.id}>." in log.content
    assert (f"🏅 <@{alice.id}> is the Jazz champion of season 1: <@&{role.id}> is theirs."
            in log.content)
    guild = fake.world.guild.id
    assert await bot.store.role_holders(guild, role.id) == [alice.id]
    assert await bot.store.unposted_seasons(guild, 99) == []

    # A restart finds nothing to post: the season was marked posted.
    again = await bots.restart(bot, clock)
    await fake.wait_for(lambda: again.croupier.seasons.passes >= 1)
    await fake.settle()
    assert len(posts(club.news, "Season 1 is over")) == 1
    assert len(posts(club.news, "Champion roles of season 1")) == 1


async def test_a_bot_down_at_a_seasons_end_posts_it_when_it_comes_back_once(
        club: Club, bots: Bots) -> None:
    fake, clock = club.fake, club.clock
    bot = await bots.new(clock)
    await fake.start_bot(bot)
    await set_up_seasons(club, bot)
    await bots.crash(bot)
    clock.advance(SEASON * DAY + 5 * DAY)  # the season ended while the bot was down
    back = await bots.new(clock)
    await fake.start_bot(back)
    await fake.wait_for(lambda: posts(club.news, "Season 1 is over"))
    await fake.wait_for(lambda: fake.roles.has(club.alice, club.champion))
    await idle(back)
    again = await bots.restart(back, clock)
    await fake.wait_for(lambda: again.croupier.seasons.passes >= 1)
    await fake.settle()
    assert len(posts(club.news, "Season 1 is over")) == 1
    role_calls = [c for c in fake.calls if c.route.endswith("/roles/{role_id}")]
    assert [c.method for c in role_calls] == ["DELETE", "PUT"]  # Bob's taken, Alice's given


async def test_a_role_the_bot_cannot_manage_is_explained_not_asked_for(
        club: Club, bots: Bots) -> None:
    fake, clock, role = club.fake, club.clock, club.champion
    fake.roles.move(role, above_bot=True)  # an admin left the bot's role below it
    club.boss = fake.world.owner  # (the manager's own role is below it now)
    bot = await bots.new(clock)
    await fake.start_bot(bot)
    said = await ask(fake, club.boss, fake.channel("general"), "settings rewards",
                     game="jazz", champion=role)
    assert "My highest role must be above" in said.response.content
    await set_up_seasons(club, bot)
    clock.advance(SEASON * DAY + GRACE)
    [log] = await fake.wait_for(lambda: posts(club.news, "Champion roles of season 1"))
    await fake.settle()
    assert (f"⚠️ I could not give <@&{role.id}> to <@{club.alice.id}>, the Jazz champion "
            f"of season 1: My highest role must be above <@&{role.id}> to give or take it: "
            f"an admin can drag my role above it in Server Settings → Roles.") in log.content
    assert not fake.roles.has(club.alice, role) and fake.roles.has(club.bob, role)
    assert [c for c in fake.calls if c.route.endswith("/roles/{role_id}")] == []
    assert await bot.store.role_holders(fake.world.guild.id, role.id) == [club.bob.id]


# ------------------------------------------------------------------ a played game


async def test_a_rated_game_counts_in_its_season_and_moves_the_tier_roles(
        club: Club, bots: Bots) -> None:
    fake, clock, alice, bob = club.fake, club.clock, club.alice, club.bob
    general = fake.channel("general")
    bots.extensions = {**GAMES, **EXTENSIONS}
    bot = await bots.new(clock)
    await fake.start_bot(bot)
    await ask(fake, club.boss, general, "settings season", length=str(SEASON))
    await ask(fake, club.boss, general, "settings channel", channel=club.news)
    winner_role = fake.roles.add("Jacko winner")
    said = await ask(fake, club.boss, general, "settings tier", role=winner_role, rating=1.0,
                     game="jacko")
    assert "a rating of 1 or more in Jacko" in said.response.content

    await open_and_start(fake, general, [alice, bob], "jacko", target=1, images=False)
    await play_out(fake, bot, general, [alice, bob], seed=3)
    [game] = await bot.store.history(fake.world.guild.id)
    assert game.rated
    [won] = [fake.user(p.name.lower()) for p in game.players if p.won]
    lost = bob if won is alice else alice
    await fake.wait_for(lambda: fake.roles.has(won, winner_role))
    [log] = await fake.wait_for(lambda: posts(club.news, "Rating tiers after a game of Jacko"))
    assert f"⬆️ <@{won.id}> now holds <@&{winner_role.id}>." in log.content
    assert not fake.roles.has(lost, winner_role)
    season = await bot.store.season_board("jacko", fake.world.guild.id, 1)
    assert [r.user_id for r in season] == [won.id, lost.id]
    assert [r.games for r in season] == [1, 1]
