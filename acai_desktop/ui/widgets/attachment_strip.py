"""The chips above the composer: the files attached to the shown chat, each with its
state (waiting, indexing with its progress, ready, failed with the reason) and a ×
that removes it; an image's chip shows its thumbnail instead of a state. Names and
reasons come from the user's files: plain text only.

The strip only shows and asks (``remove_requested``); the attachments controller
feeds it from the core's document news.
"""

from __future__ import annotations

from PySide6.QtCore import QSize, Qt, Signal
from PySide6.QtGui import QImage, QPixmap
from PySide6.QtWidgets import QFrame, QHBoxLayout, QLabel, QToolButton, QWidget

from acai_desktop.core.documents.images import IMAGE_KIND
from acai_desktop.core.documents.model import Document
from acai_desktop.ui.models.documents_model import STAGE_LABELS
from acai_desktop.ui.untrusted import plain_label, tooltip_text
from acai_desktop.ui.widgets.flow_layout import FlowLayout

#: A chip shows this much of a file's name (the whole name is in its tooltip).
CHIP_NAME_CHARS = 28
#: An image chip's thumbnail: at most this tall and wide (logical pixels).
CHIP_THUMBNAIL = QSize(56, 36)
#: What an image's chip says while its thumbnail is decoded, or when it can't be.
IMAGE_STATE = "image"
NO_PREVIEW = "image (no preview)"


def chip_state(document: Document, progress: str = "") -> str:
    """What a chip says after the name: where its indexing is (an image: none)."""
    if document.kind == IMAGE_KIND:
        return IMAGE_STATE
    status = str(document.status)
    if status == "queued":
        return "waiting to be indexed"
    if status == "indexing":
        return f"indexing {progress}" if progress else "indexing…"
    if status == "error":
        return "failed"
    return "ready"


def progress_text(stage: str, done: int, total: int) -> str:
    """How far a chip's indexing is: the stage's share ("reading 2/10", "12/40" chunks
    embedded: the long stage, said briefly)."""
    if stage == "embedding":
        return f"{done}/{total}"
    return f"({STAGE_LABELS.get(stage, stage)})"


def _short(name: str) -> str:
    return name if len(name) <= CHIP_NAME_CHARS else name[: CHIP_NAME_CHARS - 1] + "…"


class AttachmentChip(QFrame):
    def __init__(self, document: Document, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("AttachmentChip")
        self.document = document
        self.progress = ""
        self.name_label = plain_label(_short(document.name))
        self.name_label.setObjectName("AttachmentName")
        self.state_label = plain_label("")
        self.state_label.setObjectName("AttachmentState")
        self.remove_button = QToolButton()
        self.remove_button.setObjectName("AttachmentRemove")
        self.remove_button.setText("×")
        self.remove_button.setCursor(Qt.CursorShape.PointingHandCursor)
        self.remove_button.setAccessibleName(f"Remove the attachment {document.name}")
        self.remove_button.setToolTip("Remove this attachment from the chat")
        #: An image's thumbnail (hidden for other files), shown once decoded.
        self.thumbnail = QLabel()
        self.thumbnail.setObjectName("AttachmentThumbnail")
        self.thumbnail.setVisible(document.kind == IMAGE_KIND)
        self.thumbnail.setFixedHeight(CHIP_THUMBNAIL.height())
        layout = QHBoxLayout(self)
        layout.setContentsMargins(4 if document.kind == IMAGE_KIND else 10, 3, 4, 3)
        layout.setSpacing(6)
        layout.addWidget(self.thumbnail)
        layout.addWidget(self.name_label)
        layout.addWidget(self.state_label)
        layout.addWidget(self.remove_button)
        self.show_document(document)

    def show_document(self, document: Document, progress: str | None = None) -> None:
        self.document = document
        if progress is not None:
            self.progress = progress
        if document.status != "indexing":
            self.progress = ""
        state = chip_state(document, self.progress)
        self.state_label.setText(state)
        self.setProperty("state", str(document.status))
        self.style().unpolish(self)
        self.style().polish(self)
        tip = document.name if document.status != "error" else f"{document.name}\n{document.error}"
        self.setToolTip(tooltip_text(tip))  # a file's name is not markup
        self.setAccessibleName(f"Attachment {document.name}, {state}")

    def state_text(self) -> str:
        return self.state_label.text()

    def show_thumbnail(self, image: QImage) -> None:
        """The image's thumbnail (a null image: it can't be decoded; the chip says so)."""
        if image.isNull():
            self.thumbnail.setVisible(False)
            self.state_label.setText(NO_PREVIEW)
            return
        ratio = self.devicePixelRatioF()
        pixmap = QPixmap.fromImage(
            image.scaled(
                CHIP_THUMBNAIL * ratio,
                Qt.AspectRatioMode.KeepAspectRatio,
                Qt.TransformationMode.SmoothTransformation,
            )
        )
        pixmap.setDevicePixelRatio(ratio)
        self.thumbnail.setPixmap(pixmap)
        self.thumbnail.setVisible(True)
        self.state_label.setVisible(False)  # the picture says what it is


class AttachmentStrip(QWidget):
    remove_requested = Signal(int)  # document id

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("AttachmentStrip")
        self._chips: dict[int, AttachmentChip] = {}
        # Chips keep their size and wrap onto another line in a narrow window.
        self._layout = FlowLayout(self)
        self.setVisible(False)

    def chips(self) -> list[AttachmentChip]:
        return list(self._chips.values())

    def chip(self, document_id: int) -> AttachmentChip | None:
        return self._chips.get(document_id)

    def document_ids(self) -> list[int]:
        return list(self._chips)

    def set_attachments(self, documents: list[Document]) -> None:
        for document_id in list(self._chips):
            self.remove_attachment(document_id)
        for document in documents:
            self.show_attachment(document)

    def show_attachment(self, document: Document, progress: str | None = None) -> None:
        chip = self._chips.get(document.id)
        if chip is None:
            chip = AttachmentChip(document, self)
            chip.remove_button.clicked.connect(
                lambda _checked=False, i=document.id: self.remove_requested.emit(i)
            )
            self._chips[document.id] = chip
            self._layout.addWidget(chip)
            self.setVisible(True)
        chip.show_document(document, progress)

    def show_thumbnail(self, document_id: int, image: QImage) -> None:
        chip = self._chips.get(document_id)
        if chip is not None:
            chip.show_thumbnail(image)

    def show_progress(self, document_id: int, progress: str) -> None:
        chip = self._chips.get(document_id)
        if chip is not None and chip.document.status == "indexing":
            chip.show_document(chip.document, progress)

    def remove_attachment(self, document_id: int) -> None:
        chip = self._chips.pop(document_id, None)
        if chip is not None:
            self._layout.removeWidget(chip)
            chip.deleteLater()
        self.setVisible(bool(self._chips))

    def being_indexed(self) -> list[Document]:
        """The attachments still on their way (waiting or indexing; not failed)."""
        return [
            c.document for c in self._chips.values() if c.document.status in ("queued", "indexing")
        ]
