"""Thumbnails of the images attached in chats: decoded off the UI thread (a 20 MB photo
takes a noticeable moment to decode), scaled down as they are read, and kept per
document for the composer's chips and the messages that carried them. A pasted image
is encoded as PNG off the UI thread too.

``QImage`` and ``QImageReader`` may be used on any thread (``QPixmap`` may not): the
worker makes the image, the UI thread turns it into what it paints.
"""

from __future__ import annotations

import asyncio
from collections.abc import Iterable

from PySide6.QtCore import QBuffer, QIODevice, QSize, Qt
from PySide6.QtGui import QImage, QImageReader

from acai_desktop.core.documents.images import IMAGE_KIND
from acai_desktop.core.documents.model import Document

#: The longest side a thumbnail is decoded at: a bubble shows it at up to 160 logical
#: pixels, twice that on a high-density screen.
THUMBNAIL_EDGE = 320


def load_thumbnail(path: str, edge: int = THUMBNAIL_EDGE) -> QImage:
    """The image at ``path`` scaled to fit ``edge`` (turned as its EXIF says); a null
    QImage when it can't be decoded. Any thread."""
    reader = QImageReader(path)
    reader.setAutoTransform(True)
    size = reader.size()
    if size.isValid() and max(size.width(), size.height()) > edge:
        reader.setScaledSize(size.scaled(QSize(edge, edge), Qt.AspectRatioMode.KeepAspectRatio))
    return reader.read()


def png_bytes(image: QImage) -> bytes:
    """``image`` (a paste from the clipboard) as PNG. Any thread."""
    buffer = QBuffer()
    buffer.open(QIODevice.OpenModeFlag.WriteOnly)
    image.save(buffer, "PNG")
    return bytes(buffer.data())


def is_image(document: Document) -> bool:
    return document.kind == IMAGE_KIND


class Thumbnails:
    """Each image attachment's thumbnail, decoded once (a null image: it can't be)."""

    def __init__(self) -> None:
        self._images: dict[int, QImage] = {}

    def get(self, document_id: int) -> QImage | None:
        """The thumbnail, or None while it has not been decoded."""
        return self._images.get(document_id)

    def forget(self, document_id: int) -> None:
        """An image removed (its chip's ×, its chat deleted): its thumbnail goes too."""
        self._images.pop(document_id, None)

    async def load(self, documents: Iterable[Document]) -> list[Document]:
        """Decode the thumbnails of the images among ``documents`` not decoded yet;
        returns those it decoded."""
        missing = [d for d in documents if is_image(d) and d.id not in self._images]
        for document in missing:
            self._images[document.id] = await asyncio.to_thread(load_thumbnail, document.path)
        return missing
