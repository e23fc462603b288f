"""A ``Scene`` laid out on a green felt and encoded as PNG (or WebP) bytes.

Every text goes through ``Canvas.text``, which cuts it to the box it is given and
records where it landed (the tests check each one lies inside the canvas). Sizes
depend only on the scene's structure: the number of zones and their card size,
the seat rows and the caption lines, never on which cards are shown.
"""

from __future__ import annotations

import io
import math
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Literal

from PIL import Image, ImageDraw

from bot.images.cards import BLACK, GOLD, RED, SIZES, sprite
from bot.images.scene import Card, Scene, Seat, Zone
from bot.images.text import fit, font

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

FELT = (24, 92, 52)
HEADER_BG = (16, 64, 36)
SEAT_BG = (18, 74, 42)
SEAT_OUT = (40, 52, 46)
INK = (245, 245, 240)
SOFT = (200, 226, 208)
BADGE_BG = (250, 246, 232)

Box = tuple[int, int, int, int]
Format = Literal["png", "webp"]


@dataclass
class Canvas:
    image: Image.Image
    draw: ImageDraw.ImageDraw
    texts: list[Box] = field(default_factory=list)
    language: str = "en"  # the scene's: the card faces' letters

    def text(self, xy: tuple[float, float], text: str, size: int, width: float,
             fill: tuple[int, int, int] = INK, bold: bool = False, anchor: str = "la") -> None:
        """Draw ``text`` cut to ``width`` pixels and remember its bounding box."""
        shown = fit(text, size, bold, max(0, int(width)))
        if not shown:
            return
        face = font(size, bold)
        self.draw.text(xy, shown, font=face, fill=fill, anchor=anchor)
        box = self.draw.textbbox(xy, shown, font=face, anchor=anchor)
        self.texts.append((math.floor(box[0]), math.floor(box[1]), math.ceil(box[2]),
                           math.ceil(box[3])))

    def card(self, card: Card, x: float, y: float, size: str, mark: str | None = None) -> None:
        image = sprite(card.code, size, card.mark if mark is None else mark, self.language)
        self.image.paste(image, (int(x), int(y)), image)


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


def paint(scene: Scene) -> Canvas:
    """The scene drawn on a new image; ``texts`` holds every text's box."""
    image = Image.new("RGB", size_of(scene), FELT)
    canvas = Canvas(image, ImageDraw.Draw(image), language=scene.language)
    canvas.draw.rectangle((0, 0, WIDTH, HEADER - 1), fill=HEADER_BG)
    canvas.text((MARGIN, 10), scene.title, 22, WIDTH - 2 * MARGIN, bold=True)
    canvas.text((MARGIN, 40), scene.heading, 16, WIDTH - 2 * MARGIN, fill=SOFT)
    y = HEADER + 8
    for zone in scene.zones:
        _zone(canvas, zone, y)
        y += zone_height(zone)
    y = _seats(canvas, scene, y)
    for line in scene.captions:
        canvas.text((MARGIN, y + 2), line, 15, WIDTH - 2 * MARGIN, fill=SOFT)
        y += CAPTION_LINE
    return canvas


def _zone(canvas: Canvas, zone: Zone, y: int) -> None:
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
        note_room = min(220, int(font(16).getlength(zone.note)) + 16)
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
    half = font(13, bold).getlength(shown) / 2
    centre = min(max(centre, MARGIN + half), WIDTH - MARGIN - half)
    canvas.text((centre, y), shown, 13, room, fill=colour, bold=bold, anchor="ma")


def _badge(canvas: Canvas, text: str, x: int, top: int, h: int) -> None:
    canvas.draw.rounded_rectangle((x, top, x + BADGE_W, top + h), 10, fill=BADGE_BG,
                                  outline=GOLD, width=2)
    ink = RED if any(s in text for s in "♥♦") else BLACK
    size = 34 if h >= 80 else 26
    if len(text) == 1:  # a suit symbol alone: make it as big as the tile allows
        size = int(h * 0.62)
    canvas.text((x + BADGE_W / 2, top + h / 2), text, size, BADGE_W - 10, fill=ink,
                bold=True, anchor="mm")


def _pile(canvas: Canvas, count: int, x: float, top: float, size: str) -> float:
    """A small fan of backs (never one per card) with the count under or beside it."""
    w = SIZES[size][0]
    shown = min(count, 4)
    for i in range(shown):
        canvas.card(Card(None), x + 3 * i, top - 2 * i + 2 * (shown - 1), size, "")
    return x + w + 3 * (shown - 1)


def _seats(canvas: Canvas, scene: Scene, y: int) -> int:
    columns = max(1, scene.seat_columns)
    box_w = (WIDTH - 2 * MARGIN - (columns - 1) * SEAT_GAP) / columns
    box_h = seat_height(scene)
    for i, seat in enumerate(scene.seats):
        row, column = divmod(i, columns)
        x0 = MARGIN + column * (box_w + SEAT_GAP)
        y0 = y + row * (box_h + SEAT_GAP)
        _seat(canvas, seat, (int(x0), int(y0), int(x0 + box_w), int(y0 + box_h)),
              scene.seat_cards)
    rows = math.ceil(len(scene.seats) / columns)
    return y + rows * (box_h + SEAT_GAP)


def _seat(canvas: Canvas, seat: Seat, box: Box, with_cards: bool) -> None:
    x0, y0, x1, _ = box
    lit = seat.active or seat.winner
    canvas.draw.rounded_rectangle(box, 8, fill=SEAT_OUT if seat.out else SEAT_BG,
                                  outline=GOLD if lit else (60, 120, 80), width=3 if lit else 1)
    score_w = font(17, True).getlength(seat.score) + 4 if seat.score else 0
    mark = "▶ " if seat.active else "★ " if seat.winner else ""
    name_fill = GOLD if seat.active or seat.winner else (SOFT if seat.out else INK)
    canvas.text((x0 + 10, y0 + 8), mark + seat.name, 17, x1 - x0 - 28 - score_w,
                fill=name_fill, bold=True)
    if seat.score:
        canvas.text((x1 - 10, y0 + 8), seat.score, 17, score_w, bold=True, anchor="ra")
    canvas.text((x0 + 10, y0 + 32), seat.note, 14, x1 - x0 - 20, fill=SOFT)
    if not with_cards:
        return
    top, x = y0 + SEAT_TEXT, float(x0 + 10)
    w, h = SIZES["tiny"]
    if seat.backs:
        x = _pile(canvas, seat.backs, x, top, "tiny")
        canvas.text((x + 6, top + h / 2), str(seat.backs), 16, 40, bold=True, anchor="lm")
        x += 44
    if seat.cards:
        n = len(seat.cards)
        step = w + 4.0 if n == 1 else min(w + 4.0, (x1 - 10 - x - w) / (n - 1))
        for i, card in enumerate(seat.cards):
            canvas.card(card, x + i * max(step, 4.0), top, "tiny",
                        "dim" if seat.out else None)


def encode(image: Image.Image, fmt: Format = "png") -> bytes:
    """PNG of the image cut to 256 colours (flat felt, a few inks: nothing visible is lost,
    and it is both smaller and faster to compress than full colour); or lossless WebP."""
    out = io.BytesIO()
    if fmt == "webp":
        image.save(out, "WEBP", lossless=True, method=0)
    else:
        palette = image.quantize(256, Image.Quantize.FASTOCTREE, dither=Image.Dither.NONE)
        palette.save(out, "PNG", compress_level=3)
    return out.getvalue()


@lru_cache(maxsize=CACHE_SIZE)
def _cached(scene: Scene, fmt: Format) -> bytes:
    return encode(paint(scene).image, fmt)


def render(scene: Scene, fmt: Format = "png", cache: bool = True) -> bytes:
    """The scene as image bytes; the same scene is drawn once while it stays cached."""
    if cache:
        return _cached(scene, fmt)
    return encode(paint(scene).image, fmt)
