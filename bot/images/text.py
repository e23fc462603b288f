"""Fonts shipped with the package (DejaVu Sans, see fonts/README.md) and text that fits.

Names come from Discord and may hold emoji or scripts the font lacks: a glyph the
font does not have is dropped (it would draw as an empty box), and every text is
cut with an ellipsis to the width it is given, measured with the font itself.

Measuring and cutting are cached (a picture's words mostly repeat from one state to
the next), and every use of a font object holds ``FONT_LOCK``: FreeType faces are
not made to be used from two threads at once, and pictures may be drawn in workers.
"""

from __future__ import annotations

import os
import threading
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
FONT_LOCK = threading.RLock()
FIT_CACHE = 8192


def _new_lock_in_child() -> None:
    # A forked child gets the lock as it was at the fork, perhaps held by a thread the
    # child does not have.
    global FONT_LOCK
    FONT_LOCK = threading.RLock()


if hasattr(os, "register_at_fork"):
    os.register_at_fork(after_in_child=_new_lock_in_child)


@lru_cache(maxsize=64)
def font(size: int, bold: bool = False) -> Font:
    # libraqm when Pillow has it (shaping: Arabic joined, marks placed), else BASIC.
    return ImageFont.truetype(str(BOLD if bold else REGULAR), size, layout_engine=LAYOUT)


@lru_cache(maxsize=4096)
def _has_glyph(char: str, bold: bool) -> bool:
    with FONT_LOCK:
        probe = font(24, bold)
        mask = probe.getmask(char)
        missing = probe.getmask(_NOT_A_GLYPH)
        return bool(mask.size != missing.size or bytes(mask) != bytes(missing))


@lru_cache(maxsize=FIT_CACHE)
def length(text: str, size: int, bold: bool = False) -> float:
    """The advance width of ``text`` in pixels (cached: the same words come back)."""
    with FONT_LOCK:
        return font(size, bold).getlength(text)


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


@lru_cache(maxsize=FIT_CACHE)
def fit(text: str, size: int, bold: bool, width: int) -> str:
    """``text`` cleaned and cut (with an ellipsis) to at most ``width`` pixels (cached)."""
    with FONT_LOCK:
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
