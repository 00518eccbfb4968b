"""File → Import memories from another assistant…: the list to import (pasted, or read
from a file) with its format, and the report of what became of each line.

The import dialog changes nothing: it counts the memories the text holds, as the import
will read them (core/memory/assistant_formats.py), and asks for the import; the session
runs it and opens the report. Everything shown is the user's data: plain text only.
"""

from __future__ import annotations

from PySide6.QtCore import QTimer, Signal
from PySide6.QtWidgets import (
    QComboBox,
    QDialogButtonBox,
    QFormLayout,
    QHBoxLayout,
    QLabel,
    QPlainTextEdit,
    QPushButton,
    QWidget,
)

from acai_desktop.core.errors import InvalidInputError
from acai_desktop.core.memory.assistant_formats import ListFormat, read_memory_list
from acai_desktop.ui.untrusted import make_plain
from acai_desktop.ui.widgets.dialogs import BaseDialog, error_label, save_cancel_buttons
from acai_desktop.ui.widgets.wheel_guard import ignore_wheel_unless_focused

#: The formats offered, as their users know them.
FORMATS = {
    ListFormat.CHATGPT: "ChatGPT — saved memories",
    ListFormat.CLAUDE: "Claude — memory",
}
#: Where each list comes from, said where the user pastes it.
WHERE_FROM = {
    ListFormat.CHATGPT: "In ChatGPT, open Settings → Personalization → Manage memories, "
    "select the list, copy it and paste it here, or open a text file that holds it.",
    ListFormat.CLAUDE: "In Claude, ask it to write out every memory it has of you, one a "
    "line, under a heading per category; copy its answer and paste it here, or open a "
    "text file that holds it.",
}
NOTHING_CHANGES = (
    "Nothing changes until you choose Import. Each memory is checked like any fact you "
    'tell ACAI: what you have already is skipped, and with "Ask before remembering" on, '
    "each waits for your yes in the memory panel."
)
#: The count is redone this long after the last keystroke (a pasted list: at once).
RECOUNT_MS = 150


class MemoryImportDialog(BaseDialog):
    """Pick the list's format, paste the list or open a file, then Import."""

    #: format (a :class:`ListFormat` value), the list's text
    import_requested = Signal(str, str)
    file_requested = Signal()

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__("Import memories from another assistant", parent)
        self.resize(560, 460)
        self.format_box = ignore_wheel_unless_focused(QComboBox())
        for list_format, label in FORMATS.items():
            self.format_box.addItem(label, list_format.value)
        self.format_box.setAccessibleName("The assistant the memories come from")
        form = QFormLayout()
        form.setContentsMargins(0, 0, 0, 0)
        form.addRow("From:", self.format_box)
        self.where_from = QLabel()
        self.where_from.setObjectName("DialogNote")
        self.where_from.setWordWrap(True)
        self.editor = QPlainTextEdit()
        self.editor.setAccessibleName("The memories to import")
        self.editor.setPlaceholderText("Paste the memories here, one a line.")
        self.open_button = QPushButton("Open a file…")
        self.count_label = make_plain(QLabel())
        self.count_label.setObjectName("DialogNote")
        file_row = QHBoxLayout()
        file_row.addWidget(self.open_button)
        file_row.addWidget(self.count_label, 1)
        note = QLabel(NOTHING_CHANGES)
        note.setObjectName("DialogNote")
        note.setWordWrap(True)
        self.error_label = error_label()
        self.buttons, self.import_button = save_cancel_buttons("Import")
        self.layout_.addLayout(form)
        self.layout_.addWidget(self.where_from)
        self.layout_.addWidget(self.editor, 1)
        self.layout_.addLayout(file_row)
        self.layout_.addWidget(note)
        self.layout_.addWidget(self.error_label)
        self.layout_.addWidget(self.buttons)
        self._recount = QTimer(self)
        self._recount.setSingleShot(True)
        self._recount.setInterval(RECOUNT_MS)
        self._recount.timeout.connect(self._count)
        self.format_box.currentIndexChanged.connect(self._on_format_box_changed)
        self.editor.textChanged.connect(self._recount.start)
        self.open_button.clicked.connect(self.file_requested)
        self.buttons.accepted.connect(self._on_buttons_accepted)
        self.buttons.rejected.connect(self.reject)
        self._on_format_box_changed()

    def list_format(self) -> ListFormat:
        return ListFormat(self.format_box.currentData())

    def set_text(self, text: str) -> None:
        """A file's text, read by the session: shown, counted at once."""
        self.editor.setPlainText(text)
        self._count()

    def show_error(self, text: str) -> None:
        self.error_label.setText(text)
        self.error_label.setVisible(bool(text))

    def _on_format_box_changed(self, *_index) -> None:
        self.where_from.setText(WHERE_FROM[self.list_format()])
        self._count()

    def _count(self) -> int:
        """Count the memories as the import will read them; Import only when some are."""
        self._recount.stop()
        found, error = 0, ""
        try:
            found = len(read_memory_list(self.editor.toPlainText(), self.list_format()))
        except InvalidInputError as refusal:  # too many for one import
            error = str(refusal)
        if found == 1:
            counted = "1 memory found."
        else:
            counted = f"{found} memories found." if found else "No memories found yet."
        self.count_label.setText(counted)
        self.show_error(error)
        self.import_button.setEnabled(bool(found) and not error)
        return found

    def _on_buttons_accepted(self) -> None:
        if self._count():
            self.import_requested.emit(self.list_format().value, self.editor.toPlainText())
            self.accept()


class ImportReportDialog(BaseDialog):
    """What became of each line of an imported list, as plain text."""

    def __init__(self, summary: str, report: str, parent: QWidget | None = None) -> None:
        super().__init__("Memories imported", parent)
        self.resize(600, 440)
        self.summary = make_plain(QLabel(summary))
        self.summary.setWordWrap(True)
        self.report = QPlainTextEdit(report)
        self.report.setReadOnly(True)
        self.report.setLineWrapMode(QPlainTextEdit.LineWrapMode.WidgetWidth)
        self.report.setAccessibleName("The import's report")
        self.buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Close)
        self.buttons.rejected.connect(self.reject)
        self.layout_.addWidget(self.summary)
        self.layout_.addWidget(self.report, 1)
        self.layout_.addWidget(self.buttons)
