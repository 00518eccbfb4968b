"""A centred "nothing here yet" message: a glyph, a title and one line of help."""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QHBoxLayout, QLabel, QVBoxLayout, QWidget


class EmptyState(QWidget):
    def __init__(
        self,
        title: str,
        text: str,
        *,
        glyph: str = "",
        text_width: int = 0,
        parent: QWidget | None = None,
    ) -> None:
        super().__init__(parent)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(24, 24, 24, 24)
        layout.setSpacing(8)
        layout.addStretch(1)
        if glyph:
            self.glyph_label = QLabel(glyph)
            self.glyph_label.setObjectName("EmptyStateIcon")
            self.glyph_label.setAlignment(Qt.AlignmentFlag.AlignCenter)
            font = self.glyph_label.font()
            font.setPointSize(28)
            self.glyph_label.setFont(font)
            layout.addWidget(self.glyph_label)
        self.title_label = QLabel(title)
        self.title_label.setObjectName("EmptyStateTitle")
        self.title_label.setAlignment(Qt.AlignmentFlag.AlignCenter)
        self.title_label.setWordWrap(True)
        layout.addWidget(self.title_label)
        self.text_label = QLabel(text)
        self.text_label.setObjectName("EmptyStateText")
        self.text_label.setAlignment(Qt.AlignmentFlag.AlignCenter)
        self.text_label.setWordWrap(True)
        if text_width:
            # A wrapped label takes all the width it is given; a narrower column of
            # text reads better in a wide pane.
            self.text_label.setMaximumWidth(text_width)
            row = QHBoxLayout()
            row.addStretch(1)
            row.addWidget(self.text_label, 100)
            row.addStretch(1)
            layout.addLayout(row)
        else:
            layout.addWidget(self.text_label)
        # Extra rows (suggestions, buttons) go here, above the bottom stretch.
        self.extra_layout = QVBoxLayout()
        self.extra_layout.setContentsMargins(0, 12, 0, 0)
        layout.addLayout(self.extra_layout)
        layout.addStretch(2)
