"""Names people type, drawn safely (``bot.ui.markup.safe_name`` and ``say_safe``): no
masked link, mention, heading or markdown of theirs forms in what the bot writes, and
ordinary names read as they were typed.

What Discord renders is modelled here on the safe side: a masked link is looked for in
the raw text, escapes ignored (a ``\\]`` does not end a link's text early on Discord, so
only brackets that are not there at all are safe); a mention in the text with its escaped
characters masked (Discord reads ``\\<`` as a plain ``<`` before any mention rule)."""

from __future__ import annotations

import ast
import random
import re
import unicodedata
from pathlib import Path

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

import locales
from bot.table.state import Table, TableError
from bot.ui import markup
from bot.ui.markup import NAME_PARAMS, safe_name, say_safe
from cogs.attackjack import AttackJackUI
from cogs.california_jack import CaliforniaJackUI
from cogs.jacko import JackoUI
from cogs.jazz import JazzUI
from engine.jazz import Jazz
from engine.text import T, Text

VICTIM = 123456789012345678
ROLE = 987654321098765432
HOSTILE = {
    "masked link": "[Free Nitro](https://evil.example/x)",
    "link in a server name": "Club](https://evil.example/login) [x",
    "link in a thread name": "games](https://evil.example/login) [.",
    "angle link": "[x](<https://evil.example/y>)",
    "autolink": "<https://evil.example/z>",
    "bold and friends": "**Boss** __u__ ~~gone~~ ||spoiler|| `code` *it*",
    "code block": "```\ncode\n```",
    "quote": "> quoted",
    "block quote": ">>> all of it",
    "heading": "# Big",
    "small heading": "### small",
    "indented heading": "   # Big",
    "subtext": "-# tiny",
    "list": "- item",
    "everyone": "@everyone and @here",
    "user mention": f"<@{VICTIM}> and <@!{VICTIM}>",
    "role mention": f"<@&{ROLE}>",
    "channel mention": f"<#{VICTIM}>",
    "timestamp": "<t:0:R>",
    "custom emoji": "<:pog:123456789012345678>",
    "slash command": "</jazz start:123456789012345678>",
    "bare url": "https://evil.example/login",
    "line break": "Ann\n# Big\n[x](https://evil.example)",
    "trailing backslash": "back\\",
    "escaped bracket": "\\[x\\](https://evil.example)",
    "bidi override": "Ann\u202egnp.exe",
}
ORDINARY = ["Alice", "Åsa", "O'Brien", "Ли", "Zoë", "李小龙", "🦊 Fox", "Jean-Luc", "Ann 2",
            "x.y", "Dr. Who", "A+B", "50% off", "Bo & Cy", "ça va?", "a,b;c", "Ann!"]

LINK = re.compile(  # simple-markdown's masked link (Discord's), escapes ignored
    r"\[((?:\[[^\]]*\]|[^\[\]]|\](?=[^\[]*\]))*)\]\(\s*<?((?:\([^)]*\)|[^\s\\]|\\.)*?)>?"
    r"(?:\s+['\"]([\s\S]*?)['\"])?\s*\)")
MENTION = re.compile(r"<@[!&]?\d+>|<#\d+>|<t:-?\d+(?::\w)?>|<a?:\w+:\d+>|</[^>]+:\d+>"
                     r"|@everyone|@here")
HARMFUL = re.compile(r"<@[!&]?\d+>|<#\d+>|<a?:\w+:\d+>|</[^>]+:\d+>|@everyone|@here")
URL = re.compile(r"(?:https?|steam)://[^\s<]+[^<.,:;\"')\]\s]")
SPECIAL = set("*_~|`\\<()#:")  # what a name in markdown never holds bare (nor a leading >)


def unescaped(text: str) -> str:
    """``text`` with every escaped character masked: what mention rules still see."""
    return re.sub(r"\\.", "\0\0", text, flags=re.DOTALL)


def rendered(text: str) -> str:
    """What Discord shows for ``text`` (markdown escapes and inserted zero-width spaces
    left out; nothing else renders in a name that holds none of its syntax)."""
    return re.sub(r"\\([^0-9A-Za-z\s])", r"\1", text).replace("\u200b", "")


def typed(name: str) -> str:
    """``name`` as the bot draws it, read back: brackets full-width, one line, no bidi."""
    one_line = re.sub(r"[\x00-\x1f\x7f-\x9f\u2028\u2029]", " ", name)
    kept = "".join(c for c in one_line if not 0x202A <= ord(c) <= 0x202E
                   and not 0x2066 <= ord(c) <= 0x2069)
    return kept.replace("[", "［").replace("]", "］").replace("\u200b", "")


def bare(text: str) -> list[str]:
    """The characters of ``text`` that no backslash escapes."""
    return [t for t in re.findall(r"\\.|.", text, re.DOTALL) if len(t) == 1]


def line_starts(text: str) -> list[str]:
    return [line.lstrip() for line in text.split("\n")]


# ------------------------------------------------------------------ the helper


@pytest.mark.parametrize("name", ORDINARY)
def test_ordinary_names_are_left_as_they_are(name):
    assert safe_name(name) == name and safe_name(name, markdown=False) == name


def test_an_underscore_or_a_star_is_escaped_and_reads_as_typed():
    assert safe_name("a_b") == "a\\_b" and rendered(safe_name("a_b")) == "a_b"
    assert safe_name("*x*") == "\\*x\\*" and safe_name("a_b", markdown=False) == "a_b"


@pytest.mark.parametrize("kind", HOSTILE)
def test_no_hostile_name_forms_a_link_a_mention_or_markdown(kind):
    name = HOSTILE[kind]
    shown = safe_name(name)
    assert not LINK.search(shown) and not MENTION.search(unescaped(shown)), shown
    assert not URL.search(shown), shown  # not even a bare link
    assert "[" not in shown and "]" not in shown and "\n" not in shown
    assert not SPECIAL & set(bare(shown)), shown
    # At the start of a line too (a name can begin a message or a line of the table).
    for line in line_starts(f"{shown}\n  {shown}"):
        assert not re.match(r"(#{1,3}\s|-#\s|>\s|>>>|[-*]\s)", line), line
    assert rendered(shown) == typed(name)  # and it reads as typed


@pytest.mark.parametrize("kind", HOSTILE)
def test_the_plain_form_makes_no_link_or_mention_and_adds_no_backslash(kind):
    name = HOSTILE[kind]
    plain = safe_name(name, markdown=False)
    assert "[" not in plain and "]" not in plain and "\n" not in plain
    assert not re.search(r"@(everyone|here|[!&]?\d{17,20})", plain)
    assert plain.count("\\") == name.count("\\")
    assert plain.replace("\u200b", "") == typed(name)


def test_a_name_in_a_masked_links_text_cannot_end_it_or_change_its_target():
    link = "https://discord.com/channels/1/2/3"
    for guild in HOSTILE.values():
        for channel in HOSTILE.values():
            text = f"[{safe_name(guild)} › #{safe_name(channel)}]({link})"
            found = LINK.findall(text)
            assert [target for _text, target, _title in found] == [link], text
            assert found[0][0] == text[1:text.index("](")]  # the whole text is the link's


def test_markdown_escaping_is_not_idempotent_so_a_name_is_escaped_once_where_drawn():
    once = safe_name("a_b")
    assert safe_name(once) != once and rendered(safe_name(once)) == "a\\_b"
    # The plain form is idempotent, and escaping it is escaping the name itself.
    for name in [*HOSTILE.values(), *ORDINARY]:
        plain = safe_name(name, markdown=False)
        assert safe_name(plain, markdown=False) == plain
        assert safe_name(plain) == safe_name(name)


def test_full_width_brackets_normalise_back_to_the_typed_ones():
    assert unicodedata.normalize("NFKC", safe_name("[TAG] Bo")) == "[TAG] Bo"
    assert safe_name("[TAG] Bo") == "［TAG］ Bo"


def test_a_text_is_the_bots_own_words_and_is_said_not_escaped(swedish_ai):
    normal = T("🤖 Normal AI {number}", number=2)
    assert safe_name(normal) == "🤖 Normal AI 2"
    with locales.speaking("sv"):
        assert safe_name(normal) == "🤖 Normal AI 2 (sv)"
    assert safe_name(None) == ""


@pytest.fixture
def swedish_ai(monkeypatch):
    class Swedish(locales.NullTranslations):
        def gettext(self, message):
            return message + " (sv)" if message.startswith("🤖") else message

    monkeypatch.setattr(locales, "translations", lambda language: Swedish())


names = st.text(st.characters(blacklist_categories=("Cs",)), max_size=40)


@settings(max_examples=300, deadline=None)
@given(name=names, other=names)
@example(name=" -", other="")  # discord.py escaped the space, not the list marker
@example(name="  * a", other=" - b")
def test_any_name_reads_as_typed_and_holds_no_bare_syntax(name, other):
    shown = safe_name(name)
    assert rendered(shown) == typed(name)
    assert not SPECIAL & set(bare(shown))
    assert not "".join(bare(shown)).lstrip().startswith(">")
    assert "[" not in shown and "]" not in shown and "\n" not in shown
    assert not re.search(r"@(everyone|here|[!&]?\d{17,20})", shown)
    text = f"**{shown}** · [{shown} › #{safe_name(other)}](https://discord.com/channels/1/2)"
    assert [t for _x, t, _y in LINK.findall(text)] == ["https://discord.com/channels/1/2"]
    assert not MENTION.search(unescaped(text))


def test_a_code_blocks_name_is_one_line_without_a_backtick():
    assert markup.short_name("a`b\nc", 10) == "a'b c"


# ------------------------------------------------------------------ sentences kept


def test_a_kept_line_says_its_player_escaped_and_nothing_else():
    line = T("{player} played {card}.", player=HOSTILE["masked link"], card="10♥")
    said = say_safe(line)
    assert said == f"{safe_name(HOSTILE['masked link'])} played 10♥."
    assert not LINK.search(said) and not MENTION.search(unescaped(said))
    assert say_safe(T("{player} played {card}.", player="Ann", card="10♥")) == \
        "Ann played 10♥."
    # The bot's own markup in other parameters is left alone: a command, a timestamp.
    kept = T("Open one with {command} {when}.", command="`/jazz start`", when="<t:5:R>")
    assert say_safe(kept) == "Open one with `/jazz start` <t:5:R>."


def test_a_line_saved_by_any_version_draws_escaped(swedish_ai):
    line = T("{host} removed {player} from the table.", host="**Host**",
             player=T("🤖 Normal AI {number}", number=2))
    back = Text.from_data(line.to_data())  # as a saved table reads it back
    assert say_safe(back) == "\\*\\*Host\\*\\* removed 🤖 Normal AI 2 from the table."
    nested = T("It is not your turn: it is {player}'s.", player=T("{player} is back.",
                                                                  player="@everyone"))
    assert "@everyone" not in say_safe(nested)


def test_a_refusal_names_its_host_escaped():
    error = TableError(T("Only the host, {host}, can start the game.",
                         host=f"<@{VICTIM}>"))
    said = say_safe(error)
    assert said.startswith("Only the host, \\<@") and not MENTION.search(unescaped(said))
    assert say_safe(TableError("as it is **here**")) == "as it is **here**"
    assert say_safe(None) == "" and say_safe(3) == "3"


# ------------------------------------------------------------------ what a game draws


SEATED = [HOSTILE["masked link"], f"{HOSTILE['user mention']} {HOSTILE['everyone']}",
          HOSTILE["bold and friends"], HOSTILE["subtext"]]


def hostile_table(ui_engine=Jazz, game_id: str = "jazz", players: int = 4) -> Table:
    table = Table(table_id="abcd1234", game_id=game_id, engine=ui_engine, guild_id=1,
                  channel_id=2, host_id=100, created_at=0.0, last_activity=0.0,
                  options=ui_engine.OPTIONS.from_dict({}), rng=random.Random(3),
                  turn_timer=300.0, guild_name=HOSTILE["link in a server name"],
                  channel_name=HOSTILE["link in a thread name"])
    for i, name in enumerate(SEATED[:players]):
        table.join(100 + i, name, 0.0)
    return table


def texts_of(embed) -> list[str]:
    data = embed.to_dict()
    out = [data.get("title", ""), data.get("description", ""),
           data.get("footer", {}).get("text", "")]
    for field in data.get("fields", []):
        out += [field["name"], field["value"]]
    return out


def assert_safe(embed, link: str | None = None) -> None:
    for text in texts_of(embed):
        text = re.sub(r"```.*?```", "", text, flags=re.DOTALL)  # a code block renders nothing
        assert [t for _x, t, _y in LINK.findall(text)] == ([link] if link and link in text
                                                            else []), text
        assert not HARMFUL.search(unescaped(text)), text
        assert not URL.search(text.replace(link or " ", "")), text


@pytest.mark.parametrize("ui_class, engine_id", [(JazzUI, "jazz"), (JackoUI, "jacko"),
                                                  (CaliforniaJackUI, "california_jack"),
                                                  (AttackJackUI, "attackjack")])
def test_every_drawing_of_a_game_keeps_hostile_names_harmless(ui_class, engine_id):
    ui = ui_class()
    table = hostile_table(ui.ENGINE, engine_id, 2 if engine_id in ("jacko", "california_jack")
                          else 4)
    assert_safe(ui.lobby_embed(table))
    table.start(100, 10.0)
    table.run_automation("deal", 10.0)
    link = "https://discord.com/channels/1/2/3"
    moves, reported = 0, 0
    while (kind := table.automation()) != "finish":
        assert moves < 2000, "the game does not end"
        moves += 1
        game = table.game
        assert game is not None
        if kind is not None:
            table.run_automation(kind, 11.0)
            continue
        assert_safe(ui.table_embed(table, game.public_view()))
        seat = table.to_act
        assert seat is not None
        assert_safe(ui.hand_embed(table, game.seat_view(seat), seat, link), link)
        table.apply(seat, game.legal_actions()[0], 11.0)
        for deal in range(reported, len(game.deal_points)):
            assert_safe(ui.deal_result_embed(table, game, deal))
        reported = len(game.deal_points)
    assert table.game is not None
    final = ui.final_embed(table, table.game)
    assert_safe(final)
    assert any(safe_name(HOSTILE["masked link"]) in text for text in texts_of(final))


# ------------------------------------------------------------------ where they are said


def test_a_refusal_quoting_what_someone_typed_says_it_escaped():
    error = TableError(T("I cannot read {value} as a time.", value="'[x](https://evil.example)'"))
    assert "](" in say_safe(error)  # a value is not a name: as it is, unless asked
    said = say_safe(error, typed=("value",))
    assert not LINK.search(said)
    assert rendered(said) == "I cannot read '［x］(https://evil.example)' as a time."


KEPT = {"error", "refusal", "problem", "why"}  # what holds a refusal or a kept sentence


def _say_calls(tree: ast.AST) -> list[tuple[ast.Call, set[str]]]:
    """Every ``say(...)`` call, with the names ``except ... as`` bound around it."""
    calls = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Call) and (
                (isinstance(node.func, ast.Name) and node.func.id == "say")
                or (isinstance(node.func, ast.Attribute) and node.func.attr == "say")):
            calls.append(node)
    bound = {h.name for h in ast.walk(tree) if isinstance(h, ast.ExceptHandler) and h.name}
    return [(call, bound) for call in calls]


def test_no_refusal_or_sentence_with_a_name_is_said_without_escaping_it():
    """A refusal (an exception, an outcome's) or a sentence filled in with a name says
    whose turn it is or who the host is: said with ``say_safe``, never ``say``. (A move
    or a hint out of turn needs a forged click, which discord.py drops before any
    handler: the end-to-end scan cannot reach those, this rule holds them.)"""
    root = Path(__file__).resolve().parents[2]
    found = []
    for path in sorted([*root.glob("bot/**/*.py"), *root.glob("cogs/*.py")]):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for call, bound in _say_calls(tree):
            said = call.args[0] if call.args else None
            where = f"{path.relative_to(root)}:{call.lineno}"
            if isinstance(said, ast.Name) and (said.id in bound or said.id in KEPT):
                found.append(f"{where}: say({said.id})")
            if isinstance(said, ast.Call) and isinstance(said.func, ast.Attribute) \
                    and said.func.attr == "filled" \
                    and {k.arg for k in said.keywords} & NAME_PARAMS:
                found.append(f"{where}: say(….filled(a name))")
    assert not found, "\n".join(found)
