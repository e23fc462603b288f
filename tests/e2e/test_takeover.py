"""Taking over a seat on the fake Discord: a member asks for the seat a player left, the
host (or, with the host gone, the other players by majority) accepts, the newcomer gets
the hand and plays it to the end, and the stored record replays; the refusals; and no
public message ever shows a hand."""

from __future__ import annotations

import random
from typing import Any

import pytest

from bot.storage.ratings import default_rating
from engine.jazz import Jazz
from engine.records import replay
from testkit.fakediscord import FakeDiscord, FakeMessage, FakeUser
from testkit.games.jazz import JAZZ_ONLY
from testkit.harness import GameDriver, HiddenLog, idle, table_message, watch_engine
from testkit.tables import live, move, start_jazz

TAKE, ACCEPT, REFUSE = "Take a seat", "Accept", "Refuse"


async def leave(fake: FakeDiscord, bot: Any, channel: Any, user: FakeUser) -> None:
    ix = await fake.slash(user, channel, "jazz leave")
    await ix.wait_answered()
    await idle(bot)
    assert "You left the game" in ix.text()


async def press(fake: FakeDiscord, bot: Any, user: FakeUser, message: FakeMessage,
                label: str) -> Any:
    ix = await fake.click(user, message, label=label)
    await ix.wait_answered()
    await idle(bot)
    await fake.settle()
    return ix


def labels(message: FakeMessage) -> list[str]:
    return [c.get("label") for c in message.leaf_components()]


def ask_post(fake: FakeDiscord, words: str) -> dict[str, Any]:
    """The request body that posted the ask (what it allowed to ping)."""
    (body,) = [c.body for c in fake.calls if c.method == "POST"
               and c.route == "POST /channels/{channel_id}/messages"
               and isinstance(c.body, dict) and words in str(c.body.get("content"))]
    return body


def pinged(body: dict[str, Any]) -> set[int]:
    allowed = body["allowed_mentions"]
    assert not set(allowed.get("parse") or ()), allowed  # no roles, no @everyone
    return {int(u) for u in allowed.get("users") or ()}


@pytest.mark.slow
async def test_a_stranger_takes_over_a_seat_that_was_left_and_plays_it_to_the_end(
        fake, users, general, jazz_bot, monkeypatch):
    log = HiddenLog(fake, [general])
    watch_engine(monkeypatch, Jazz, log)
    alice, bob, cy = users
    dora = fake.add_user("dora")
    bot = jazz_bot
    await start_jazz(fake, general, users)
    rng = random.Random(3)
    for _ in range(4):
        await move(fake, bot, general, users, rng)
    table = live(bot, general)
    board = table_message(fake, general)
    assert TAKE not in labels(board)  # nobody left: no seat to take
    await leave(fake, bot, general, bob)  # mid-deal: the bot plays Bob's seat meanwhile
    await move(fake, bot, general, users, rng)
    assert table.seats[1].left and TAKE in labels(table_message(fake, general))

    # Refused: the players ask, and Bob has only to come back.
    said = (await press(fake, bot, alice, table_message(fake, general), TAKE)).text()
    assert said == "You are seated at this table already."
    said = (await press(fake, bot, bob, table_message(fake, general), TAKE)).text()
    assert said == "Your seat is still yours: press **My hand** to play it again."

    ix = await press(fake, bot, dora, table_message(fake, general), TAKE)
    assert ix.response.ephemeral
    assert ix.text() == ("I asked the host, Alice, to let you take over Bob's seat. If they "
                         "accept, the seat is yours and your hand comes as any player's does.")
    ask = fake.find_message(general, label=ACCEPT)
    assert ask.content == (f"🪑 Dora asks to take over Bob's seat at Jazz. <@{alice.id}>, do "
                           "you accept?")
    assert pinged(ask_post(fake, "asks to take over")) == {alice.id}
    assert labels(ask) == [ACCEPT, REFUSE]
    said = (await press(fake, bot, dora, ask, ACCEPT)).text()
    assert said == "You cannot answer your own request: the players decide."
    said = (await press(fake, bot, cy, ask, ACCEPT)).text()
    assert said == "Only the host, Alice, can answer this request."
    assert table.seats[1].user_id == bob.id and ask.content.startswith("🪑")

    bob_hand = table.posts.hand_messages.get(bob.id)
    bob_dms = len(fake.messages(bob))
    actions = sum(len(d.actions) for d in table.game.history)
    ix = await press(fake, bot, alice, ask, ACCEPT)
    assert ix.response.type == 7  # the ask itself says it, its buttons gone
    assert ask.content == "✅ Dora took over Bob's seat at Jazz." and labels(ask) == []
    assert [(s.user_id, s.name) for s in table.seats] == \
        [(alice.id, "Alice"), (dora.id, "Dora"), (cy.id, "Cy")]
    assert table.seat_changes == [{"deal": 0, "step": actions, "seat": 1, "old": bob.id,
                                   "new": dora.id, "old_name": "Bob"}]
    board = table_message(fake, general)
    assert TAKE not in labels(board) and "Dora took over Bob's seat." in board.text()
    # Dora has the hand by DM, as a player at the start; Bob's became one line.
    (hand,) = fake.messages(dora)
    assert hand.embeds and "Your hand" in hand.text()
    (retired,) = [m for m in fake.messages(bob) if m.id == bob_hand]
    assert retired.content.startswith("🪑 Dora took over your seat at Jazz")
    assert not retired.leaf_components() and not retired.embeds
    assert bob.id not in table.posts.hand_messages

    # Bob is no longer seated: his hand and his menus are refused, no hand comes to him.
    said = (await press(fake, bot, bob, board, "My hand")).text()
    assert said == "You are not seated at this table."
    ix = await fake.slash(bob, general, "jazz hand")
    await ix.wait_answered()
    assert ix.text() == "You are not seated at this table."

    # Dora plays the seat to the end of the game.
    players = [alice, dora, cy]
    await GameDriver(fake, bot, general, players, random.Random(5)).play_to_end(limit=5000)
    await idle(bot)
    await fake.settle()
    assert live(bot, general) is None
    final = fake.find_message(general, text="final result")
    assert final is not None
    assert ("🔁 A seat changed hands (Bob → Dora), so the game counted for nobody who "
            "held it.") in final.embeds[0]["footer"]["text"]
    assert len(fake.messages(bob)) == bob_dms  # not one hand since
    assert log.leaks() == []  # the ask and the table showed no hand

    # The stored record says where the seat changed hands (not who), and replays.
    guild = fake.world.guild.id
    (summary,) = await bot.store.history(guild)
    record = await bot.store.game_record(summary.game_id)
    assert record["seat_changes"] == [{"deal": 0, "step": actions, "seat": 1}]
    assert replay(record)["complete"] is True
    # Rated for Alice and Cy; counted for neither Bob nor Dora, nor in their history.
    assert summary.rated and [p.user_id for p in summary.players] == [alice.id, None, cy.id]
    assert summary.players[1].name == "Bob → Dora"
    for nobody in (bob, dora):
        assert await bot.store.stats(nobody.id, guild) == []
        assert await bot.store.history(guild, user_id=nobody.id) == []
    for player in (alice, cy):
        (stats,) = await bot.store.stats(player.id, guild)
        assert stats.games == 1 and stats.mu != default_rating().mu


async def test_with_the_host_gone_the_others_decide_by_majority(
        fake, users, general, jazz_bot):
    alice, bob, cy = users
    # A name with markdown in it (drawn as typed), and DMs closed: the usual fallback.
    dora = fake.add_user("_dora_", dms_closed=True)
    bot = jazz_bot
    await start_jazz(fake, general, users)
    rng = random.Random(4)
    await move(fake, bot, general, users, rng)
    table = live(bot, general)
    await leave(fake, bot, general, alice)  # the host is the one gone
    ix = await press(fake, bot, dora, table_message(fake, general), TAKE)
    assert "I asked the players to let you take over Alice's seat" in ix.text()
    ask = fake.find_message(general, label=ACCEPT)
    assert ask.content == (r"🪑 \_dora\_ asks to take over Alice's seat at Jazz. "
                           f"<@{bob.id}> <@{cy.id}>: do you accept? More than half of you "
                           "must.")
    assert pinged(ask_post(fake, "asks to take over")) == {bob.id, cy.id}
    said = (await press(fake, bot, alice, ask, ACCEPT)).text()
    assert said == "Only the players at the table can answer this request."
    await press(fake, bot, bob, ask, ACCEPT)
    assert ask.content.endswith("Accepted so far: 1 of 2.") and labels(ask) == [ACCEPT, REFUSE]
    assert table.seats[0].user_id == alice.id
    await press(fake, bot, cy, ask, ACCEPT)
    assert ask.content == r"✅ \_dora\_ took over Alice's seat at Jazz." and labels(ask) == []
    assert table.seats[0].user_id == dora.id and table.host_id == bob.id  # Bob hosts now
    assert fake.messages(dora) == [] and dora.id in table.posts.dm_closed
    closed = fake.find_message(general, text="I cannot send you DMs")
    assert closed is not None and closed.content.startswith(f"📪 <@{dora.id}>")
    await move(fake, bot, general, [dora, bob, cy], rng)  # the game goes on


async def test_a_refusal_and_the_player_coming_back_first_keep_the_seat_theirs(
        fake, users, general, clock, jazz_bot):
    alice, _bob, cy = users
    dora, eve = fake.add_user("dora"), fake.add_user("eve")
    bot = jazz_bot
    await start_jazz(fake, general, users)
    table = live(bot, general)
    await leave(fake, bot, general, cy)
    await press(fake, bot, dora, table_message(fake, general), TAKE)
    ask = fake.find_message(general, label=ACCEPT)
    said = (await press(fake, bot, eve, table_message(fake, general), TAKE)).text()
    assert said.startswith("Dora has asked to take a seat: the answer is awaited.")
    await press(fake, bot, alice, ask, REFUSE)
    assert ask.content == f"❌ <@{alice.id}> refused: Dora does not take over Cy's seat."
    assert labels(ask) == [] and table.seats[2].user_id == cy.id

    await press(fake, bot, eve, table_message(fake, general), TAKE)
    unanswered = fake.find_message(general, label=ACCEPT)
    assert "Eve asks to take over Cy's seat" in unanswered.content
    clock.advance(600)  # ten minutes without an answer: another may ask, replacing it
    await idle(bot)
    await press(fake, bot, dora, table_message(fake, general), TAKE)
    assert unanswered.content == "⌛ Eve's request lapsed: nobody answered it in time."
    assert labels(unanswered) == []
    ask = fake.find_message(general, label=ACCEPT)
    assert "Dora asks to take over Cy's seat" in ask.content
    board = table_message(fake, general)
    ix = await press(fake, bot, cy, board, "My hand")  # Cy comes back first
    assert "Welcome back" in ix.text()
    assert TAKE not in labels(table_message(fake, general))
    await press(fake, bot, alice, ask, ACCEPT)
    assert ask.content == "⌛ Cy is back, so Dora's request lapsed." and labels(ask) == []
    assert table.seats[2].user_id == cy.id and not table.seats[2].left
    assert table.seat_changes == [] and table.takeover_ask is None
    assert fake.messages(eve) == [] and fake.messages(dora) == []


async def test_a_seat_picked_among_several_and_an_ask_that_outlives_a_restart(
        fake, users, general, clock, jazz_bot, run_bot):
    alice, bob, cy = users
    dora = fake.add_user("dora")
    first = jazz_bot
    await start_jazz(fake, general, users)
    await leave(fake, first, general, bob)
    await leave(fake, first, general, cy)
    ix = await press(fake, first, dora, table_message(fake, general), TAKE)
    assert ix.response.content == "Which seat would you like to take?"
    menu = ix.message
    (select,) = menu.selects()
    assert [o["label"] for o in select["options"]] == ["Seat 2: Bob", "Seat 3: Cy"]
    picked = await fake.select(dora, menu, select["custom_id"], ["2"])
    await picked.wait_answered()
    await idle(first)
    await fake.settle()
    assert picked.response.type == 7 and "take over Cy's seat" in menu.content
    assert menu.selects() == []
    ask = fake.find_message(general, label=ACCEPT)

    # The bot goes down and comes back: the ask and its buttons still work.
    await fake.kill(first)
    await first.croupier.close()
    bot = await run_bot(extensions=JAZZ_ONLY, clock=clock)
    await idle(bot)
    table = live(bot, general)
    assert table.takeover_ask is not None and table.takeover_ask["seat"] == 2
    await press(fake, bot, alice, ask, ACCEPT)
    assert ask.content == "✅ Dora took over Cy's seat at Jazz."
    assert [s.user_id for s in table.seats] == [alice.id, bob.id, dora.id]
    assert table.seats[1].left and fake.messages(dora)[-1].embeds


async def test_an_ask_still_open_when_the_table_ends_loses_its_buttons(
        fake, users, general, jazz_bot):
    alice, _bob, cy = users
    dora = fake.add_user("dora")
    bot = jazz_bot
    await start_jazz(fake, general, users)
    await leave(fake, bot, general, cy)
    await press(fake, bot, dora, table_message(fake, general), TAKE)
    ask = fake.find_message(general, label=ACCEPT)
    assert labels(ask) == [ACCEPT, REFUSE]
    stop = await fake.slash(alice, general, "jazz stop")
    await stop.wait_answered()
    await idle(bot)
    await fake.settle()
    assert ask.content == "⌛ Dora's request lapsed: the game is over." and labels(ask) == []
