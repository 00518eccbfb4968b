"""Where the user writes: a multi-line input, Send and, while an answer streams, Stop.
Enter sends and Shift+Enter starts a new line (or, with ``enter_sends`` off, Enter starts
a new line); Ctrl+Enter always sends. The composer only asks; whoever owns the turn
decides what happens, and the text is cleared only once the message is committed.

A draft that takes most of the prompt budget, or passes it, says so before it is sent
(see :mod:`acai_desktop.ui.long_message`)."""

from __future__ import annotations

from PySide6.QtCore import QEvent, QObject, Qt, Signal
from PySide6.QtGui import QKeyEvent, QKeySequence, QShortcut, QTextCursor
from PySide6.QtWidgets import (
    QHBoxLayout,
    QLabel,
    QPlainTextEdit,
    QPushButton,
    QVBoxLayout,
    QWidget,
)

from acai_desktop.ui.long_message import budget_note

PLACEHOLDER = "Message ACAI…"
ENTER_HINT = "Enter to send · Shift+Enter for a new line"
CTRL_ENTER_HINT = "Ctrl+Enter to send · Enter for a new line"
HINT = ENTER_HINT
_ENTER_KEYS = (Qt.Key.Key_Return, Qt.Key.Key_Enter)
INPUT_HEIGHT = 72  # about three lines: the height of an empty composer
#: The composer grows with its text up to this many lines, then scrolls.
MAX_INPUT_LINES = 10


class Composer(QWidget):
    send_requested = Signal(str)
    stop_requested = Signal()

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("Composer")
        # A plain QWidget paints its stylesheet background only with this attribute.
        self.setAttribute(Qt.WidgetAttribute.WA_StyledBackground, True)
        self._busy = False
        self.enter_sends = True

        self.input = QPlainTextEdit()
        self.input.setObjectName("ComposerInput")
        self.input.setAccessibleName("Message")
        self.input.setAccessibleDescription("Write a message to ACAI")
        self.input.setPlaceholderText(PLACEHOLDER)
        self.input.setTabChangesFocus(True)
        self.input.setFixedHeight(INPUT_HEIGHT)

        self.send_button = QPushButton("Send")
        self.send_button.setObjectName("PrimaryButton")
        self.send_button.setAccessibleName("Send")
        self.send_button.setCursor(Qt.CursorShape.PointingHandCursor)
        self.stop_button = QPushButton("Stop")
        self.stop_button.setObjectName("StopButton")
        self.stop_button.setToolTip("Stop the answer (Esc)")
        self.stop_button.setAccessibleName("Stop the answer")
        self.stop_button.setVisible(False)

        self.hint_label = QLabel(HINT)
        self.hint_label.setObjectName("ComposerHint")
        #: What the prompt budget means for the draft (hidden while it leaves room).
        self.prompt_budget_tokens: int | None = None
        self.budget_label = QLabel()
        self.budget_label.setObjectName("ComposerBudget")
        self.budget_label.setTextFormat(Qt.TextFormat.PlainText)
        self.budget_label.setWordWrap(True)
        self.budget_label.setVisible(False)

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
        layout.addWidget(self.budget_label)
        layout.addLayout(buttons)

        # Ctrl+Enter on both the main and the keypad Enter key.
        self._send_shortcuts = [
            QShortcut(QKeySequence(Qt.Modifier.CTRL | key), self.input)
            for key in (Qt.Key.Key_Return, Qt.Key.Key_Enter)
        ]
        for shortcut in self._send_shortcuts:
            shortcut.setContext(Qt.ShortcutContext.WidgetShortcut)

        self.input.installEventFilter(self)
        self._connect_signals()
        self.set_enter_sends(True)
        self._update_buttons()

    def _connect_signals(self) -> None:
        self.input.textChanged.connect(self._on_input_text_changed)
        # Lines change with the text and with the width (wrapping): follow both.
        self.input.document().documentLayout().documentSizeChanged.connect(self._fit_height)
        self.send_button.clicked.connect(self._on_send_button_clicked)
        self.stop_button.clicked.connect(self._on_stop_button_clicked)
        for shortcut in self._send_shortcuts:
            shortcut.activated.connect(self._on_send_button_clicked)

    def set_enter_sends(self, enter_sends: bool) -> None:
        """Enter sends (Shift+Enter: new line), or Enter starts a new line."""
        self.enter_sends = enter_sends
        self.hint_label.setText(ENTER_HINT if enter_sends else CTRL_ENTER_HINT)
        self.send_button.setToolTip("Send (Enter)" if enter_sends else "Send (Ctrl+Enter)")

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        if watched is self.input and event.type() in (QEvent.Type.FocusIn, QEvent.Type.FocusOut):
            self._show_focus(event.type() == QEvent.Type.FocusIn)
        if (
            watched is self.input
            and event.type() == QEvent.Type.KeyPress
            and isinstance(event, QKeyEvent)
            and event.key() in _ENTER_KEYS
            and self.enter_sends
        ):
            modifiers = event.modifiers() & ~Qt.KeyboardModifier.KeypadModifier
            if modifiers == Qt.KeyboardModifier.NoModifier:
                self._on_send_button_clicked()
                return True
            if modifiers == Qt.KeyboardModifier.ShiftModifier:
                self.input.insertPlainText("\n")  # Shift+Enter: a new line, not a new block
                return True
        return super().eventFilter(watched, event)

    def _show_focus(self, focused: bool) -> None:
        # A stylesheet can't say "a child has the focus": the box's ring follows this
        # property (app.qss, QWidget#Composer[inputFocused="true"]).
        self.setProperty("inputFocused", focused)
        self.style().unpolish(self)
        self.style().polish(self)
        self.update()

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

    def _fit_height(self, *_size) -> None:
        """As tall as the text, from about three lines up to MAX_INPUT_LINES."""
        # A plain text document's layout measures its height in lines, not pixels.
        lines = max(1, int(self.input.document().documentLayout().documentSize().height()))
        line = self.input.fontMetrics().lineSpacing()
        margins = self.input.contentsMargins()
        chrome = int(margins.top() + margins.bottom() + 2 * self.input.document().documentMargin())
        wanted = min(lines, MAX_INPUT_LINES) * line + chrome
        height = max(INPUT_HEIGHT, wanted)
        if height != self.input.height():
            self.input.setFixedHeight(height)

    def set_prompt_budget(self, budget_tokens: int | None) -> None:
        self.prompt_budget_tokens = budget_tokens
        self._update_budget_note()

    def _update_budget_note(self) -> None:
        note = budget_note(self.text(), self.prompt_budget_tokens)
        self.budget_label.setText(note or "")
        self.budget_label.setVisible(note is not None)

    def _on_input_text_changed(self) -> None:
        self._update_buttons()
        self._update_budget_note()

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
