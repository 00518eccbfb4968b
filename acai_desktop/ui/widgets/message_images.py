"""The images a user's message was sent with, drawn under its bubble as thumbnails
(right-aligned like the bubble, wrapping in a narrow window). A thumbnail not decoded
yet, or one that can't be, is a framed placeholder with the file's name, painted as
plain text."""

from __future__ import annotations

from PySide6.QtCore import QRect, QRectF, QSize, Qt
from PySide6.QtGui import QFont, QPainter, QPainterPath, QPen

from acai_desktop.ui.models.messages_model import MessageImage
from acai_desktop.ui.theme import Theme

#: A sent image's thumbnail height in the transcript, and its width's bounds.
IMAGE_HEIGHT = 120
IMAGE_MIN_WIDTH = 60
IMAGE_MAX_WIDTH = 220
IMAGE_GAP = 6


def image_size(image: MessageImage) -> QSize:
    """The box a thumbnail takes: its own shape at :data:`IMAGE_HEIGHT`, within bounds
    (a placeholder is square)."""
    thumbnail = image.thumbnail
    if thumbnail is None or thumbnail.isNull() or not thumbnail.height():
        return QSize(IMAGE_HEIGHT, IMAGE_HEIGHT)
    width = round(IMAGE_HEIGHT * thumbnail.width() / thumbnail.height())
    return QSize(max(IMAGE_MIN_WIDTH, min(width, IMAGE_MAX_WIDTH)), IMAGE_HEIGHT)


def image_boxes(
    images: tuple[MessageImage, ...], right: int, top: int, left_limit: int
) -> tuple[list[QRect], int]:
    """Each image's box, laid from ``right`` leftwards from ``top``, on a new line when
    one would pass ``left_limit``; and the bottom of the last line."""
    boxes: list[QRect] = []
    x, y = right, top
    for image in images:
        size = image_size(image)
        if x - size.width() < left_limit and x != right:
            x, y = right, y + IMAGE_HEIGHT + IMAGE_GAP
        boxes.append(QRect(x - size.width() + 1, y, size.width(), size.height()))
        x -= size.width() + IMAGE_GAP
    return boxes, (y + IMAGE_HEIGHT if images else top)


def paint_images(
    painter: QPainter,
    boxes: list[QRect],
    images: tuple[MessageImage, ...],
    theme: Theme,
    font: QFont,
) -> None:
    for box, image in zip(boxes, images, strict=False):
        frame = QPainterPath()
        frame.addRoundedRect(QRectF(box).adjusted(0.5, 0.5, -0.5, -0.5), 10, 10)
        thumbnail = image.thumbnail
        painter.save()
        if thumbnail is not None and not thumbnail.isNull():
            painter.setClipPath(frame)
            painter.drawImage(QRectF(box), thumbnail, _centred_crop(thumbnail.size(), box.size()))
        else:
            painter.fillPath(frame, theme.color("bubble_answer"))
            painter.setPen(theme.color("faint"))
            painter.setFont(font)
            name = painter.fontMetrics().elidedText(
                image.name, Qt.TextElideMode.ElideMiddle, box.width() - 12
            )
            painter.drawText(box.adjusted(6, 6, -6, -6), Qt.AlignmentFlag.AlignCenter, f"🖼\n{name}")
        painter.setClipping(False)
        painter.setPen(QPen(theme.color("bubble_answer_border"), 1))
        painter.drawPath(frame)
        painter.restore()


def _centred_crop(source: QSize, box: QSize) -> QRectF:
    """The part of an image of ``source`` size that fills ``box`` without stretching
    (a very wide or tall image is cut at its sides, as its box is bounded)."""
    scale = max(box.width() / source.width(), box.height() / source.height())
    width, height = box.width() / scale, box.height() / scale
    return QRectF((source.width() - width) / 2, (source.height() - height) / 2, width, height)
