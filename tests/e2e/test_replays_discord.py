"""Replays in Discord (``bot.features.replays``) on the fake Discord: Replay under a
finished game's result and on /history's record answer; a private message stepping
through the game (Next, Back, Next deal, Previous deal) to its result; refused to a
member who cannot read the channel's past, and for a record too long; only ever
ephemeral; within Discord's limits in every language; working after a restart."""

from __future__ import annotations

import re
from datetime import timedelta
from typing import Any

import pytest

import locales
from bot.app.client import CardTableBot
from bot.images.painter import Painter
from bot.images.scene import Scene
from bot.storage import FinishedGame, SeatResult
from bot.table.lines import move_line
from bot.ui import markup
from bot.views.replay import MAX_STEPS
from engine.core import parse_action
from engine.registry import game_class, spec
from testkit.bots import Bots
from testkit.fakediscord import FakeChannel, FakeDiscord, FakeMessage, FakeUser
from testkit.harness import MakeBot
from testkit.results import T0
from testkit.tables import GAMES, open_and_start, play_out
from tests.e2e.test_languages import assert_speaks, scene_texts
from tests.engine.playout import random_game

STEPS = ("⏮", "◀", "▶", "⏭")  # the step buttons' emoji, in their order


# ------------------------------------------------------------------ reading a replay


def replay_id(message: FakeMessage) -> str:
    (found,) = [c["custom_id"] for c in message.leaf_components()
                if str(c.get("custom_id", "")).startswith("ct:replay:")]
    return str(found)


def step_buttons(message: FakeMessage) -> list[dict[str, Any]]:
    return [c for c in message.buttons() if str(c.get("custom_id", "")).startswith("ct:replay:")]


def enabled(message: FakeMessage) -> list[bool]:
    """Which of ⏮ ◀ ▶ ⏭ may be pressed."""
    return [not b.get("disabled") for b in step_buttons(message)]


def line(message: FakeMessage) -> str:
    return str(message.embeds[0].get("description") or "")


def footer(message: FakeMessage) -> str:
    return str(message.embeds[0]["footer"]["text"])


def hands(message: FakeMessage) -> list[str]:
    return [f["value"] for f in message.embeds[0]["fields"]]


def assert_private_and_within_limits(message: FakeMessage, user: FakeUser) -> None:
    """A replay message: only for ``user``; its embed, rows and ids within Discord's limits;
    its picture attached."""
    assert message.ephemeral_for is user
    for version in message.versions:
        assert version["flags"] & 64  # ephemeral, every version
        (embed,) = version["embeds"]
        size = len(embed.get("title", "")) + len(embed.get("description", ""))
        size += sum(len(f["name"]) + len(f["value"]) for f in embed.get("fields", []))
        size += len(embed.get("footer", {}).get("text", ""))
        assert size <= 6000 and len(embed.get("fields", [])) <= 25
        assert len(embed.get("description", "")) <= 4096
        assert all(len(f["value"]) <= 1024 for f in embed.get("fields", []))
        rows = version["components"]
        assert len(rows) <= 5 and all(len(row["components"]) <= 5 for row in rows)
        ids = [c["custom_id"] for row in rows for c in row["components"] if "custom_id" in c]
        assert len(ids) == len(set(ids)) and all(len(i) <= 100 for i in ids)
        assert embed["image"]["url"] == "attachment://replay.png"
        assert [a["filename"] for a in version["attachments"]] == ["replay.png"]


async def step(fake: FakeDiscord, user: FakeUser, message: FakeMessage, emoji: str) -> Any:
    """Press a step button by its emoji: answered within 3 s by editing the message."""
    (button,) = [b for b in step_buttons(message) if b["emoji"]["name"].startswith(emoji)]
    ix = await (await fake.click(user, message, button["custom_id"])).wait_answered(timeout=3)
    assert ix.response.type == 7, ix.text()  # the private message edited, no new one
    await ix.wait_done()
    return ix


def expected_lines(record: dict[str, Any], names: list[str]) -> list[str]:
    """Each frame's line from the record alone (a game without forced steps): the deal's
    start, then each action, as the table's lines say them."""
    found = []
    with locales.speaking("en"):
        for d, deal in enumerate(record["deals"]):
            found.append(f"Deal {d + 1} is dealt.")
            found += [locales.say(move_line("player", names[seat], parse_action(code)))
                      for seat, code in deal["actions"]]
    return found


async def store_game(bot: CardTableBot, channel: FakeChannel, game_id: str, players: int,
                     seed: int, names: list[str] | None = None) -> tuple[int, Any]:
    """A whole game played by the engine, recorded as a table records it; its id, game."""
    game = random_game(game_class(game_id), players, None, seed=seed)
    totals, places, winners = game.totals, game.ranking(), set(game.winners())
    names = names or [f"Seat {i}" for i in range(players)]
    seats = [SeatResult(i, 700 + i, names[i], totals[i], places[i], i in winners)
             for i in range(players)]
    stored = await bot.store.record_game(FinishedGame(  # (no stakes: no chips move)
        channel.guild_id or 0, channel.id, game_id, T0, T0 + timedelta(minutes=5), True,
        game.to_record(), seats))
    return stored, game


async def open_from_history(fake: FakeDiscord, user: FakeUser, channel: FakeChannel,
                            game_id: int) -> FakeMessage:
    """/history, the game picked, Replay on the record's answer: the replay's message."""
    listing = await (await fake.slash(user, channel, "history")).wait_answered()
    got = await (await fake.select(user, listing.message, "ct:rec",
                                   [str(game_id)])).wait_answered()
    assert got.message is not None
    assert replay_id(got.message) == f"ct:replay:{game_id}"
    ix = await (await fake.click(user, got.message, replay_id(got.message))).wait_answered()
    await ix.wait_done()
    message = ix.message
    assert message is not None and message.ephemeral_for is user
    return message


# ------------------------------------------------------------------ the tests


@pytest.fixture
def drawn(monkeypatch: pytest.MonkeyPatch) -> list[Scene]:
    """Every scene the bot asks its painter for (drawn in its workers, off the loop)."""
    scenes: list[Scene] = []
    real = Painter.render

    async def recording(self: Painter, scene: Scene, *args: Any) -> bytes:
        scenes.append(scene)
        return await real(self, scene, *args)

    monkeypatch.setattr(Painter, "render", recording)
    return scenes


async def test_a_results_replay_steps_privately_through_the_game_to_its_result(
        fake: FakeDiscord, general: FakeChannel, run_bot: MakeBot, drawn: list[Scene]
) -> None:
    alice, bob, cy = (fake.add_user(n) for n in ("alice", "bob", "cy"))
    bot = await run_bot(extensions={**GAMES, "cogs.history": None})
    await open_and_start(fake, general, [alice, bob], "jacko", target=1)
    table_id = bot.croupier.manager.in_channel(general.id).table_id  # type: ignore[union-attr]
    await play_out(fake, bot, general, [alice, bob], seed=2)
    (result,) = [m for m in fake.messages(general) if "final result" in m.text()]
    # Replay beside Rematch, on the result everyone sees.
    assert [b["label"] for b in result.buttons()] == ["Rematch", "Replay"]
    assert replay_id(result) == f"ct:replay:t{table_id}"
    game_id = await bot.store.game_of_table(table_id)
    assert game_id is not None
    record = await bot.store.game_record(game_id)
    assert record is not None
    expected = expected_lines(record, ["Alice", "Bob"])
    public = len(fake.messages(general))

    # cy did not play, and sees the channel: the replay is for anyone who reads it.
    for user in (alice, cy):
        ix = await (await fake.click(user, result, replay_id(result))).wait_answered()
        await ix.wait_done()
        shown = ix.message
        assert shown is not None and shown.ephemeral_for is user
        assert shown.embeds[0]["title"] == f"Replay of game #{game_id} · Jacko"
        assert line(shown) == "Deal 1 is dealt."
        assert footer(shown) == f"Deal 1 of 1 · step 1 of {len(expected)}"
        with locales.speaking("en"):  # every hand face up, as dealt
            dealt = [markup.hand_lines(hand) for hand in record["deals"][0]["hands"]]
        assert hands(shown) == dealt
        assert [f["name"] for f in shown.embeds[0]["fields"]] == ["Alice", "Bob"]
        assert enabled(shown) == [False, False, True, True]
    asked = len(drawn)

    # Next to the end: each frame's line, in order; the last one shows the game's result.
    seen = [line(shown)]
    while enabled(shown)[2]:
        await step(fake, cy, shown, "▶")
        seen.append(line(shown).split("\n\n")[0])
    assert seen == expected
    assert "**The game is over:" in line(shown) and "**Standings:" in line(shown)
    assert enabled(shown) == [True, True, False, False]
    assert footer(shown) == f"Deal 1 of 1 · step {len(expected)} of {len(expected)}"
    assert hands(shown) != dealt  # the cards played are gone from the hands
    await step(fake, cy, shown, "◀")
    assert line(shown) == expected[-2] and enabled(shown) == [True, True, True, True]
    await step(fake, cy, shown, "⏭")  # the last deal: on to the game's end
    assert "The game is over" in line(shown)
    await step(fake, cy, shown, "⏮")  # back to the deal's start
    assert line(shown) == expected[0] and enabled(shown) == [False, False, True, True]

    # Each step's table picture came from the painter (off the event loop), and the
    # hands are nowhere in it; nothing went public.
    assert len(drawn) - asked == len(expected) - 1 + 3
    assert {scene.title for scene in drawn[asked:]} == {"Jacko"}
    assert len(fake.messages(general)) == public
    assert not any("Replay of game" in m.text() for m in fake.messages(general))
    assert_private_and_within_limits(shown, cy)

    # A step button forged onto the public result shows nothing there.
    forged = await (await fake.forge(cy, result, f"ct:replay:{game_id}:3:n")).wait_answered()
    assert forged.ephemeral and "no longer active" in forged.text() and not forged.embeds
    # The host's Rematch keeps Replay beside it.
    await (await fake.click(alice, result, label="Rematch")).wait_answered()
    assert [b["label"] for b in result.buttons()] == ["Rematch started", "Replay"]
    assert len([m for m in fake.messages(general) if "Replay of game" in m.text()]) == 0
    fake.assert_no_violations()


async def test_history_replays_a_game_deal_by_deal_and_after_a_restart(
        fake: FakeDiscord, general: FakeChannel, alice: FakeUser, bots: Bots) -> None:
    bot = await bots.new()
    game_id, game = await store_game(bot, general, "jazz", 4, seed=4)
    await fake.start_bot(bot)
    deals = len(game.deal_points)
    assert deals > 2
    shown = await open_from_history(fake, alice, general, game_id)
    assert line(shown) == "Deal 1 is dealt." and footer(shown).startswith(f"Deal 1 of {deals} ·")

    for deal in range(2, deals + 1):  # Next deal: each deal's start
        await step(fake, alice, shown, "⏭")
        assert line(shown) == f"Deal {deal} is dealt."
        assert footer(shown).startswith(f"Deal {deal} of {deals} · step 1 of ")
        assert enabled(shown) == [True, True, True, True]
        assert all(value != "—" for value in hands(shown))  # freshly dealt
    await step(fake, alice, shown, "◀")  # the step before: the last deal's end
    assert footer(shown).startswith(f"Deal {deals - 1} of {deals} ·")
    assert f"**Deal {deals - 1} is over:" in line(shown)
    await step(fake, alice, shown, "⏮")  # the start of that deal
    assert line(shown) == f"Deal {deals - 1} is dealt."
    await step(fake, alice, shown, "⏮")  # at a deal's start: the deal before
    assert line(shown) == f"Deal {deals - 2} is dealt."

    # A restart keeps nothing but the buttons' ids: they still step.
    bot = await bots.restart(bot)
    for _ in range(2):
        await step(fake, alice, shown, "⏭")
    assert line(shown) == f"Deal {deals} is dealt."
    await step(fake, alice, shown, "⏭")  # from the last deal: the game's end
    assert "**The game is over:" in line(shown)
    assert [s.split(" ")[-1] for s in line(shown).split("Standings: ")[1].rstrip("*")
            .split(", ")] == [f"{t:+d}" for t in game.totals]
    assert enabled(shown) == [True, True, False, False]
    assert_private_and_within_limits(shown, alice)
    fake.assert_no_violations()


async def test_a_member_who_cannot_read_the_channels_past_is_refused(
        fake: FakeDiscord, general: FakeChannel, run_bot: MakeBot) -> None:
    alice, bob, dee = (fake.add_user(n) for n in ("alice", "bob", "dee"))
    # dee sees what is posted while she looks, never the channel's past: not its games.
    fake.world.set_permissions(general, dee, read_message_history=False)
    bot = await run_bot(extensions={**GAMES, "cogs.history": None})
    await open_and_start(fake, general, [alice, bob], "jacko", target=1)
    await play_out(fake, bot, general, [alice, bob], seed=3)
    (result,) = [m for m in fake.messages(general) if "final result" in m.text()]
    ix = await (await fake.click(dee, result, replay_id(result))).wait_answered()
    await ix.wait_done()
    assert ix.ephemeral and "channel you cannot see" in ix.text()
    assert not ix.embeds and not any("Replay of game" in m.text() for m in fake.ephemerals(dee))
    fake.assert_no_violations()


async def test_a_record_too_long_to_replay_is_refused_politely(
        fake: FakeDiscord, general: FakeChannel, alice: FakeUser, run_bot: MakeBot) -> None:
    bot = await run_bot(extensions={"cogs.history": None, **GAMES})
    game = random_game(game_class("jacko"), 2, None, seed=1)
    record = game.to_record()
    record["deals"][0]["actions"] = [[0, "2C"]] * (MAX_STEPS + 1)  # never looked at
    game_id = await bot.store.record_game(FinishedGame(
        fake.world.guild.id, general.id, "jacko", T0, T0, True, record,
        [SeatResult(i, 700 + i, f"Seat {i}", 0, 0, False) for i in range(2)]))
    listing = await (await fake.slash(alice, general, "history")).wait_answered()
    got = await (await fake.select(alice, listing.message, "ct:rec",
                                   [str(game_id)])).wait_answered()
    assert got.message is not None
    ix = await (await fake.click(alice, got.message, replay_id(got.message))).wait_answered()
    await ix.wait_done()
    assert ix.ephemeral and "too long to replay" in ix.text() and f"{MAX_STEPS}" in ix.text()
    fake.assert_no_violations()


@pytest.mark.parametrize("locale", ["en-US", "sv-SE", "da", "ru"])
async def test_every_game_at_its_largest_table_replays_within_limits_in_each_language(
        fake: FakeDiscord, general: FakeChannel, run_bot: MakeBot, locale: str) -> None:
    reader = fake.add_user("reader", locale=locale)
    bot = await run_bot(extensions={"cogs.history": None, **GAMES})
    long_name = "Ω" * 32 + " *bold* <@1> [x](https://evil.example)"
    for n, game_name in enumerate(("jazz", "jacko", "california_jack", "attackjack")):
        players = spec(game_name).max_players
        game_id, _ = await store_game(bot, general, game_name, players, seed=10 + n,
                                      names=[f"{long_name} {i}" for i in range(players)])
        shown = await open_from_history(fake, reader, general, game_id)
        await step(fake, reader, shown, "▶")
        await step(fake, reader, shown, "⏭")
        assert len(hands(shown)) == players
        # The names people typed are escaped where markdown renders.
        assert all("\\*bold\\*" in f["name"] for f in shown.embeds[0]["fields"])
        assert not re.search(r"(?<!\\)<@1>|\]\(https", shown.text()), shown.text()
        assert_private_and_within_limits(shown, reader)
    fake.assert_no_violations()


@pytest.mark.parametrize("locale", ["sv-SE", "da", "ru"])
async def test_the_replay_speaks_the_readers_language(
        fake: FakeDiscord, general: FakeChannel, run_bot: MakeBot, drawn: list[Scene],
        locale: str) -> None:
    """Every word of the replay a Swedish, Danish or Russian client sees (each version of
    its message, its buttons, its pictures) is in their language."""
    reader = fake.add_user("reader", locale=locale)
    bot = await run_bot(extensions={"cogs.history": None})
    game_id, _ = await store_game(bot, general, "jazz", 4, seed=7,
                                  names=["Ann", "Emma", "Ivan", "Sven"])
    asked = len(drawn)
    shown = await open_from_history(fake, reader, general, game_id)
    for emoji in ("▶", "⏭", "◀", "⏮"):
        await step(fake, reader, shown, emoji)
    while enabled(shown)[3]:  # deal by deal to the game's end
        await step(fake, reader, shown, "⏭")
    assert_speaks(locale, shown.all_texts(), "the replay")
    assert_speaks(locale, [t for scene in drawn[asked:] for t in scene_texts(scene)],
                  "the replay's pictures")
    fake.assert_no_violations()
