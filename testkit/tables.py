"""Tables opened, played and read as their players do: the steps the end-to-end tests
share (start a game, whose turn it is, a rematch click, the turn notices)."""

from __future__ import annotations

import random
import re
import sqlite3
from pathlib import Path
from typing import Any

from bot.app.client import CardTableBot
from bot.table.state import Table
from engine.registry import game_ids
from testkit.fakediscord import FakeChannel, FakeDiscord, FakeMessage, FakeUser
from testkit.games import extensions
from testkit.harness import GameDriver, choose, idle, is_move, my_hand_id, table_message
from testkit.processes import open_jazz

# The cogs a test bot loads (extension → game id; None: not a game): every game's, in
# the registry's order. (Jazz's alone: testkit.games.jazz.JAZZ_ONLY.)
GAMES: dict[str, str | None] = extensions(game_ids())
ALL_GAMES = GAMES


# ------------------------------------------------------------------ opening a table

# /jazz start by the first user, the others join, the host starts; the lobby message.
start_jazz = open_jazz


async def open_and_start(fake: FakeDiscord, channel: FakeChannel, users: list[FakeUser],
                         command: str, ai: int = 0, **options: Any) -> None:
    """``/<command> start`` by the first user, the others join, ``ai`` Normal AI seats,
    and the host starts."""
    await (await fake.slash(users[0], channel, f"{command} start", **options)).wait_answered()
    lobby = fake.find_message(channel, label="Join")
    assert lobby is not None
    for user in users[1:]:
        await (await fake.click(user, lobby, label="Join")).wait_answered()
    for _ in range(ai):
        await (await fake.click(users[0], lobby, label="Add AI: Normal")).wait_answered()
    start = await (await fake.click(users[0], lobby, label="Start")).wait_answered()
    assert start.response is not None and start.response.type == 7, start.text()


# ------------------------------------------------------------------ reading a table


def live(bot: CardTableBot, channel: FakeChannel) -> Table | None:
    return bot.croupier.manager.in_channel(channel.id)


def seats_of(table: Table) -> list[tuple[int | None, str, str | None]]:
    return [(s.user_id, s.name, s.ai) for s in table.seats]


def actions_played(bot: CardTableBot, channel: FakeChannel) -> int:
    table = live(bot, channel)
    assert table is not None and table.game is not None
    return sum(len(d["actions"]) for d in table.game.to_record()["deals"])


def player_to_act(fake: FakeDiscord, bot: CardTableBot, channel: FakeChannel,
                  users: list[FakeUser]) -> FakeUser:
    table = live(bot, channel)
    assert table is not None and table.to_act is not None
    return users[[u.id for u in users].index(table.seats[table.to_act].user_id)]


async def recorded_actions(bot: CardTableBot, fake: FakeDiscord) -> int:
    """How many actions the stored record of the channel's only game holds."""
    (summary,) = await bot.store.history(fake.world.guild.id)
    record = await bot.store.game_record(summary.game_id)
    assert record is not None
    return sum(len(deal["actions"]) for deal in record["deals"])


def rows(path: Path, sql: str, params: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
    with sqlite3.connect(path) as conn:
        return conn.execute(sql, params).fetchall()


# ------------------------------------------------------------------ what a player sees


def dm_menu(fake: FakeDiscord, user: FakeUser) -> tuple[FakeMessage, dict[str, Any]]:
    """The move menu in the user's DMs (not an ephemeral one)."""
    return max(((m, c) for m, c in fake.visible_components(user)
                if not m.ephemeral and is_move(c)), key=lambda mc: mc[0].id)


def hint_button(fake: FakeDiscord, user: FakeUser) -> tuple[FakeMessage, str] | None:
    """The newest Hint button the user can see (their DM hand or an ephemeral one)."""
    found = [(m, c["custom_id"]) for m, c in fake.visible_components(user)
             if str(c["custom_id"]).startswith("ct:hint:")]
    return max(found, key=lambda mc: mc[0].id) if found else None


def rematch_button(message: FakeMessage) -> dict[str, Any]:
    (button,) = [c for c in message.leaf_components()
                 if str(c.get("custom_id", "")).startswith("ct:rematch:")]
    return button


async def click_rematch(fake: FakeDiscord, user: FakeUser, message: FakeMessage) -> Any:
    return await (await fake.click(user, message, rematch_button(message)["custom_id"])
                  ).wait_answered()


# ------------------------------------------------------------------ playing


async def play_out(fake: FakeDiscord, bot: CardTableBot, channel: FakeChannel,
                   users: list[FakeUser], seed: int) -> None:
    await idle(bot)
    await GameDriver(fake, bot, channel, users, random.Random(seed)).play_to_end(limit=5000)
    await idle(bot)
    await fake.settle()


async def move(fake: FakeDiscord, bot: CardTableBot, channel: FakeChannel,
               users: list[FakeUser], rng: random.Random) -> FakeUser:
    """The player to act moves: from their DM menu if they have one, else from My hand."""
    await idle(bot)
    user = player_to_act(fake, bot, channel, users)
    dm = [m for m in fake.messages(user) if any(is_move(c) for c in m.leaf_components())]
    if dm:
        menu = dm[-1]
    else:
        table = table_message(fake, channel)
        assert table is not None
        await (await fake.click(user, table, my_hand_id(table))).wait_answered()
        await idle(bot)
        menu = max((m for m in fake.ephemerals(user)
                    if any(is_move(c) for c in m.leaf_components())), key=lambda m: m.id)
    ix = await choose(fake, user, menu, rng)
    await ix.wait_answered()
    assert ix.response.type == 7, ix.response.content
    await idle(bot)
    return user


# ------------------------------------------------------------------ turn notices

MENTION = re.compile(r"<@!?(\d+)>")


def notices(fake: FakeDiscord, channel: FakeChannel, *, deleted: bool = False
            ) -> list[FakeMessage]:
    """The turn notices in the channel (live ones; ``deleted``: every one ever posted)."""
    return [m for m in channel.history(include_deleted=deleted)
            if "it is your turn" in m.content]


def mentioned(message: FakeMessage) -> int:
    (user,) = {int(u) for u in MENTION.findall(message.content)}
    return user
