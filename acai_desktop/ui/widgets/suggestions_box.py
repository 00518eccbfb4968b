"""Facts waiting for the user's yes ("Ask before remembering"), below the memory
panel's list: each with *Remember* and *Dismiss*. Hidden while there are none.

A suggestion is what a model read into the user's message, so it is shown as plain
text, never as markup.

While the pointer is over the box, a row that goes (accepted or dismissed) leaves its
room behind, above the rows that stay: they keep their place, so the next click can't
land on the next suggestion's Remember that moved under the pointer. The box takes its
own height again when the pointer leaves it."""

from __future__ import annotations

from PySide6.QtCore import QEvent, Qt, Signal
from PySide6.QtWidgets import QFrame, QHBoxLayout, QLabel, QPushButton, QVBoxLayout, QWidget

from acai_desktop.core.records.memories import Suggestion
from acai_desktop.ui.untrusted import make_plain

#: More than this many rows would push the memory list out of sight; the rest wait.
MAX_ROWS = 5


class SuggestionsBox(QFrame):
    accept_requested = Signal(int)  # suggestion id
    dismiss_requested = Signal(int)  # suggestion id

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("SuggestionsBox")
        self.setAttribute(Qt.WidgetAttribute.WA_StyledBackground, True)
        self.title = QLabel()
        self.title.setObjectName("SuggestionsTitle")
        self.rows = QVBoxLayout()
        self.rows.setSpacing(6)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(10, 8, 10, 8)
        layout.setSpacing(6)
        layout.addWidget(self.title)
        # Takes the room of rows gone while the pointer is over the box (else nothing).
        layout.addStretch(1)
        layout.addLayout(self.rows)
        self.suggestions: list[Suggestion] = []
        self._pointer_inside = False
        self.setVisible(False)

    def event(self, event: QEvent) -> bool:
        if event.type() == QEvent.Type.Enter:
            self._pointer_inside = True
        elif event.type() == QEvent.Type.Leave:
            self._pointer_inside = False
            self.setMinimumHeight(0)  # rows gone meanwhile: their room goes too
        return super().event(event)

    def set_suggestions(self, suggestions: list[Suggestion]) -> None:
        keep = self.height() if self.isVisible() and self._pointer_inside else 0
        self.suggestions = list(suggestions)
        while self.rows.count():
            item = self.rows.takeAt(0)
            if (widget := item.widget()) is not None:
                # Out of the box at once (deleteLater alone leaves the old row a child,
                # still found by accessibility and findChildren until the loop runs).
                widget.setParent(None)
                widget.deleteLater()
        shown = self.suggestions[:MAX_ROWS]
        for suggestion in shown:
            self.rows.addWidget(self._row(suggestion))
        waiting = len(self.suggestions) - len(shown)
        count = len(self.suggestions)
        self.title.setText(
            f"Remember this? ({count})" if count == 1 else f"Remember these? ({count})"
        )
        if waiting:
            self.rows.addWidget(QLabel(f"{waiting} more after these"))
        self.setMinimumHeight(keep if self.suggestions else 0)
        self.setVisible(bool(self.suggestions))

    def _row(self, suggestion: Suggestion) -> QWidget:
        row = QWidget()
        row.setObjectName("SuggestionRow")
        text = make_plain(QLabel(suggestion.content))
        text.setObjectName("SuggestionText")
        text.setWordWrap(True)
        text.setToolTip(
            f"Proposed by {suggestion.via}; remember it, or dismiss it"
            if suggestion.via
            else "What ACAI understood from your message; remember it, or dismiss it"
        )
        accept = QPushButton("Remember")
        accept.setObjectName("PrimaryButton")
        accept.setAccessibleName(f"Remember: {suggestion.content[:80]}")
        dismiss = QPushButton("Dismiss")
        dismiss.setAccessibleName(f"Dismiss: {suggestion.content[:80]}")
        dismiss.setToolTip("Never suggested again for this message")
        for button in (accept, dismiss):
            button.setCursor(Qt.CursorShape.PointingHandCursor)
        accept.clicked.connect(lambda: self.accept_requested.emit(suggestion.id))
        dismiss.clicked.connect(lambda: self.dismiss_requested.emit(suggestion.id))
        buttons = QHBoxLayout()
        buttons.setSpacing(6)
        buttons.addWidget(accept)
        buttons.addWidget(dismiss)
        buttons.addStretch(1)
        layout = QVBoxLayout(row)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.setSpacing(4)
        layout.addWidget(text)
        layout.addLayout(buttons)
        return row
