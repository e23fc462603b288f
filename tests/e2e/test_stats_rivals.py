"""/stats with an opponent, winning streaks and the rating picture, on the fake Discord.

Games are stored straight through ``Store.record_game`` with chosen results (as the
leaderboard tests do), then read as a member sees them.
"""

from __future__ import annotations

import io
import re
import threading
import time
from datetime import timedelta

from PIL import Image

from bot.images.painter import Painter, Picture, draw
from testkit.bots import Bots
from testkit.fakediscord import FakeDiscord, FakeMessage, FakeUser
from testkit.results import T0, Seat, finished, listed_ids

LISTED = re.compile(r"^`#(\d+)` \*\*(\w[\w ]*)\*\* · <t:\d+:R> · (.+) · (.+)$")


class Slow:
    """Draws as the bot does, each picture ``seconds`` late."""

    def __init__(self, seconds: float) -> None:
        self.seconds = seconds
        self.running = threading.Event()

    def __call__(self, scene: Picture, fmt: str) -> bytes:
        self.running.set()
        time.sleep(self.seconds)
        return draw(scene, "png")


def field(message: FakeMessage, name: str) -> str:
    [value] = [f["value"] for f in message.embeds[0].get("fields") or [] if f["name"] == name]
    return value


def listed(message: FakeMessage) -> list[tuple[int, str, str, str]]:
    """The last games together: (game id, game, first player's part, second's)."""
    rows = []
    for line in field(message, "Last games together").splitlines():
        found = LISTED.match(line)
        assert found is not None, line
        rows.append((int(found[1]), found[2], found[3], found[4]))
    return rows


def picture(fake: FakeDiscord, message: FakeMessage) -> Image.Image | None:
    """The rating picture the latest version of the message shows, if any."""
    version = message.latest
    if not version["attachments"]:
        return None
    [attachment] = version["attachments"]
    assert attachment["filename"] == "rating.png"
    assert version["embeds"][0]["image"]["url"] == "attachment://rating.png"
    image = Image.open(io.BytesIO(fake.download(attachment)))
    image.load()
    return image


async def test_head_to_head_lists_only_games_of_channels_the_asker_sees(
        fake: FakeDiscord, alice: FakeUser, bob: FakeUser, cy: FakeUser, bots: Bots) -> None:
    general, guild = fake.channel("general"), fake.world.guild.id
    secret = fake.world.add_channel("secret", private_to=[alice, bob])
    bot = await bots.new()
    assert bot.store is not None

    async def record(channel: int, seats: list[Seat], minute: int, game: str = "jazz") -> int:
        assert bot.store is not None
        return await bot.store.record_game(finished(guild, channel, seats, game=game,
                                                    when=T0 + timedelta(minutes=minute)))

    ann, ben, cyd = (alice.id, "Alice"), (bob.id, "Bob"), (cy.id, "Cy")
    g1 = await record(general.id, [(*ann, 30), (*ben, 10)], 1)
    g2 = await record(general.id, [(*ann, 5), (*ben, 20), (*cyd, 40)], 2)
    g3 = await record(general.id, [(*ann, 12), (*ben, 12)], 3)
    hidden = [await record(secret.id, [(*ann, 50), (*ben, 0)], 4 + n) for n in range(3)]
    g5 = await record(general.id, [(*ben, 9), (*ann, 1)], 8, game="jacko")
    await record(general.id, [(*ann, 9), (*cyd, 1)], 9)  # without Bob
    await fake.start_bot(bot)

    ix = await (await fake.slash(cy, general, "stats", {"user": alice,
                                                        "opponent": bob})).wait_answered()
    assert ix.ephemeral  # a lookup through the asker's eyes: not for the channel
    embed = ix.message.embeds[0]
    assert embed["title"].startswith("Head-to-head: Alice and Bob · ")
    # Every game together counts, the secret channel's too...
    assert field(ix.message, "Jazz") == (
        "**6** games together\nWins: Alice **5** · Bob **1**\n"
        "Points: Alice **+197** · Bob **+42**\n"
        "Placed higher: Alice **4** · Bob **1** · same place **1**")
    assert field(ix.message, "Jacko").startswith("**1** game together\nWins: Alice **0** · "
                                                 "Bob **1**")
    # ...but only those of channels Cy can see are listed, newest first.
    rows = listed(ix.message)
    assert [r[0] for r in rows] == [g5, g3, g2, g1]
    assert not set(hidden) & {r[0] for r in rows}
    assert rows[0][1:] == ("Jacko", "Alice +1 (place 2)", "👑 **Bob** +9 (place 1)")
    assert rows[1][2:] == ("👑 **Alice** +12 (place 1)", "👑 **Bob** +12 (place 1)")
    [select] = ix.message.selects()
    assert select["custom_id"] == "ct:rec"
    assert [int(o["value"]) for o in select["options"]] == [g5, g3, g2, g1]
    # A listed game's record, as /history hands it out.
    got = await (await fake.select(cy, ix.message, "ct:rec", [str(g3)])).wait_answered()
    [attachment] = got.message.latest["attachments"]
    assert fake.download(attachment).decode() == await bot.store.game_record_json(g3)
    # /history's own select still answers (the answer above registered no other class).
    history = await (await fake.slash(cy, general, "history")).wait_answered()
    newest = listed_ids(history.message)[0]
    again = await (await fake.select(cy, history.message, "ct:rec", [str(newest)])
                   ).wait_answered()
    assert again.response.type == 4 and again.message.latest["attachments"]

    # Alice sees the secret channel: its games are listed for her (five at most).
    mine = await (await fake.slash(alice, general, "stats",
                                   {"opponent": bob})).wait_answered()
    assert [r[0] for r in listed(mine.message)] == [g5, *hidden[::-1], g3]
    # One game only; nobody to compare with; someone never met.
    jacko = await (await fake.slash(alice, general, "stats", {"opponent": bob},
                                    game="jacko")).wait_answered()
    assert [f["name"] for f in jacko.message.embeds[0]["fields"]] == ["Jacko",
                                                                      "Last games together"]
    same = await (await fake.slash(alice, general, "stats", {"opponent": alice})
                  ).wait_answered()
    assert "Pick someone other than Alice" in same.content
    never = await (await fake.slash(bob, general, "stats", {"opponent": cy},
                                    game="jacko")).wait_answered()
    assert "have not finished a game together yet" in never.message.embeds[0]["description"]
    assert never.message.selects() == []


async def test_stats_show_streaks_and_the_rating_picture(
        fake: FakeDiscord, alice: FakeUser, bob: FakeUser, cy: FakeUser, bots: Bots) -> None:
    general, guild = fake.channel("general"), fake.world.guild.id
    bot = await bots.new()
    assert bot.store is not None
    # Alice against Bob: W W W L W W (rated); one Jacko game against an AI (not rated).
    for minute, alice_won in enumerate((True, True, True, False, True, True)):
        points = (10, 3) if alice_won else (3, 10)
        await bot.store.record_game(finished(
            guild, general.id, [(alice.id, "Alice", points[0]), (bob.id, "Bob", points[1])],
            when=T0 + timedelta(minutes=minute)))
    await bot.store.record_game(finished(guild, general.id, [(alice.id, "Alice", 5),
                                                             (None, "AI", 1)], game="jacko"))
    await bot.store.record_game(finished(guild, general.id, [(cy.id, "Cy", 5),
                                                             (bob.id, "Bob", 1)]))
    await fake.start_bot(bot)

    ix = await (await fake.slash(bob, general, "stats", {"user": alice})).wait_answered()
    await fake.settle()
    assert not ix.ephemeral
    jazz = field(ix.message, "Jazz")
    assert jazz.endswith("\nWinning streak **2** · longest **3**")
    assert field(ix.message, "Jacko").endswith("\nWinning streak **1** · longest **1**")
    # Her most played game's line: one point per rated game, drawn with the answer.
    image = picture(fake, ix.message)
    assert image is not None and image.size == (800, 400)
    assert len(ix.message.versions) == 1
    # Its last point is the rating the leaderboard shows (the number beside the line).
    history = await bot.store.rating_history(alice.id, "jazz", guild)
    row = await bot.store.rank_of("jazz", guild, alice.id)
    assert len(history) == 6 and row is not None and history[-1].ordinal == row.ordinal
    assert f"Rating **{row.ordinal:.1f}**" in jazz

    # Jacko has no rated game of hers: no picture; Cy has one rated game: no line yet.
    jacko = await (await fake.slash(alice, general, "stats", game="jacko")).wait_answered()
    await fake.settle()
    assert picture(fake, jacko.message) is None
    one = await (await fake.slash(cy, general, "stats")).wait_answered()
    await fake.settle()
    assert picture(fake, one.message) is None
    assert field(one.message, "Jazz").endswith("Winning streak **1** · longest **1**")


async def test_a_slow_picture_follows_the_answer_as_an_edit(
        fake: FakeDiscord, alice: FakeUser, bob: FakeUser, bots: Bots) -> None:
    general, guild = fake.channel("general"), fake.world.guild.id
    bot = await bots.new()
    assert bot.store is not None
    for minute in range(3):
        await bot.store.record_game(finished(
            guild, general.id, [(alice.id, "Alice", 9 - minute), (bob.id, "Bob", 4)],
            when=T0 + timedelta(minutes=minute)))
    slow = Slow(1.6)  # longer than the answer waits for its picture
    bot.painter = Painter(1, job=slow)
    await fake.start_bot(bot)

    ix = await (await fake.slash(alice, general, "stats")).wait_answered()
    assert ix.response.type == 4  # answered at once, without waiting for the picture
    assert slow.running.is_set()
    assert picture(fake, ix.message) is None and "Jazz" in ix.message.text()
    await fake.wait_for(lambda: bool(ix.message.latest["attachments"]), timeout=5)
    image = picture(fake, ix.message)
    assert image is not None and image.size == (800, 400)
    assert ix.message.latest["embeds"][0]["fields"] == ix.message.versions[0]["embeds"][0][
        "fields"]
