"""What the links of a large answer open: a table as a table (a QTableView, which lays
out only the cells on screen) and the whole text of an answer too long for the chat (a
QPlainTextEdit, which lays out only the lines on screen). Both show the answer as
plain text: it is untrusted, nothing in it becomes markup."""

from __future__ import annotations

from PySide6.QtWidgets import (
    QAbstractItemView,
    QDialogButtonBox,
    QHeaderView,
    QPlainTextEdit,
    QTableView,
    QWidget,
)

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
