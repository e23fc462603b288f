"""Rematch on the fake Discord: the host's click under a result starts the next game at
once with exactly the same seats; everyone else is answered politely and nothing opens."""

from __future__ import annotations

import asyncio
import sqlite3
from pathlib import Path
from typing import Any

import pytest

from testkit.bots import bots_on
from testkit.fakediscord import FakeChannel, FakeDiscord, FakeMessage, FakeUser
from testkit.harness import MakeBot, idle, table_message, whose_turn
from testkit.tables import (
    GAMES,
    click_rematch,
    live,
    open_and_start,
    play_out,
    rematch_button,
    rows,
    seats_of,
)


def results(fake: FakeDiscord, channel: FakeChannel) -> list[FakeMessage]:
    """Every result that offers a rematch, oldest first."""
    return [m for m in fake.messages(channel) if not m.deleted and any(
        str(c.get("custom_id", "")).startswith("ct:rematch:") for c in m.leaf_components())]


def offered(fake: FakeDiscord, channel: FakeChannel, users: list[FakeUser],
            table_id: str) -> bool:
    """A player is offered a move of table ``table_id``: a menu of it in their DMs, or its
    table message naming them to play (a player whose DMs are closed: under My hand)."""
    moves = (f"ct:play:{table_id}:", f"ct:act:{table_id}:")
    if any(str(c.get("custom_id", "")).startswith(moves)
           for user in users for _, c in fake.visible_components(user)):
        return True
    message = table_message(fake, channel)
    return (message is not None and f"ct:hand:{table_id}:" in str(message.latest)
            and whose_turn(fake, channel, users) is not None)


# (game, command, players, options): Jacko and California Jack to one point (one deal).
KINDS = [("jacko", "jacko", 2, {"target": 1}), ("jazz", "jazz", 3, {}),
         ("california_jack", "californiajack", 2, {"target": 1})]


@pytest.mark.slow
@pytest.mark.parametrize(("game", "command", "players", "options"), KINDS)
async def test_the_hosts_rematch_starts_at_once_with_exactly_the_same_seats(
        fake: FakeDiscord, general: FakeChannel, run_bot: MakeBot, game: str, command: str,
        players: int, options: dict[str, Any]) -> None:
    users = [fake.add_user(n) for n in ("alice", "bob", "cy")[:players]]
    if game == "jazz":  # one player's DMs are closed: their hand is under My hand
        users[-1].dms_closed = True
    bot = await run_bot(extensions=GAMES)
    await open_and_start(fake, general, users, command, images=False, turn_timer="7m",
                         **options)
    first = live(bot, general)
    assert first is not None and first.turn_timer == 420 and not first.images
    await play_out(fake, bot, general, users, seed=1)
    assert live(bot, general) is None
    (final,) = results(fake, general)
    assert "final result" in final.text()
    assert rematch_button(final)["label"] == "Rematch"

    ix = await click_rematch(fake, users[0], final)
    assert ix.response.type == 7  # the result itself shows that the rematch started
    button = rematch_button(final)
    assert button["label"] == "Rematch started" and button.get("disabled")
    second = live(bot, general)
    assert second is not None and second.table_id != first.table_id
    await fake.wait_for(lambda: offered(fake, general, users, second.table_id),
                        timeout=10)
    assert seats_of(second) == seats_of(first)  # nobody else, same order
    assert second.follows == first.table_id and second.host_id == users[0].id
    assert (second.options, second.hands_mode, second.images, second.turn_timer,
            second.language) == (first.options, first.hands_mode, first.images,
                                 first.turn_timer, first.language)
    assert second.status == "playing"

    await play_out(fake, bot, general, users, seed=2)
    assert live(bot, general) is None
    later = results(fake, general)
    assert len(later) == 2 and rematch_button(later[-1])["label"] == "Rematch"
    assert second.table_id in rematch_button(later[-1])["custom_id"]
    history = await bot.store.history(fake.world.guild.id)
    assert [g.game for g in history] == [game, game]
    if game == "jazz":  # where the closed DMs' hand is was said once, not per game
        notices = [m for m in fake.messages(general) if "cannot send you DMs" in m.text()]
        assert len(notices) == 1
    fake.assert_no_violations()


async def test_only_the_host_starts_it_and_a_live_table_is_pointed_to(
        fake: FakeDiscord, general: FakeChannel, db_path: Path, run_bot: MakeBot) -> None:
    alice, bob, dee = (fake.add_user(n) for n in ("alice", "bob", "dee"))
    bot = await run_bot(extensions=GAMES)
    await open_and_start(fake, general, [alice, bob], "jacko", target=1, images=False)
    await play_out(fake, bot, general, [alice, bob], seed=3)
    (final,) = results(fake, general)
    tables = len(rows(db_path, "SELECT * FROM live_tables"))

    by_bob = await click_rematch(fake, bob, final)  # seated, not the host
    assert by_bob.response.ephemeral and "Only the host, Alice," in by_bob.text()
    by_dee = await click_rematch(fake, dee, final)  # not seated at all
    assert by_dee.response.ephemeral and "Only the players" in by_dee.text()
    assert live(bot, general) is None

    # Another table is live in the channel: the host's click points to it.
    await (await fake.slash(dee, general, "jazz start")).wait_answered()
    lobby = live(bot, general)
    assert lobby is not None and lobby.game_id == "jazz"
    busy = await click_rematch(fake, alice, final)
    assert busy.response.ephemeral and "already a table of Jazz" in busy.text()
    assert str(lobby.posts.message_id) in busy.text()
    assert live(bot, general) is lobby
    assert len(rows(db_path, "SELECT * FROM live_tables")) == tables + 1
    lobby_message = fake.find_message(general, label="Join")
    await (await fake.click(dee, lobby_message, label="Cancel")).wait_answered()

    started = await click_rematch(fake, alice, final)
    assert started.response.type == 7
    await idle(bot)
    rematch = live(bot, general)
    assert rematch is not None and rematch.game_id == "jacko"
    # Too late: Bob's click, and a (forged) second click of the disabled button, are
    # pointed to the rematch; nothing else opens.
    assert rematch_button(final).get("disabled")
    late = await (await fake.forge(bob, final, rematch_button(final)["custom_id"])
                  ).wait_answered()
    again = await (await fake.forge(alice, final, rematch_button(final)["custom_id"])
                   ).wait_answered()
    for answer in (late, again):
        assert answer.response.ephemeral and "already started" in answer.text()
        assert str(rematch.posts.message_id) in answer.text()
    assert live(bot, general) is rematch
    assert len(rows(db_path, "SELECT * FROM live_tables")) == tables + 2
    fake.assert_no_violations()


async def test_a_double_click_opens_one_table(
        fake: FakeDiscord, alice: FakeUser, bob: FakeUser, general: FakeChannel, db_path: Path,
        run_bot: MakeBot) -> None:
    bot = await run_bot(extensions=GAMES)
    await open_and_start(fake, general, [alice, bob], "californiajack", target=1,
                         images=False)
    await play_out(fake, bot, general, [alice, bob], seed=4)
    (final,) = results(fake, general)
    custom_id = rematch_button(final)["custom_id"]
    tables = len(rows(db_path, "SELECT * FROM live_tables"))
    clicks = await asyncio.gather(fake.click(alice, final, custom_id),
                                  fake.click(alice, final, custom_id))
    answers = [await ix.wait_answered() for ix in clicks]
    await idle(bot)
    assert sorted(a.response.type for a in answers) == [4, 7]
    (refused,) = [a for a in answers if a.response.type == 4]
    assert refused.response.ephemeral
    assert "already started" in refused.text() or "being set up" in refused.text()
    assert len(rows(db_path, "SELECT * FROM live_tables")) == tables + 1
    assert len(rows(db_path, "SELECT * FROM live_tables WHERE status = 'playing'")) == 1
    fake.assert_no_violations()


async def test_the_rematch_button_works_after_a_restart_with_the_ai_seat_too(
        fake: FakeDiscord, alice: FakeUser, general: FakeChannel, tmp_path: Path) -> None:
    async with bots_on(fake, tmp_path / "db.sqlite", extensions=GAMES) as bots:
        bot = await bots.new()
        await fake.start_bot(bot)
        await open_and_start(fake, general, [alice], "jacko", ai=1, target=1, images=False)
        first = live(bot, general)
        assert first is not None and [s.ai for s in first.seats] == [None, "normal"]
        await play_out(fake, bot, general, [alice], seed=5)
        (final,) = results(fake, general)

        bot = await bots.restart(bot)
        ix = await click_rematch(fake, alice, final)
        assert ix.response.type == 7
        second = live(bot, general)
        assert second is not None and seats_of(second) == seats_of(first)
        await fake.wait_for(lambda: offered(fake, general, [alice], second.table_id),
                            timeout=10)
        await play_out(fake, bot, general, [alice], seed=6)
        assert live(bot, general) is None and len(results(fake, general)) == 2
    fake.assert_no_violations()


async def test_a_finished_table_no_longer_kept_is_answered_politely(
        fake: FakeDiscord, alice: FakeUser, bob: FakeUser, general: FakeChannel, db_path: Path,
        run_bot: MakeBot) -> None:
    bot = await run_bot(extensions=GAMES)
    await open_and_start(fake, general, [alice, bob], "jacko", target=1, images=False)
    table_id = live(bot, general).table_id
    await play_out(fake, bot, general, [alice, bob], seed=7)
    (final,) = results(fake, general)
    with sqlite3.connect(db_path) as conn:
        conn.execute("DELETE FROM live_tables WHERE table_id = ?", (table_id,))
    ix = await click_rematch(fake, alice, final)
    assert ix.response.ephemeral and "no longer kept" in ix.text()
    assert live(bot, general) is None
    assert rows(db_path, "SELECT * FROM live_tables") == []
    fake.assert_no_violations()


async def test_a_rematch_where_the_bot_may_no_longer_post_is_refused(
        fake: FakeDiscord, alice: FakeUser, bob: FakeUser, general: FakeChannel, db_path: Path,
        run_bot: MakeBot) -> None:
    bot = await run_bot(extensions=GAMES)
    await open_and_start(fake, general, [alice, bob], "jacko", target=1, images=False)
    await play_out(fake, bot, general, [alice, bob], seed=8)
    (final,) = results(fake, general)
    tables = len(rows(db_path, "SELECT * FROM live_tables"))
    fake.set_bot_permissions(general, send_messages=False)
    await fake.settle()
    ix = await click_rematch(fake, alice, final)
    assert ix.response.ephemeral and "missing the permission Send Messages" in ix.text()
    assert live(bot, general) is None
    assert len(rows(db_path, "SELECT * FROM live_tables")) == tables
    assert rematch_button(final)["label"] == "Rematch"  # still there, for later
    fake.assert_no_violations()


async def test_a_rematch_follows_the_servers_settings_as_they_are_now(
        fake: FakeDiscord, alice: FakeUser, general: FakeChannel, db_path: Path,
        run_bot: MakeBot, monkeypatch: pytest.MonkeyPatch) -> None:
    """The server's policy is read again at the rematch (the channel, AI seats, hints in
    rated games, pictures); the table's own choices (options, timer, language) stay."""
    games = fake.channel("games")
    bot = await run_bot(extensions=GAMES)
    guild = fake.world.guild.id
    await open_and_start(fake, general, [alice], "jacko", ai=1, target=1, turn_timer="7m")
    first = live(bot, general)
    assert first is not None and first.images and first.ai_allowed and first.language == "en"
    assert not first.hints_allowed
    await play_out(fake, bot, general, [alice], seed=5)
    (final,) = results(fake, general)
    tables = len(rows(db_path, "SELECT * FROM live_tables"))

    async def refused(words: str) -> None:
        ix = await click_rematch(fake, alice, final)
        assert ix.response.ephemeral and words in ix.text(), ix.text()
        assert live(bot, general) is None
        assert len(rows(db_path, "SELECT * FROM live_tables")) == tables
        assert rematch_button(final)["label"] == "Rematch"  # still there, for later

    # Games may now be opened only in #games: not here, not even as a rematch.
    await bot.store.save_server_settings(guild, {"channels": [games.id]})
    await refused(f"games are opened only in: <#{games.id}>")
    # AI seats are no longer allowed: without its AI seat, Jacko has too few players.
    await bot.store.save_server_settings(guild, {"ai_allowed": False})
    await refused("This server does not allow AI players")
    # Settings that cannot be read are not "no restrictions": nothing opens.
    real = bot.store.server_settings

    async def broken(guild_id: int) -> None:
        raise RuntimeError("database is locked")

    monkeypatch.setattr(bot.store, "server_settings", broken)
    await refused("could not open the rematch just now")
    monkeypatch.setattr(bot.store, "server_settings", real)

    # Pictures off and hints in rated games allowed: the rematch takes both.
    await bot.store.save_server_settings(guild, {"images": False, "hints_allowed": True,
                                                 "turn_timer": 3600, "language": "sv",
                                                 "house_rules": {"jacko": {"target": 9}}})
    ix = await click_rematch(fake, alice, final)
    assert ix.response.type == 7
    second = live(bot, general)
    assert second is not None and second.follows == first.table_id
    assert seats_of(second) == seats_of(first)
    assert (second.images, second.hints_allowed, second.ai_allowed) == (False, True, True)
    # The table's own choices are kept: the options, the timer, the language.
    assert (second.options, second.turn_timer, second.language) == (
        first.options, 420, "en")
    fake.assert_no_violations()
