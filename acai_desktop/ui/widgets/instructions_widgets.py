"""Custom instructions in the window: the two fields (Settings and a chat's dialog), the
chat's override dialog, and the memory panel's box that lists them apart from the
learned facts. The user's words are shown as plain text, never as rich text."""

from __future__ import annotations

from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import (
    QCheckBox,
    QDialog,
    QDialogButtonBox,
    QFrame,
    QHBoxLayout,
    QLabel,
    QPlainTextEdit,
    QPushButton,
    QVBoxLayout,
    QWidget,
)

from acai_desktop.core.conversations.custom_instructions import (
    ABOUT_LABEL,
    MAX_INSTRUCTION_CHARS,
    RESPOND_LABEL,
    CustomInstructions,
    clean_instructions,
)
from acai_desktop.core.errors import InvalidInputError
from acai_desktop.ui.untrusted import plain_label

BOX_TITLE = "Your instructions"
BOX_NOTE = "Written by you, used in every chat; ACAI never changes them."
NONE_TEXT = "None yet. ACAI answers without them."
USE_PROFILE_TEXT = "Use my instructions from Settings in this chat"
#: How much of each field the memory panel shows (the rest is in the tooltip).
BOX_PREVIEW_CHARS = 160


class InstructionsFields(QWidget):
    """The two fields, labelled with the questions they answer."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.respond = self._editor(RESPOND_LABEL, "e.g. Be brief. Use British English.")
        self.about = self._editor(ABOUT_LABEL, "e.g. I'm a nurse; I work nights.")
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.setSpacing(4)
        for label, editor in ((RESPOND_LABEL, self.respond), (ABOUT_LABEL, self.about)):
            layout.addWidget(plain_label(label))
            layout.addWidget(editor)

    @staticmethod
    def _editor(name: str, placeholder: str) -> QPlainTextEdit:
        editor = QPlainTextEdit()
        editor.setAccessibleName(name)
        editor.setPlaceholderText(placeholder)
        editor.setTabChangesFocus(True)
        editor.setFixedHeight(64)
        editor.setToolTip(f"At most {MAX_INSTRUCTION_CHARS:,} characters")
        return editor

    def set_instructions(self, instructions: CustomInstructions) -> None:
        self.respond.setPlainText(instructions.respond)
        self.about.setPlainText(instructions.about)

    def instructions(self) -> CustomInstructions:
        """What is typed, cleaned; InvalidInputError says what can't be kept."""
        return clean_instructions(self.respond.toPlainText(), self.about.toPlainText())


class ChatInstructionsDialog(QDialog):
    """One chat's instructions: its own, or the ones from Settings."""

    #: conversation id, the chat's own instructions (None: use the profile's)
    save_requested = Signal(int, object)

    def __init__(
        self,
        conversation_id: int,
        profile: CustomInstructions,
        own: CustomInstructions | None,
        parent: QWidget | None = None,
    ) -> None:
        super().__init__(parent)
        self.setWindowTitle("Instructions for this chat")
        self.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose, True)
        self.conversation_id = conversation_id
        self.profile = profile
        self.use_profile = QCheckBox(USE_PROFILE_TEXT)
        self.fields = InstructionsFields()
        self.error_label = plain_label("", "ErrorText")
        self.error_label.setWordWrap(True)
        self.error_label.hide()
        self.buttons = QDialogButtonBox(
            QDialogButtonBox.StandardButton.Save | QDialogButtonBox.StandardButton.Cancel
        )
        self.save_button = self.buttons.button(QDialogButtonBox.StandardButton.Save)
        layout = QVBoxLayout(self)
        layout.addWidget(self.use_profile)
        layout.addWidget(self.fields)
        layout.addWidget(self.error_label)
        layout.addWidget(self.buttons)
        self.use_profile.setChecked(own is None)
        self.fields.set_instructions(own if own is not None else profile)
        self._on_use_profile_toggled(own is None)
        self.use_profile.toggled.connect(self._on_use_profile_toggled)
        self.buttons.accepted.connect(self._on_buttons_accepted)
        self.buttons.rejected.connect(self.reject)

    def _on_use_profile_toggled(self, checked: bool) -> None:
        # The profile's text shows greyed while it applies; unticking starts from it.
        self.fields.setEnabled(not checked)
        if checked:
            self.fields.set_instructions(self.profile)

    def _on_buttons_accepted(self) -> None:
        if self.use_profile.isChecked():
            self.save_requested.emit(self.conversation_id, None)
            self.accept()
            return
        try:
            instructions = self.fields.instructions()
        except InvalidInputError as error:
            self.error_label.setText(str(error))
            self.error_label.show()
            return
        self.save_requested.emit(self.conversation_id, instructions)
        self.accept()


def _preview(text: str) -> str:
    line = " ".join(text.split())
    return line if len(line) <= BOX_PREVIEW_CHARS else line[: BOX_PREVIEW_CHARS - 1] + "…"


class InstructionsBox(QFrame):
    """The memory panel's list of the user's instructions, apart from learned facts."""

    edit_requested = Signal()

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("InstructionsBox")
        self.setAccessibleName(BOX_TITLE)
        title = QLabel(BOX_TITLE)
        title.setObjectName("SectionLabel")
        self.edit_button = QPushButton("Edit…")
        self.edit_button.setToolTip("Change them in Settings")
        self.edit_button.setCursor(Qt.CursorShape.PointingHandCursor)
        self.edit_button.clicked.connect(self.edit_requested)
        head = QHBoxLayout()
        head.setContentsMargins(0, 0, 0, 0)
        head.addWidget(title)
        head.addStretch(1)
        head.addWidget(self.edit_button)
        self.respond_label = plain_label()
        self.about_label = plain_label()
        self.note_label = plain_label(BOX_NOTE, "DialogNote")
        for label in (self.respond_label, self.about_label, self.note_label):
            label.setWordWrap(True)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.setSpacing(2)
        layout.addLayout(head)
        layout.addWidget(self.respond_label)
        layout.addWidget(self.about_label)
        layout.addWidget(self.note_label)
        self.set_instructions(CustomInstructions())

    def set_instructions(self, instructions: CustomInstructions) -> None:
        """Show the profile's instructions (plain text, one short line each)."""
        self.instructions = instructions
        shown = [
            (label, question, text)
            for label, question, text in (
                (self.respond_label, RESPOND_LABEL, instructions.respond),
                (self.about_label, ABOUT_LABEL, instructions.about),
            )
        ]
        for label, question, text in shown:
            label.setText(f"{question} {_preview(text)}" if text else "")
            label.setToolTip(text)
            label.setVisible(bool(text))
        self.note_label.setText(BOX_NOTE if not instructions.empty else NONE_TEXT)

    def texts(self) -> list[str]:
        """What the box shows (tests read it)."""
        return [
            label.text()
            for label in (self.respond_label, self.about_label, self.note_label)
            if label.text()
        ]
