"""The add-in's ribbon and store icons, drawn as PNG at request time (no binary files in the repo)."""

from __future__ import annotations

import struct
import zlib
from functools import cache

BLUE = (0x1F, 0x5F, 0xAD)
WHITE = (0xFF, 0xFF, 0xFF)
YELLOW = (0xFF, 0xD9, 0x66)


def _chunk(kind: bytes, data: bytes) -> bytes:
    return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))


def _pixel(x: int, y: int, size: int) -> tuple[int, int, int]:
    """A 3×3 grid of white cells on blue, the middle-right cell in the answer colour."""
    cell = size / 3
    border = max(1, size // 16)
    cx, cy = int(x // cell), int(y // cell)
    if x % cell < border or y % cell < border or x >= size - border or y >= size - border:
        return BLUE
    return YELLOW if (cx, cy) == (2, 1) else WHITE


@cache
def icon_png(size: int) -> bytes:
    """A `size`×`size` RGB PNG."""
    rows = b"".join(b"\x00" + b"".join(bytes(_pixel(x, y, size)) for x in range(size)) for y in range(size))
    header = struct.pack(">IIBBBBB", size, size, 8, 2, 0, 0, 0)
    return (
        b"\x89PNG\r\n\x1a\n"
        + _chunk(b"IHDR", header)
        + _chunk(b"IDAT", zlib.compress(rows, 9))
        + _chunk(b"IEND", b"")
    )
