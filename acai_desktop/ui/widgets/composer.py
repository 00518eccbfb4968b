"""Where the user writes: a multi-line input, Send (Ctrl+Enter) and, while an answer
streams, Stop. The composer only asks; whoever owns the turn decides what happens, and
the text is cleared only once the message is committed."""

from __future__ import annotations

from PySide6.QtCore import Qt, Signal
from PySide6.QtGui import QKeySequence, QShortcut, QTextCursor
from PySide6.QtWidgets import (
    QHBoxLayout,
    QLabel,
    QPlainTextEdit,
    QPushButton,
    QVBoxLayout,
    QWidget,
)

PLACEHOLDER = "Message ACAI…"
HINT = "Ctrl+Enter to send"
INPUT_HEIGHT = 72


class Composer(QWidget):
    send_requested = Signal(str)
    stop_requested = Signal()

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("Composer")
        # A plain QWidget paints its stylesheet background only with this attribute.
        self.setAttribute(Qt.WidgetAttribute.WA_StyledBackground, True)
        self._busy = False

        self.input = QPlainTextEdit()
        self.input.setObjectName("ComposerInput")
        self.input.setPlaceholderText(PLACEHOLDER)
        self.input.setTabChangesFocus(True)
        self.input.setFixedHeight(INPUT_HEIGHT)

        self.send_button = QPushButton("Send")
        self.send_button.setObjectName("PrimaryButton")
        self.send_button.setToolTip("Send (Ctrl+Enter)")
        self.send_button.setCursor(Qt.CursorShape.PointingHandCursor)
        self.stop_button = QPushButton("Stop")
        self.stop_button.setObjectName("StopButton")
        self.stop_button.setToolTip("Stop the answer")
        self.stop_button.setVisible(False)

        self.hint_label = QLabel(HINT)
        self.hint_label.setObjectName("ComposerHint")

        buttons = QHBoxLayout()
        buttons.setContentsMargins(0, 0, 0, 0)
        buttons.addWidget(self.hint_label)
        buttons.addStretch(1)
        buttons.addWidget(self.stop_button)
        buttons.addWidget(self.send_button)

        layout = QVBoxLayout(self)
        layout.setContentsMargins(14, 10, 10, 10)
        layout.setSpacing(6)
        layout.addWidget(self.input)
        layout.addLayout(buttons)

        # Ctrl+Enter on both the main and the keypad Enter key.
        self._send_shortcuts = [
            QShortcut(QKeySequence(Qt.Modifier.CTRL | key), self.input)
            for key in (Qt.Key.Key_Return, Qt.Key.Key_Enter)
        ]
        for shortcut in self._send_shortcuts:
            shortcut.setContext(Qt.ShortcutContext.WidgetShortcut)

        self._connect_signals()
        self._update_buttons()

    def _connect_signals(self) -> None:
        self.input.textChanged.connect(self._on_input_text_changed)
        self.send_button.clicked.connect(self._on_send_button_clicked)
        self.stop_button.clicked.connect(self._on_stop_button_clicked)
        for shortcut in self._send_shortcuts:
            shortcut.activated.connect(self._on_send_button_clicked)

    @property
    def busy(self) -> bool:
        return self._busy

    def set_busy(self, busy: bool) -> None:
        """While an answer streams: Stop shows, Send hides; typing stays possible."""
        self._busy = busy
        self._update_buttons()

    def text(self) -> str:
        return self.input.toPlainText()

    def set_text(self, text: str) -> None:
        """Put ``text`` in the input for the user to finish, cursor at the end."""
        self.input.setPlainText(text)
        self.input.moveCursor(QTextCursor.MoveOperation.End)
        self.input.setFocus()

    def _update_buttons(self) -> None:
        self.stop_button.setVisible(self._busy)
        self.send_button.setVisible(not self._busy)
        self.send_button.setEnabled(not self._busy and bool(self.text().strip()))

    def _on_input_text_changed(self) -> None:
        self._update_buttons()

    def _on_send_button_clicked(self) -> None:
        text = self.text().strip()
        if self._busy or not text:
            return
        # The text stays until the message is committed (clear_sent): a refused
        # message is still there to fix.
        self.send_requested.emit(text)

    def clear_sent(self, text: str) -> None:
        """``text`` is now a message on disk: empty the input unless the user has
        changed it meanwhile."""
        if self.text().strip() == text.strip():
            self.input.clear()

    def _on_stop_button_clicked(self) -> None:
        if self._busy:
            self.stop_requested.emit()
