"""The first start's question: which model answers? Each option says what it is.

Detection's findings come as :class:`~acai_desktop.core.models.detection.ModelOption`
rows (a server already running, OpenAI with the environment's key, the built-in demo
model); the dialog shows each with its description and saves nothing itself: the session
reads :meth:`FirstStartDialog.chosen` once the user pressed *Use this model*. *Choose in
Settings…* and *Later* leave the choice open (the window says no model is chosen yet).
"""

from __future__ import annotations

from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import (
    QButtonGroup,
    QDialogButtonBox,
    QPushButton,
    QRadioButton,
    QScrollArea,
    QVBoxLayout,
    QWidget,
)

from acai_desktop.ui.untrusted import plain_label
from acai_desktop.ui.widgets.dialogs import BaseDialog

TITLE = "Choose the model that answers"
INTRO = (
    "ACAI answers with a language model. This is what this computer offers; you can "
    "change it any time in Settings."
)
NOTHING_FOUND = (
    "No model server is running here and no OPENAI_API_KEY is set. Choose a provider in "
    "Settings (Ollama, LM Studio, a llama.cpp server, OpenAI or another address)."
)
USE_TEXT = "Use this model"
SETTINGS_TEXT = "Choose in Settings…"
LATER_TEXT = "Later"


class FirstStartDialog(BaseDialog):
    settings_requested = Signal()

    def __init__(self, options: list, parent: QWidget | None = None) -> None:
        super().__init__(TITLE, parent)
        self.options = list(options)
        intro = plain_label(INTRO if self.options else NOTHING_FOUND, "DialogNote")
        intro.setWordWrap(True)
        self.layout_.addWidget(intro)

        self.choices = QButtonGroup(self)
        rows = QWidget()
        rows_layout = QVBoxLayout(rows)
        rows_layout.setContentsMargins(0, 0, 0, 0)
        rows_layout.setSpacing(4)
        self.option_buttons: list[QRadioButton] = []
        self.option_texts = []
        for number, option in enumerate(self.options):
            button = QRadioButton(option.title)
            button.setAccessibleDescription(option.description)
            text = plain_label(option.description, "DialogNote")
            text.setWordWrap(True)
            text.setContentsMargins(24, 0, 0, 8)
            self.choices.addButton(button, number)
            self.option_buttons.append(button)
            self.option_texts.append(text)
            rows_layout.addWidget(button)
            rows_layout.addWidget(text)
        rows_layout.addStretch(1)
        scroll = QScrollArea()
        scroll.setWidgetResizable(True)
        scroll.setFrameShape(QScrollArea.Shape.NoFrame)
        scroll.setWidget(rows)
        scroll.setVisible(bool(self.options))
        self.layout_.addWidget(scroll, 1)

        self.buttons = QDialogButtonBox()
        self.use_button = QPushButton(USE_TEXT)
        self.use_button.setObjectName("PrimaryButton")
        self.settings_button = QPushButton(SETTINGS_TEXT)
        self.later_button = QPushButton(LATER_TEXT)
        if self.options:
            self.buttons.addButton(self.use_button, QDialogButtonBox.ButtonRole.AcceptRole)
        self.buttons.addButton(self.settings_button, QDialogButtonBox.ButtonRole.ActionRole)
        self.buttons.addButton(self.later_button, QDialogButtonBox.ButtonRole.RejectRole)
        self.layout_.addWidget(self.buttons)
        # Not deleted on close: the session reads the choice after the dialog finished.
        self.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose, False)
        self.resize(560, 420 if self.options else 200)

        if self.option_buttons:
            # The best found first; the built-in demo too, but only the user's press uses it.
            self.option_buttons[0].setChecked(True)
            self.use_button.setDefault(True)
        self.buttons.accepted.connect(self.accept)
        self.buttons.rejected.connect(self.reject)
        self.settings_button.clicked.connect(self._on_settings_button_clicked)

    def chosen(self):
        """The option picked (a ModelOption), or None when the user put it off."""
        if self.result() != self.DialogCode.Accepted:
            return None
        number = self.choices.checkedId()
        return self.options[number] if number >= 0 else None

    def _on_settings_button_clicked(self) -> None:
        self.settings_requested.emit()
        self.reject()
