"""Small windows the session opens with ``open()`` (never ``exec()``: a nested Qt loop
would stall the asyncio loop): edit a memory, add a note, a memory's details, an
answer's sources.

Details and sources open at once with "Loading…" and are filled when the session has
read what they show.
"""

from __future__ import annotations

from collections.abc import Callable

from PySide6.QtCore import Qt, Signal
from PySide6.QtGui import QKeySequence, QShortcut
from PySide6.QtWidgets import (
    QDialog,
    QDialogButtonBox,
    QLabel,
    QLineEdit,
    QMessageBox,
    QPlainTextEdit,
    QPushButton,
    QVBoxLayout,
    QWidget,
)

from acai_desktop.core.errors import InvalidInputError
from acai_desktop.core.records.memories import MemoryItem
from acai_desktop.ui.untrusted import make_plain, plain_label


def error_label() -> QLabel:
    """The hidden line a dialog shows a refusal in (red, from the theme). Plain: a
    refusal may quote the user's text or a server's answer."""
    label = plain_label("", "DialogError")
    label.setWordWrap(True)
    label.setVisible(False)
    return label


def save_cancel_buttons(save_text: str) -> tuple[QDialogButtonBox, QPushButton]:
    buttons = QDialogButtonBox(
        QDialogButtonBox.StandardButton.Save | QDialogButtonBox.StandardButton.Cancel
    )
    save = buttons.button(QDialogButtonBox.StandardButton.Save)
    save.setObjectName("PrimaryButton")
    save.setText(save_text)
    return buttons, save


def ask_before(
    parent: QWidget, title: str, question: str, action: str, on_yes: Callable[[], None]
) -> QMessageBox:
    """Open a question whose default is Cancel and whose other button does ``action``
    (red, "DangerButton"); ``on_yes`` runs only on that button. Shown with open(), never
    exec(), so no nested event loop runs; the question is plain text (it may quote the
    user's data) and deletes itself when closed."""
    box = make_plain(
        QMessageBox(
            QMessageBox.Icon.Question, title, question, QMessageBox.StandardButton.Cancel, parent
        )
    )
    yes = box.addButton(action, QMessageBox.ButtonRole.DestructiveRole)
    yes.setObjectName("DangerButton")
    box.setDefaultButton(QMessageBox.StandardButton.Cancel)
    box.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose, True)
    box.buttonClicked.connect(lambda button: on_yes() if button is yes else None)
    box.open()
    return box


class BaseDialog(QDialog):
    def __init__(self, title: str, parent: QWidget | None) -> None:
        super().__init__(parent)
        self.setWindowTitle(title)
        self.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose, True)
        self.layout_ = QVBoxLayout(self)
        self.layout_.setContentsMargins(18, 16, 18, 14)
        self.layout_.setSpacing(10)

    def _save_on_ctrl_enter(self, buttons: QDialogButtonBox) -> None:
        """Ctrl+Enter saves from anywhere in the dialog, the text box included."""
        self.save_shortcuts = []
        for key in (Qt.Key.Key_Return, Qt.Key.Key_Enter):
            shortcut = QShortcut(QKeySequence(Qt.Modifier.CTRL | key), self)
            shortcut.activated.connect(buttons.accepted)
            self.save_shortcuts.append(shortcut)


class MemoryEditDialog(BaseDialog):
    save_requested = Signal(int, str)  # memory id, new text

    def __init__(self, item: MemoryItem, parent: QWidget | None = None) -> None:
        super().__init__("Edit memory", parent)
        self.memory_id = item.id
        self.resize(460, 220)
        note = QLabel("A memory you edit is kept as you wrote it: ACAI never changes it.")
        note.setObjectName("DialogNote")
        note.setWordWrap(True)
        self.editor = QPlainTextEdit(item.content)
        self.buttons = QDialogButtonBox(
            QDialogButtonBox.StandardButton.Save | QDialogButtonBox.StandardButton.Cancel
        )
        self.layout_.addWidget(note)
        self.layout_.addWidget(self.editor, 1)
        self.layout_.addWidget(self.buttons)
        self.editor.setAccessibleName("Memory text")
        self.buttons.button(QDialogButtonBox.StandardButton.Save).setToolTip("Save (Ctrl+Enter)")
        self._save_on_ctrl_enter(self.buttons)
        self.buttons.accepted.connect(self._on_buttons_accepted)
        self.buttons.rejected.connect(self.reject)

    def _on_buttons_accepted(self) -> None:
        text = self.editor.toPlainText().strip()
        if not text:
            self.editor.setFocus()
            return
        self.save_requested.emit(self.memory_id, text)
        self.accept()


class NoteDialog(BaseDialog):
    """Write a note for ACAI to keep. It stays open until the session says the note
    is stored (:meth:`saved`) or why not (:meth:`show_error`), so the text is never lost."""

    save_requested = Signal(str)

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__("Add a note", parent)
        self.resize(460, 240)
        note = QLabel(
            "Something ACAI should always know, in your words: it is kept as you wrote it."
        )
        note.setObjectName("DialogNote")
        note.setWordWrap(True)
        self.editor = QPlainTextEdit()
        self.editor.setPlaceholderText("For example: I'm allergic to peanuts.")
        self.error_label = error_label()
        self.buttons, self.save_button = save_cancel_buttons("Remember")
        self.layout_.addWidget(note)
        self.layout_.addWidget(self.editor, 1)
        self.layout_.addWidget(self.error_label)
        self.layout_.addWidget(self.buttons)
        self.editor.setAccessibleName("Note")
        self.save_button.setToolTip("Remember (Ctrl+Enter)")
        self._save_on_ctrl_enter(self.buttons)
        self.buttons.accepted.connect(self._on_buttons_accepted)
        self.buttons.rejected.connect(self.reject)
        self.editor.textChanged.connect(self._on_editor_text_changed)

    def _on_buttons_accepted(self) -> None:
        text = self.editor.toPlainText().strip()
        if not text:
            self.show_error("Write the note first.")
            self.editor.setFocus()
            return
        self.save_button.setEnabled(False)
        self.save_requested.emit(text)

    def _on_editor_text_changed(self) -> None:
        self.save_button.setEnabled(True)

    def show_error(self, text: str) -> None:
        self.save_button.setEnabled(True)
        self.error_label.setText(text)
        self.error_label.setVisible(bool(text))

    def saved(self) -> None:
        self.accept()


class RenameConversationDialog(BaseDialog):
    rename_requested = Signal(int, str)  # conversation id, new title

    def __init__(self, conversation_id: int, title: str, parent: QWidget | None = None) -> None:
        # The core's title rule, imported when used: the store module is not needed
        # to paint the window.
        from acai_desktop.core.conversations.titles import MAX_TITLE_CHARS

        super().__init__("Rename conversation", parent)
        self.conversation_id = conversation_id
        self.resize(420, 140)
        self.editor = QLineEdit(title)
        self.editor.setMaxLength(MAX_TITLE_CHARS)
        self.editor.selectAll()
        self.error_label = error_label()
        self.buttons, self.save_button = save_cancel_buttons("Rename")
        self.layout_.addWidget(self.editor)
        self.layout_.addWidget(self.error_label)
        self.layout_.addWidget(self.buttons)
        self.buttons.accepted.connect(self._on_buttons_accepted)
        self.buttons.rejected.connect(self.reject)
        self.editor.returnPressed.connect(self._on_buttons_accepted)

    def _on_buttons_accepted(self) -> None:
        from acai_desktop.core.conversations.titles import clean_title

        try:
            title = clean_title(self.editor.text())  # the core's rule, checked here first
        except InvalidInputError as error:
            self.error_label.setText(str(error))
            self.error_label.setVisible(True)
            self.editor.setFocus()
            return
        self.rename_requested.emit(self.conversation_id, title)
        self.accept()


DELETE_CONVERSATION_TEXT = (
    "Delete this conversation? Its messages are removed; "
    "what ACAI learned from it stays in your memories."
)


class DeleteConversationDialog(BaseDialog):
    delete_confirmed = Signal(int)  # conversation id

    def __init__(self, conversation_id: int, title: str, parent: QWidget | None = None) -> None:
        super().__init__("Delete conversation", parent)
        self.conversation_id = conversation_id
        self.resize(420, 150)
        self.name_label = name = plain_label(title)
        font = name.font()
        font.setBold(True)
        name.setFont(font)
        name.setWordWrap(True)
        question = QLabel(DELETE_CONVERSATION_TEXT)
        question.setObjectName("DialogNote")
        question.setWordWrap(True)
        self.buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Cancel)
        self.delete_button = self.buttons.addButton(
            "Delete", QDialogButtonBox.ButtonRole.DestructiveRole
        )
        self.delete_button.setObjectName("DangerButton")
        self.buttons.button(QDialogButtonBox.StandardButton.Cancel).setDefault(True)
        self.layout_.addWidget(name)
        self.layout_.addWidget(question)
        self.layout_.addWidget(self.buttons)
        self.delete_button.clicked.connect(self._on_delete_button_clicked)
        self.buttons.rejected.connect(self.reject)

    def _on_delete_button_clicked(self) -> None:
        self.delete_confirmed.emit(self.conversation_id)
        self.accept()
