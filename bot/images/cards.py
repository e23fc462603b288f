"""Card sprites drawn with Pillow: faces (rank, suit, colour; jokers) and backs.

A sprite is drawn in full colour (RGBA) once per (code, size, mark, language) at three
times its size and scaled down, which smooths the rounded corners and the glyphs.
That is only the first step: ``bot.images.sprites`` lays it on the ground it is
drawn on and keeps it in the shared palette, ready to paste. A face's rank letter and
the joker's word are said in that language (``engine.cards.RANK_TEXTS`` and the
joker's label), so the picture shows the letters the text shows.
"""

from __future__ import annotations

from functools import lru_cache

from PIL import Image, ImageDraw

import bot.images.text as text
from bot.images.palette import (
    BACK,
    BACK_BORDER,
    BACK_LINE,
    BLACK,
    DIM,
    EDGE,
    FACE,
    GOLD,
    JOKER_INK,
    RED,
)
from bot.images.text import font
from engine import cards
from engine.text import Text
from locales import ENGLISH, say

SIZES = {"large": (64, 90), "small": (48, 67), "tiny": (34, 48)}
SCALE = 3
# Full-colour sprites are only the palette sprites' first step: few are kept.
RGBA_CACHE = 128

__all__ = ["BLACK", "GOLD", "RED", "SIZES", "face_language", "rank_text", "sprite",
           "suit_colour"]


def suit_colour(letter: str) -> tuple[int, int, int]:
    return RED if letter in "HD" else BLACK


def sprite(code: str | None, size: str, mark: str = "", language: str = ENGLISH) -> Image.Image:
    """The RGBA image of a card (None: its back) at ``size``, with its ``mark``, its
    letters in ``language``; drawn once, then cached (one key however it is called)."""
    return _drawn(code, size, mark, face_language(code, language))


def face_language(code: str | None, language: str) -> str:
    """``language`` if the card's face says a word in it (a court card's or an ace's
    letter, the joker's word), else English: a number or a back is the same everywhere,
    so it is drawn and kept once for every language."""
    if code is None:
        return ENGLISH
    if code == "JK":
        return language
    said = cards.RANK_TEXTS[cards.RANK[cards.parse_card(code)]]
    return language if isinstance(said, Text) else ENGLISH  # a plain str is never translated


@lru_cache(maxsize=RGBA_CACHE)
def _drawn(code: str | None, size: str, mark: str, language: str) -> Image.Image:
    with text.FONT_LOCK:
        return _draw(code, size, mark, language)


def _draw(code: str | None, size: str, mark: str, language: str) -> Image.Image:
    w, h = SIZES[size]
    big = Image.new("RGBA", (w * SCALE, h * SCALE), (0, 0, 0, 0))
    draw = ImageDraw.Draw(big)
    radius = max(4, w * SCALE // 10)
    box = (0, 0, w * SCALE - 1, h * SCALE - 1)
    if code is None:
        _back(draw, box, radius)
    else:
        draw.rounded_rectangle(box, radius, fill=FACE, outline=EDGE, width=SCALE)
        if code == "JK":
            _joker(draw, w * SCALE, h * SCALE, language)
        else:
            _face(draw, code, w * SCALE, h * SCALE, language)
    if mark in ("legal", "win"):
        draw.rounded_rectangle(box, radius, outline=GOLD, width=3 * SCALE)
    image = big.resize((w, h), Image.Resampling.LANCZOS)
    if mark == "dim":
        shade = Image.new("RGBA", (w, h), DIM)
        image = Image.composite(Image.alpha_composite(image, shade), image, image)
    return image


def rank_text(card: int, language: str = ENGLISH) -> str:
    """A card's rank as its face shows it in ``language``: ``10``, ``J`` (Russian ``В``)."""
    return say(cards.RANK_TEXTS[cards.RANK[card]], language)


def _face(draw: ImageDraw.ImageDraw, code: str, w: int, h: int, language: str) -> None:
    card = cards.parse_card(code)
    rank = rank_text(card, language)
    symbol = cards.SUIT_SYMBOLS[cards.SUIT[card]]
    ink = suit_colour(code[-1])
    corner = font(int(h * 0.25), bold=True)
    # "10" is the widest rank: narrow its glyphs so the corner stays inside the card
    # (and any rank of two letters or more a language writes).
    if len(rank) > 1:
        corner = font(int(h * 0.21), bold=True)
    pad = w // 12
    draw.text((pad, pad), rank, font=corner, fill=ink)
    draw.text((pad + 1, pad + int(h * 0.27)), symbol, font=font(int(h * 0.2)), fill=ink)
    pip = font(int(h * 0.48))
    draw.text((w * 0.62, h * 0.64), symbol, font=pip, fill=ink, anchor="mm")


def _joker(draw: ImageDraw.ImageDraw, w: int, h: int, language: str) -> None:
    draw.text((w // 2, h * 0.42), "★", font=font(int(h * 0.42)), fill=JOKER_INK,
              anchor="mm")
    word = say(cards.label(cards.JOKER), language).upper()  # JOKER, ДЖОКЕР
    size = int(w * 0.19)
    while size > 8 and font(size, bold=True).getlength(word) > w * 0.9:
        size -= 2  # a longer word than JOKER: smaller, still inside the card
    draw.text((w // 2, h * 0.8), word, font=font(size, bold=True), fill=JOKER_INK,
              anchor="mm")


def _back(draw: ImageDraw.ImageDraw, box: tuple[int, int, int, int], radius: int) -> None:
    draw.rounded_rectangle(box, radius, fill=BACK, outline=BACK_BORDER, width=2 * SCALE)
    x0, y0, x1, y1 = box
    inset = 5 * SCALE
    step = 6 * SCALE
    # A diagonal lattice inside a white border: the classic back, cheap to draw once.
    for offset in range(-(y1 - y0), x1 - x0, step):
        draw.line((x0 + inset + offset, y0 + inset, x0 + inset + offset + (y1 - y0),
                   y1 - inset), fill=BACK_LINE, width=SCALE)
        draw.line((x0 + inset + offset, y1 - inset, x0 + inset + offset + (y1 - y0),
                   y0 + inset), fill=BACK_LINE, width=SCALE)
    # Clear the lattice that ran over the border, then redraw the border on top.
    draw.rectangle((x0, y0, x1, y0 + inset - 1), fill=(0, 0, 0, 0))
    draw.rectangle((x0, y1 - inset + 1, x1, y1), fill=(0, 0, 0, 0))
    draw.rectangle((x0, y0, x0 + inset - 1, y1), fill=(0, 0, 0, 0))
    draw.rectangle((x1 - inset + 1, y0, x1, y1), fill=(0, 0, 0, 0))
    draw.rounded_rectangle(box, radius, outline=BACK_BORDER, width=inset)
    # A thin grey rim, as a face has: in a fan of backs it marks where each one ends.
    draw.rounded_rectangle(box, radius, outline=EDGE, width=SCALE)
    draw.rounded_rectangle((x0 + inset, y0 + inset, x1 - inset, y1 - inset),
                           max(2, radius - inset), outline=BACK, width=SCALE)
