"""Card sprites drawn with Pillow: faces (rank, suit, colour; jokers) and backs, cached.

A sprite is drawn once per (code, size, mark, language) at three times its size and
scaled down, which smooths the rounded corners and the glyphs; after that every use
is a dictionary lookup and a paste. A face's rank letter and the joker's word are
said in that language (``engine.cards.RANK_TEXTS`` and the joker's label), so the
picture shows the letters the text shows.
"""

from __future__ import annotations

from functools import lru_cache

from PIL import Image, ImageDraw

from bot.images.text import font
from engine import cards
from locales import ENGLISH, say

SIZES = {"large": (64, 90), "small": (48, 67), "tiny": (34, 48)}
SCALE = 3

FACE = (252, 252, 250)
EDGE = (120, 120, 120)
RED = (200, 30, 40)
BLACK = (20, 20, 24)
JOKER_INK = (110, 40, 160)
BACK = (32, 58, 140)
BACK_LINE = (78, 108, 196)
GOLD = (246, 196, 60)
DIM = (60, 60, 60, 150)


def suit_colour(letter: str) -> tuple[int, int, int]:
    return RED if letter in "HD" else BLACK


def sprite(code: str | None, size: str, mark: str = "", language: str = ENGLISH) -> Image.Image:
    """The RGBA image of a card (None: its back) at ``size``, with its ``mark``, its
    letters in ``language``; drawn once, then cached (one key however it is called)."""
    return _drawn(code, size, mark, language)


@lru_cache(maxsize=512)
def _drawn(code: str | None, size: str, mark: str, language: str) -> Image.Image:
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
    draw.rounded_rectangle(box, radius, fill=BACK, outline=(240, 240, 240), width=2 * SCALE)
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
    draw.rounded_rectangle(box, radius, outline=(240, 240, 240), width=inset)
    draw.rounded_rectangle((x0 + inset, y0 + inset, x1 - inset, y1 - inset),
                           max(2, radius - inset), outline=BACK, width=SCALE)


def sprite_bytes() -> int:
    """How much memory the cached sprites hold (the benchmark reports it)."""
    info = _drawn.cache_info()
    w, h = SIZES["large"]
    return info.currsize * w * h * 4  # an upper bound: the large size, four bytes a pixel
