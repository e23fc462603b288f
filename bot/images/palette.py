"""The one fixed palette every picture is drawn in, so no picture is ever quantized.

The table has few colours: flat fills (felt, header, seat boxes, the badge), a few
inks (text, suits, gold marks) and the card colours, each also dimmed. What needs
more are the soft edges where an ink meets what it is drawn on (anti-aliased
text, glyphs and card corners): every such pair gets a ramp of shades between its
two ends, text on each background the most. The palette is built from these
constants alone, so it is the same in every process; pictures are drawn in it
directly (fills by index, sprites mapped to it once when first drawn).
"""

from __future__ import annotations

from collections.abc import Iterable

from PIL import Image

RGB = tuple[int, int, int]

# The table.
FELT = (24, 92, 52)
HEADER_BG = (16, 64, 36)
SEAT_BG = (18, 74, 42)
SEAT_OUT = (40, 52, 46)
SEAT_LINE = (60, 120, 80)
INK = (245, 245, 240)
SOFT = (200, 226, 208)
BADGE_BG = (250, 246, 232)
# The cards.
FACE = (252, 252, 250)
EDGE = (120, 120, 120)
RED = (200, 30, 40)
BLACK = (20, 20, 24)
JOKER_INK = (110, 40, 160)
BACK = (32, 58, 140)
BACK_LINE = (78, 108, 196)
BACK_BORDER = (240, 240, 240)
GOLD = (246, 196, 60)
DIM = (60, 60, 60, 150)  # laid over a card that may not be played now

# Where text is drawn: (ink, background).
TEXT_PAIRS: tuple[tuple[RGB, RGB], ...] = (
    (INK, HEADER_BG), (SOFT, HEADER_BG),
    (INK, FELT), (SOFT, FELT), (GOLD, FELT),
    (INK, SEAT_BG), (SOFT, SEAT_BG), (GOLD, SEAT_BG),
    (INK, SEAT_OUT), (SOFT, SEAT_OUT), (GOLD, SEAT_OUT),
    (RED, BADGE_BG), (BLACK, BADGE_BG),
)
# What cards lie on: zones on the felt, a seat's cards in its box.
CARD_GROUNDS = (FELT, SEAT_BG, SEAT_OUT)
TEXT_SHADES = 9  # between ink and background: text is most of what the eye reads
FACE_SHADES = 6
EDGE_SHADES = 2
SIZE = 256


def dimmed(colour: RGB) -> RGB:
    """``colour`` under the DIM shade, as ``Image.alpha_composite`` gives it."""
    alpha = DIM[3] / 255
    return tuple(round(c * (1 - alpha) + d * alpha)  # type: ignore[return-value]
                 for c, d in zip(colour, DIM[:3], strict=True))


def blend(ground: RGB, ink: RGB, share: float) -> RGB:
    return tuple(round(g + (i - g) * share)  # type: ignore[return-value]
                 for g, i in zip(ground, ink, strict=True))


def _ramp(ink: RGB, ground: RGB, shades: int) -> list[RGB]:
    return [blend(ground, ink, step / (shades + 1)) for step in range(1, shades + 1)]


def _ramps() -> list[tuple[RGB, RGB, int]]:
    """Every (ink, ground, shades) whose edge is drawn, the card ones also dimmed."""
    ramps = [(ink, ground, TEXT_SHADES) for ink, ground in TEXT_PAIRS]
    card: list[tuple[RGB, RGB, int]] = [
        *((ink, FACE, FACE_SHADES) for ink in (RED, BLACK, JOKER_INK, EDGE, GOLD)),
        (BACK_LINE, BACK, 4), (BACK_BORDER, BACK, 4),
        *((ink, ground, EDGE_SHADES) for ground in CARD_GROUNDS
          for ink in (EDGE, BACK_BORDER, GOLD)),
    ]
    ramps += card
    for ink, ground, shades in card:
        if ground in CARD_GROUNDS:  # the ground stays; the card's edge is dimmed
            ramps.append((dimmed(ink), ground, shades))
        else:
            ramps.append((dimmed(ink), dimmed(ground), max(2, shades - 2)))
    return ramps


def _colours() -> list[RGB]:
    bases = [FELT, HEADER_BG, SEAT_BG, SEAT_OUT, SEAT_LINE, INK, SOFT, BADGE_BG]
    cards = [FACE, EDGE, RED, BLACK, JOKER_INK, BACK, BACK_LINE, BACK_BORDER, GOLD]
    colours = _unique([*bases, *cards, *(dimmed(c) for c in cards)])
    for ink, ground, shades in _ramps():
        colours = _unique([*colours, *_ramp(ink, ground, shades)])
    if len(colours) > SIZE:  # a programmer's change: give the ramps fewer shades
        raise ValueError(f"the palette needs {len(colours)} colours, more than {SIZE}")
    return colours


def _unique(colours: Iterable[RGB]) -> list[RGB]:
    return list(dict.fromkeys(colours))


COLOURS: tuple[RGB, ...] = tuple(_colours())
INDEX: dict[RGB, int] = {colour: i for i, colour in enumerate(COLOURS)}
# Padded with the felt: a spare entry repeats a colour rather than adding black.
DATA = bytes(c for colour in (*COLOURS, *[FELT] * (SIZE - len(COLOURS))) for c in colour)
PLTE = DATA[:3 * len(COLOURS)]  # a PNG's palette: the entries a pixel can use


def index(colour: RGB) -> int:
    """The palette entry of one of the named colours (a KeyError for any other)."""
    return INDEX[colour]


def new(size: tuple[int, int], ground: RGB) -> Image.Image:
    """A blank picture in the palette, filled with ``ground``."""
    image = Image.new("P", size, index(ground))
    image.putpalette(DATA)
    return image


def _reference() -> Image.Image:
    image = Image.new("P", (1, 1))
    image.putpalette(DATA)
    return image


_REFERENCE = _reference()


def mapped(image: Image.Image) -> Image.Image:
    """An RGB image in the palette, each pixel its nearest entry by Pillow's palette
    lookup (no dithering): for a sprite, once when it is first drawn. The lookup rounds
    colours to a grid first, so a pixel may take a neighbour of its nearest entry: a
    shade or two off, which no eye sees, and the same in every process."""
    return image.convert("RGB").quantize(palette=_REFERENCE, dither=Image.Dither.NONE)


def shades(ink: RGB, ground: RGB) -> tuple[int, ...]:
    """For each coverage 0..255 of ``ink`` over ``ground``, its palette entry: how an
    anti-aliased glyph mask becomes palette pixels. A pair with a ramp steps along it
    (exactly); any other pair takes the nearest entries."""
    ramp = _RAMPS.get((ink, ground))
    if ramp is not None:
        last = len(ramp) - 1
        return tuple(ramp[(a * last + 127) // 255] for a in range(256))
    strip = Image.new("RGB", (256, 1))
    strip.putdata([blend(ground, ink, a / 255) for a in range(256)])
    return tuple(mapped(strip).tobytes())


def _ramp_entries() -> dict[tuple[RGB, RGB], list[int]]:
    """(ink, ground) -> the entries from the ground to the ink, both ends included; a pair
    with two ramps (gold text on the felt, a gold card edge on it) steps along the finer."""
    out: dict[tuple[RGB, RGB], list[int]] = {}
    for ink, ground, count in sorted(_ramps(), key=lambda ramp: ramp[2]):
        out[ink, ground] = [INDEX[ground], *(INDEX[c] for c in _ramp(ink, ground, count)),
                            INDEX[ink]]
    return out


_RAMPS = _ramp_entries()
