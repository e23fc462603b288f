"""The least bot a card table can be: discord.py alone, doing per move exactly the Discord
work a cardtable move needs, and nothing of cardtable (no ``bot``, no ``engine``, no
database). ``python -m benchmarks floor`` runs it as a process on the tests' fake
Discord and measures its CPU per move: the floor under any bot built on discord.py.

As cardtable's bot: a ``commands.AutoShardedBot`` (with ``Intents.default()``: see
``FLOOR_INTENTS`` for cardtable's own, without the message intents), its
components ``DynamicItem``s (the hand's select, like ``bot.ui.buttons.MoveSelect``, and
two buttons on the table message), views of ``View(timeout=None)``, messages reached
through ``get_partial_messageable``. Per move (a player's pick in their DM hand):

* ``full``: the click answered with ``interaction.response.edit_message`` (an embed, the
  mover's new hand: a select of 8 cards); the table's channel message edited (an embed,
  two buttons); the next player's DM hand edited (an embed, a select of 8 cards). Three
  API calls, one after the other, the answer first.
* ``none``: the click answered with ``interaction.response.defer()``: one call, the floor
  of receiving and answering an interaction at all.

Settings, from the environment: ``FLOOR_LAYOUT`` (a JSON file: ``{"guild": id,
"tables": [{"channel": id, "users": [id, ...]}, ...]}``), ``FLOOR_WORK`` (``full`` or
``none``), ``FLOOR_INTENTS`` (``default``, or ``no-messages``: without the Guild and
Direct Messages intents, so that no MESSAGE_UPDATE comes back for each edit),
``FLOOR_READY`` (a file written once every table's message and every player's DM hand
is posted and the gateway is READY), ``DISCORD_TOKEN``; with
``FLOOR_PROFILE`` (a file) the window between a first and a second SIGUSR1 is profiled
by sampling (the loop thread's stack noted at every 5 ms of CPU time, each sample weighed
by the CPU time since the one before; frames as "package/module.py:function"). Run
through ``python -m testkit.fakediscord.run testkit.floorbot`` (the fake's patch).
"""

from __future__ import annotations

import asyncio
import json
import logging
import os
import re
import signal
from dataclasses import dataclass, field
from pathlib import Path
from types import CodeType, FrameType
from typing import Any

import discord
from discord.ext import commands

from testkit.loadbot import sampler

LAYOUT = "FLOOR_LAYOUT"
WORK = "FLOOR_WORK"
READY = "FLOOR_READY"
PROFILE = "FLOOR_PROFILE"
INTENTS = "FLOOR_INTENTS"
# "default": Intents.default(), as cardtable's bot; "no-messages": without the Guild and
# Direct Messages intents, so that Discord sends no MESSAGE_UPDATE for the bot's edits.
INTENT_SETS = ("default", "no-messages")
WORKS = ("full", "none")

HAND_TEMPLATE = r"fl:hand:(?P<table>\d+):(?P<seat>\d+):(?P<step>\d+)"
TABLE_TEMPLATE = r"fl:table:(?P<table>\d+):(?P<step>\d+):(?P<action>hand|rules)"
# Eight cards, as a hand in the middle of a deal: labels and codes as cardtable's.
CARDS = (("7♠", "7S"), ("9♠", "9S"), ("10♥", "TH"), ("J♥", "JH"), ("Q♦", "QD"),
         ("K♦", "KD"), ("A♣", "AC"), ("8♣", "8C"))
# About 300 characters, as a table's or a hand's embed text.
TEXT = ("**North** played the 10♥ — the trick so far: 7♥, 9♥, 10♥. "
        "Trumps are ♠; North–South lead 42 to 37 and need 61 to win the deal. "
        "Scores: North 120, East 95, South 110, West 88. "
        "It is **East**'s turn: follow suit if you can, else trump or discard. "
        "Cards left: 8 each; tricks taken: NS 3, EW 2; last trick won by South.")


@dataclass
class Table:
    channel: int
    guild: int
    message: int = 0
    hands: list[tuple[int, int]] = field(default_factory=list)  # (DM channel, message)
    step: int = 0


def embed(title: str, step: int) -> discord.Embed:
    shown = discord.Embed(title=title, description=TEXT, colour=0x2E7D32)
    shown.set_footer(text=f"Move {step} · Jazz · 4 players · sevens bonus 80")
    return shown


class HandSelect(discord.ui.DynamicItem[discord.ui.Select[Any]], template=HAND_TEMPLATE):
    def __init__(self, table: int, seat: int, step: int) -> None:
        super().__init__(discord.ui.Select(
            custom_id=f"fl:hand:{table}:{seat}:{step}", placeholder="Play a card…",
            options=[discord.SelectOption(label=label, value=code) for label, code in CARDS],
            min_values=1, max_values=1))
        self.table, self.seat, self.step = table, seat, step

    @classmethod
    async def from_custom_id(cls, interaction: discord.Interaction, item: discord.ui.Item[Any],
                             match: re.Match[str], /) -> HandSelect:
        return cls(int(match["table"]), int(match["seat"]), int(match["step"]))

    async def callback(self, interaction: discord.Interaction) -> None:
        client = interaction.client
        assert isinstance(client, FloorBot)
        await client.move(interaction, self.table, self.seat)


class TableButton(discord.ui.DynamicItem[discord.ui.Button[Any]], template=TABLE_TEMPLATE):
    def __init__(self, table: int, step: int, action: str) -> None:
        style = discord.ButtonStyle.primary if action == "hand" else discord.ButtonStyle.secondary
        super().__init__(discord.ui.Button(
            style=style,
            label="My hand" if action == "hand" else "Rules",
            custom_id=f"fl:table:{table}:{step}:{action}"))

    @classmethod
    async def from_custom_id(cls, interaction: discord.Interaction, item: discord.ui.Item[Any],
                             match: re.Match[str], /) -> TableButton:
        return cls(int(match["table"]), int(match["step"]), match["action"])

    async def callback(self, interaction: discord.Interaction) -> None:
        await interaction.response.defer()  # never pressed by the benchmark


def hand_view(table: int, seat: int, step: int) -> discord.ui.View:
    view = discord.ui.View(timeout=None)
    view.add_item(HandSelect(table, seat, step))
    return view


def table_view(table: int, step: int) -> discord.ui.View:
    view = discord.ui.View(timeout=None)
    view.add_item(TableButton(table, step, "hand"))
    view.add_item(TableButton(table, step, "rules"))
    return view


class FloorBot(commands.AutoShardedBot):
    def __init__(self, layout: dict[str, Any], work: str, ready: Path | None,
                 intents: str = "default") -> None:
        chosen = discord.Intents.default()
        if intents == "no-messages":
            chosen.guild_messages = chosen.dm_messages = False
        elif intents != "default":
            raise ValueError(f"{INTENTS} must be one of {INTENT_SETS}, not {intents!r}")
        super().__init__(command_prefix=commands.when_mentioned, intents=chosen,
                         help_command=None)
        if work not in WORKS:
            raise ValueError(f"{WORK} must be one of {WORKS}, not {work!r}")
        self.layout, self.work, self.ready_file = layout, work, ready
        self.tables: list[Table] = []
        self.posted = asyncio.Event()

    async def setup_hook(self) -> None:
        self.add_dynamic_items(HandSelect, TableButton)
        # Post in a task: REST works before the gateway connects, and READY comes sooner.
        self._posting = asyncio.create_task(self.post_everything())

    async def post_everything(self) -> None:
        """Each table's message in its channel and each player's hand in their DM."""
        guild = int(self.layout["guild"])
        for t, spec in enumerate(self.layout["tables"]):
            table = Table(int(spec["channel"]), guild)
            channel = self.get_partial_messageable(table.channel, guild_id=guild)
            table.message = (await channel.send(embed=embed("Table", 0),
                                                view=table_view(t, 0))).id
            for seat, user in enumerate(spec["users"]):
                dm = await self.create_dm(discord.Object(int(user)))
                sent = await dm.send(embed=embed("Your hand", 0), view=hand_view(t, seat, 0))
                table.hands.append((dm.id, sent.id))
            self.tables.append(table)
        self.posted.set()

    async def on_ready(self) -> None:
        await self.posted.wait()
        if self.ready_file is not None:
            self.ready_file.write_text("ready\n")

    async def move(self, interaction: discord.Interaction, t: int, seat: int) -> None:
        if self.work == "none":
            await interaction.response.defer()
            return
        table = self.tables[t]
        table.step += 1
        step = table.step
        await interaction.response.edit_message(embed=embed("Your hand", step),
                                                view=hand_view(t, seat, step))
        channel = self.get_partial_messageable(table.channel, guild_id=table.guild)
        await channel.get_partial_message(table.message).edit(
            embed=embed("Table", step), view=table_view(t, step))
        following = (seat + 1) % len(table.hands)
        dm_channel, hand = table.hands[following]
        dm = self.get_partial_messageable(dm_channel, type=discord.ChannelType.private)
        await dm.get_partial_message(hand).edit(embed=embed("Your hand", step),
                                                view=hand_view(t, following, step))


def _where(code: CodeType) -> str:
    """"discord/ui/view.py:function": the file from its top package (stdlib or installed)."""
    parts = Path(code.co_filename).parts
    tops = [k for k, part in enumerate(parts) if part == "site-packages"
            or part.startswith("python3")]
    start = tops[-1] + 1 if tops else max(len(parts) - 2, 0)
    return "/".join(parts[start:]) + ":" + code.co_name


def profile(path: Path) -> None:
    """Sample the loop thread's stacks between a first and a second SIGUSR1 (the load
    benchmark's sampler, frames named from their top package)."""
    start, stop = sampler(str(path), where=_where, collections_too=False)
    opened = [False]

    def toggle(signum: int, frame: FrameType | None) -> None:
        (stop if opened[0] else start)()
        opened[0] = not opened[0]

    signal.signal(signal.SIGUSR1, toggle)


def main() -> None:
    logging.basicConfig(level=logging.WARNING,
                        format="%(asctime)s %(levelname)s %(name)s: %(message)s")
    layout = json.loads(Path(os.environ[LAYOUT]).read_text())
    ready = os.environ.get(READY)
    if os.environ.get(PROFILE):
        profile(Path(os.environ[PROFILE]))
    bot = FloorBot(layout, os.environ.get(WORK, "full"), Path(ready) if ready else None,
                   os.environ.get(INTENTS, "default"))
    asyncio.run(bot.start(os.environ["DISCORD_TOKEN"]))


if __name__ == "__main__":
    main()
