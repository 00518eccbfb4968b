"""Make every icon file the installers need from resources/icons, at build time.

    python packaging/icons.py OUT_DIR

writes ``OUT_DIR/hicolor/<n>x<n>/apps/acai-desktop.png`` for the hicolor theme sizes
(scaled down from the 256 px PNG with Qt; no size is scaled up), the SVG as
``hicolor/scalable/apps``, and, for builds on other platforms, ``acai-desktop.ico``
(Windows) and ``acai-desktop.icns`` (macOS). Both containers hold PNG images, which
Windows Vista and later and macOS 10.7 and later read, so no image library beyond Qt is
needed.
"""

from __future__ import annotations

import shutil
import struct
import sys
from pathlib import Path

from PySide6.QtCore import QBuffer, QByteArray, QIODevice, Qt
from PySide6.QtGui import QImage

NAME = "acai-desktop"
SOURCE = Path(__file__).resolve().parents[1] / "resources" / "icons"
HICOLOR_SIZES = (16, 24, 32, 48, 64, 128, 256)
ICO_SIZES = (16, 24, 32, 48, 64, 128, 256)
# icns element types holding PNG data, by pixel size.
ICNS_TYPES = {16: b"icp4", 32: b"icp5", 64: b"icp6", 128: b"ic07", 256: b"ic08"}


def png_bytes(image: QImage, size: int) -> bytes:
    if image.width() != size:
        image = image.scaled(
            size,
            size,
            Qt.AspectRatioMode.KeepAspectRatio,
            Qt.TransformationMode.SmoothTransformation,
        )
    data = QByteArray()
    buffer = QBuffer(data)
    buffer.open(QIODevice.OpenModeFlag.WriteOnly)
    if not image.save(buffer, "PNG"):
        raise RuntimeError(f"could not encode a {size} px PNG")
    return bytes(data.data())


def ico(images: dict[int, bytes]) -> bytes:
    """An ICO file with PNG-compressed entries (a width/height byte of 0 means 256)."""
    header = struct.pack("<HHH", 0, 1, len(images))
    entries, blobs = b"", b""
    offset = len(header) + 16 * len(images)
    for size, blob in sorted(images.items()):
        entries += struct.pack("<BBBBHHII", size % 256, size % 256, 0, 0, 1, 32, len(blob), offset)
        blobs += blob
        offset += len(blob)
    return header + entries + blobs


def icns(images: dict[int, bytes]) -> bytes:
    body = b"".join(
        ICNS_TYPES[size] + struct.pack(">I", 8 + len(blob)) + blob
        for size, blob in sorted(images.items())
    )
    return b"icns" + struct.pack(">I", 8 + len(body)) + body


def main(out: Path) -> None:
    image = QImage(str(SOURCE / f"{NAME}.png"))
    if image.isNull() or image.width() != image.height():
        raise SystemExit(f"icons: {SOURCE / f'{NAME}.png'} is not a square image")
    largest = image.width()
    sizes = [size for size in HICOLOR_SIZES if size <= largest]
    pngs = {size: png_bytes(image, size) for size in sorted(set(sizes) | set(ICNS_TYPES))}
    for size in sizes:
        target = out / "hicolor" / f"{size}x{size}" / "apps" / f"{NAME}.png"
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_bytes(pngs[size])
    scalable = out / "hicolor" / "scalable" / "apps"
    scalable.mkdir(parents=True, exist_ok=True)
    shutil.copyfile(SOURCE / f"{NAME}.svg", scalable / f"{NAME}.svg")
    (out / f"{NAME}.ico").write_bytes(ico({s: pngs[s] for s in ICO_SIZES if s in pngs}))
    (out / f"{NAME}.icns").write_bytes(icns({s: pngs[s] for s in ICNS_TYPES if s <= largest}))
    print(f"icons: hicolor {', '.join(map(str, sizes))} px + scalable, .ico, .icns in {out}")


if __name__ == "__main__":
    if len(sys.argv) != 2:
        raise SystemExit("usage: python packaging/icons.py OUT_DIR")
    main(Path(sys.argv[1]))
