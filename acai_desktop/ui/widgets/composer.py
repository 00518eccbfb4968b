"""Where the user writes: a multi-line input, Send and, while an answer streams, Stop.
Enter sends and Shift+Enter starts a new line (or, with ``enter_sends`` off, Enter starts
a new line); Ctrl+Enter always sends. The composer only asks; whoever owns the turn
decides what happens, and the text is cleared only once the message is committed.

A draft that takes most of the prompt budget, or passes it, says so before it is sent
(see :mod:`acai_desktop.ui.long_message`).

Files are attached with the paperclip, by pasting them, or by dropping them onto the
chat; a picture pasted from the clipboard is attached as an image; a pasted text over
the whole prompt budget is attached instead of typed in
(:func:`~acai_desktop.ui.long_message.pastes_as_attachment`). The chat's attachments
show as chips above the input (:mod:`acai_desktop.ui.widgets.attachment_strip`), and a
note under it says what happened to an attachment (refused, pasted, waited for).

*Edit* on one of the user's messages puts its text here in editing mode (a note with
*Cancel* above the input): sending then asks for the edit (``edit_send_requested``,
which branches the chat there) instead of a new message."""

from __future__ import annotations

from PySide6.QtCore import QEvent, QMimeData, QObject, QSize, Qt, Signal
from PySide6.QtGui import QIcon, QImage, QKeyEvent, QKeySequence, QShortcut, QTextCursor
from PySide6.QtWidgets import (
    QHBoxLayout,
    QLabel,
    QPlainTextEdit,
    QPushButton,
    QToolButton,
    QVBoxLayout,
    QWidget,
)

from acai_desktop.core.resources import resource_path
from acai_desktop.ui.long_message import budget_note, pastes_as_attachment
from acai_desktop.ui.untrusted import plain_label
from acai_desktop.ui.widgets.attachment_strip import AttachmentStrip
from acai_desktop.ui.widgets.elided_label import ElidedLabel
from acai_desktop.ui.widgets.file_drop import local_paths

PLACEHOLDER = "Message ACAI…"
EDITING_NOTE = "Editing your message: sending it starts a new branch of the chat from there."
ENTER_HINT = "Enter to send · Shift+Enter for a new line"
CTRL_ENTER_HINT = "Ctrl+Enter to send · Enter for a new line"
HINT = ENTER_HINT
_ENTER_KEYS = (Qt.Key.Key_Return, Qt.Key.Key_Enter)
INPUT_HEIGHT = 72  # about three lines: the height of an empty composer
#: The composer grows with its text up to this many lines, then scrolls.
MAX_INPUT_LINES = 10


class ComposerInput(QPlainTextEdit):
    """The input, which hands pasted files, a pasted picture and a paste over the prompt
    budget to the composer instead of inserting them."""

    files_pasted = Signal(list)  # local paths
    image_pasted = Signal(QImage)
    long_text_pasted = Signal(str)

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        #: The prompt budget a paste is measured against (None: unknown, never attached).
        self.budget_tokens: int | None = None

    def insertFromMimeData(self, source: QMimeData) -> None:
        paths = local_paths(source)
        if paths:
            self.files_pasted.emit(paths)
            return
        if pasted_picture(source):
            self.image_pasted.emit(QImage(source.imageData()))
            return
        if source.hasText() and pastes_as_attachment(source.text(), self.budget_tokens):
            self.long_text_pasted.emit(source.text())
            return
        super().insertFromMimeData(source)

    def canInsertFromMimeData(self, source: QMimeData) -> bool:
        # A picture alone is pasteable too (Paste in the context menu, a drop).
        return pasted_picture(source) or super().canInsertFromMimeData(source)


def pasted_picture(source: QMimeData) -> bool:
    """Whether a paste is a picture: an image and no text. An office suite puts a
    rendering of copied cells or words beside their text; the text is what is meant."""
    return source.hasImage() and not (source.hasText() and source.text().strip())


class Composer(QWidget):
    send_requested = Signal(str)
    edit_send_requested = Signal(int, str)  # the user message edited, its new text
    stop_requested = Signal()
    attach_requested = Signal()  # the paperclip: choose files to attach
    files_attached = Signal(list)  # local paths pasted into the input
    long_text_pasted = Signal(str)  # a paste over the prompt budget, to attach
    image_pasted = Signal(QImage)  # a picture pasted from the clipboard, to attach

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("Composer")
        # A plain QWidget paints its stylesheet background only with this attribute.
        self.setAttribute(Qt.WidgetAttribute.WA_StyledBackground, True)
        self._busy = False
        self.enter_sends = True
        #: The user message being edited (None: a new message).
        self.editing_message_id: int | None = None

        self.input = ComposerInput()
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

        self.attach_button = QToolButton()
        self.attach_button.setObjectName("AttachButton")
        self.attach_button.setIcon(QIcon(str(resource_path("themes", "paperclip.svg"))))
        self.attach_button.setIconSize(QSize(18, 18))
        self.attach_button.setText("Attach")
        self.attach_button.setAccessibleName("Attach a file")
        self.attach_button.setToolTip(
            "Attach a file or an image to this chat (or drop it onto the chat, or paste it)"
        )
        self.attach_button.setCursor(Qt.CursorShape.PointingHandCursor)
        #: The chat's attached files, as chips with their state.
        self.attachments = AttachmentStrip()
        #: What happened to an attachment: refused, a paste attached, a send waiting.
        self.attach_note = plain_label("", "ComposerAttachNote")
        self.attach_note.setWordWrap(True)
        self.attach_note.setVisible(False)

        # Cut with "…" in a narrow window (whole in its tooltip), never clipped mid-word.
        self.hint_label = ElidedLabel(HINT, keeps=1)  # asks for its whole text
        self.hint_label.setObjectName("ComposerHint")
        #: What the prompt budget means for the draft (hidden while it leaves room).
        self.prompt_budget_tokens: int | None = None
        self.budget_label = QLabel()
        self.budget_label.setObjectName("ComposerBudget")
        self.budget_label.setTextFormat(Qt.TextFormat.PlainText)
        self.budget_label.setWordWrap(True)
        self.budget_label.setVisible(False)

        self.editing_label = QLabel(EDITING_NOTE)
        self.editing_label.setObjectName("ComposerEditing")
        self.editing_label.setWordWrap(True)
        self.cancel_edit_button = QPushButton("Cancel")
        self.cancel_edit_button.setObjectName("CancelEditButton")
        self.cancel_edit_button.setAccessibleName("Cancel the edit")
        self.cancel_edit_button.setCursor(Qt.CursorShape.PointingHandCursor)
        self.editing_row = QWidget()
        editing = QHBoxLayout(self.editing_row)
        editing.setContentsMargins(0, 0, 0, 0)
        editing.addWidget(self.editing_label, 1)
        editing.addWidget(self.cancel_edit_button)
        self.editing_row.setVisible(False)

        buttons = QHBoxLayout()
        buttons.setContentsMargins(0, 0, 0, 0)
        buttons.addWidget(self.attach_button)
        buttons.addWidget(self.hint_label)
        buttons.addStretch(1)
        buttons.addWidget(self.stop_button)
        buttons.addWidget(self.send_button)

        layout = QVBoxLayout(self)
        layout.setContentsMargins(14, 10, 10, 10)
        layout.setSpacing(6)
        layout.addWidget(self.editing_row)
        layout.addWidget(self.attachments)
        layout.addWidget(self.input)
        layout.addWidget(self.budget_label)
        layout.addWidget(self.attach_note)
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
        self.cancel_edit_button.clicked.connect(self.cancel_edit)
        self.attach_button.clicked.connect(self.attach_requested)
        self.input.files_pasted.connect(self.files_attached)
        self.input.long_text_pasted.connect(self.long_text_pasted)
        self.input.image_pasted.connect(self.image_pasted)
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

    def begin_edit(self, message_id: int, text: str) -> None:
        """Edit the user's message ``message_id``: its text here, sending branches."""
        self.editing_message_id = message_id
        self.editing_row.setVisible(True)
        self.set_text(text)

    def cancel_edit(self) -> None:
        """Back to writing a new message (the text stays, to send or delete)."""
        self.editing_message_id = None
        self.editing_row.setVisible(False)

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
        self.input.budget_tokens = budget_tokens
        self._update_budget_note()

    def show_attach_note(self, text: str, *, problem: bool = False) -> None:
        """Say what happened to an attachment ("" hides the note); ``problem``: in the
        warning colour (a refusal, a failure)."""
        self.attach_note.setText(text)
        self.attach_note.setProperty("problem", problem)
        self.attach_note.style().unpolish(self.attach_note)
        self.attach_note.style().polish(self.attach_note)
        self.attach_note.setVisible(bool(text))

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
        if self.editing_message_id is not None:
            self.edit_send_requested.emit(self.editing_message_id, text)
        else:
            self.send_requested.emit(text)

    def clear_sent(self, text: str) -> None:
        """``text`` is now a message on disk: empty the input unless the user has
        changed it meanwhile (and end an edit it was)."""
        if self.text().strip() == text.strip():
            self.input.clear()
            self.cancel_edit()

    def _on_stop_button_clicked(self) -> None:
        if self._busy:
            self.stop_requested.emit()
