"""Small dialogs of the documents feature, opened with ``open()``: choose the documents a
chat uses (the scope's "Some…"), and read one passage an answer quoted.

Everything shown here comes from the user's files (names, headings, passages), so it is
shown as plain text: list items and a QPlainTextEdit never interpret markup, and the
labels are made plain.
"""

from __future__ import annotations

from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import (
    QDialogButtonBox,
    QListWidget,
    QListWidgetItem,
    QPlainTextEdit,
    QWidget,
)

from acai_desktop.core.documents.model import Document, DocumentScope, Passage, ScopeMode
from acai_desktop.ui.untrusted import plain_label
from acai_desktop.ui.widgets.dialogs import BaseDialog

#: Shown instead of the passage when its document was removed or indexed again since.
PASSAGE_GONE = (
    "This passage is no longer in your documents (removed or indexed again since). "
    "What the answer quoted from it:"
)


class DocumentScopeDialog(BaseDialog):
    """Tick the documents this chat may quote."""

    scope_chosen = Signal(object)  # DocumentScope (mode SOME, or NONE if nothing ticked)

    def __init__(
        self, documents: list[Document], chosen: tuple[int, ...], parent: QWidget | None = None
    ) -> None:
        super().__init__("Documents used in this chat", parent)
        self.resize(420, 380)
        note = plain_label("Answers in this chat quote only the documents you tick.", "DialogNote")
        note.setWordWrap(True)
        self.list = QListWidget()
        self.list.setAccessibleName("Documents to use")
        for document in documents:
            item = QListWidgetItem(document.name)  # item text is never rich text
            item.setData(Qt.ItemDataRole.UserRole, document.id)
            item.setToolTip("")  # the path could be long; the name is enough here
            item.setFlags(item.flags() | Qt.ItemFlag.ItemIsUserCheckable)
            checked = document.id in chosen
            item.setCheckState(Qt.CheckState.Checked if checked else Qt.CheckState.Unchecked)
            self.list.addItem(item)
        self.buttons = QDialogButtonBox(
            QDialogButtonBox.StandardButton.Ok | QDialogButtonBox.StandardButton.Cancel
        )
        self.buttons.accepted.connect(self._on_buttons_accepted)
        self.buttons.rejected.connect(self.reject)
        self.layout_.addWidget(note)
        self.layout_.addWidget(self.list, 1)
        self.layout_.addWidget(self.buttons)

    def ticked(self) -> tuple[int, ...]:
        items = (self.list.item(row) for row in range(self.list.count()))
        return tuple(
            item.data(Qt.ItemDataRole.UserRole)
            for item in items
            if item.checkState() == Qt.CheckState.Checked
        )

    def _on_buttons_accepted(self) -> None:
        ids = self.ticked()
        self.scope_chosen.emit(
            DocumentScope(ScopeMode.SOME, ids) if ids else DocumentScope(ScopeMode.NONE)
        )
        self.accept()


class PassageDialog(BaseDialog):
    """One passage as the answer quoted it: document, page, heading and the text."""

    def __init__(self, citation: str, parent: QWidget | None = None) -> None:
        super().__init__("Passage", parent)
        self.resize(560, 420)
        self.where = plain_label(citation, "PassageSource")
        self.where.setWordWrap(True)
        self.heading = plain_label("", "DialogNote")
        self.heading.setWordWrap(True)
        self.heading.setVisible(False)
        self.text = QPlainTextEdit()
        self.text.setReadOnly(True)
        self.text.setPlainText("Loading…")
        self.text.setAccessibleName("Passage text")
        self.text.setTextInteractionFlags(
            Qt.TextInteractionFlag.TextSelectableByMouse
            | Qt.TextInteractionFlag.TextSelectableByKeyboard
        )
        buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Close)
        buttons.rejected.connect(self.reject)
        self.layout_.addWidget(self.where)
        self.layout_.addWidget(self.heading)
        self.layout_.addWidget(self.text, 1)
        self.layout_.addWidget(buttons)

    def show_passage(self, passage: Passage) -> None:
        where = passage.document_name
        if passage.page:
            where += f", p. {passage.page}"
        self.where.setText(where)
        self.heading.setText(passage.heading)
        self.heading.setVisible(bool(passage.heading))
        self.text.setPlainText(passage.content)

    def show_gone(self, snippet: str) -> None:
        """The passage is gone: say so, and show the snippet the answer kept."""
        self.heading.setText(PASSAGE_GONE)
        self.heading.setVisible(True)
        self.text.setPlainText(snippet)
