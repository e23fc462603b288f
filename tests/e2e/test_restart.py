"""Restart recovery on the fake Discord.

The main test runs the bot as a real subprocess (``python -m bot`` through the fake's
runner; its log is ``bot.log`` in the test's tmp_path). The users play Jazz only
through what they see (DM menus, the table's My hand button), and the process is
killed with SIGKILL right after a move was acknowledged: once in the middle of a
trick, once right after the move that ends a deal (so the new process deals the next
one itself). A new process on the same database must finish the game with every
acknowledged move applied exactly once, old buttons still working, the table message
saying that the game resumed, and the record replaying to the announced result.

In-process tests (``fake.kill``, cheaper) cover many tables with concurrent moves and
a double click, two damaged table rows reported to their channels while the other
tables finish, a lobby restored, and turn timers that resume from their deadlines.
"""

from __future__ import annotations

import asyncio
import json
import logging
import random
import re
import sqlite3
from pathlib import Path
from typing import Any

import pytest

from engine.records import restore
from testkit.bots import EXTENSIONS, Bots
from testkit.clock import ManualClock
from testkit.fakediscord import (
    FakeChannel,
    FakeDiscord,
    FakeMessage,
    Interaction,
)
from testkit.harness import idle, menu_choices
from testkit.processes import (
    MOVE_PREFIXES,
    BotProcess,
    Players,
    database_rows,
    live_table,
    open_jazz,
    pg_rows,
    played,
    seat_users,
    step_of,
    stored_game,
)
from testkit.results import replay_cli

WITH_JAZZ: dict[str, str | None] = {**EXTENSIONS, "cogs.jazz": "jazz"}


@pytest.fixture
def bot_extensions() -> dict[str, str | None]:
    """The ``bots`` of this module play Jazz too."""
    return WITH_JAZZ


def announced(final: FakeMessage) -> tuple[dict[str, int], set[str]]:
    """Totals by name and the crowned names of the table's final result."""
    [standings] = [f for f in final.embeds[0]["fields"] if f["name"] == "Standings"]
    totals, crowned = {}, set()
    for line in standings["value"].splitlines():
        found = re.fullmatch(r"(👑 )?\*\*(.+)\*\* ([+-]\d+)", line)
        assert found, line
        totals[found[2]] = int(found[3])
        if found[1]:
            crowned.add(found[2])
    return totals, crowned


MENTION = re.compile(r"<@!?(\d+)> to play")


def table_versions(channel: FakeChannel) -> dict[int, int]:
    """How many versions each table message (one with a My hand button) has now."""
    return {m.id: len(m.versions) for m in channel.messages
            if any(c.get("label") == "My hand" for v in m.versions for c in m.leaf_components(v))}


def resume_problems(fake: FakeDiscord, players: Players, before: dict[int, int],
                    saved: dict[str, Any], when: str) -> list[str]:
    """What a restored table owes its players: the table message says that the game
    resumed (in a version made since the restart: the bot may have moved on since) and
    names who is to act, and that player has their menu (steps 5 and 6 of a move may
    have died with the old process). ``before``: ``table_versions`` before the restart;
    ``saved``: the table as stored now."""
    table = fake.find_message(players.channel, label="My hand")
    assert table is not None
    problems = []
    tables = table_versions(players.channel)
    since = [m.text(v) for m in players.channel.messages if m.id in tables
             for v in m.versions[before.get(m.id, 0):]]
    if not any(re.search(r"resum", text, re.IGNORECASE) for text in since):
        problems.append(f"after {when} the table message does not say the game resumed: "
                        f"{table.text()[:300]!r}")
    seat = restore(saved["game"]).to_act
    if seat is None:
        return [*problems, f"after {when} nobody is to act: the game does not go on"]
    to_act = seat_users(saved)[seat]
    named = MENTION.search(table.content)
    if named is None or int(named[1]) != to_act:
        problems.append(f"after {when} the table message does not name <@{to_act}> "
                        f"as the player to act: {table.content!r}")
    menu = players.fresh_menu()
    if menu is None or menu[0].id != to_act:
        problems.append(f"after {when} <@{to_act}>, who is to act, has no menu "
                        "(no DM with their hand)")
    return problems


# ------------------------------------------------------------------ the test


@pytest.mark.slow
async def test_a_killed_bot_process_finishes_the_game_with_nothing_lost_or_repeated(
        fake_discord: FakeDiscord, any_bot_process: BotProcess, tmp_path: Path) -> None:
    fake, bot_process = fake_discord, any_bot_process
    users = [fake.add_user(name) for name in ("alice", "bob", "cy")]
    general = fake.channel("general")
    await bot_process.start()
    await (await fake.slash(users[0], general, "jazz start")).wait_answered()
    lobby = fake.find_message(general, label="Join")
    assert lobby is not None
    for user in users[1:]:
        await (await fake.click(user, lobby, label="Join")).wait_answered()
    await (await fake.click(users[0], lobby, label="Start")).wait_answered()
    players = Players(fake, general, users, random.Random(11))
    problems: list[str] = []

    # 1. Killed in the middle of a trick, right after the 8th move was acknowledged.
    await players.play(8)
    await bot_process.kill()
    saved = await bot_process.live_table(general.id)
    # Every move answered to a player is in the database, each once.
    assert played(saved["game"], seat_users(saved)) == players.moves
    table = fake.find_message(general, label="My hand")
    assert table is not None
    before = table_versions(general)
    await bot_process.start()
    await bot_process.idle()  # resumed: the bot says so itself
    problems += resume_problems(fake, players, before, saved, "the first restart")
    # Buttons on the old table message work for everyone in the new process.
    for user in users:
        ix = await (await fake.click(user, table, label="My hand")).wait_answered()
        await fake.wait_for(lambda ix=ix: ix.message is not None and ix.message.embeds)
        assert ix.ephemeral and ix.message.embeds[0]["title"].startswith("Your hand")

    # 2. Killed right after the move that ends the first deal (17 tricks of 3 cards):
    # the new process deals the second deal itself.
    await players.play(51 - len(players.moves))
    await bot_process.kill()
    saved = await bot_process.live_table(general.id)
    # Mostly the old process dies before it deals again; either way nothing is lost.
    assert len(restore(saved["game"]).deal_points) in (1, 2)
    assert played(saved["game"], seat_users(saved)) == players.moves
    before = table_versions(general)
    await bot_process.start()
    await bot_process.idle()  # the new process deals the second deal itself
    problems += resume_problems(fake, players, before,
                                await bot_process.live_table(general.id),
                                "the second restart")

    # 3. The rest of the game, then the record as stored and as downloaded.
    while await players.move() is not None:
        assert len(players.moves) < 400, "the game does not end"
    await bot_process.idle()
    game_id, record, seats = await bot_process.stored_game(general.id)
    assert played(record, seats) == players.moves  # nothing lost, nothing applied twice

    listing = await (await fake.slash(users[2], general, "history")).wait_answered()
    download = await fake.select(users[2], listing.message, "ct:rec", [str(game_id)])
    await download.wait_answered()
    [attachment] = download.message.latest["attachments"]
    path = tmp_path / attachment["filename"]
    path.write_bytes(fake.download(attachment))
    result = await replay_cli(path)
    final = fake.find_message(general, text="final result")
    start = fake.find_message(general, text="Players, in seat order")
    assert final is not None and start is not None
    names = re.search(r"in seat order: (.+)\. The table", start.text())[1].split(", ")
    totals, crowned = announced(final)
    assert {names[s]: total for s, total in enumerate(result["totals"])} == totals
    assert {names[s] for s in result["winners"]} == crowned
    assert result["complete"] is True
    for deal in range(1, 6):  # deal 6's result is the final one
        posts = [m for m in fake.messages(general) if f"deal {deal} is over" in m.text()]
        if len(posts) != 1:
            problems.append(f"the result of deal {deal} was posted {len(posts)} times")
    assert not problems, "the restored table let its players down:\n" + "\n".join(problems)


@pytest.mark.slow
async def test_a_jacko_game_killed_twice_finishes_with_every_move_once(
        fake_discord: FakeDiscord, any_bot_process: BotProcess) -> None:
    """Jacko (two players, from their DMs) survives two kills, on SQLite and PostgreSQL;
    the finished game is a record, results and ratings in the database."""
    fake, bot_process = fake_discord, any_bot_process
    users = [fake.add_user(name) for name in ("dora", "eli")]
    general = fake.channel("general")
    await bot_process.start()
    await (await fake.slash(users[0], general, "jacko start", target=30)).wait_answered()
    lobby = fake.find_message(general, label="Join")
    assert lobby is not None
    await (await fake.click(users[1], lobby, label="Join")).wait_answered()
    await (await fake.click(users[0], lobby, label="Start")).wait_answered()
    players = Players(fake, general, users, random.Random(5))
    for moves in (5, 9):
        await players.play(moves)
        await bot_process.kill()
        saved = await bot_process.live_table(general.id)
        assert played(saved["game"], seat_users(saved)) == players.moves
        await bot_process.start()
        await bot_process.idle()
    while await players.move() is not None:
        assert len(players.moves) < 400, "the game does not end"
    await bot_process.idle()
    _, record, seats = await bot_process.stored_game(general.id)
    assert played(record, seats) == players.moves
    assert sorted(seats) == sorted(u.id for u in users)
    board = await (await fake.slash(users[0], general, "leaderboard", game="jacko")
                   ).wait_answered()
    await fake.wait_for(lambda: "Dora" in board.text() and "Eli" in board.text())
    if bot_process.url is not None:  # the rows are PostgreSQL's own
        ratings = await pg_rows(bot_process.url, "SELECT user_id, games, rated_games FROM"
                                " ratings WHERE game = 'jacko' AND scope = 0")
        assert {(r["user_id"], r["games"], r["rated_games"]) for r in ratings} == \
            {(u.id, 1, 1) for u in users}


# ------------------------------------------------------------------ in-process restarts


def write(path: Path, sql: str, params: tuple[Any, ...]) -> None:
    """Change the file behind the bot's back, as a bad disk or a bad deploy would."""
    conn = sqlite3.connect(path, timeout=5, isolation_level=None)
    try:
        conn.execute(sql, params)
    finally:
        conn.close()


async def double_click(fake: FakeDiscord, players: Players) -> tuple[Interaction, Interaction]:
    """The player to act picks the same card in their DM and, at the same moment, in the
    menu under My hand (two devices): both clicks reach the bot together."""
    user, dm = await fake.wait_for(players.fresh_menu)
    table = fake.find_message(players.channel, label="My hand")
    assert table is not None
    await (await fake.click(user, table, label="My hand")).wait_answered()
    mine = await fake.wait_for(lambda: next(
        (m for m in reversed(fake.ephemerals(user)) if any(
            str(c.get("custom_id", "")).startswith(MOVE_PREFIXES)
            for c in m.leaf_components())), None))
    comp, value = menu_choices(dm)[0]
    assert value is not None and mine.component(comp["custom_id"]) is not None
    first, second = await asyncio.gather(
        fake.select(user, dm, comp["custom_id"], [value]),
        fake.select(user, mine, comp["custom_id"], [value]))
    await first.wait_answered()
    await second.wait_answered()
    applied = [ix for ix in (first, second) if ix.response.type == 7]
    if len(applied) == 1:
        players.moves.append((user.id, value))
        players.last_step = step_of(comp["custom_id"])
    return first, second


@pytest.mark.slow
async def test_many_tables_restart_with_corrupt_rows_reported_and_the_rest_finished(
        fake: FakeDiscord, bots: Bots, caplog: pytest.LogCaptureFixture) -> None:
    world = fake.world
    channels = [world.general, world.games, world.add_channel("lounge"),
                world.add_channel("den"), world.thread]
    trios = [[fake.add_user(f"{who}{n}") for who in ("ann", "ben", "cat")]
             for n in range(len(channels))]
    playing = dict(zip(channels[:4], trios[:4], strict=True))
    bot = await bots.new()
    await fake.start_bot(bot)
    await asyncio.gather(*(open_jazz(fake, ch, trio) for ch, trio in playing.items()))
    lobby = await open_jazz(fake, world.thread, trios[4][:2], start=False)
    players = {ch: Players(fake, ch, trio, random.Random(ch.id)) for ch, trio in playing.items()}

    # Moves at four tables at the same moment, then one player's double click.
    for _ in range(6):
        answers = await asyncio.gather(*(p.move() for p in players.values()))
        assert all(ix is not None and ix.response.type == 7 for ix in answers)
    first, second = await double_click(fake, players[world.general])
    assert sorted([first.response.type, second.response.type]) == [4, 7]  # one applied
    refused = first if first.response.type == 4 else second
    assert "out of date" in refused.text()
    await asyncio.gather(*(p.move() for p in players.values()))

    # The bot dies; two rows are damaged while it is down.
    await bots.crash(bot)
    lounge, den = channels[2], channels[3]
    write(bots.path, "UPDATE live_tables SET data = ? WHERE channel_id = ?",
          ('{"table_id": "trunc', lounge.id))
    [row] = database_rows(bots.path, "SELECT data FROM live_tables WHERE channel_id = ?",
                          (den.id,))
    data = json.loads(row["data"])
    actions = data["game"]["deals"][0]["actions"]
    actions.append(actions[0])  # that card was played already: the record cannot replay
    write(bots.path, "UPDATE live_tables SET data = ? WHERE channel_id = ?",
          (json.dumps(data), den.id))
    broken_ids = {r["table_id"] for r in database_rows(
        bots.path, "SELECT table_id FROM live_tables WHERE channel_id IN (?, ?)",
        (lounge.id, den.id))}
    caplog.set_level(logging.ERROR, logger="bot")
    bot = await bots.new()
    await fake.start_bot(bot)

    logged = {table_id for table_id in broken_ids for r in caplog.records
              if r.levelno >= logging.ERROR and table_id in r.getMessage()}
    assert logged == broken_ids  # each damaged table is in the log, by its id
    for broken in (lounge, den):
        notes = [m for m in fake.messages(broken) if "could not be brought back" in m.text()]
        assert len(notes) == 1, f"#{broken.name} was not told (once) that its game is lost"
        [status] = database_rows(bots.path, "SELECT status FROM live_tables WHERE channel_id"
                                            " = ?", (broken.id,))
        assert status["status"] == "stopped"
        old = fake.find_message(broken, label="My hand")
        assert old is not None
        closed = await (await fake.click(playing[broken][0], old, label="My hand")).wait_answered()
        assert "closed" in closed.text()
        del players[broken]

    # The lobby's old buttons still work; its host then cancels it.
    joined = await (await fake.click(trios[4][2], lobby, label="Join")).wait_answered()
    assert joined.response.type == 7 and "Cat4" in lobby.text()
    await (await fake.click(trios[4][0], lobby, label="Cancel")).wait_answered()
    assert lobby.buttons() == []

    # Every other table finishes, with exactly the moves its players made.
    while players:
        await asyncio.gather(*(p.move() for p in players.values()))
        for channel, p in list(players.items()):
            if p.over():
                await idle(bot)  # the final move recorded: the bot says it is done
                _, record, seats = stored_game(bots.path, channel.id)
                assert played(record, seats) == p.moves
                del players[channel]
            assert len(p.moves) < 400, "a game does not end"


async def test_turn_timers_resume_from_their_deadlines(
        fake: FakeDiscord, general: FakeChannel, clock: ManualClock, bots: Bots) -> None:
    users = [fake.add_user(n) for n in ("alice", "bob", "cy")]
    bot = await bots.new(clock)
    await fake.start_bot(bot)
    await open_jazz(fake, general, users, turn_timer="1m")  # a minute per move
    players = Players(fake, general, users, random.Random(2))
    await players.play(3)
    await idle(bot)
    before = live_table(bots.path, general.id)
    assert before["turn_deadline"] == clock.now() + 60
    to_act = restore(before["game"]).to_act
    late = next(u for u in users if u.id == seat_users(before)[to_act])

    await bots.crash(bot)
    clock.advance(45)  # the bot is down for 45 s: the reminder's moment (30 s) passes
    bot = await bots.new(clock)
    await fake.start_bot(bot)
    await fake.wait_for(lambda: any("still your turn" in m.text() for m in fake.messages(late)))
    clock.advance(14)  # 59 s after the move: not yet
    await idle(bot)
    assert played(live_table(bots.path, general.id)["game"], seat_users(before)) == players.moves
    clock.advance(2)  # 61 s: the timer the first process armed runs out
    await fake.wait_for(lambda: len(live_table(bots.path, general.id)["game"]["deals"][0]
                                    ["actions"]) > len(before["game"]["deals"][0]["actions"]))
    after = live_table(bots.path, general.id)
    assert after["game"]["deals"][0]["actions"][:-1] == before["game"]["deals"][0]["actions"]
    assert after["game"]["deals"][0]["actions"][-1][0] == to_act
    await idle(bot)
    table = fake.find_message(general, label="My hand")
    assert table is not None and "ran out of time" in table.text()
