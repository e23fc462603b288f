"""Ready sprites in the shared palette: what a picture is pasted together from.

A card (face, back, with its mark) and a text (a string at a size, in an ink) are each
drawn once per process on the ground they lie on (the felt, a seat's box, the badge),
mapped to the palette, and kept with a mask of the pixels they cover. A picture is
then pastes of these onto a blank palette image: no drawing of glyphs, no blending
and no quantizing per picture. The caches are bounded (entries and bytes), least
recently used first out, and safe to use from several threads.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache

from PIL import Image, ImageDraw

import bot.images.palette as palette
import bot.images.text as text
from bot.images.cards import face_language, sprite
from bot.images.lru import LRU
from bot.images.palette import RGB

# One language's whole deck in every size and mark is about 900 card sprites (a large
# one 11 KB with its mask); faces that say a word come once more per language.
CARD_ENTRIES = 2048
CARD_BYTES = 16 * 1024 * 1024
# A picture's words: names, notes, scores, captions. Most repeat from state to state.
TEXT_ENTRIES = 4096
TEXT_BYTES = 16 * 1024 * 1024


@dataclass(frozen=True)
class Sprite:
    """A palette image to paste with its mask, ``dx, dy`` from the point it is drawn
    at (a text's anchor; 0, 0 for a card) to its top-left corner."""

    image: Image.Image
    mask: Image.Image | None  # None: the whole rectangle
    dx: int = 0
    dy: int = 0

    @property
    def bytes(self) -> int:
        w, h = self.image.size
        return w * h * (1 if self.mask is None else 2)  # a byte a pixel, the mask's too


def _weigh(found: Sprite) -> int:
    return found.bytes


_cards: LRU[tuple[str | None, str, str, str, RGB], Sprite] = LRU(CARD_ENTRIES, CARD_BYTES,
                                                                   _weigh)
# Boxes come in a few sizes per layout (seat boxes per column count, lit or not).
_boxes: LRU[tuple[int, int, int, RGB, RGB | None, int, RGB], Sprite] = LRU(256, 16 * 1024 * 1024,
                                                                           _weigh)
_texts: LRU[tuple[str, int, bool, RGB, RGB, str], Sprite] = LRU(TEXT_ENTRIES, TEXT_BYTES,
                                                                  _weigh)


def card(code: str | None, size: str, mark: str, language: str, ground: RGB) -> Sprite:
    """The card ``code`` (None: its back) at ``size`` with its ``mark``, its letters in
    ``language``, as it looks lying on ``ground``."""
    key = (code, size, mark, face_language(code, language), ground)
    return _cards.get(key, lambda: _card(*key))


def _card(code: str | None, size: str, mark: str, language: str, ground: RGB) -> Sprite:
    drawn = sprite(code, size, mark, language)
    laid = Image.new("RGB", drawn.size, ground)
    laid.paste(drawn, (0, 0), drawn)
    # Every pixel the card touches, its soft corners too: they were blended with the
    # ground it is drawn on, and a corner over another card is a pixel or two.
    covered = drawn.getchannel("A").point(lambda a: 255 if a else 0)
    return Sprite(palette.mapped(laid), covered.convert("1", dither=Image.Dither.NONE))


def words(shown: str, size: int, bold: bool, ink: RGB, ground: RGB, anchor: str) -> Sprite:
    """``shown`` (already fitted) in ``ink`` on ``ground``, placed by ``anchor``."""
    key = (shown, size, bold, ink, ground, anchor)
    return _texts.get(key, lambda: _words(*key))


def _words(shown: str, size: int, bold: bool, ink: RGB, ground: RGB, anchor: str) -> Sprite:
    with text.FONT_LOCK:
        face = text.font(size, bold)
        x0, y0, x1, y1 = (int(v) for v in face.getbbox(shown, anchor=anchor))
        coverage = Image.new("L", (max(1, x1 - x0), max(1, y1 - y0)), 0)
        ImageDraw.Draw(coverage).text((-x0, -y0), shown, font=face, fill=255, anchor=anchor)
    image = Image.frombytes("P", coverage.size, coverage.point(list(_shades(ink, ground)))
                            .tobytes())
    image.putpalette(palette.DATA)
    mask = coverage.point(lambda a: 255 if a else 0).convert("1", dither=Image.Dither.NONE)
    return Sprite(image, mask, x0, y0)


@lru_cache(maxsize=64)
def _shades(ink: RGB, ground: RGB) -> tuple[int, ...]:
    return palette.shades(ink, ground)


def box(w: int, h: int, radius: int, fill: RGB, outline: RGB | None, width: int,
        ground: RGB) -> Sprite:
    """A box (a seat's, the badge, the header) ``w`` × ``h``, rounded by ``radius``,
    its corners showing ``ground``: pasted whole, no mask."""
    key = (w, h, radius, fill, outline, width, ground)
    return _boxes.get(key, lambda: _box(*key))


def _box(w: int, h: int, radius: int, fill: RGB, outline: RGB | None, width: int,
         ground: RGB) -> Sprite:
    image = palette.new((w, h), ground)
    edge = None if outline is None else palette.index(outline)
    ImageDraw.Draw(image).rounded_rectangle((0, 0, w - 1, h - 1), radius,
                                            fill=palette.index(fill), outline=edge,
                                            width=width)
    return Sprite(image, None)


def stats() -> dict[str, int]:
    """What the caches hold now (the benchmark reports it; the tests check the bounds)."""
    return {"card_sprites": len(_cards), "card_bytes": _cards.bytes,
            "text_sprites": len(_texts), "text_bytes": _texts.bytes}


def clear() -> None:
    """Forget every sprite (a test that changed what a language says)."""
    _cards.clear()
    _texts.clear()
    _boxes.clear()
