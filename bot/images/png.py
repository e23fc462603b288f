"""PNG files written from bands of rows compressed on their own, so a band that did not
change is never compressed again.

A picture is a column of bands (its header, each zone, each row of seats, the
captions). Each band's rows are deflated alone and ended with a sync flush: a
deflate stream may be cut there and joined to another, since no band looks back into
the one before it. The picture's IDAT is then the zlib header, the bands' deflated
bytes one after another, an empty final block, and the Adler-32 of all the rows,
combined from each band's own. The bytes depend only on the rows: a band compressed
now or taken from a cache gives the same file.
"""

from __future__ import annotations

import struct
import zlib
from dataclasses import dataclass

from PIL import Image

SIGNATURE = b"\x89PNG\r\n\x1a\n"
# zlib level and strategy, chosen by measuring time against size on every game's
# pictures (``python -m benchmarks images --encoders``, 526 pictures): levels 1-3 take
# the same time (a whole picture ~0.95 ms), level 2 is 4 % smaller than 1, level 3 3 %
# smaller again but 5-10 % slower; 6 is 25 % smaller but 2.7 times slower, 9 twenty
# times. The RLE, filtered and fixed strategies are no faster and larger.
LEVEL = 2
STRATEGY = zlib.Z_DEFAULT_STRATEGY
_ZLIB_HEADER = b"\x78\x01"  # deflate, 32 KB window, "fastest"; a multiple of 31
_FINAL = b"\x03\x00"  # an empty last block (fixed codes)
_BASE = 65521  # Adler-32's modulus


@dataclass(frozen=True)
class Piece:
    """A band of rows, deflated: its bytes, the Adler-32 and the length of its rows."""

    data: bytes
    adler: int
    size: int

    @property
    def bytes(self) -> int:
        return len(self.data) + 64


def scanlines(image: Image.Image) -> bytes:
    """A palette image's rows, each behind PNG's filter byte 0 ("none": a palette
    picture gains nothing from the others)."""
    width, height = image.size
    pixels = image.tobytes()
    return b"".join(b"\x00" + pixels[i:i + width] for i in range(0, width * height, width))


def piece(rows: bytes, level: int = LEVEL, strategy: int = STRATEGY) -> Piece:
    """Scanlines (filter bytes included) deflated on their own."""
    packer = zlib.compressobj(level, zlib.DEFLATED, -15, 9, strategy)
    data = packer.compress(rows) + packer.flush(zlib.Z_SYNC_FLUSH)
    return Piece(data, zlib.adler32(rows), len(rows))


def adler_combine(first: int, second: int, second_size: int) -> int:
    """The Adler-32 of two byte strings one after the other, from each one's own
    (zlib's adler32_combine: the running sum of the first is counted once more for
    every byte of the second)."""
    a1, b1 = first & 0xFFFF, first >> 16
    a2, b2 = second & 0xFFFF, second >> 16
    a = (a1 + a2 - 1) % _BASE
    b = (b1 + b2 + second_size * (a1 - 1)) % _BASE
    return a | (b << 16)


def assemble(width: int, height: int, palette: bytes, pieces: list[Piece]) -> bytes:
    """A whole PNG file (8-bit palette, not interlaced) from its bands, top to bottom."""
    adler = 1
    for part in pieces:
        adler = adler_combine(adler, part.adler, part.size)
    idat = b"".join([_ZLIB_HEADER, *(p.data for p in pieces), _FINAL,
                     struct.pack(">I", adler)])
    header = struct.pack(">IIBBBBB", width, height, 8, 3, 0, 0, 0)
    return b"".join([SIGNATURE, _chunk(b"IHDR", header), _chunk(b"PLTE", palette),
                     _chunk(b"IDAT", idat), _chunk(b"IEND", b"")])


def _chunk(kind: bytes, data: bytes) -> bytes:
    return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))
