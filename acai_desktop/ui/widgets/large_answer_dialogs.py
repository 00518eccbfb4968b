"""What the links of a large answer open: a table as a table (a QTableView, which lays
out only the cells on screen) and the whole text of an answer too long for the chat (a
QPlainTextEdit, which lays out only the lines on screen). Both show the answer as
plain text: it is untrusted, nothing in it becomes markup."""

from __future__ import annotations

from PySide6.QtCore import QUrl
from PySide6.QtWidgets import (
    QAbstractItemView,
    QDialogButtonBox,
    QHeaderView,
    QPlainTextEdit,
    QTableView,
    QWidget,
)

from acai_desktop.ui.markdown_blocks import table_at
from acai_desktop.ui.message_links import TABLE_SCHEME, WHOLE_ANSWER_SCHEME, offset_in
from acai_desktop.ui.models.table_cells_model import TableCellsModel
from acai_desktop.ui.widgets.dialogs import BaseDialog


class TableDialog(BaseDialog):
    def __init__(self, rows: list[list[str]], parent: QWidget | None) -> None:
        super().__init__("Table", parent)
        self.setObjectName("TableDialog")
        self.resize(900, 600)
        self.model = TableCellsModel(rows, self)
        self.table = QTableView(self)
        self.table.setAccessibleName("Table of the answer")
        self.table.setModel(self.model)
        self.table.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        self.table.setWordWrap(False)
        # Fixed column widths: sizing each column to its contents would read every cell.
        self.table.horizontalHeader().setSectionResizeMode(QHeaderView.ResizeMode.Interactive)
        self.table.horizontalHeader().setDefaultSectionSize(120)
        self.layout_.addWidget(self.table)
        buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Close)
        buttons.rejected.connect(self.reject)
        self.layout_.addWidget(buttons)


class WholeAnswerDialog(BaseDialog):
    def __init__(self, text: str, parent: QWidget | None, title: str = "The whole answer") -> None:
        super().__init__(title, parent)
        self.setObjectName("WholeAnswerDialog")
        self.resize(900, 700)
        self.text = QPlainTextEdit(self)
        self.text.setAccessibleName("Answer text")
        self.text.setReadOnly(True)
        self.text.setPlainText(text)
        self.layout_.addWidget(self.text)
        buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Close)
        buttons.rejected.connect(self.reject)
        self.layout_.addWidget(buttons)


def open_large_part(content: str, url: QUrl, parent: QWidget, *, user: bool) -> None:
    """Open what a large part's link in message ``content`` names: the table at its
    offset, or the whole message (``user``: one of the user's, not an answer)."""
    offset = offset_in(url)
    if url.scheme() == WHOLE_ANSWER_SCHEME:
        title = "Your whole message" if user else "The whole answer"
        WholeAnswerDialog(content, parent, title).open()
    elif url.scheme() == TABLE_SCHEME and 0 <= offset < len(content):
        TableDialog(table_at(content, offset), parent).open()
