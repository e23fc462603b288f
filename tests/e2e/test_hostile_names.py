"""Hostile names on the fake Discord: every player's display name, the server's name and
the channel's (or the game's thread's) try to make a masked link, a mention, a heading or
markdown in what the bot writes. Every version of every message anyone sees (channels,
threads, DMs, ephemerals) is scanned: the only masked links are the bot's own links to
``https://discord.com/channels/...``, the only mentions are the players the bot pings,
no bold, code, strike-through or spoiler of a name's escapes its name, and the names
still read as typed. Every request the bot sent with a message's content is checked
the way Discord pings: with its ``allowed_mentions`` (absent: everything pings), nobody
but the players it meant is pinged, and no role, ``@everyone`` or ``@here``.

The players' Discord clients speak English, Swedish, Danish and Russian, so each
answer and DM is drawn in the four languages; the table speaks the server's (English,
and Russian in the second run of every message kind).

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

from bot.table.nudge_rules import silence_needed
from bot.ui import custom_ids
from bot.ui.markup import safe_name
from testkit.clock import ManualClock
from testkit.fakediscord import FakeChannel, FakeDiscord, FakeMessage, FakeUser
from testkit.fakediscord.world import FakeRole
from testkit.harness import GameDriver, idle, my_hand_id, table_message
from testkit.tables import hint_button, live

EXTENSIONS = {"cogs.help": None, "cogs.jazz": "jazz", "cogs.attackjack": "attackjack",
              "cogs.settings": None, "cogs.leaderboard": None, "cogs.stats": None,
              "cogs.history": None}
LOCALES = ("en-US", "sv-SE", "da", "ru")  # alice's, bob's, cy's and dee's Discord clients
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
INLINE_CODE = re.compile(r"`[^`]*`")
# What the names' markdown would show if it escaped them (the bot writes none of it).
MARKUP = ("**Boss**", "`code`", "**bold", "`tick")
PINGED = re.compile(r"<@!?(\d+)>|<@&(\d+)>|@(everyone|here)")


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
            found += [f"{m!r} of a name in {where}" for m in MARKUP if m in bare]
            spans = INLINE_CODE.sub("", bare)  # the bot's own code spans (`/jazz start`)
            if "`" in spans or spans.count("**") % 2:
                found.append(f"a backtick or bold left open in {where}")
    return found


def payloads(body: object) -> list[dict[str, Any]]:
    """The message payloads of a request: a message's, or an interaction response's."""
    if not isinstance(body, dict):
        return []
    data = body.get("data")
    return [p for p in (body, data) if isinstance(p, dict) and p.get("content")]


def pings(fake: FakeDiscord, players: set[int]) -> list[str]:
    """Whom each message the bot sent or edited pinged, as Discord decides it from its
    ``allowed_mentions``: nobody but ``players``, never a role, @everyone or @here."""
    found = []
    for call in fake.calls:
        for payload in payloads(call.body):
            allowed = payload.get("allowed_mentions")
            if not isinstance(allowed, dict):  # (the bot's default: nobody)
                found.append(f"Discord's default mentions in {call.route}: "
                             f"{payload['content']!r}")
            parse = set(allowed.get("parse") or ()) if isinstance(allowed, dict) \
                else {"users", "roles", "everyone"}  # Discord's default: every mention
            users = {int(u) for u in (allowed or {}).get("users") or ()}
            roles = {int(r) for r in (allowed or {}).get("roles") or ()}
            text = re.sub(r"\\.", "\0\0", CODE_BLOCK.sub("", payload["content"]))
            for user, role, everyone in PINGED.findall(text):
                where = f"{call.route}: {payload['content']!r}"
                if user and ("users" in parse or int(user) in users) \
                        and int(user) not in players:
                    found.append(f"pinged user {user} in {where}")
                if role and ("roles" in parse or int(role) in roles):
                    found.append(f"pinged role {role} in {where}")
                if everyone and "everyone" in parse:
                    found.append(f"pinged @{everyone} in {where}")
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
        self.players = [fake.add_user(n, locale=locale)
                        for n, locale in zip(("alice", "bob", "cy", "dee"), LOCALES, strict=True)]
        world.guild.name = SERVER
        self.channel = world.add_channel(CHANNEL)
        self.names = dict(zip((u.id for u in self.players), (
            "[Free Nitro](https://evil.example/x)",
            "**Boss** __u__ ~~gone~~ ||spoiler|| `code`",
            f"<@{self.victim.id}> @everyone <@&{self.role.id}> @here",
            f"-# tiny <#{self.channel.id}> <t:0:R> # Big **bold `tick back\\"), strict=True))
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
        found += pings(self.fake, ids)
        assert not found, "\n".join(found[:20])
        shown = "\n".join(rendered(t) for m in messages for v in m.versions for t in texts(v))
        for name in ("［Free Nitro］(https://evil.example/x)",
                     "**Boss** __u__ ~~gone~~ ||spoiler|| `code`",
                     f"<@{self.victim.id}> @everyone <@&{self.role.id}> @here",
                     f"-# tiny <#{self.channel.id}> <t:0:R> # Big **bold `tick back\\",
                     "Club］(https://evil.example/login) ［x"):
            assert name in shown, name

    def reads(self, user: FakeUser, text: str) -> bool:
        """Whether ``text`` names ``user`` as the bot draws their name (rendered)."""
        return rendered(safe_name(self.names[user.id])) in rendered(text)

    def hand_links(self) -> list[str]:
        """The Table fields of the hands the players got (DMs and ephemerals), in any
        language: the field whose value is a link to the table."""
        return [field["value"] for m in self.fake.world.messages.values()
                if m.ephemeral_for is not None or m.guild_id is None
                for v in m.versions for e in v.get("embeds") or []
                for field in e.get("fields") or []
                if f"]({OWN_LINK}" in (field.get("value") or "")]


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


@pytest.mark.parametrize("server_locale", LOCALES)
async def test_every_other_kind_of_message_keeps_the_hostile_names_harmless(
        fake, club, clock: ManualClock, run_bot, server_locale: str):
    """The host's controls and a lobby handed on and cancelled; then an AttackJack series
    with a stake: a hint and the table's line of it, nudges (too early, then sent), turn
    notices in the channel, a player leaving, the deal's result and its series standings,
    End series and Rematch refused to others and pressed, and /chips, /leaderboard and
    /history after it. (A move or a hint out of turn, which names whose turn it is, needs
    a forged click that discord.py drops: ``test_escaping`` holds those refusals.) The
    tables speak the server's language, each of the four in turn."""
    alice, bob, cy, dee = club.players
    channel = club.channel
    fake.world.guild.preferred_locale = server_locale  # the tables' language
    bot = await run_bot(extensions=EXTENSIONS, clock=clock)

    async def lobby() -> tuple[FakeMessage, str, int]:
        """The lobby as everyone sees it now (its edits done), its table and step."""
        await idle(bot)
        await fake.settle()
        table = live(bot, channel)
        assert table is not None
        message = fake.find_message(channel, custom_id_prefix=f"ct:lobby:{table.table_id}:")
        assert message is not None
        return message, table.table_id, table.step

    async def press(user: FakeUser, action: str) -> Any:
        message, table_id, step = await lobby()
        ix = await fake.click(user, message, custom_ids.lobby(table_id, step, action))
        return await ix.wait_answered()

    async def choose(user: FakeUser, kind: str, value: str) -> Any:
        message, table_id, step = await lobby()
        ix = await fake.select(user, message, f"ct:host-{kind}:{table_id}:{step}", [value])
        return await ix.wait_answered()

    # -- the lobby: the host's controls, refused to others in their languages ----------
    await club.answer(alice, channel, "jazz start")
    for user in (bob, cy, dee):
        await press(user, "join")
    message, table_id, step = await lobby()
    refused = [
        await (await fake.click(bob, message, f"ct:host-options:{table_id}:{step}")
               ).wait_answered(),  # "Only the host, {host}, can change the options."
        await choose(cy, "remove", str(dee.id)),  # "... can remove players."
        await press(dee, "start"),  # "... can start the game."
        await press(bob, "ai-normal")]  # "... can add AI players."
    for ix in refused:
        assert ix.response.ephemeral and club.reads(alice, ix.text()), ix.text()
    await choose(alice, "remove", str(dee.id))  # "{host} removed {player} from the table."
    removed = await press(dee, "join")  # "The host removed you ..."
    assert removed.response.ephemeral and live(bot, channel).seat_of(dee.id) is None
    message, table_id, step = await lobby()
    panel = await (await fake.click(alice, message, f"ct:host-options:{table_id}:{step}")
                   ).wait_answered()
    menu = next(c for c in panel.original.leaf_components()
                if str(c.get("custom_id", "")).startswith("ct:host-set:"))
    other = next(o["value"] for o in menu["options"] if not o.get("default"))
    chosen = await (await fake.select(alice, panel.original, menu["custom_id"], [other])
                    ).wait_answered()  # "{host} set {option} to {value}."
    assert "✅" in chosen.text(), chosen.text()
    await fake.settle()
    shown, _table_id, _step = await lobby()
    lines = [line for line in shown.text().split("\n") if line.startswith("› ")]
    assert len(lines) == 2 and club.reads(alice, lines[0]) and club.reads(dee, lines[0])
    assert club.reads(alice, lines[1]), lines  # removed Dee; set an option
    await press(alice, "leave")  # the host leaves: Bob hosts now
    assert live(bot, channel).host_id == bob.id and club.reads(bob, (await lobby())[0].text())
    await press(bob, "cancel")  # "{player} cancelled the lobby.", on the closed lobby
    await fake.settle()
    assert live(bot, channel) is None and not shown.leaf_components()
    assert club.reads(bob, shown.text()), shown.text()

    # -- an AttackJack series: Dee's DMs are closed, hints are allowed in rated games ----
    dee.dms_closed = True
    await bot.store.save_server_settings(fake.world.guild.id, {"hints_allowed": True})
    await club.answer(alice, channel, "attackjack start", {"stake": 100, "choice": True})
    for user in (bob, cy, dee):
        await press(user, "join")
    await press(alice, "start")
    await idle(bot)
    await fake.settle()
    table = live(bot, channel)
    assert table is not None and table.game is not None
    driver = GameDriver(fake, bot, channel, club.players, random.Random(3))
    while table.to_act is None or table.seats[table.to_act].user_id == dee.id \
            or table.automation() is not None:
        assert await driver.play_one()  # until a player with DMs open is to act
        await idle(bot)
    acting = next(u for u in club.players if u.id == table.seats[table.to_act].user_id)
    other = next(u for u in (bob, cy, alice) if u is not acting)
    hint = hint_button(fake, acting)
    assert hint is not None
    hinted = await fake.click(acting, *hint)
    await hinted.wait_done()  # the hint, and "{player} asked the AI for a hint" on the table
    await idle(bot)
    board = table_message(fake, channel)
    assert board is not None
    nudge = f"ct:nudge:{table.table_id}"
    early = await (await fake.click(other, board, nudge)
                   ).wait_answered()  # "{player} has only just got the turn. ..."
    assert club.reads(acting, early.text()), early.text()
    clock.advance(silence_needed(table.turn_timer) + 1)
    await idle(bot)
    await fake.settle()
    board = table_message(fake, channel)
    assert board is not None
    nudged = await (await fake.click(other, board, nudge)).wait_answered()
    assert club.reads(acting, nudged.text()), nudged.text()  # "I nudged {player}."
    await fake.settle()
    assert any(club.reads(other, m.text()) for m in fake.messages(acting))  # "… nudged you"
    left = bob if acting is not bob else cy
    await club.answer(left, channel, "attackjack leave")  # "{player} left: I play their seat"
    await GameDriver(fake, bot, channel, [u for u in club.players if u is not left],
                     random.Random(4)).play_to_end(limit=500)
    await idle(bot)
    await fake.settle()
    assert any("📪" in m.text() for m in fake.messages(channel))  # Dee's DMs: told once
    result = fake.find_message(channel, custom_id_prefix="ct:endseries:")
    assert result is not None and club.reads(left, result.text())  # "... leaves the series"
    end = next(c["custom_id"] for c in result.leaf_components()
               if str(c.get("custom_id", "")).startswith("ct:endseries:"))
    not_host = await (await fake.click(cy, result, end)).wait_answered()
    assert not_host.response.ephemeral and club.reads(alice, not_host.text())
    await (await fake.click(alice, result, end)).wait_answered()  # between deals: over
    await fake.settle()
    over = fake.find_message(channel, custom_id_prefix="ct:rematch:")
    assert over is not None and over is not result and club.reads(alice, over.text())
    rematch = next(c["custom_id"] for c in over.leaf_components()
                   if str(c.get("custom_id", "")).startswith("ct:rematch:"))
    no_rematch = await (await fake.click(dee, over, rematch)).wait_answered()
    assert no_rematch.response.ephemeral and club.reads(alice, no_rematch.text())

    chips = await club.answer(cy, channel, "chips")
    board_of = await club.answer(dee, channel, "leaderboard", game="attackjack")
    history = await club.answer(bob, channel, "history")
    await fake.settle()
    for answer in (chips, board_of, history):  # (names clipped there)
        assert "［Free Nitro］\\(https" in answer.text(), answer.text()
    club.scan()
    fake.assert_no_violations()
