"""Tournaments on the fake Discord, played to their end by simulated users.

A duplicate Swiss Jazz tournament of 9 players over 3 rounds: every table of a round is
dealt the same cards (compared from the stored records, position by position), a restart
comes between rounds 1 and 2 (the bot dies after a table's end but before the tournament
saw it), a player does not show in round 3 (an AI plays their seat, they score nothing),
and the standings equal a computation from the records alone. A knockout Jacko tournament
of three: a bye for the top seed, a no-show in round 1 (the other player goes through),
and a final."""

from __future__ import annotations

import random
from collections import defaultdict
from collections.abc import AsyncIterator
from fractions import Fraction
from pathlib import Path

import pytest

from bot.app.client import CardTableBot
from bot.table.tournament import Round, Tournament
from bot.table.tournament_scoring import standings
from engine.records import restore
from testkit.bots import EXTENSIONS, Bots, World
from testkit.clock import ManualClock
from testkit.fakediscord import FakeChannel, FakeDiscord, FakeUser
from testkit.harness import GameDriver, idle

WITH_GAMES: dict[str, str | None] = {**EXTENSIONS, "cogs.jazz": "jazz", "cogs.jacko": "jacko",
                                     "cogs.tournament": None, "cogs.settings": None}


@pytest.fixture
def bot_extensions() -> dict[str, str | None]:
    return WITH_GAMES


async def setting_up(fake: FakeDiscord, general: FakeChannel, bots: Bots, count: int
                     ) -> tuple[ManualClock, list[FakeUser], CardTableBot]:
    clock = ManualClock()
    fake.world.now = clock.now
    players = [fake.add_user(f"p{i}") for i in range(count)]
    fake.set_bot_permissions(general, create_public_threads=True)
    bot = await bots.new(clock)
    await fake.start_bot(bot)
    return clock, players, bot


async def sign_up(fake: FakeDiscord, general: FakeChannel, players: list[FakeUser]) -> None:
    message = fake.find_message(general, label="Sign up")
    assert message is not None
    for player in players:
        await (await fake.click(player, message, label="Sign up")).wait_answered()
    again = await fake.click(players[0], message, label="Sign up")
    await again.wait_answered()
    assert "already signed up" in again.text()
    await fake.settle()
    assert f"Signed up ({len(players)})" in message.embeds[0]["fields"][0]["name"]


def live(bot: CardTableBot, general: FakeChannel) -> Tournament:
    t = bot.croupier.tournaments.in_channel(general.id)
    assert t is not None
    return t


async def join(fake: FakeDiscord, bot: CardTableBot, rnd: Round,
               absent: tuple[FakeUser, ...] = ()) -> None:
    """Every player of the round presses Join on their table's lobby, in its thread."""
    away = {u.id for u in absent}
    for p in rnd.tables:
        assert p.channel_id is not None
        thread = fake.world.channels[p.channel_id]
        lobby = fake.find_message(thread, label="Join")
        assert lobby is not None and "tournament" in lobby.embeds[0]["description"]
        for user_id in reversed(p.players):  # (joining in another order than the positions)
            if user_id not in away:
                joined = await fake.click(fake.world.users[user_id], lobby, label="Join")
                await joined.wait_answered()
    await idle(bot)
    await fake.settle()


async def play(fake: FakeDiscord, bot: CardTableBot, players: list[FakeUser],
               seed: int) -> None:
    """The players play every table under way to its end, through their DM menus."""
    driver = GameDriver(fake, bot, fake.channel("general"), players, random.Random(seed))
    await driver.play_to_end(limit=10_000)
    await idle(bot)
    await fake.settle()


async def recorded(bot: CardTableBot, fake: FakeDiscord, rnd: Round
                   ) -> list[tuple[dict, list[int | None], list[int]]]:
    """Each table's stored game: its record, its seats' user ids, the totals replayed."""
    out = []
    for p in rnd.tables:
        (summary,) = await bot.store.history(fake.world.guild.id, channel_id=p.channel_id)
        record = await bot.store.game_record(summary.game_id)
        assert record is not None
        seats = [s.user_id for s in sorted(summary.players, key=lambda s: s.seat)]
        totals = restore(record).totals  # the points from the record alone
        assert totals == [s.points for s in sorted(summary.players, key=lambda s: s.seat)]
        out.append((record, seats, totals))
    return out


def matchpoints(games: list[tuple[dict, list[int | None], list[int]]],
                players: list[list[int]]) -> dict[int, Fraction]:
    """The duplicate scores of a round, by hand: each player's points against those who
    sat in the same position at the round's other tables (1 better, ½ equal), over the
    comparisons; a player an AI replaced scores 0."""
    scores: dict[int, Fraction] = {}
    for i, (_record, seats, totals) in enumerate(games):
        for k, user in enumerate(players[i]):
            if seats[k] is None:  # an AI played the seat: the player did not show
                scores[user] = Fraction(0)
                continue
            others = [g[2][k] for j, g in enumerate(games) if j != i]
            won = sum(Fraction(1) if totals[k] > o else Fraction(1, 2) if totals[k] == o
                      else Fraction(0) for o in others)
            scores[user] = won / len(others)
    return scores


@pytest.mark.slow
async def test_a_duplicate_swiss_jazz_tournament_of_nine_over_three_rounds(
        fake: FakeDiscord, general: FakeChannel, bots: Bots):
    clock, players, bot = await setting_up(fake, general, bots, 9)
    owner = fake.user("owner")
    create = await fake.slash(owner, general, "tournament create", game="jazz", rounds=3,
                              seats=3, duplicate=True, round_time="6h", name="Spring Jazz")
    await create.wait_answered()
    assert "open for sign-up" in create.text()
    refused = await fake.slash(players[0], general, "tournament create", game="jazz")
    await refused.wait_answered()
    assert "Manage Server" in refused.text()
    await sign_up(fake, general, players)
    await (await fake.slash(owner, general, "tournament start")).wait_answered()
    await idle(bot)
    await fake.settle()

    tournament_id = live(bot, general).tournament_id
    expected: dict[int, Fraction] = defaultdict(Fraction)
    for number in (1, 2, 3):
        t = live(bot, general)
        rnd = t.current
        assert rnd is not None and rnd.number == number and rnd.announced
        assert sorted(u for p in rnd.tables for u in p.players) == sorted(
            p.id for p in players) and not rnd.byes
        call = fake.find_message(general, text=f"Round {number}**")
        assert call is not None and all(f"<#{p.channel_id}>" in call.content
                                        for p in rnd.tables)
        no_show = (fake.world.users[rnd.tables[1].players[0]],) if number == 3 else ()
        await join(fake, bot, rnd, absent=no_show)
        if no_show:  # the round's start by: the table starts with an AI in that seat
            clock.advance(t.grace)
            await idle(bot)
            await fake.settle()
        if number == 1:
            # The bot dies after round 1's games end but before the tournament hears of
            # it: the restarted bot finds the tables closed and goes on to round 2.
            bot.croupier.tournaments.poke = lambda tournament_id: None  # type: ignore[method-assign]
        await play(fake, bot, players, seed=number)
        if number == 1:
            assert live(bot, general).current is rnd  # not seen: still round 1
            bot = await bots.restart(bot, clock)
            await idle(bot)
            await fake.settle()
        games = await recorded(bot, fake, rnd)
        # Duplicate: every table of the round held the same cards, position by position.
        first = games[0][0]
        for record, _seats, _totals in games[1:]:
            assert record["first_dealer"] == first["first_dealer"]
            assert [d["hands"] for d in record["deals"]] == [d["hands"] for d in first["deals"]]
        assert games[0][0]["deals"][0]["hands"] != games[0][0]["deals"][1]["hands"]
        scores = matchpoints(games, [p.players for p in rnd.tables])
        for user, score in scores.items():
            expected[user] += score
        if no_show:
            assert games[1][1][0] is None  # an AI played the absent player's seat
            assert scores[no_show[0].id] == 0  # and they scored nothing for it

    assert bot.croupier.tournaments.in_channel(general.id) is None  # over
    rows = await bot.store.active_tournaments()
    assert rows == []
    final = fake.find_message(general, text="wins Spring Jazz")
    assert final is not None and "final standings" in final.embeds[0]["title"]
    stored = await bot.store.load_tournament(tournament_id)
    assert stored is not None
    done = Tournament.from_data(stored.data, stored.version)
    assert stored.status == "finished" and done.final_posted
    table = standings(done)
    assert {row.entrant.user_id: row.score for row in table} == expected
    assert [row.score for row in table] == sorted(expected.values(), reverse=True)
    best = table[0]
    assert f"<@{best.entrant.user_id}>" in final.content
    assert final.embeds[0]["description"].startswith(f"1. **{best.entrant.name}**")
    assert len(await bot.store.history(fake.world.guild.id, limit=20)) == 9  # every game


@pytest.fixture(params=["sqlite", "postgres"])
async def anywhere(request: pytest.FixtureRequest, fake: FakeDiscord, tmp_path: Path
                   ) -> AsyncIterator[World]:
    """Bots on SQLite, and on a fresh database of a real PostgreSQL server."""
    url = request.getfixturevalue("postgres_url") if request.param == "postgres" else None
    made = World(fake, tmp_path / "db.sqlite", url, WITH_GAMES)
    try:
        yield made
    finally:
        await made.close()


@pytest.mark.slow
async def test_a_knockout_jacko_tournament_with_a_bye_and_a_no_show(
        fake: FakeDiscord, general: FakeChannel, anywhere: World):
    players = [fake.add_user(f"p{i}") for i in range(3)]
    fake.set_bot_permissions(general, create_public_threads=True)
    bot = await anywhere.new()
    clock = bot.clock
    assert isinstance(clock, ManualClock)
    fake.world.now = clock.now
    owner = fake.user("owner")
    duplicate = await fake.slash(owner, general, "tournament create", game="jacko",
                                 format="knockout", duplicate=True)
    await duplicate.wait_answered()
    assert "Swiss" in duplicate.text()
    create = await fake.slash(owner, general, "tournament create", game="jacko",
                              format="knockout", grace="5m",
                              options={"options": "target=31"})  # (a short game)
    await create.wait_answered()
    await sign_up(fake, general, players)  # unrated: seeded in the order they signed up
    await (await fake.slash(owner, general, "tournament start")).wait_answered()
    await idle(bot)
    await fake.settle()

    t = live(bot, general)
    first = t.current
    assert first is not None and first.byes == [players[0].id]  # the top seed
    (match,) = first.tables
    assert match.players == [players[1].id, players[2].id]
    await join(fake, bot, first, absent=(players[2],))  # p2 does not show
    clock.advance(5 * 60)
    await idle(bot)
    await fake.settle()
    thread = fake.world.channels[match.channel_id]
    started = fake.find_message(thread, label="My hand")
    assert started is not None and "Normal AI" in str(started.embeds[0])
    await play(fake, bot, players, seed=5)  # p1 against the AI, to the end

    final = live(bot, general).current
    assert final is not None and final.number == 2
    assert [p.players for p in final.tables] == [[players[0].id, players[1].id]]
    await join(fake, bot, final)
    await play(fake, bot, players, seed=6)

    post = fake.find_message(general, text="final standings")
    assert post is not None
    stored = await bot.store.load_tournament(t.tournament_id)
    assert stored is not None and stored.status == "finished"
    done = Tournament.from_data(stored.data, stored.version)
    rows = standings(done)
    (summary,) = await bot.store.history(fake.world.guild.id, channel_id=final.tables[0]
                                         .channel_id)
    winner = next(s.user_id for s in summary.players if s.won)
    assert rows[0].entrant.user_id == winner
    assert [r.entrant.user_id for r in rows][2] == players[2].id  # out in round 1
    assert (rows[2].out_in, rows[1].out_in) == (1, 2)
    assert f"<@{winner}>" in post.content
    # The no-show's game was played and recorded (an AI in their seat, so unrated).
    (first_game,) = await bot.store.history(fake.world.guild.id, channel_id=match.channel_id)
    assert [s.user_id for s in first_game.players] == [players[1].id, None]
    assert not first_game.rated


async def test_too_few_sign_ups_cancel_it_at_its_start_time(
        fake: FakeDiscord, general: FakeChannel, bots: Bots):
    clock, players, bot = await setting_up(fake, general, bots, 2)
    owner = fake.user("owner")
    create = await fake.slash(owner, general, "tournament create", game="jazz",
                              start="2023-11-15 00:00", signup_until="2023-11-14 23:00")
    await create.wait_answered()
    assert "open for sign-up" in create.text(), create.text()
    await sign_up(fake, general, players)  # two: Jazz needs three at a table
    message = fake.find_message(general, label="Sign up")
    assert message is not None and "starts" in message.embeds[0]["description"]
    t = live(bot, general)
    assert t.signup_until is not None and t.starts_at is not None
    clock.advance(t.signup_until - clock.now())  # sign-up closes: no more Sign up
    await idle(bot)
    await fake.settle()
    assert all(c.get("label") != "Sign up" for c in message.leaf_components())
    clock.advance(t.starts_at - clock.now())
    await idle(bot)
    await fake.settle()
    assert fake.find_message(general, text="not enough players signed up") is not None
    assert "cancelled" in message.embeds[0]["description"] and not message.components
    assert bot.croupier.tournaments.in_channel(general.id) is None


async def test_the_organiser_cancels_a_running_tournament(
        fake: FakeDiscord, general: FakeChannel, bots: Bots):
    _clock, players, bot = await setting_up(fake, general, bots, 4)
    owner = fake.user("owner")
    await (await fake.slash(owner, general, "tournament create", game="jacko",
                            format="knockout")).wait_answered()
    await sign_up(fake, general, players)
    await (await fake.slash(owner, general, "tournament start")).wait_answered()
    await idle(bot)
    await fake.settle()
    rnd = live(bot, general).current
    assert rnd is not None and len(rnd.tables) == 2 and not rnd.byes
    first = rnd.tables[0]
    await join(fake, bot, Round(1, 0, [first]))  # one table starts, the other waits
    assert fake.find_message(fake.world.channels[first.channel_id], label="My hand")
    stranger = fake.add_user("stranger")
    lobby = fake.find_message(fake.world.channels[rnd.tables[1].channel_id], label="Join")
    refused = await fake.click(stranger, lobby, label="Join")
    await refused.wait_answered()
    assert "invitation" in refused.text()  # only the table's players
    show = await fake.slash(players[3], general, "tournament show")
    await show.wait_answered()
    assert "Round 1" in str(show.embeds) and "playing" in str(show.embeds)
    denied = await fake.slash(players[0], general, "tournament cancel")
    await denied.wait_answered()
    assert "Manage Server" in denied.text()
    await (await fake.slash(owner, general, "tournament cancel")).wait_answered()
    await idle(bot)
    await fake.settle()
    assert bot.croupier.manager.all() == []  # its tables closed: the game stopped too
    (stopped,) = await bot.store.history(fake.world.guild.id)
    assert not stopped.completed
    assert fake.find_message(general, text="cancelled by its organiser") is not None


async def test_time_up_stops_a_table_and_it_scores_as_it_stands(
        fake: FakeDiscord, general: FakeChannel, bots: Bots):
    clock, players, bot = await setting_up(fake, general, bots, 2)
    owner = fake.user("owner")
    await (await fake.slash(owner, general, "tournament create", game="jacko", rounds=1,
                            round_time="1h")).wait_answered()
    await sign_up(fake, general, players)
    await (await fake.slash(owner, general, "tournament start")).wait_answered()
    await idle(bot)
    await fake.settle()
    t = live(bot, general)
    rnd = t.current
    assert rnd is not None and rnd.end_by == rnd.start_by + 3600
    await join(fake, bot, rnd)
    clock.advance(rnd.end_by - clock.now())  # nobody moved: the bell
    await idle(bot)
    await fake.settle()
    thread = fake.world.channels[rnd.tables[0].channel_id]
    assert fake.find_message(thread, text="time is up") is not None
    (game,) = await bot.store.history(fake.world.guild.id)
    assert not game.completed
    post = fake.find_message(general, text="final standings")
    assert post is not None
    stored = await bot.store.load_tournament(t.tournament_id)
    assert stored is not None
    (result,) = [p.result for p in Tournament.from_data(stored.data).played[0].tables]
    assert result is not None and not result.completed and result.played


async def test_the_servers_tournament_role_may_run_tournaments(
        fake: FakeDiscord, general: FakeChannel, bots: Bots):
    _clock, players, _bot = await setting_up(fake, general, bots, 2)
    organisers = fake.roles.add("Organisers")
    fake.roles.give(players[0], organisers)
    owner = fake.user("owner")
    refused = await fake.slash(players[0], general, "tournament create", game="jazz")
    await refused.wait_answered()
    assert "Manage Server" in refused.text()
    chosen = await fake.slash(owner, general, "settings tournaments", role=organisers)
    await chosen.wait_answered()
    assert f"<@&{organisers.id}>" in chosen.text()
    create = await fake.slash(players[0], general, "tournament create", game="jazz",
                              seats=9)
    await create.wait_answered()
    assert "3 to 7 players a table" in create.text()  # (the game's own limits)
    create = await fake.slash(players[0], general, "tournament create", game="jazz")
    await create.wait_answered()
    assert "open for sign-up" in create.text()
    again = await fake.slash(players[0], general, "tournament create", game="jacko")
    await again.wait_answered()
    assert "already has a tournament" in again.text()
    denied = await fake.slash(players[1], general, "tournament start")
    await denied.wait_answered()
    assert f"<@&{organisers.id}>" in denied.text()
