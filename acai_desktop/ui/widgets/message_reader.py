"""Each message's rendered document (cached by message id, least recently used dropped)
and the read-only reader that opens over a message to select its text."""

from __future__ import annotations

import math
from collections import OrderedDict

from PySide6.QtCore import (
    QEvent,
    QModelIndex,
    Qt,
    QUrl,
    Signal,
)
from PySide6.QtGui import (
    QColor,
    QFont,
    QKeyEvent,
    QPalette,
)
from PySide6.QtWidgets import (
    QFrame,
    QTextBrowser,
    QTextEdit,
    QToolTip,
    QWidget,
)

from acai_desktop.core.records.conversations import Message, MessageStatus
from acai_desktop.core.turns.citations import Citation
from acai_desktop.ui.citation_chips import chip_tooltips, cited_number, with_chips
from acai_desktop.ui.message_document import MessageDocument
from acai_desktop.ui.theme import Theme

#: Documents kept laid out; others are rebuilt when scrolled back into view.
DOCUMENT_CACHE_SIZE = 300


def shown_text(message: Message) -> str:
    if message.content:
        return message.content
    return {"streaming": "…", "stopped": "(stopped before any text)"}.get(str(message.status), "")


class MessageDocuments:
    """The rendered document of each message, by id; the least recently used go."""

    def __init__(self, theme: Theme, font: QFont, capacity: int = DOCUMENT_CACHE_SIZE) -> None:
        self.theme = theme
        self.font = font
        self.capacity = capacity
        self._documents: OrderedDict[int, MessageDocument] = OrderedDict()
        #: The user's long messages shown unfolded (ids), and the prompt budget the
        #: user's messages are measured against (tokens; None: not known yet).
        self.unfolded: set[int] = set()
        self.budget_tokens: int | None = None
        #: Ids whose document a reader shows: never dropped while it does.
        self.pinned: set[int] = set()

    def document(self, index: QModelIndex, width: int) -> MessageDocument:
        # The record itself, not Qt's data(): through data() a 1 MB answer would be
        # copied to a QString and back at every paint and size question.
        message = index.model().message_at(index.row())
        message_id = message.id
        markdown = message.role != "user"
        document = self._documents.get(message_id)
        if document is None or document.markdown != markdown:
            document = MessageDocument(self.theme, self.font, markdown=markdown)
            self._documents[message_id] = document
        else:
            self._documents.move_to_end(message_id)
        document.set_width(width)
        text = shown_text(message)
        if not markdown:
            unfolded = message_id in self.unfolded
            document.set_view(unfolded=unfolded, budget_tokens=self.budget_tokens)
        elif message.status != MessageStatus.STREAMING:
            text = self._with_chips(document, text, index.model().citations_of(message_id))
        document.set_source(text)
        while len(self._documents) > self.capacity:
            oldest = next((i for i in self._documents if i not in self.pinned), None)
            if oldest is None:
                break
            del self._documents[oldest]
        return document

    @staticmethod
    def _with_chips(document: MessageDocument, text: str, citations: tuple[Citation, ...]) -> str:
        """A finished answer's text with its [n] markers as chips after their paragraphs,
        worked out once per text and citations (this runs at every paint)."""
        if not citations:
            return text
        key = (text, citations)
        cached = document.cited
        if cached is None or cached[0] != key:  # equal objects compare at once
            document.chip_tooltips = chip_tooltips(citations)
            document.cited = cached = (key, with_chips(text, citations))
        return cached[1]

    def get(self, message_id: int) -> MessageDocument | None:
        return self._documents.get(message_id)

    def reset(self, theme: Theme, font: QFont) -> None:
        self.theme, self.font = theme, font
        self._documents = OrderedDict(
            (i, d) for i, d in self._documents.items() if i in self.pinned
        )


def chip_tooltip(document: MessageDocument, href: str) -> str:
    """The tooltip of the citation chip ``href`` in ``document`` ("" if none)."""
    number = cited_number(href) if href else None
    return document.chip_tooltips.get(number, "") if number is not None else ""


class MessageReader(QTextBrowser):
    """A message's document, opened for selecting text with the mouse or the keyboard."""

    link_activated = Signal(str)
    dismissed = Signal()

    def __init__(self, document: MessageDocument, ink: QColor, parent: QWidget) -> None:
        super().__init__(parent)
        self.setObjectName("MessageReader")
        self.setAccessibleName("Message text")
        self.setFrameShape(QFrame.Shape.NoFrame)
        self.setVerticalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        self.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        self.setOpenLinks(False)
        self.setOpenExternalLinks(False)
        self.setTextInteractionFlags(
            Qt.TextInteractionFlag.TextBrowserInteraction
            | Qt.TextInteractionFlag.TextSelectableByKeyboard
        )
        self.setLineWrapMode(QTextEdit.LineWrapMode.FixedPixelWidth)
        self.setLineWrapColumnOrWidth(max(1, math.floor(document.textWidth())))
        self.setFont(document.defaultFont())
        self.viewport().setAutoFillBackground(False)
        palette = self.palette()
        palette.setColor(QPalette.ColorRole.Base, QColor(0, 0, 0, 0))
        palette.setColor(QPalette.ColorRole.Text, ink)
        self.setPalette(palette)
        # Kept alive with the reader: the view's cache may drop the document while the
        # reader waits for its deferred deletion.
        self.shared_document = document
        self.setDocument(document)
        self.anchorClicked.connect(self._on_anchor_clicked)

    def _on_anchor_clicked(self, url: QUrl) -> None:
        self.link_activated.emit(url.toString())

    def viewportEvent(self, event: QEvent) -> bool:
        # A citation chip's tooltip names its source, over the reader's own (the time).
        if event.type() == QEvent.Type.ToolTip:
            tip = chip_tooltip(self.shared_document, self.anchorAt(event.pos()))
            if tip:
                QToolTip.showText(event.globalPos(), tip, self.viewport())
                return True
        return super().viewportEvent(event)

    def keyPressEvent(self, event: QKeyEvent) -> None:
        if event.key() == Qt.Key.Key_Escape and not event.modifiers():
            self.dismissed.emit()
            event.accept()
            return
        super().keyPressEvent(event)
