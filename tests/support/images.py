"""Small real images for the tests, without an image library: a PNG written here (zlib
and CRCs, as the format says), and a JPEG, a WebP (lossy and lossless) and a GIF that Qt
and a classic 1×1 GIF wrote once, kept as base64."""

from __future__ import annotations

import base64
import struct
import zlib
from pathlib import Path

#: 3×2 pixels, orange, as Qt writes them.
JPEG_3X2 = base64.b64decode(
    "/9j/4AAQSkZJRgABAQEAZABkAAD/2wBDABALDA4MChAODQ4SERATGCgaGBYWGDEjJR0oOjM9PDkzODdASFxOQERX"
    "RTc4UG1RV19iZ2hnPk1xeXBkeFxlZ2P/2wBDARESEhgVGC8aGi9jQjhCY2NjY2NjY2NjY2NjY2NjY2NjY2NjY2Nj"
    "Y2NjY2NjY2NjY2NjY2NjY2NjY2NjY2NjY2P/wAARCAACAAMDASIAAhEBAxEB/8QAHwAAAQUBAQEBAQEAAAAAAAAA"
    "AAECAwQFBgcICQoL/8QAtRAAAgEDAwIEAwUFBAQAAAF9AQIDAAQRBRIhMUEGE1FhByJxFDKBkaEII0KxwRVS0fAk"
    "M2JyggkKFhcYGRolJicoKSo0NTY3ODk6Q0RFRkdISUpTVFVWV1hZWmNkZWZnaGlqc3R1dnd4eXqDhIWGh4iJipKT"
    "lJWWl5iZmqKjpKWmp6ipqrKztLW2t7i5usLDxMXGx8jJytLT1NXW19jZ2uHi4+Tl5ufo6erx8vP09fb3+Pn6/8QA"
    "HwEAAwEBAQEBAQEBAQAAAAAAAAECAwQFBgcICQoL/8QAtREAAgECBAQDBAcFBAQAAQJ3AAECAxEEBSExBhJBUQdh"
    "cRMiMoEIFEKRobHBCSMzUvAVYnLRChYkNOEl8RcYGRomJygpKjU2Nzg5OkNERUZHSElKU1RVVldYWVpjZGVmZ2hp"
    "anN0dXZ3eHl6goOEhYaHiImKkpOUlZaXmJmaoqOkpaanqKmqsrO0tba3uLm6wsPExcbHyMnK0tPU1dbX2Nna4uPk"
    "5ebn6Onq8vP09fb3+Pn6/9oADAMBAAIRAxEAPwDXooor5E9s/9k="
)
WEBP_LOSSLESS_3X2 = base64.b64decode("UklGRhwAAABXRUJQVlA4TBAAAAAvAkAAAAfQ0v5H/wMR0f8A")
WEBP_LOSSY_3X2 = base64.b64decode(
    "UklGRjoAAABXRUJQVlA4IC4AAADQAQCdASoDAAIAAsBMJaACdLoB+AADsAD+7APf/U4/Jx+Tj+vt/8Qz0epowAAA"
)
GIF_1X1 = base64.b64decode("R0lGODlhAQABAIAAAAAAAP///yH5BAEAAAAALAAAAAABAAEAAAIBRAA7")


def _chunk(kind: bytes, body: bytes) -> bytes:
    return struct.pack(">I", len(body)) + kind + body + struct.pack(">I", zlib.crc32(kind + body))


def png_bytes(width: int = 4, height: int = 3, rgb: tuple[int, int, int] = (200, 60, 20)) -> bytes:
    """A whole PNG of one colour."""
    row = b"\x00" + bytes(rgb) * width
    header = struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0)
    return (
        b"\x89PNG\r\n\x1a\n"
        + _chunk(b"IHDR", header)
        + _chunk(b"IDAT", zlib.compress(row * height))
        + _chunk(b"IEND", b"")
    )


def write_png(path: Path, width: int = 4, height: int = 3, rgb=(200, 60, 20)) -> bytes:
    data = png_bytes(width, height, rgb)
    path.write_bytes(data)
    return data


def data_url_of(data: bytes, mime: str = "image/png") -> str:
    return f"data:{mime};base64,{base64.b64encode(data).decode('ascii')}"
