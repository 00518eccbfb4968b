"""The transcript: a QListView over :class:`MessagesModel` with a bubble delegate.

User messages are accent bubbles on the right; answers are white bubbles on the left
with, underneath, their status and actions: "Stopped", the error with "Retry", and
"Memories used (N)" that opens the answer's provenance. One layout function serves
painting, sizing and hit-testing, so what is drawn is what is clickable.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from PySide6.QtCore import QModelIndex, QPoint, QPointF, QRect, QSize, Qt, Signal
from PySide6.QtGui import (
    QAction,
    QColor,
    QFont,
    QFontMetrics,
    QGuiApplication,
    QMouseEvent,
    QPainter,
    QPainterPath,
    QPen,
    QTextLayout,
    QTextOption,
)
from PySide6.QtWidgets import (
    QAbstractItemView,
    QListView,
    QMenu,
    QStyledItemDelegate,
    QStyleOptionViewItem,
    QWidget,
)

from acai_desktop.ui.models.messages_model import MessageRoles

SIDE_MARGIN = 28
ROW_GAP = 8
PAD_X = 14
PAD_Y = 10
AVATAR = 28
MAX_BUBBLE_WIDTH = 720

USER_BUBBLE = QColor("#6a3fa0")
USER_TEXT = QColor("#ffffff")
ANSWER_BUBBLE = QColor("#ffffff")
ANSWER_BORDER = QColor("#e6e3ef")
ERROR_BORDER = QColor("#e8c3c9")
INK = QColor("#1f1d2b")
MUTED = QColor("#8a869c")
LINK = QColor("#6a3fa0")
HIGHLIGHT_BORDER = QColor("#e0a526")  # a message opened from an answer's provenance
ERROR = QColor("#a12a3a")
STOPPED = QColor("#9a6b00")

RETRY = "retry"
SOURCES = "sources"


@dataclass
class BubbleLayout:
    bubble: QRect
    text: QRect
    error: QRect | None = None
    avatar: QRect | None = None
    notes: list[tuple[QRect, str, QColor]] = field(default_factory=list)  # plain footer text
    actions: list[tuple[QRect, str, str]] = field(default_factory=list)  # (rect, action, label)
    height: int = 0


def _fonts(base: QFont) -> tuple[QFont, QFont]:
    body = QFont(base)
    body.setPointSizeF(max(base.pointSizeF(), 10.0) + 0.5)
    small = QFont(base)
    small.setPointSizeF(max(base.pointSizeF(), 10.0) - 1.0)
    return body, small


def wrapped(text: str, font: QFont, width: int) -> tuple[list[QTextLayout], QSize]:
    """Lay ``text`` out in ``width`` pixels: at word boundaries, or anywhere for a word
    longer than the line (a URL); one QTextLayout per paragraph."""
    option = QTextOption()
    option.setWrapMode(QTextOption.WrapMode.WrapAtWordBoundaryOrAnywhere)
    layouts, height, used = [], 0.0, 0.0
    leading = QFontMetrics(font).leading()
    for paragraph in text.split("\n"):
        layout = QTextLayout(paragraph, font)
        layout.setTextOption(option)
        layout.beginLayout()
        while (line := layout.createLine()).isValid():
            line.setLineWidth(width)
            line.setPosition(QPointF(0, height))
            height += leading + line.height()
            used = max(used, line.naturalTextWidth())
        layout.endLayout()
        layouts.append(layout)
    return layouts, QSize(int(used + 0.999), int(height + 0.999))


def draw_wrapped(painter: QPainter, text: str, font: QFont, rect: QRect) -> None:
    layouts, _ = wrapped(text, font, rect.width())
    for layout in layouts:
        layout.draw(painter, QPointF(rect.topLeft()))


def shown_text(index: QModelIndex) -> str:
    content = index.data(MessageRoles.CONTENT) or ""
    if content:
        return content
    return {"streaming": "…", "stopped": "(stopped before any text)"}.get(
        index.data(MessageRoles.STATUS), ""
    )


def _link_font(small: QFont) -> QFont:
    font = QFont(small)
    font.setWeight(QFont.Weight.DemiBold)
    return font


def footer_of(index: QModelIndex) -> tuple[list[tuple[str, QColor]], list[tuple[str, str]]]:
    """Notes and actions shown under an answer, by its status."""
    status = index.data(MessageRoles.STATUS)
    count = index.data(MessageRoles.SOURCES_COUNT)
    notes: list[tuple[str, QColor]] = []
    actions: list[tuple[str, str]] = []
    if status == "streaming":
        notes.append(("Writing…", MUTED))
    elif status == "stopped":
        notes.append(("Stopped", STOPPED))
        actions.append((RETRY, "Retry"))
    elif status == "error":
        actions.append((RETRY, "Retry"))
    if status != "streaming" and count:
        actions.append((SOURCES, f"Memories used ({count})"))
    return notes, actions


class MessageDelegate(QStyledItemDelegate):
    def __init__(self, view: QListView) -> None:
        super().__init__(view)
        self.view = view

    def bubble_layout(self, rect: QRect, index: QModelIndex) -> BubbleLayout:
        body_font, small_font = _fonts(self.view.font())
        body, small = QFontMetrics(body_font), QFontMetrics(small_font)
        link = QFontMetrics(_link_font(small_font))
        is_user = index.data(MessageRoles.ROLE) == "user"
        status = index.data(MessageRoles.STATUS)
        content = shown_text(index)
        error = index.data(MessageRoles.ERROR) if status == "error" else None
        avatar_space = 0 if is_user else AVATAR + 10
        usable = rect.width() - 2 * SIDE_MARGIN - avatar_space
        max_width = max(120, min(int(usable * (0.8 if is_user else 0.92)), MAX_BUBBLE_WIDTH))
        text_width = max_width - 2 * PAD_X
        text_size = QSize(0, 0)
        if content:
            text_size = wrapped(content, body_font, text_width)[1]
        error_size = QSize(0, 0)
        if error:
            error_size = wrapped("⚠  " + error, small_font, text_width)[1]
        inner_width = max(text_size.width(), error_size.width(), 24)
        inner_height = text_size.height() + error_size.height()
        if content and error:
            inner_height += 6
        bubble_w = inner_width + 2 * PAD_X
        bubble_h = max(inner_height, body.height()) + 2 * PAD_Y
        top = rect.top() + ROW_GAP // 2
        if is_user:
            left = rect.right() - SIDE_MARGIN - bubble_w
        else:
            left = rect.left() + SIDE_MARGIN + avatar_space
        bubble = QRect(left, top, bubble_w, bubble_h)
        text = QRect(left + PAD_X, top + PAD_Y, inner_width, text_size.height())
        layout = BubbleLayout(bubble=bubble, text=text)
        if error:
            error_top = text.bottom() + (7 if content else 1)
            layout.error = QRect(left + PAD_X, error_top, inner_width, error_size.height())
        bottom = bubble.bottom()
        if not is_user:
            layout.avatar = QRect(rect.left() + SIDE_MARGIN, top, AVATAR, AVATAR)
            notes, actions = footer_of(index)
            if notes or actions:
                x, y = left + 4, bubble.bottom() + 5
                for note, colour in notes:
                    width = small.horizontalAdvance(note)
                    layout.notes.append((QRect(x, y, width, small.height()), note, colour))
                    x += width + 14
                for action, label in actions:
                    width = link.horizontalAdvance(label) + 2
                    layout.actions.append((QRect(x, y, width, small.height()), action, label))
                    x += width + 14
                bottom = y + small.height()
        layout.height = bottom - rect.top() + ROW_GAP // 2 + 4
        return layout

    def sizeHint(self, option: QStyleOptionViewItem, index: QModelIndex) -> QSize:
        width = self.view.viewport().width()
        layout = self.bubble_layout(QRect(0, 0, width, 0), index)
        return QSize(width, layout.height)

    def paint(self, painter: QPainter, option: QStyleOptionViewItem, index: QModelIndex) -> None:
        layout = self.bubble_layout(option.rect, index)
        body_font, small_font = _fonts(self.view.font())
        is_user = index.data(MessageRoles.ROLE) == "user"
        status = index.data(MessageRoles.STATUS)
        painter.save()
        painter.setRenderHint(QPainter.RenderHint.Antialiasing)
        path = QPainterPath()
        path.addRoundedRect(layout.bubble.adjusted(0, 0, -1, -1), 14, 14)
        if is_user:
            painter.fillPath(path, USER_BUBBLE)
        else:
            painter.fillPath(path, ANSWER_BUBBLE)
            painter.setPen(QPen(ERROR_BORDER if status == "error" else ANSWER_BORDER, 1))
            painter.drawPath(path)
        if index.data(MessageRoles.ID) == getattr(self.view, "highlighted_message_id", None):
            painter.setPen(QPen(HIGHLIGHT_BORDER, 3))  # the message a provenance link opened
            painter.drawPath(path)
        if layout.avatar is not None:
            painter.setPen(Qt.PenStyle.NoPen)
            painter.setBrush(QColor("#efe8fa"))
            painter.drawEllipse(layout.avatar)
            painter.setPen(LINK)
            painter.setFont(small_font)
            painter.drawText(layout.avatar, Qt.AlignmentFlag.AlignCenter, "✦")
        content = shown_text(index)
        painter.setFont(body_font)
        painter.setPen(USER_TEXT if is_user else INK)
        draw_wrapped(painter, content, body_font, layout.text)
        painter.setFont(small_font)
        if layout.error is not None:
            painter.setPen(ERROR)
            error = "⚠  " + (index.data(MessageRoles.ERROR) or "")
            draw_wrapped(painter, error, small_font, layout.error)
        for rect, note, colour in layout.notes:
            painter.setPen(colour)
            painter.drawText(rect, Qt.AlignmentFlag.AlignLeft, note)
        painter.setFont(_link_font(small_font))
        for rect, _action, label in layout.actions:
            painter.setPen(LINK)
            painter.drawText(rect, Qt.AlignmentFlag.AlignLeft, label)
        painter.restore()


class ChatView(QListView):
    retry_requested = Signal(int)  # answer message id
    sources_requested = Signal(int)  # answer message id
    #: The message an answer's provenance pointed at (drawn with a border), or None.
    highlighted_message_id: int | None = None

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("ChatView")
        self.setSelectionMode(QAbstractItemView.SelectionMode.NoSelection)
        self.setFocusPolicy(Qt.FocusPolicy.NoFocus)
        self.setVerticalScrollMode(QAbstractItemView.ScrollMode.ScrollPerPixel)
        self.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        self.setResizeMode(QListView.ResizeMode.Adjust)
        self.setUniformItemSizes(False)
        self.setMouseTracking(True)
        self.setSpacing(0)
        self.setViewportMargins(0, 14, 0, 0)  # air under the header
        self.delegate = MessageDelegate(self)
        self.setItemDelegate(self.delegate)

    def show_message(self, message_id: int) -> bool:
        """Scroll ``message_id`` into the middle of the view and highlight it (until
        another conversation is shown); False when it is not in the transcript."""
        model = self.model()
        for row in range(model.rowCount()):
            index = model.index(row, 0)
            if index.data(MessageRoles.ID) == message_id:
                self.highlighted_message_id = message_id
                self.scrollTo(index, QAbstractItemView.ScrollHint.PositionAtCenter)
                self.viewport().update()
                return True
        return False

    def setModel(self, model) -> None:
        super().setModel(model)
        model.dataChanged.connect(self._on_model_data_changed)
        model.rowsInserted.connect(self._on_model_rows_inserted)
        model.modelReset.connect(self._on_model_reset)

    # -- hit testing -----------------------------------------------------------------

    def action_rect(self, row: int, action: str) -> QRect | None:
        """Where ``action`` is drawn for ``row``, in viewport coordinates (tests use it)."""
        index = self.model().index(row, 0)
        layout = self.delegate.bubble_layout(self.visualRect(index), index)
        for rect, name, _label in layout.actions:
            if name == action:
                return rect
        return None

    def action_at(self, pos: QPoint) -> tuple[QModelIndex, str] | None:
        index = self.indexAt(pos)
        if not index.isValid():
            return None
        layout = self.delegate.bubble_layout(self.visualRect(index), index)
        for rect, action, _label in layout.actions:
            if rect.adjusted(-4, -3, 8, 3).contains(pos):
                return index, action
        return None

    def mouseMoveEvent(self, event: QMouseEvent) -> None:
        over_action = self.action_at(event.position().toPoint()) is not None
        cursor = Qt.CursorShape.PointingHandCursor if over_action else Qt.CursorShape.ArrowCursor
        self.viewport().setCursor(cursor)
        super().mouseMoveEvent(event)

    def mouseReleaseEvent(self, event: QMouseEvent) -> None:
        hit = self.action_at(event.position().toPoint())
        if hit is not None and event.button() == Qt.MouseButton.LeftButton:
            index, action = hit
            message_id = index.data(MessageRoles.ID)
            if action == RETRY:
                self.retry_requested.emit(message_id)
            elif action == SOURCES:
                self.sources_requested.emit(message_id)
            event.accept()
            return
        super().mouseReleaseEvent(event)

    def contextMenuEvent(self, event) -> None:
        index = self.indexAt(event.pos())
        if not index.isValid():
            return
        menu = QMenu(self)
        copy = QAction("Copy message", menu)
        copy.triggered.connect(
            lambda: QGuiApplication.clipboard().setText(index.data(MessageRoles.CONTENT) or "")
        )
        menu.addAction(copy)
        menu.popup(event.globalPos())

    # -- keeping up with the model ---------------------------------------------------

    def _at_bottom(self) -> bool:
        bar = self.verticalScrollBar()
        return bar.value() >= bar.maximum() - 24

    def _on_model_data_changed(self, top: QModelIndex, bottom: QModelIndex, roles) -> None:
        # QListView does not re-measure rows on dataChanged; a streamed chunk can make
        # the bubble taller, so ask for a new layout, and stay at the bottom if there.
        follow = self._at_bottom()
        for row in range(top.row(), bottom.row() + 1):
            self.delegate.sizeHintChanged.emit(self.model().index(row, 0))
        if follow:
            self.scrollToBottom()

    def _on_model_rows_inserted(self, parent: QModelIndex, first: int, last: int) -> None:
        self.scrollToBottom()

    def _on_model_reset(self) -> None:
        self.highlighted_message_id = None
        self.scrollToBottom()
