"""The Review (issue 43, item 1), below the memory panel's list: the facts past their
lifetime (core/memory/fact_ages.py), a few a week, the oldest shown with *Still true*,
*Edit* and *No longer true*, the next when it is answered. Hidden while none is due: it
asks, it never nags.

A fact is what ACAI learned from the user's words, so it is shown as plain text."""

from __future__ import annotations

from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import QFrame, QLabel, QPushButton, QVBoxLayout, QWidget

from acai_desktop.core.clock import parse_utc
from acai_desktop.core.records.memories import MemoryItem
from acai_desktop.ui.untrusted import make_plain
from acai_desktop.ui.widgets.flow_layout import FlowLayout

TITLE = "Still true?"
#: Facts asked about at once (the next comes when this one is answered).
SHOWN = 1


def as_of_label(memory: MemoryItem) -> str:
    """ "As of March 2025 (learned January 2024)", or just "As of …" when they agree."""
    said = parse_utc(memory.said_at).strftime("%B %Y")
    learned = parse_utc(memory.created_at).strftime("%B %Y")
    return f"As of {said}" + (f" (learned {learned})" if learned != said else "")


class ReviewBox(QFrame):
    confirm_requested = Signal(int)  # memory id: still true
    edit_requested = Signal(int)  # memory id: the user rewrites it
    retire_requested = Signal(int)  # memory id: no longer true

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        # The suggestions' look: a box of the panel that asks something.
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
        layout.addLayout(self.rows)
        self.due: list[MemoryItem] = []
        self.setVisible(False)

    def set_due(self, due: list[MemoryItem]) -> None:
        self.due = list(due)
        while self.rows.count():
            item = self.rows.takeAt(0)
            if (widget := item.widget()) is not None:
                widget.setParent(None)
                widget.deleteLater()
        # One at a time, the oldest: the list above keeps its room.
        for memory in self.due[:SHOWN]:
            self.rows.addWidget(self._row(memory))
        if (waiting := len(self.due) - SHOWN) > 0:
            self.rows.addWidget(QLabel(f"{waiting} more after this one"))
        self.title.setText(f"{TITLE} ({len(self.due)})")
        self.title.setToolTip(
            "Facts like a job, a home or a plan go stale. These are past the time ACAI "
            "believes them unasked; until you answer, answers say “as of” their date."
        )
        self.setVisible(bool(self.due))

    def _row(self, memory: MemoryItem) -> QWidget:
        row = QWidget()
        row.setObjectName("SuggestionRow")
        text = make_plain(QLabel(memory.content))
        text.setObjectName("SuggestionText")
        text.setWordWrap(True)
        when = QLabel(as_of_label(memory))
        when.setObjectName("Hint")
        # The three wrap in a narrow panel rather than push it wider.
        bar = QWidget()
        buttons = FlowLayout(bar)
        for label, signal, tip in (
            ("Still true", self.confirm_requested, "It is as of today"),
            ("Edit", self.edit_requested, "Say what is true now"),
            ("No longer true", self.retire_requested, "Answers stop using it; history keeps it"),
        ):
            button = QPushButton(label)
            button.setCursor(Qt.CursorShape.PointingHandCursor)
            button.setAccessibleName(f"{label}: {memory.content[:80]}")
            button.setToolTip(tip)
            button.clicked.connect(lambda _=False, s=signal: s.emit(memory.id))
            buttons.addWidget(button)
            if label == "Still true":
                button.setObjectName("PrimaryButton")
        layout = QVBoxLayout(row)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.setSpacing(4)
        layout.addWidget(text)
        layout.addWidget(when)
        layout.addWidget(bar)
        return row
