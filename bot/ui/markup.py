"""Drawing helpers every game shares, and Discord's size limits enforced in one place.

Cards arrive as the engine's view codes (``"TH"``) and leave as labels for
people (``10♥``), in the current language (``locales``). Nothing here knows any
game; the cogs compose these pieces.
"""

from __future__ import annotations

import re
from collections.abc import Collection, Iterable, Sequence
from typing import Any

import discord

from engine import cards
from engine.core import action_label, parse_action
from engine.text import TC, Text
from locales import _, _c, say

MESSAGE_LIMIT = 2000
EMBED_TITLE = 256
EMBED_DESCRIPTION = 4096
EMBED_FIELDS = 25
FIELD_NAME = 256
FIELD_VALUE = 1024
FOOTER_TEXT = 2048
AUTHOR_NAME = 256
EMBED_TOTAL = 6000
ELLIPSIS = "…"

COLOUR = discord.Colour(0x2E7D32)  # card-table green
GOLD = discord.Colour(0xC9A227)


def clip(text: str, limit: int) -> str:
    """``text`` cut to ``limit`` characters, with an ellipsis when something was cut."""
    if len(text) <= limit:
        return text
    return text[: max(0, limit - 1)] + ELLIPSIS


def label(code: str) -> str:
    """A card or keyword code as people read it, in the current language: ``10♥``,
    ``Joker``, ``Pass``."""
    return say(action_label(parse_action(code)))


def labels(codes: Iterable[str]) -> str:
    return " ".join(label(c) for c in codes) or "—"


# The letters of the court cards and the ace (the other ranks are their numbers).
_RANK_LETTERS: dict[int, Text] = {
    # Translators: the rank letter of a jack on a card, as in "J♠"
    cards.JACK: TC("rank", "J"),
    # Translators: the rank letter of a queen on a card, as in "Q♠"
    cards.QUEEN: TC("rank", "Q"),
    # Translators: the rank letter of a king on a card, as in "K♠"
    cards.KING: TC("rank", "K"),
    # Translators: the rank letter of an ace on a card, as in "A♠"
    cards.ACE: TC("rank", "A"),
}


def joker() -> str:
    """The joker's name, in the current language."""
    # Translators: the joker card
    return _c("card", "Joker")


def _rank_text(card: int) -> str:
    if card == cards.JOKER:
        return joker()
    rank = cards.RANK[card]
    letter = _RANK_LETTERS.get(rank)
    return say(letter) if letter is not None else say(cards.RANK_NAMES[rank])


def hand_lines(codes: Sequence[str], legal: Iterable[str] = ()) -> str:
    """A hand grouped by suit, one line per suit, legal cards in bold: fits a phone."""
    legal_set = set(legal)
    by_suit: dict[int, list[int]] = {s: [] for s in cards.SUITS}
    jokers: list[int] = []
    for code in codes:
        card = cards.parse_card(code)
        (jokers if card == cards.JOKER else by_suit[cards.SUIT[card]]).append(card)
    lines = []
    for suit in cards.SUITS:
        held = sorted(by_suit[suit], key=lambda c: -cards.RANK[c])  # high cards first
        ranks = [_bold_if(_rank_text(c), cards.CODE[c] in legal_set) for c in held]
        lines.append(f"{cards.SUIT_SYMBOLS[suit]}  {' '.join(ranks) if ranks else '—'}")
    if jokers:
        name = joker()
        lines.append("🃏  " + " ".join(_bold_if(name, "JK" in legal_set) for _card in jokers))
    return "\n".join(lines)


def _bold_if(text: str, bold: bool) -> str:
    return f"**{text}**" if bold else text


# -- people's names, made safe to draw --------------------------------------------------
#
# Every name a user controls (a display name, a server's, a channel's or a thread's) is
# drawn through ``safe_name``, once, where it is drawn: names are kept (and saved) as
# people typed them. What it does, and why:
#
# * ``[`` and ``]`` become their full-width forms ``［`` ``］`` (U+FF3B, U+FF3D), in
#   every context. A backslash does not keep a ``]`` from closing the text of a masked
#   link (``[Club \](https://evil.example) ...](https://discord.com/...)``: Discord's
#   link rule reads the text up to ``](`` before any escape), and a masked link is the
#   one thing a name must never make. The full-width brackets read as brackets
#   ("［TAG］ Bo"), NFKC-normalise back to ASCII, and no markdown rule knows them.
# * In markdown (``markdown=True``): ``discord.utils.escape_markdown`` (every ``*``,
#   ``_``, ``~``, ``|``, backtick and backslash, and a leading ``>``, ``#`` or ``-``), then
#   a backslash before every ``<``, ``(``, ``)``, ``#`` and ``:`` it left bare, and before
#   a ``>`` that begins the name (however indented): no mention (``<@id>``, ``<@&id>``),
#   channel, timestamp, emoji, ``<url>`` autolink, quote, heading (``#``, however
#   indented) or subtext (``-#``) can form, and a URL in a name is not even a bare link
#   (``https\://``); a ``>`` further in ends nothing once every ``<`` is escaped. Discord
#   renders ``\X`` as ``X`` for any punctuation, so all these read exactly as typed.
# * Everywhere: ``@everyone`` and ``@here`` get a zero-width space after the ``@``
#   (``discord.utils.escape_mentions``); line breaks and other control characters become
#   spaces, and bidi overrides and isolates are dropped (they would run on into the
#   bot's own words after the name): a name stays one line, also as a link's text.
#
# ``markdown=False`` is for text Discord shows as it is (a thread's name); select
# labels, footers and the pictures take names unescaped (nothing renders there, and a
# backslash would show). Markdown escaping is not idempotent (escaped twice, a name
# shows its backslashes): escape the raw name once, where it is drawn. The plain form
# is idempotent, and ``safe_name`` of it is the same as of the raw name.

_SUBSTITUTES = str.maketrans({"[": "\uff3b", "]": "\uff3d",
                              **dict.fromkeys(map(chr, (*range(0x202A, 0x202F),
                                                        *range(0x2066, 0x206A))), None)})
_BREAKS = re.compile(r"[\x00-\x1f\x7f-\x9f\u2028\u2029]")
_SPACED_MARKER = re.compile(r"^\\(\s+)(?=[-*+])")  # "\\ -" → " \\-"
_BARE = re.compile(r"\\.|[<()#:]|^\s*>", re.DOTALL)  # an escape pair, or bare syntax
NAME_PARAMS = frozenset({"player", "host", "name"})
"""The parameters of a ``Text`` that hold a name people typed (``say_safe``)."""


def safe_name(name: Any, *, markdown: bool = True) -> str:
    """A name a user controls, safe to draw: in Discord markdown (``markdown``; message
    content, embed descriptions, titles, field names and values, a link's text) or in text
    shown as it is. A ``Text`` is the bot's own words (an AI seat's name, "the host"):
    said in the current language, not escaped. See the notes above."""
    if isinstance(name, Text):
        return say(name)
    text = _BREAKS.sub(" ", "" if name is None else str(name)).translate(_SUBSTITUTES)
    if markdown:
        text = discord.utils.escape_markdown(text, ignore_links=False)
        # discord.py escapes a list marker after a leading space before the space
        # ("\\ -"): Discord shows that backslash. The marker itself is escaped instead.
        text = _SPACED_MARKER.sub(r"\1\\", text)
        text = _BARE.sub(_escape_bare, text)
    return discord.utils.escape_mentions(text)


def _escape_bare(match: re.Match[str]) -> str:
    found = match[0]
    if found.startswith("\\"):
        return found  # escaped already
    return found[:-1] + "\\" + found[-1]


def say_safe(value: Any, typed: Collection[str] = ()) -> str:
    """``locales.say`` for a sentence kept to be said later (a table's line, a refusal):
    the names in it (``NAME_PARAMS``, also in a sentence inside it) are escaped as they are
    said, so a table saved by any version draws safely. ``typed``: more parameters that
    hold what someone typed (a refusal of a turn timer quotes it as ``value``)."""
    if isinstance(value, BaseException) and value.args and isinstance(value.args[0], Text):
        value = value.args[0]
    names = NAME_PARAMS | frozenset(typed)
    return say(_escaped(value, names) if isinstance(value, Text) else value)


def _escaped(text: Text, names: frozenset[str] = NAME_PARAMS) -> Text:
    params = {key: _escaped(value, names) if isinstance(value, Text)
              else safe_name(value) if key in names and isinstance(value, str)
              else value
              for key, value in text.params.items()}
    if params == text.params:
        return text
    return Text(text.msgid, plural=text.plural, n=text.n, context=text.context, **params)


def short_name(name: str, width: int = 10) -> str:
    """A name for a code block (``score_table``), as typed: nothing renders inside one,
    only a backtick could end it (and a line break break its row)."""
    return clip(_BREAKS.sub(" ", name).replace("`", "'"), width)


def score_table(names: Sequence[str], deal_points: Sequence[Sequence[int]],
                totals: Sequence[int], heading: Sequence[str] | None = None,
                max_deals: int = 7) -> str:
    """A monospace table: a row per player, a column per deal (the last ones), the total.

    ``heading`` names the deal columns (default D1, D2, ...). Kept narrow for phones.
    """
    shown = list(range(len(deal_points)))[-max_deals:]
    # Translators: a score table's column head, deal number {n}; keep it very short (D1)
    heads = [(heading[d] if heading and d < len(heading) else _("D{n}", n=d + 1))
             for d in shown]
    width = max([len(short_name(n)) for n in names] + [4])
    cols = [max(4, len(h)) for h in heads]
    # Translators: a score table's last column head, each player's total points
    total = _c("score table", "Total")
    total_width = max(6, len(total))
    header = " " * width + "".join(f" {h:>{w}}" for h, w in zip(heads, cols, strict=True))
    header += f" {total:>{total_width}}"
    rows = [header]
    for seat, name in enumerate(names):
        row = f"{short_name(name):<{width}}"
        for d, w in zip(shown, cols, strict=True):
            points = deal_points[d][seat] if seat < len(deal_points[d]) else 0
            row += f" {points:>{w}}"
        rows.append(row + f" {totals[seat]:>{total_width}}")
    return "```\n" + "\n".join(rows) + "\n```"


def standings(names: Sequence[str], totals: Sequence[int], winners: Iterable[int] = ()) -> str:
    """Players and totals, best first, winners crowned (``names`` as people typed them:
    escaped here)."""
    crowned = set(winners)
    order = sorted(range(len(names)), key=lambda s: (-totals[s], s))
    return "\n".join(
        f"{'👑 ' if s in crowned else ''}**{safe_name(names[s])}** "
        f"{totals[s]:+d}" for s in order
    )


def mention(user_id: int) -> str:
    """A user mention (``<@id>``): every client shows the name it knows."""
    return f"<@{user_id}>"


def role_mention(role_id: int) -> str:
    """A role mention (``<@&id>``): it pings only where a message's allowed mentions say."""
    return f"<@&{role_id}>"


def relative_time(timestamp: float) -> str:
    """A Discord timestamp that each reader sees as "in 4 minutes"."""
    return f"<t:{int(timestamp)}:R>"


def start_time(timestamp: float) -> str:
    """A time ahead as each reader sees it: their own date and time, and how soon."""
    return f"<t:{int(timestamp)}:F> ({relative_time(timestamp)})"


def jump_url(guild_id: int | None, channel_id: int, message_id: int | None) -> str:
    where = str(guild_id) if guild_id is not None else "@me"
    if message_id is None:
        return f"https://discord.com/channels/{where}/{channel_id}"
    return f"https://discord.com/channels/{where}/{channel_id}/{message_id}"


def fit_embed(embed: discord.Embed) -> discord.Embed:
    """Cut an embed down to Discord's limits (each part, then 6000 in total)."""
    if embed.title:
        embed.title = clip(embed.title, EMBED_TITLE)
    if embed.description:
        embed.description = clip(embed.description, EMBED_DESCRIPTION)
    fields = embed.fields[:EMBED_FIELDS]
    embed.clear_fields()
    for f in fields:
        embed.add_field(name=clip(f.name or "\u200b", FIELD_NAME),
                        value=clip(f.value or "\u200b", FIELD_VALUE), inline=f.inline)
    if embed.footer.text:
        embed.set_footer(text=clip(embed.footer.text, FOOTER_TEXT), icon_url=embed.footer.icon_url)
    if embed.author.name:
        embed.set_author(name=clip(embed.author.name, AUTHOR_NAME), url=embed.author.url)
    while embed_size(embed) > EMBED_TOTAL and embed.fields:
        embed.remove_field(len(embed.fields) - 1)  # the last fields matter least
    if embed_size(embed) > EMBED_TOTAL and embed.description:
        excess = embed_size(embed) - EMBED_TOTAL
        embed.description = clip(embed.description, len(embed.description) - excess)
    return embed


def embed_size(embed: discord.Embed) -> int:
    """What Discord counts toward the 6000-character total of an embed."""
    size = len(embed.title or "") + len(embed.description or "")
    size += sum(len(f.name or "") + len(f.value or "") for f in embed.fields)
    size += len(embed.footer.text or "") + len(embed.author.name or "")
    return size


def content(text: str) -> str:
    """Message content cut to 2000 characters."""
    return clip(text, MESSAGE_LIMIT)
