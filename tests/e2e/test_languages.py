"""The bot in Swedish, Danish and Russian on the fake Discord: commands, answers, tables.

Whoever reads a text reads it in their language: the clicking user's client
for an answer, the table's language (the server's preferred locale, or the
``language`` option) for the channel, the recipient's for a DM. These tests
play whole games with every client in one language and look at every text
each user could see (every version of every message, ephemerals and DMs
included) and every picture's words: no English prose may reach them.
"""

from __future__ import annotations

import dataclasses
import random
import re
from pathlib import Path
from typing import Any

import pytest

from bot.images.painter import Painter
from testkit.fakediscord.fake import FakeDiscord
from testkit.fakediscord.world import FakeChannel, FakeUser
from testkit.harness import GameDriver, MakeBot, idle, make_bot

LOCALES = ["sv-SE", "da", "ru"]
NAMES = ("alice", "bob", "cy", "dee")
# Common English words that are not Swedish or Danish words (so "hand", "start",
# "stop", "pass", "sum", "bot", "last", "lobby", "stock", "time" are left out: Swedish or Danish
# use them too).
ENGLISH = frozenset({
    "the", "you", "your", "yours", "is", "are", "was", "were", "has", "not", "it", "its",
    "this", "that", "these", "those", "with", "what", "which", "who", "when", "where",
    "there", "here", "please", "played", "play", "plays", "playing", "cards", "card",
    "turn", "turns", "table", "tables", "game", "games", "join", "joined", "leave", "left",
    "trick", "tricks", "points", "point", "score", "round", "rounds", "deal", "deals",
    "dealt", "winner", "wins", "won", "seat", "seated", "seats", "player", "players",
    "open", "opened", "closed", "close", "next", "first", "new", "again",
    "only", "every", "each", "until", "after", "before", "more", "less", "than", "then",
    "now", "runs", "ran", "wait", "waiting", "nothing", "changed", "something",
    "went", "wrong", "try", "rules", "rule", "shown", "options", "option",
    "default", "yet", "out", "off", "could", "would", "should", "will", "can", "cannot",
    "must", "may", "my", "button", "buttons", "choose", "chose", "chosen", "hidden",
    "trumps", "trump", "following", "follow",
})
WORD = re.compile(r"[A-Za-z]+")
# Mentions, timestamps, links, code, commands, channel names and table ids are no prose.
NOT_PROSE = re.compile(r"<[@#]!?&?\d+>|<t:\d+(:\w)?>|https?://[^\s)]+|`[^`]*`|\*\*/\w+\*\*"
                       r"|#[a-z-]+|\b[0-9a-f]{8}\b")
PROPER = {"Jazz", "Jacko", "California", "Jack", "AttackJack", "English", "Svenska",
          "Dansk", "AI", "Discord", *(n.capitalize() for n in NAMES),
          "Sven", "Ivan", "Emma", "Ann",
          "Card", "Club"}  # the fake server is called "Card Club"


def english_words(text: str) -> set[str]:
    prose = NOT_PROSE.sub(" ", text)
    return {w for w in WORD.findall(prose) if w not in PROPER and w.lower() in ENGLISH}


def cyrillic_share(text: str) -> float:
    prose = NOT_PROSE.sub(" ", text)
    for name in sorted(PROPER, key=len, reverse=True):  # "AttackJack" before "Jack"
        prose = prose.replace(name, " ")
    letters = [c for c in prose if c.isalpha()]
    return sum("\u0400" <= c <= "\u04ff" for c in letters) / max(1, len(letters))


def assert_speaks(locale: str, texts: list[str], where: str) -> None:
    found: dict[str, list[str]] = {}
    for text in texts:
        for word in english_words(text):
            found.setdefault(word, []).append(text[:120])
    examples = {word: texts[0] for word, texts in list(found.items())[:8]}
    assert found == {}, f"English in {where} ({locale}): {examples}"
    if locale == "ru":
        share = cyrillic_share("\n".join(texts))
        latin = sorted({w for t in texts for w in WORD.findall(NOT_PROSE.sub(" ", t))} - PROPER)
        assert share > 0.9, f"{where}: only {share:.0%} of the letters are Cyrillic: {latin}"


def seen_texts(fake: FakeDiscord, user: FakeUser) -> list[str]:
    """Every version of every message the user could see: the channels they view, their
    DMs and every ephemeral answer they got (deleted ones too)."""
    texts = []
    for chan in fake.world.channels.values():
        if chan.is_dm and chan.recipient is not user:
            continue
        for message in chan.messages:
            texts += message.all_texts()
        for message in chan.ephemerals:
            if message.ephemeral_for is user:
                texts += message.all_texts()
    return [t for t in texts if t]


def scene_texts(scene: Any) -> list[str]:
    """The words of a picture's scene (title, captions, zone and seat labels...)."""
    found: list[str] = []

    def walk(value: Any) -> None:
        if isinstance(value, str):
            found.append(value)
        elif dataclasses.is_dataclass(value) and not isinstance(value, type):
            for f in dataclasses.fields(value):
                if f.name not in ("language", "code", "mark", "size"):  # drawing settings
                    walk(getattr(value, f.name))
        elif isinstance(value, tuple | list):
            for item in value:
                walk(item)
    walk(scene)
    return found


@pytest.fixture
def drawn(monkeypatch: pytest.MonkeyPatch) -> list[Any]:
    """Every scene the bot draws a picture of."""
    scenes: list[Any] = []
    real = Painter.render  # every picture the bot sends is asked of its painter

    async def recording(self: Painter, scene: Any, *args: Any) -> bytes:
        scenes.append(scene)
        return await real(self, scene, *args)

    monkeypatch.setattr(Painter, "render", recording)
    return scenes


def users_in(fake: FakeDiscord, locale: str, count: int, **extra: Any) -> list[FakeUser]:
    return [fake.add_user(name, locale=locale, **extra) for name in NAMES[:count]]


def component_id(fake: FakeDiscord, channel: FakeChannel, prefix: str,
                 action: str) -> tuple[Any, str]:
    message = fake.find_message(channel, custom_id_prefix=prefix)
    assert message is not None, prefix
    custom_id = next(c["custom_id"] for c in message.leaf_components()
                     if str(c.get("custom_id", "")).endswith(f":{action}"))
    return message, custom_id


async def open_and_start(fake: FakeDiscord, channel: FakeChannel, users: list[FakeUser],
                         command: str, **options: Any) -> None:
    """/<game> start by the first user, the others Join, the host Starts: by custom_id,
    since the labels are in the table's language."""
    await (await fake.slash(users[0], channel, f"{command} start", **options)).wait_answered()
    for user in users[1:]:
        lobby, join = component_id(fake, channel, "ct:lobby:", "join")
        await (await fake.click(user, lobby, join)).wait_answered()
    lobby, start = component_id(fake, channel, "ct:lobby:", "start")
    await (await fake.click(users[0], lobby, start)).wait_answered()


GAMES = {"jazz": ("jazz", "jazz", 4), "jacko": ("jacko", "jacko", 2),
         "california_jack": ("california_jack", "californiajack", 2),
         "attackjack": ("attackjack", "attackjack", 3)}
OPTIONS = {"attackjack": {"choice": True}}  # (without it the bot plays every step itself)
WHOLE_GAMES = [("sv-SE", "jazz"), ("sv-SE", "jacko"), ("da", "california_jack"),
               ("da", "jazz"), ("ru", "attackjack"), ("ru", "jazz")]


@pytest.mark.slow
@pytest.mark.parametrize(("locale", "game"), WHOLE_GAMES)
async def test_a_whole_game_with_every_client_in_one_language(
        fake: FakeDiscord, general: FakeChannel, tmp_path: Path, drawn: list[Any], locale: str,
        game: str) -> None:
    fake.world.guild.preferred_locale = locale
    game_id, command, players = GAMES[game]
    users = users_in(fake, locale, players)
    if game == "jazz":  # one player's DMs are closed: their hand is under My hand
        users[-1].dms_closed = True
    bot_ = await make_bot(tmp_path / "db.sqlite",
                          extensions={"cogs.help": None, f"cogs.{game_id}": game_id,
                                      "cogs.leaderboard": None, "cogs.stats": None,
                                      "cogs.history": None})
    async with fake.running(bot_):
        await (await fake.slash(users[0], general, "help")).wait_answered()
        await (await fake.slash(users[0], general, f"{command} rules")).wait_answered()
        await open_and_start(fake, general, users, command, **OPTIONS.get(game, {}))
        driver = GameDriver(fake, bot_, general, users, random.Random(3))
        await driver.play_to_end(limit=5000)
        await idle(bot_)
        live = bot_.croupier.manager.in_channel(general.id)  # it ended (AttackJack's
        assert live is None or live.series_start_at is not None  # series: the next deal waits)
        assert driver.moves > 0
        for results in (f"leaderboard game:{game_id}", "stats", "history"):
            words = results.split()
            options = dict(w.split(":") for w in words[1:])
            await (await fake.slash(users[1], general, words[0], **options)).wait_answered()
        if game == "attackjack":
            await (await fake.slash(users[1], general, "chips")).wait_answered()
        for user in users:
            assert_speaks(locale, seen_texts(fake, user), f"what {user.name} saw")
        words = [t for scene in drawn for t in scene_texts(scene)]
        assert words, "no picture was drawn"
        assert_speaks(locale, words, "the pictures")
    fake.assert_no_violations()


async def test_each_reader_gets_their_own_language(
        fake: FakeDiscord, general: FakeChannel, run_bot: MakeBot) -> None:
    """A Swedish server: the lobby and table are Swedish; a Russian player's answers and
    DMs are Russian, an English player's English."""
    fake.world.guild.preferred_locale = "sv-SE"
    sven = fake.add_user("sven", locale="sv-SE")
    ivan = fake.add_user("ivan", locale="ru")
    emma = fake.add_user("emma", locale="en-GB")
    bot = await run_bot(extensions={"cogs.jazz": "jazz"})
    start = await fake.slash(emma, general, "jazz start")
    await start.wait_answered()
    assert "table is open" in start.text()  # the opener's answer: English
    lobby = fake.find_message(general, custom_id_prefix="ct:lobby:")
    assert lobby is not None
    assert english_words(lobby.text()) == set()  # the public lobby: Swedish
    assert "Gå med" in lobby.text() or "Anslut" in lobby.text(), lobby.text()
    for user in (sven, ivan):
        lobby, join = component_id(fake, general, "ct:lobby:", "join")
        await (await fake.click(user, lobby, join)).wait_answered()
    lobby, begin = component_id(fake, general, "ct:lobby:", "start")
    await (await fake.click(emma, lobby, begin)).wait_answered()
    await idle(bot)  # the game started: table posted, hands sent
    table = fake.find_message(general, custom_id_prefix="ct:hand:")
    assert table is not None and english_words(table.text()) == set()
    ivan_dm = fake.messages(ivan)
    assert ivan_dm and cyrillic_share(ivan_dm[-1].text()) > 0.9
    emma_dm = fake.messages(emma)
    assert emma_dm and english_words(emma_dm[-1].text())  # English prose
    sven_dm = fake.messages(sven)
    assert sven_dm and english_words(sven_dm[-1].text()) == set()
    fake.assert_no_violations()


async def test_the_language_option_overrides_the_server(
        fake: FakeDiscord, general: FakeChannel, run_bot: MakeBot) -> None:
    ann = fake.add_user("ann")  # en-US, in an en-US server
    await run_bot(extensions={"cogs.jacko": "jacko"})
    await (await fake.slash(ann, general, "jacko start", language="ru")).wait_answered()
    lobby = fake.find_message(general, custom_id_prefix="ct:lobby:")
    assert lobby is not None and cyrillic_share(lobby.text()) > 0.9
    fake.assert_no_violations()


@pytest.mark.parametrize("locale", LOCALES)
async def test_help_and_rules_answer_in_the_clients_language(
        fake: FakeDiscord, general: FakeChannel, run_bot: MakeBot, locale: str) -> None:
    user = fake.add_user("ann", locale=locale)
    await run_bot()
    for command in ("help", "jazz rules", "jacko rules", "californiajack rules",
                    "attackjack rules"):
        ix = await fake.slash(user, general, command)
        await ix.wait_answered()
        assert len(ix.text()) > 200, (command, ix.text())
        assert_speaks(locale, [ix.text()], f"/{command}")
    english = fake.add_user("emma")
    ix = await fake.slash(english, general, "jazz rules")
    await ix.wait_answered()
    assert english_words(ix.text())  # the same command, to an English client
    fake.assert_no_violations()


async def test_registered_commands_carry_swedish_danish_and_russian(
        fake: FakeDiscord, new_bot: MakeBot) -> None:
    bot_ = await new_bot()
    async with fake.running(bot_):
        commands = fake.world.commands[None]
    assert commands
    missing = []

    def check(item: dict[str, Any], path: str) -> None:
        if item.get("type", 1) in (1, 2, None) or "description" in item:
            localized = item.get("description_localizations") or {}
            for locale in ("sv-SE", "da", "ru"):
                text = localized.get(locale)
                if not text or text == item["description"]:
                    missing.append(f"{path} [{locale}]")
            if "ru" in localized:
                assert cyrillic_share(localized["ru"]) > 0.6, (path, localized["ru"])
        for option in item.get("options") or []:
            check(option, f"{path} {option['name']}")

    for command in commands:
        check(command, "/" + command["name"])
    assert missing == []
