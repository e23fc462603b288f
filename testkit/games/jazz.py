"""Jazz's own testkit: the cogs of a test bot that plays Jazz alone (``JAZZ_ONLY``), and
the census of a whole Jazz game's DMs: how many a player gets, and how many still hold
live controls.

``python -m testkit.games.jazz`` plays a seeded 4-seat Jazz game by DM on the fake
Discord and prints, per player, the messages in their DM channel and those whose latest
version still has an enabled move menu; ``census`` is what the tests assert on.
"""

from __future__ import annotations

import asyncio
import random
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from testkit.fakediscord import FakeDiscord, FakeMessage, FakeUser
from testkit.games import extensions
from testkit.harness import GameDriver, idle, is_move, make_bot

GAME_ID = "jazz"
# The cogs a test bot loads to play Jazz only (extension → game id; None: not a game).
JAZZ_ONLY: dict[str, str | None] = extensions([GAME_ID])

NAMES = ("alice", "bob", "cy", "dee")


@dataclass(frozen=True)
class DMCount:
    name: str
    messages: int  # every message the bot sent into their DM channel (each one notifies)
    menus: int  # of those, how many ever showed a move menu
    live: int  # how many show one now
    most_live: int  # the most that showed one at the same time (sampled after each move)
    one_line: int  # how many are one line of text now (no embed, picture or component)

    def __str__(self) -> str:
        return (f"{self.name}: {self.messages} DMs, {self.menus} ever with a menu, "
                f"{self.live} live now, at most {self.most_live} live at once, "
                f"{self.one_line} one line now")


def live_controls(message: FakeMessage, version: dict[str, Any] | None = None) -> bool:
    return any(is_move(c) and not c.get("disabled")
               for c in message.leaf_components(version))


def one_line(message: FakeMessage) -> bool:
    """Only one line of text: no embed, no picture, no component."""
    latest = message.latest
    return (bool(message.content) and "\n" not in message.content and not message.embeds
            and not latest.get("attachments") and not message.components)


def live_now(fake: FakeDiscord, user: FakeUser) -> int:
    return sum(1 for m in fake.messages(user) if live_controls(m))


def census(fake: FakeDiscord, users: list[FakeUser],
           most_live: dict[int, int] | None = None) -> list[DMCount]:
    return [DMCount(u.name, len(fake.messages(u)),
                    sum(1 for m in fake.messages(u)
                        if any(live_controls(m, v) for v in m.versions)),
                    live_now(fake, u), (most_live or {}).get(u.id, live_now(fake, u)),
                    sum(1 for m in fake.messages(u) if one_line(m)))
            for u in users]


async def play_seeded_game(fake: FakeDiscord, path: Path, seed: int = 11
                           ) -> tuple[list[FakeUser], int, dict[int, int]]:
    """A whole 4-seat Jazz game by DM, every move from a DM menu; the users, the number
    of moves they made, and the most DMs with a live menu each had at once."""
    users = [fake.add_user(n) for n in NAMES]
    general = fake.channel("general")
    bot = await make_bot(path, extensions=JAZZ_ONLY)
    async with fake.running(bot):
        await (await fake.slash(users[0], general, "jazz start")).wait_answered()
        lobby = fake.find_message(general, label="Join")
        assert lobby is not None
        for user in users[1:]:
            await (await fake.click(user, lobby, label="Join")).wait_answered()
        await (await fake.click(users[0], lobby, label="Start")).wait_answered()
        driver = GameDriver(fake, bot, general, users, random.Random(seed))
        most: dict[int, int] = {}
        while await driver.play_one():
            assert driver.moves < 2000, "the game does not end"
            await idle(bot)
            for user in users:
                most[user.id] = max(most.get(user.id, 0), live_now(fake, user))
        await fake.settle()
        assert fake.find_message(general, text="final result") is not None
    return users, driver.moves, most


async def _main() -> None:
    async with FakeDiscord() as fake:
        with tempfile.TemporaryDirectory() as folder:
            users, moves, most = await play_seeded_game(fake, Path(folder) / "db.sqlite")
        counts = census(fake, users, most)
        print(f"a seeded 4-seat Jazz game, {moves} moves from DMs:")
        for count in counts:
            print(" ", count)
        print(f"  in all: {sum(c.messages for c in counts)} DMs, "
              f"{sum(c.live for c in counts)} with live controls")


if __name__ == "__main__":
    asyncio.run(_main())
