"""Fonts shipped with the package (DejaVu Sans, see fonts/README.md) and text that fits.

Names come from Discord and may hold emoji or scripts the font lacks: a glyph the
font does not have is dropped (it would draw as an empty box), and every text is
cut with an ellipsis to the width it is given, measured with the font itself.
"""

from __future__ import annotations

import unicodedata
from functools import lru_cache
from pathlib import Path

from PIL import ImageFont, features

FONTS = Path(__file__).resolve().parent / "fonts"
REGULAR = FONTS / "DejaVuSans.ttf"
BOLD = FONTS / "DejaVuSans-Bold.ttf"
ELLIPSIS = "…"
_NOT_A_GLYPH = "\U0010fffd"  # a private-use code point: DejaVu draws its "missing" box

Font = ImageFont.FreeTypeFont
LAYOUT = ImageFont.Layout.RAQM if features.check_feature("raqm") else ImageFont.Layout.BASIC


@lru_cache(maxsize=64)
def font(size: int, bold: bool = False) -> Font:
    # BASIC layout: the same output wherever the package runs, with or without libraqm.
    return ImageFont.truetype(str(BOLD if bold else REGULAR), size, layout_engine=LAYOUT)


@lru_cache(maxsize=4096)
def _has_glyph(char: str, bold: bool) -> bool:
    probe = font(24, bold)
    mask = probe.getmask(char)
    missing = probe.getmask(_NOT_A_GLYPH)
    return bool(mask.size != missing.size or bytes(mask) != bytes(missing))


def clean(text: str, bold: bool = False) -> str:
    """``text`` without control or format characters, spaces collapsed, and each run of
    characters the font lacks shown as one "?" (an empty box says less)."""
    kept: list[str] = []
    for char in text:
        if char.isspace():
            kept.append(" ")
        elif unicodedata.category(char)[0] == "C":
            continue
        elif _has_glyph(char, bold):
            kept.append(char)
        elif not kept or kept[-1] != "?":
            kept.append("?")
    return " ".join("".join(kept).split())


def fit(text: str, size: int, bold: bool, width: int) -> str:
    """``text`` cleaned and cut (with an ellipsis) to at most ``width`` pixels."""
    face = font(size, bold)
    out = clean(text, bold)
    if face.getlength(out) <= width:
        return out
    low, high = 0, len(out)  # the longest prefix that fits beside the ellipsis
    while low < high:
        middle = (low + high + 1) // 2
        if face.getlength(out[:middle].rstrip() + ELLIPSIS) <= width:
            low = middle
        else:
            high = middle - 1
    if low == 0:
        return ELLIPSIS if face.getlength(ELLIPSIS) <= width else ""
    return out[:low].rstrip() + ELLIPSIS
