"""/history on the fake Discord: listing, paging, and records that replay exactly.

A record is downloaded through the fake as the attachment of an interaction response
and ``python -m engine replay`` is run on the file in a subprocess. Here the games
are whole games played by the engines (all four games); test_restart.py does the
same for a game played at a table, against what the table announced.
"""

from __future__ import annotations

import asyncio
import json
import re
from datetime import timedelta
from pathlib import Path
from typing import Any

from bot.storage import FinishedGame, SeatResult
from engine.attackjack import AttackJackOptions
from engine.core import Game
from engine.registry import game_class, spec
from testkit.bots import Bots
from testkit.fakediscord import FakeChannel, FakeDiscord, FakeUser
from testkit.results import T0, finished, lines, listed_ids, option_values, replay_cli
from tests.engine.playout import random_game


def seat_results(line: str) -> tuple[list[tuple[str, int]], set[str]]:
    """The seats of a /history line, in seat order, and the crowned names."""
    seats, crowned = [], set()
    for part in line.split(" · ")[2:]:
        found = re.fullmatch(r"(?:👑 \*\*(.+)\*\*|(.+)) ([+-]\d+)", part)
        if found is None:
            continue
        name = found[1] or found[2]
        seats.append((name, int(found[3])))
        if found[1]:
            crowned.add(name)
    return seats, crowned


async def test_records_of_every_game_replay_to_the_results_history_shows(
        fake: FakeDiscord, alice: FakeUser, bots: Bots, tmp_path: Path) -> None:
    """Whole games played by the engines, stored as a table stores them, downloaded
    through the fake and replayed by ``python -m engine replay``."""
    general, guild = fake.channel("general"), fake.world.guild.id
    bot = await bots.new()
    assert bot.store is not None
    tables = {"jazz": (4, None), "jacko": (2, None), "california_jack": (2, None),
              "attackjack": (3, AttackJackOptions(stake=50))}
    stored: dict[int, Game] = {}
    for n, (game_id, (players, options)) in enumerate(tables.items()):
        game = random_game(game_class(game_id), players, options, seed=n)
        totals, places, winners = game.totals, game.ranking(), set(game.winners())
        seats = [SeatResult(i, 600 + i, f"Seat {i}", totals[i], places[i], i in winners,
                            totals[i] if game_id == "attackjack" else 0)
                 for i in range(players)]
        stored[await bot.store.record_game(FinishedGame(
            guild, general.id, game_id, T0, T0 + timedelta(minutes=n), True,
            game.to_record(), seats, stakes=spec(game_id).chips))] = game
    await fake.start_bot(bot)

    listing = await (await fake.slash(alice, general, "history")).wait_answered()
    assert sorted(listed_ids(listing.message)) == sorted(stored)
    files = {}
    for game_id, line in zip(listed_ids(listing.message), lines(listing.message), strict=True):
        got = await (await fake.select(alice, listing.message, "ct:rec",
                                       [str(game_id)])).wait_answered()
        [attachment] = got.message.latest["attachments"]
        data = fake.download(attachment)
        assert data.decode() == await bot.store.game_record_json(game_id)
        files[game_id] = (tmp_path / attachment["filename"], line)
        files[game_id][0].write_bytes(data)
    results = await asyncio.gather(*(replay_cli(path) for path, _ in files.values()))
    for (game_id, (_, line)), result in zip(files.items(), results, strict=True):
        seats, crowned = seat_results(line)
        game = stored[game_id]
        assert result["complete"] is True and result["game"] == game.GAME_ID
        assert [points for _, points in seats] == result["totals"] == game.totals
        assert {f"Seat {s}" for s in result["winners"]} == crowned


async def seed(bots: Bots, fake: FakeDiscord, alice: FakeUser, bob: FakeUser) -> list[Any]:
    """23 games in #general (every 5th without bob, the 4th stopped), 3 in #games,
    2 of AttackJack in #general, one in another server; returns them in id order."""
    bot = await bots.new()
    assert bot.store is not None
    guild, general, games = fake.world.guild.id, fake.channel("general"), fake.channel("games")
    plan = []
    for n in range(23):
        other = (bob.id, "Bob") if n % 5 else (555, "Zed")
        plan.append(finished(guild, general.id, [(alice.id, "Alice", n % 7), (*other, 3)],
                             completed=n != 3))
    plan += [finished(guild, games.id, [(alice.id, "Alice", 1), (bob.id, "Bob", 2)])
             for _ in range(3)]
    plan += [finished(guild, general.id, [(alice.id, "Alice", 1), (bob.id, "Bob", 0)],
                      game="attackjack") for _ in range(2)]
    plan.append(finished(4242, 99, [(alice.id, "Alice", 1), (bob.id, "Bob", 2)]))
    ids = []
    for n, game in enumerate(plan):
        game.ended_at = T0 + timedelta(minutes=n)
        ids.append(await bot.store.record_game(game))
    await fake.start_bot(bot)
    return list(zip(ids, plan, strict=True))


async def test_a_channels_history_pages_back_to_its_first_game(
        fake: FakeDiscord, alice: FakeUser, bob: FakeUser, general: FakeChannel,
        bots: Bots) -> None:
    stored = await seed(bots, fake, alice, bob)
    wanted = [gid for gid, game in reversed(stored) if game.channel_id == general.id
              and game.guild_id == fake.world.guild.id]
    assert len(wanted) == 25

    ix = await (await fake.slash(alice, general, "history")).wait_answered()
    page = ix.message
    seen = listed_ids(page)
    assert seen == option_values(page) == wanted[:10]
    assert [b["label"] for b in page.buttons()] == ["Older ▶"]
    while any(b["label"] == "Older ▶" for b in page.buttons()):
        turn = await (await fake.click(alice, page, label="Older ▶")).wait_answered()
        assert turn.response.type == 7
        seen += listed_ids(page)
        assert listed_ids(page) == option_values(page)
    assert seen == wanted
    assert [b["label"] for b in page.buttons()] == ["⏮ Newest"]
    stopped = [line for line in lines(page) if "stopped early" in line]
    assert len(stopped) == 1 and f"`#{stored[3][0]}`" in stopped[0]
    await (await fake.click(alice, page, label="⏮ Newest")).wait_answered()
    assert listed_ids(page) == wanted[:10]


async def test_a_players_history_and_one_game_only(
        fake: FakeDiscord, alice: FakeUser, bob: FakeUser, bots: Bots) -> None:
    games = fake.channel("games")
    stored = await seed(bots, fake, alice, bob)
    guild = fake.world.guild.id
    bobs = [gid for gid, game in reversed(stored) if game.guild_id == guild
            and any(s.user_id == bob.id for s in game.seats)]
    ix = await (await fake.slash(alice, games, "history", {"user": bob})).wait_answered()
    assert "of Bob" in ix.message.embeds[0]["title"]
    assert listed_ids(ix.message) == bobs[:10]  # both channels, this server only
    aj = await (await fake.slash(alice, games, "history", {"user": bob},
                                 game="attackjack")).wait_answered()
    assert listed_ids(aj.message) == [gid for gid, g in reversed(stored)
                                      if g.game == "attackjack"]
    assert all("**AttackJack**" in line for line in lines(aj.message))
    empty = await (await fake.slash(alice, fake.channel("table-thread"),
                                    "history")).wait_answered()
    assert "No games have been finished here yet." in empty.message.embeds[0]["description"]
    assert empty.message.components == []


async def test_the_download_select_works_after_a_restart(
        fake: FakeDiscord, alice: FakeUser, bob: FakeUser, bots: Bots) -> None:
    stored = await seed(bots, fake, alice, bob)
    ix = await (await fake.slash(bob, fake.channel("general"), "history")).wait_answered()
    await bots.restart(bots.made[-1])
    oldest_shown = option_values(ix.message)[-1]
    got = await (await fake.select(bob, ix.message, "ct:rec", [str(oldest_shown)])).wait_answered()
    [attachment] = got.message.latest["attachments"]
    record = dict(stored)[oldest_shown].record
    assert json.loads(fake.download(attachment)) == record
    older = await (await fake.click(bob, ix.message, label="Older ▶")).wait_answered()
    assert older.response.type == 7 and listed_ids(ix.message)[0] < oldest_shown


async def test_a_game_of_another_server_is_never_handed_out(fake: FakeDiscord, bots: Bots) -> None:
    stored = await seed(bots, fake, fake.add_user("alice"), fake.add_user("bob"))
    history = bots.made[-1].get_cog("History")
    assert history is not None
    guild = fake.world.guild.id
    [elsewhere] = [gid for gid, game in stored if game.guild_id != guild]
    assert await history.game_here(guild, elsewhere) is None
    here = stored[0][0]
    found = await history.game_here(guild, here)
    assert found is not None and found.game_id == here


async def test_a_channel_whose_history_a_member_cannot_read_shows_them_none_of_its_games(
        fake: FakeDiscord, bots: Bots) -> None:
    """Read Message History, not only View Channel: without it Discord shows a member no
    past message of a channel, so /history gives them none of its games either (asked
    from elsewhere, from that channel itself, or by a forged download)."""
    alice, bob, nosy = (fake.add_user(n) for n in ("alice", "bob", "nosy"))
    general, den = fake.channel("general"), fake.world.add_channel("den")
    fake.world.set_permissions(den, nosy, read_message_history=False)  # may still view it
    bot = await bots.new()
    async with fake.running(bot):
        guild = fake.world.guild.id
        seats = [(alice.id, "Alice", 10), (bob.id, "Bob", 3)]
        here = int(await bot.store.record_game(finished(guild, general.id, seats)))
        there = int(await bot.store.record_game(finished(
            guild, den.id, seats, when=T0 + timedelta(minutes=5))))

        async def listed(member: FakeUser, where: FakeChannel, **options: Any) -> Any:
            ix = await (await fake.slash(member, where, "history", options=options)
                        ).wait_answered()
            assert ix.message is not None and ix.response.ephemeral
            return ix.message

        assert listed_ids(await listed(bob, general, user=alice)) == [there, here]
        theirs = await listed(nosy, general, user=alice)
        assert listed_ids(theirs) == [here]
        from_den = await listed(nosy, den)  # asked from the channel itself: nothing
        assert not from_den.selects()
        assert "No games have been finished here yet." in lines(from_den)
        assert listed_ids(await listed(bob, den)) == [there]
        forged = await (await fake.forge(nosy, theirs, "ct:rec", component_type=3,
                                         values=[str(there)])).wait_answered()
        assert forged.message is not None and not forged.message.versions[-1]["attachments"]
        assert "channel you cannot see" in forged.text()
