"""Drawing helpers every game shares, and Discord's size limits enforced in one place.

Cards arrive as the engine's view codes (``"TH"``) and leave as labels for
people (``10♥``), in the current language (``locales``). Nothing here knows any
game; the cogs compose these pieces.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

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


def short_name(name: str, width: int = 10) -> str:
    return clip(name.replace("`", "'"), width)


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
    """Players and totals, best first, winners crowned."""
    crowned = set(winners)
    order = sorted(range(len(names)), key=lambda s: (-totals[s], s))
    return "\n".join(
        f"{'👑 ' if s in crowned else ''}**{discord.utils.escape_markdown(names[s])}** "
        f"{totals[s]:+d}" for s in order
    )


def mention(user_id: int) -> str:
    """A user mention (``<@id>``): every client shows the name it knows."""
    return f"<@{user_id}>"


def relative_time(timestamp: float) -> str:
    """A Discord timestamp that each reader sees as "in 4 minutes"."""
    return f"<t:{int(timestamp)}:R>"


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
