"""A one-line label that never widens its layout: a long (or mixed-script) title is
painted cut with "…" to the width it gets, and its whole text stays its ``text()``.

With ``keeps`` it also holds on to that much room (or its whole text, when shorter)
however narrow the layout gets, so that the chat's title is not squeezed to "Se…" by
the badges beside it; those badges are elided labels too, that give way first. A cut
label without a tooltip of its own shows its whole text as one.
"""

from __future__ import annotations

from PySide6.QtCore import QEvent, QSize, Qt
from PySide6.QtGui import QPainter, QPaintEvent
from PySide6.QtWidgets import QLabel, QSizePolicy, QStyle, QStyleOption, QToolTip, QWidget


class ElidedLabel(QLabel):
    def __init__(self, text: str = "", parent: QWidget | None = None, *, keeps: int = 0) -> None:
        super().__init__(parent)
        self.keeps = keeps
        self.setTextFormat(Qt.TextFormat.PlainText)  # a title is the user's words: text
        self.setText(text)
        # Without ``keeps`` its text's width is no claim at all (Ignored); with it, the
        # label asks for its whole text and may shrink down to what it keeps.
        horizontal = QSizePolicy.Policy.Preferred if keeps else QSizePolicy.Policy.Ignored
        self.setSizePolicy(horizontal, QSizePolicy.Policy.Preferred)

    def _line(self) -> str:
        return " ".join(self.text().split())

    def sizeHint(self) -> QSize:
        hint = super().sizeHint()
        if not self.keeps:
            return hint
        margins = self.contentsMargins()
        width = self.fontMetrics().horizontalAdvance(self._line()) + margins.left()
        return QSize(width + margins.right() + 1, hint.height())

    def minimumSizeHint(self) -> QSize:
        height = super().minimumSizeHint().height()
        return QSize(min(self.keeps, self.sizeHint().width()) if self.keeps else 0, height)

    def is_cut(self) -> bool:
        return self.shown_text() != self._line()

    def shown_text(self) -> str:
        """What is painted: one line, cut with "…" to the label's width."""
        width = self.contentsRect().width()
        return self.fontMetrics().elidedText(self._line(), Qt.TextElideMode.ElideRight, width)

    def event(self, event: QEvent) -> bool:
        if event.type() == QEvent.Type.ToolTip and not self.toolTip() and self.is_cut():
            QToolTip.showText(event.globalPos(), self._line(), self)
            return True
        return super().event(event)

    def paintEvent(self, event: QPaintEvent) -> None:
        painter = QPainter(self)
        # The stylesheet's background and border (a badge's pill), as a QLabel has them.
        option = QStyleOption()
        option.initFrom(self)
        self.style().drawPrimitive(QStyle.PrimitiveElement.PE_Widget, option, painter, self)
        painter.setPen(self.palette().color(self.foregroundRole()))
        alignment = Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignVCenter
        painter.drawText(self.contentsRect(), alignment, self.shown_text())
