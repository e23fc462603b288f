"""A ``Scene`` laid out on a green felt and encoded as PNG (or WebP) bytes.

The picture is a palette image from the start (``bot.images.palette``): the boxes are
filled with palette entries and everything else is pasted from ready sprites
(``bot.images.sprites``), so encoding needs no quantizing. Every text goes through
``Canvas.text``, which cuts it to the box it is given and records where it landed
(the tests check each one lies inside the canvas). Sizes depend only on the scene's
structure: the number of zones and their card size, the seat rows and the caption
lines, never on which cards are shown.

Drawing keeps no state but its bounded caches, each behind a lock, so ``render`` may
run in several threads or processes at once; the same scene gives the same bytes in
all of them.
"""

from __future__ import annotations

import io
import math
from collections.abc import Callable, Hashable
from dataclasses import dataclass, field
from functools import lru_cache, partial
from typing import Literal

from PIL import Image

import bot.images.png as png
import bot.images.sprites as sprites
from bot.images.cards import SIZES
from bot.images.lru import LRU
from bot.images.palette import (
    BADGE_BG,
    BLACK,
    FELT,
    GOLD,
    HEADER_BG,
    INK,
    PLTE,
    RED,
    RGB,
    SEAT_BG,
    SEAT_LINE,
    SEAT_OUT,
    SOFT,
    new,
)
from bot.images.scene import Card, Scene, Seat, Zone
from bot.images.text import fit, length

WIDTH = 800
MARGIN = 16
HEADER = 66
LABEL_H = 20
RAISE = 8  # a legal card sits this much higher than the rest
CAPTION_H = 18
ZONE_GAP = 10
SEAT_TEXT = 56
SEAT_GAP = 8
CAPTION_LINE = 22
BADGE_W = 96
COMPACT_LABEL = 40
CACHE_SIZE = 128

# Bands kept deflated: a table's next state mostly repeats its last one's. A band is
# a few KB; this holds the recent states of a few hundred tables.
BAND_ENTRIES = 8192
BAND_BYTES = 16 * 1024 * 1024

Box = tuple[int, int, int, int]
Format = Literal["png", "webp"]


@dataclass
class Canvas:
    image: Image.Image
    texts: list[Box] = field(default_factory=list)
    language: str = "en"  # the scene's: the card faces' letters
    # Where x = 0 lies on the image: 1 for a band, whose column 0 is each row's PNG
    # filter byte (0, "none", which is also the felt's palette entry).
    dx: int = 0

    def text(self, xy: tuple[float, float], text: str, size: int, width: float,
             fill: RGB = INK, bold: bool = False, anchor: str = "la",
             ground: RGB = FELT) -> None:
        """Paste ``text`` cut to ``width`` pixels, as drawn on ``ground``, and remember
        its bounding box."""
        shown = fit(text, size, bold, max(0, int(width)))
        if not shown:
            return
        found = sprites.words(shown, size, bold, fill, ground, anchor)
        # Whole pixels: a text's sprite is drawn once, not once per sub-pixel offset.
        x0, y0 = _whole(xy[0]) + found.dx, _whole(xy[1]) + found.dy
        w, h = _paste(self.image, found, x0 + self.dx, y0)
        self.texts.append((x0, y0, x0 + w, y0 + h))

    def card(self, card: Card, x: float, y: float, size: str, mark: str | None = None,
             ground: RGB = FELT) -> None:
        found = sprites.card(card.code, size, card.mark if mark is None else mark,
                             self.language, ground)
        _paste(self.image, found, int(x) + self.dx, int(y))

    def box(self, box: Box, radius: int, fill: RGB, outline: RGB | None = None,
            width: int = 1, ground: RGB = FELT) -> None:
        """A rectangle (rounded by ``radius``) filled and outlined, lying on ``ground``."""
        x0, y0, x1, y1 = box
        found = sprites.box(x1 - x0 + 1, y1 - y0 + 1, radius, fill, outline, width, ground)
        _paste(self.image, found, x0 + self.dx, y0)


def _paste(image: Image.Image, found: sprites.Sprite, x: int, y: int) -> tuple[int, int]:
    """``found`` pasted at (x, y) through its mask; returns its size. Straight to Pillow's
    core: ``Image.paste`` checks and converts on every call, which cost more than the
    copy itself (both images are in the palette, the box is the sprite's own size, and
    the core clips it to the picture)."""
    w, h = found.image.size
    if found.mask is None:
        image.im.paste(found.image.im, (x, y, x + w, y + h))
    else:
        image.im.paste(found.image.im, (x, y, x + w, y + h), found.mask.im)
    return w, h


def _whole(value: float) -> int:
    return math.floor(value + 0.5)


def zone_height(zone: Zone) -> int:
    if zone.compact:
        return RAISE + SIZES[zone.size][1] + ZONE_GAP
    return LABEL_H + RAISE + SIZES[zone.size][1] + CAPTION_H + ZONE_GAP


def seat_height(scene: Scene) -> int:
    return SEAT_TEXT + (SIZES["tiny"][1] + 10 if scene.seat_cards else 0)


def size_of(scene: Scene) -> tuple[int, int]:
    """The image's (width, height): fixed by the scene's structure alone."""
    rows = math.ceil(len(scene.seats) / max(1, scene.seat_columns))
    height = HEADER + 8 + sum(zone_height(z) for z in scene.zones)
    height += rows * (seat_height(scene) + SEAT_GAP) + len(scene.captions) * CAPTION_LINE
    return WIDTH, height + MARGIN


# A band of the picture: a key that fixes everything it shows, its height, and how to
# draw it with its top at a given y.
Painter = Callable[[Canvas, int], None]
Band = tuple[Hashable, int, Painter]


def bands(scene: Scene) -> list[Band]:
    """The picture as bands, top to bottom: the header, each zone, each row of seats, the
    captions with the bottom margin. Nothing is drawn across a band's edge, so a band
    looks the same wherever it sits and in whichever picture."""
    out: list[Band] = [(("header", scene.title, scene.heading), HEADER + 8,
                        partial(_header, scene.title, scene.heading))]
    for zone in scene.zones:
        out.append((("zone", zone, scene.language), zone_height(zone), partial(_zone, zone)))
    columns = max(1, scene.seat_columns)
    for first in range(0, len(scene.seats), columns):
        row = scene.seats[first:first + columns]
        out.append((("seats", row, columns, scene.seat_cards, scene.language),
                    seat_height(scene) + SEAT_GAP,
                    partial(_seat_row, row, columns, scene.seat_cards)))
    out.append((("foot", scene.captions), len(scene.captions) * CAPTION_LINE + MARGIN,
                partial(_captions, scene.captions)))
    return out


def paint(scene: Scene) -> Canvas:
    """The scene drawn on a new image; ``texts`` holds every text's box."""
    image = new(size_of(scene), FELT)
    canvas = Canvas(image, language=scene.language)
    y = 0
    for _, height, painter in bands(scene):
        painter(canvas, y)
        y += height
    return canvas


def _header(title: str, heading: str, canvas: Canvas, y: int) -> None:
    canvas.box((0, y, WIDTH - 1, y + HEADER - 1), 0, HEADER_BG)
    canvas.text((MARGIN, y + 10), title, 22, WIDTH - 2 * MARGIN, bold=True, ground=HEADER_BG)
    canvas.text((MARGIN, y + 40), heading, 16, WIDTH - 2 * MARGIN, fill=SOFT,
                ground=HEADER_BG)


def _captions(captions: tuple[str, ...], canvas: Canvas, y: int) -> None:
    for line in captions:
        canvas.text((MARGIN, y + 2), line, 15, WIDTH - 2 * MARGIN, fill=SOFT)
        y += CAPTION_LINE


def _zone(zone: Zone, canvas: Canvas, y: int) -> None:
    w, h = SIZES[zone.size]
    if zone.compact:
        top = y + RAISE
        canvas.text((MARGIN + COMPACT_LABEL / 2, top + h / 2), zone.label, 26, COMPACT_LABEL,
                    bold=True, anchor="mm")
        x = MARGIN + COMPACT_LABEL + 8
    else:
        canvas.text((MARGIN, y), zone.label, 14, WIDTH - 2 * MARGIN, fill=SOFT, bold=True)
        top = y + LABEL_H + RAISE
        x = MARGIN
    if zone.badge:
        _badge(canvas, zone.badge, x, top, h)
        x += BADGE_W + 12
    if zone.backs:
        end = _pile(canvas, zone.backs, x, top, zone.size)
        if not zone.compact:
            canvas.text(((x + end) / 2, top + h + 3), str(zone.backs), 13, w, bold=True,
                        anchor="ma")
        x = int(end) + 14
    note_room = 0
    if zone.note:
        note_room = min(220, int(length(zone.note, 16)) + 16)
    end = _row(canvas, zone, x, top, WIDTH - MARGIN - note_room)
    if zone.note:
        canvas.text((end + 12, top + h / 2), zone.note, 16, WIDTH - MARGIN - end - 12,
                    anchor="lm")


def _row(canvas: Canvas, zone: Zone, x: int, top: int, right: int) -> int:
    """Lay the zone's cards from ``x`` up to ``right``; returns where they end."""
    if not zone.cards:
        return x - 12  # the note then starts where the cards would have
    w, h = SIZES[zone.size]
    slots = zone.slots or tuple(range(len(zone.cards)))
    span = max(zone.span, max(slots) + 1)
    captions = any(c.caption for c in zone.cards)
    spacing = float(w + (40 if captions else 8))
    if span > 1:
        spacing = max(6.0, min(spacing, (right - x - w) / (span - 1)))
    for card, slot in zip(zone.cards, slots, strict=True):
        cx = x + slot * spacing
        canvas.card(card, cx, top - (RAISE if card.mark == "legal" else 0), zone.size)
        if card.caption:
            _caption(canvas, card, cx + w / 2, top + h + 3, spacing - 4 if span > 1 else w + 36)
    return int(x + (span - 1) * spacing + w)


def _caption(canvas: Canvas, card: Card, centre: float, y: float, room: float) -> None:
    """A card's caption centred under it, moved in from the edges by its own width."""
    colour, bold = (GOLD, True) if card.mark == "win" else (INK, False)
    shown = fit(card.caption, 13, bold, max(0, int(room)))
    half = length(shown, 13, bold) / 2
    centre = min(max(centre, MARGIN + half), WIDTH - MARGIN - half)
    canvas.text((centre, y), shown, 13, room, fill=colour, bold=bold, anchor="ma")


def _badge(canvas: Canvas, text: str, x: int, top: int, h: int) -> None:
    canvas.box((x, top, x + BADGE_W, top + h), 10, BADGE_BG, GOLD, 2)
    ink = RED if any(s in text for s in "♥♦") else BLACK
    size = 34 if h >= 80 else 26
    if len(text) == 1:  # a suit symbol alone: make it as big as the tile allows
        size = int(h * 0.62)
    canvas.text((x + BADGE_W / 2, top + h / 2), text, size, BADGE_W - 10, fill=ink,
                bold=True, anchor="mm", ground=BADGE_BG)


def _pile(canvas: Canvas, count: int, x: float, top: float, size: str,
          ground: RGB = FELT) -> float:
    """A small fan of backs (never one per card) with the count under or beside it."""
    w = SIZES[size][0]
    shown = min(count, 4)
    for i in range(shown):
        canvas.card(Card(None), x + 3 * i, top - 2 * i + 2 * (shown - 1), size, "", ground)
    return x + w + 3 * (shown - 1)


def _seat_row(row: tuple[Seat, ...], columns: int, with_cards: bool, canvas: Canvas,
              y: int) -> None:
    box_w = (WIDTH - 2 * MARGIN - (columns - 1) * SEAT_GAP) / columns
    box_h = SEAT_TEXT + (SIZES["tiny"][1] + 10 if with_cards else 0)
    for column, seat in enumerate(row):
        x0 = MARGIN + column * (box_w + SEAT_GAP)
        _seat(canvas, seat, (int(x0), y, int(x0 + box_w), y + box_h), with_cards)


def _seat(canvas: Canvas, seat: Seat, box: Box, with_cards: bool) -> None:
    x0, y0, x1, _ = box
    lit = seat.active or seat.winner
    ground = SEAT_OUT if seat.out else SEAT_BG
    canvas.box(box, 8, ground, GOLD if lit else SEAT_LINE, 3 if lit else 1)
    score_w = length(seat.score, 17, True) + 4 if seat.score else 0
    mark = "▶ " if seat.active else "★ " if seat.winner else ""
    name_fill = GOLD if seat.active or seat.winner else (SOFT if seat.out else INK)
    canvas.text((x0 + 10, y0 + 8), mark + seat.name, 17, x1 - x0 - 28 - score_w,
                fill=name_fill, bold=True, ground=ground)
    if seat.score:
        canvas.text((x1 - 10, y0 + 8), seat.score, 17, score_w, bold=True, anchor="ra",
                    ground=ground)
    canvas.text((x0 + 10, y0 + 32), seat.note, 14, x1 - x0 - 20, fill=SOFT, ground=ground)
    if not with_cards:
        return
    top, x = y0 + SEAT_TEXT, float(x0 + 10)
    w, h = SIZES["tiny"]
    if seat.backs:
        x = _pile(canvas, seat.backs, x, top, "tiny", ground)
        canvas.text((x + 6, top + h / 2), str(seat.backs), 16, 40, bold=True, anchor="lm",
                    ground=ground)
        x += 44
    if seat.cards:
        n = len(seat.cards)
        step = w + 4.0 if n == 1 else min(w + 4.0, (x1 - 10 - x - w) / (n - 1))
        for i, card in enumerate(seat.cards):
            canvas.card(card, x + i * max(step, 4.0), top, "tiny",
                        "dim" if seat.out else None, ground)


def encode(image: Image.Image, fmt: Format = "png") -> bytes:
    """PNG of the palette image as it is (no quantizing: it was drawn in the palette);
    or lossless WebP."""
    if fmt == "webp":
        out = io.BytesIO()
        image.convert("RGB").save(out, "WEBP", lossless=True, method=0)
        return out.getvalue()
    return png.assemble(*image.size, PLTE, [png.piece(png.scanlines(image))])


def _band(height: int, painter: Painter, language: str) -> Image.Image:
    """A band drawn one pixel right of its image's column 0, which stays the felt's
    entry 0: its bytes are then PNG scanlines as they are, filter byte and all."""
    image = new((WIDTH + 1, height), FELT)
    painter(Canvas(image, language=language, dx=1), 0)
    image.paste(0, (0, 0, 1, height))  # whatever was drawn past the left edge
    return image


def _piece(height: int, painter: Painter, language: str) -> png.Piece:
    return png.piece(_band(height, painter, language).tobytes())


_pieces: LRU[Hashable, png.Piece] = LRU(BAND_ENTRIES, BAND_BYTES, lambda p: p.bytes)


def _png(scene: Scene) -> bytes:
    """The PNG from its bands: each drawn and deflated once, then kept (bounded), so
    the next state of a table redoes only the bands that changed."""
    pieces = [_pieces.get(key, partial(_piece, height, painter, scene.language))
              for key, height, painter in bands(scene)]
    return png.assemble(*size_of(scene), PLTE, pieces)


def band_rows(scene: Scene) -> list[bytes]:
    """Each band as PNG scanlines, top to bottom (the benchmark compresses them)."""
    return [_band(height, painter, scene.language).tobytes()
            for _, height, painter in bands(scene)]


def band_stats() -> dict[str, int]:
    return {"bands": len(_pieces), "band_bytes": _pieces.bytes}


def clear_bands() -> None:
    """Forget every kept band (the benchmark's cold pictures; a test's new catalogue)."""
    _pieces.clear()


def _draw(scene: Scene, fmt: Format) -> bytes:
    return _png(scene) if fmt == "png" else encode(paint(scene).image, fmt)


@lru_cache(maxsize=CACHE_SIZE)
def _cached(scene: Scene, fmt: Format) -> bytes:
    return _draw(scene, fmt)


def render(scene: Scene, fmt: Format = "png", cache: bool = True) -> bytes:
    """The scene as image bytes; the same scene is drawn once while it stays cached
    (and ``cache=False`` still gives the very same bytes)."""
    if cache:
        return _cached(scene, fmt)
    return _draw(scene, fmt)
