"""Hostile names on the fake Discord: every player's display name, the server's name and
the channel's (or the game's thread's) try to make a masked link, a mention, a heading or
markdown in what the bot writes. Every version of every message anyone sees (channels,
threads, DMs, ephemerals) is scanned: the only masked links are the bot's own links to
``https://discord.com/channels/...``, the only mentions are the players the bot pings,
and the names still read as typed.

A link is looked for in the raw text with escapes ignored (on Discord a ``\\]`` does not
end a link's text early), a mention in the text with its escaped characters masked
(Discord reads ``\\<`` as a plain ``<`` first); code blocks are left out (nothing renders
in one). Select labels are plain text and not scanned (names go there as typed).
"""

from __future__ import annotations

import random
import re
from typing import Any

import discord
import pytest

from testkit.fakediscord import FakeChannel, FakeDiscord, FakeMessage, FakeUser
from testkit.fakediscord.world import FakeRole
from testkit.harness import GameDriver, idle, my_hand_id, table_message

EXTENSIONS = {"cogs.help": None, "cogs.jazz": "jazz", "cogs.settings": None,
              "cogs.leaderboard": None, "cogs.stats": None, "cogs.history": None}
SERVER = "Club](https://evil.example/login) [x"
CHANNEL = "games](https://evil.example/login) [."
OWN_LINK = "https://discord.com/channels/"

LINK = re.compile(  # simple-markdown's masked link (Discord's), escapes ignored
    r"\[((?:\[[^\]]*\]|[^\[\]]|\](?=[^\[]*\]))*)\]\(\s*<?((?:\([^)]*\)|[^\s\\]|\\.)*?)>?"
    r"(?:\s+['\"]([\s\S]*?)['\"])?\s*\)")
USER_MENTION = re.compile(r"<@!?(\d+)>")
OTHER_MENTION = re.compile(r"<@&\d+>|<#\d+>|<a?:\w+:\d+>|</[^>]+:\d+>|@everyone|@here")
URL = re.compile(r"(?:https?|steam)://[^\s<]+[^<.,:;\"')\]\s]")
CODE_BLOCK = re.compile(r"```.*?```", re.DOTALL)
BLOCK_START = re.compile(r"(#{1,3}\s|-#\s|>\s|>>>)")
BARE_MARKS = re.compile(r"~~|\|\||__")  # markdown the bot's own words never use


def rendered(text: str) -> str:
    return re.sub(r"\\([^0-9A-Za-z\s])", r"\1", text).replace("\u200b", "")


def texts(version: dict[str, Any]) -> list[str]:
    """What renders markdown in a version (and the title, footer: scanned as strictly)."""
    out = [version.get("content") or ""]
    for embed in version.get("embeds") or []:
        out += [embed.get("title") or "", embed.get("description") or "",
                (embed.get("footer") or {}).get("text") or "",
                (embed.get("author") or {}).get("name") or ""]
        for field in embed.get("fields") or []:
            out += [field.get("name") or "", field.get("value") or ""]
    return [CODE_BLOCK.sub("", t) for t in out if t]


def problems(message: FakeMessage, players: set[int]) -> list[str]:
    found = []
    for k, version in enumerate(message.versions):
        for text in texts(version):
            where = f"message {message.id} v{k}: {text!r}"
            found += [f"a link to {target} in {where}"
                      for _text, target, _title in LINK.findall(text)
                      if not target.startswith(OWN_LINK)]
            bare = re.sub(r"\\.", "\0\0", text)  # an escaped character renders as itself
            found += [f"a mention of {user} in {where}" for user in USER_MENTION.findall(bare)
                      if int(user) not in players]
            found += [f"{m} in {where}" for m in OTHER_MENTION.findall(bare)]
            found += [f"a bare link {url} in {where}" for url in URL.findall(text)
                      if "evil.example" in url]
            found += [f"{m} in {where}" for m in BARE_MARKS.findall(bare)]
            found += [f"a {m.group(1)!r} line in {where}" for line in bare.split("\n")
                      if (m := BLOCK_START.match(line.lstrip()))]
    return found


class Club:
    """Four players with hostile display names, a member who must never be pinged, a role,
    the server and a channel with hostile names (all made before the bot connects)."""

    def __init__(self, fake: FakeDiscord, monkeypatch: pytest.MonkeyPatch):
        self.fake = fake
        world = fake.world
        self.victim = fake.add_user("victim")
        self.role = FakeRole(world.ids.next(), "Mods", 0, position=1)
        world.guild.roles[self.role.id] = self.role
        self.boss = fake.add_user("boss")  # may manage the server (/settings)
        boss_role = FakeRole(world.ids.next(), "Managers",
                             discord.Permissions(manage_guild=True).value, position=2)
        world.guild.roles[boss_role.id] = boss_role
        world.guild.member_roles[self.boss.id].append(boss_role.id)
        self.players = [fake.add_user(n) for n in ("alice", "bob", "cy", "dee")]
        world.guild.name = SERVER
        self.channel = world.add_channel(CHANNEL)
        self.names = dict(zip((u.id for u in self.players), (
            "[Free Nitro](https://evil.example/x)",
            "**Boss** __u__ ~~gone~~ ||spoiler|| `code`",
            f"<@{self.victim.id}> @everyone <@&{self.role.id}> @here",
            f"-# tiny <#{self.channel.id}> <t:0:R> # Big back\\"), strict=True))
        names, original = self.names, FakeUser.display_name

        def display_name(user: FakeUser) -> str | None:
            return names.get(user.id) or original.fget(user)  # type: ignore[union-attr]

        monkeypatch.setattr(FakeUser, "display_name", property(display_name))

    async def answer(self, user: FakeUser, where: FakeChannel, command: str,
                     options: dict[str, Any] | None = None, **kwargs: Any) -> Any:
        ix = await self.fake.slash(user, where, command, options or {}, **kwargs)
        await ix.wait_answered()
        return ix

    def scan(self) -> None:
        """Every version of every message anyone was shown, and that the names read."""
        ids = {u.id for u in self.players}
        messages = list(self.fake.world.messages.values())
        assert messages
        found = [p for m in messages for p in problems(m, ids)]
        assert not found, "\n".join(found[:20])
        shown = "\n".join(rendered(t) for m in messages for v in m.versions for t in texts(v))
        for name in ("［Free Nitro］(https://evil.example/x)",
                     "**Boss** __u__ ~~gone~~ ||spoiler|| `code`",
                     f"<@{self.victim.id}> @everyone <@&{self.role.id}> @here",
                     "Club］(https://evil.example/login) ［x"):
            assert name in shown, name

    def hand_links(self) -> list[str]:
        """The Table fields of the hands the players got (DMs and ephemerals)."""
        return [field["value"] for m in self.fake.world.messages.values()
                if m.ephemeral_for is not None or m.guild_id is None
                for v in m.versions for e in v.get("embeds") or []
                for field in e.get("fields") or [] if field.get("name") == "Table"]


@pytest.fixture
def club(fake: FakeDiscord, monkeypatch: pytest.MonkeyPatch) -> Club:
    return Club(fake, monkeypatch)


async def test_a_whole_game_of_hostile_names_makes_no_link_mention_or_markdown(
        fake, club, run_bot):
    bot = await run_bot(extensions=EXTENSIONS)
    alice, bob, cy, dee = club.players
    channel = club.channel
    await club.answer(alice, channel, "jazz start")
    lobby = fake.find_message(channel, label="Join")
    for user in (bob, cy, dee):
        await (await fake.click(user, lobby, label="Join")).wait_answered()
    await (await fake.click(alice, lobby, label="Start")).wait_answered()
    await fake.settle()
    await idle(bot)
    assert "has started" in lobby.text()
    # A hand under My hand (ephemeral) and /jazz status, while the game runs.
    table = table_message(fake, channel)
    await (await fake.click(bob, table, my_hand_id(table))).wait_answered()
    await club.answer(cy, channel, "jazz status")
    driver = GameDriver(fake, bot, channel, club.players, random.Random(5))
    await driver.play_to_end()
    await fake.settle()
    await idle(bot)
    assert fake.find_message(channel, text="final result") is not None
    assert fake.find_message(channel, text="deal 1 is over") is not None
    board = await club.answer(bob, channel, "leaderboard", game="jazz")
    stats = await club.answer(alice, channel, "stats", {"user": cy})
    history = await club.answer(dee, channel, "history")
    mine = await club.answer(cy, channel, "history", {"user": alice})
    await fake.settle()
    assert "Free Nitro" in board.text() and "Free Nitro" in history.text()
    assert "@" in stats.text() and "Free Nitro" in mine.text()
    links = club.hand_links()
    assert links and all(LINK.fullmatch(link) for link in links)
    assert all(LINK.fullmatch(link)[2].startswith(OWN_LINK) for link in links)
    assert rendered(LINK.fullmatch(links[0])[1]) == \
        "Club］(https://evil.example/login) ［x › #games］(https://evil.example/login) ［."
    club.scan()


async def test_with_threads_per_game_the_thread_named_after_a_hostile_host_is_harmless(
        fake, club, run_bot):
    alice, bob, cy, dee = club.players
    fake.set_bot_permissions(club.channel, create_public_threads=True)
    bot = await run_bot(extensions=EXTENSIONS)
    await club.answer(club.boss, club.channel, "settings threads", enabled=True)
    opened = await club.answer(alice, club.channel, "jazz start")
    await fake.settle()
    (thread,) = [c for c in fake.world.channels.values() if c.parent_id == club.channel.id]
    assert thread.name == "Jazz · ［Free Nitro］(https://evil.example/x)"
    assert f"/{thread.id}/" in opened.response.content
    lobby = fake.find_message(thread, label="Join")
    for user in (bob, cy, dee):
        await (await fake.click(user, lobby, label="Join")).wait_answered()
    await (await fake.click(alice, lobby, label="Start")).wait_answered()
    driver = GameDriver(fake, bot, thread, club.players, random.Random(8))
    for _ in range(6):
        assert await driver.play_one()
    await club.answer(dee, thread, "jazz leave")  # "… left: I play their seat" on the table
    for _ in range(4):
        assert await driver.play_one()
    await club.answer(cy, thread, "jazz status")
    await club.answer(alice, thread, "jazz stop")  # "The table was stopped by …"
    await fake.settle()
    await idle(bot)
    table = fake.find_message(thread, text="stopped by")
    assert table is not None and "［Free Nitro］" in rendered(table.text())
    assert any("left" in rendered(t) for t in table.all_texts())
    links = club.hand_links()
    assert links and all(LINK.fullmatch(link)[2].startswith(OWN_LINK) for link in links)
    assert rendered(LINK.fullmatch(links[0])[1]) == \
        "Club］(https://evil.example/login) ［x › #Jazz · ［Free Nitro］(https://evil.example/x)"
    club.scan()
