"""The transcript: a QListView over :class:`MessagesModel` with a bubble delegate.

User messages are accent bubbles on the right, shown as plain text; answers are bubbles
on the left, rendered from Markdown (:class:`MessageDocument`: headings, lists, tables,
quotes, links, highlighted code with a *Copy* link), with their status and actions
underneath: "Stopped", the error with "Retry", "Regenerate", and "Memories used (N)".
Under the user's last message, "Edit" puts it back in the composer.

Each message's document is cached (by message id; laid out for the current width) and
painted by the delegate; one layout function serves painting, sizing and hit-testing.
To select text, a read-only :class:`MessageReader` (a QTextBrowser sharing the same
document) opens over the message under the mouse, or on Enter for the current message.
"""

from __future__ import annotations

import math
from collections import OrderedDict
from dataclasses import dataclass, field

from PySide6.QtCore import (
    QEvent,
    QModelIndex,
    QObject,
    QPersistentModelIndex,
    QPoint,
    QPointF,
    QRect,
    QRectF,
    QSize,
    Qt,
    QTimer,
    QUrl,
    Signal,
)
from PySide6.QtGui import (
    QAbstractTextDocumentLayout,
    QAction,
    QColor,
    QFont,
    QFontMetrics,
    QGuiApplication,
    QKeyEvent,
    QKeySequence,
    QMouseEvent,
    QPainter,
    QPainterPath,
    QPalette,
    QPen,
)
from PySide6.QtWidgets import (
    QAbstractItemView,
    QFrame,
    QListView,
    QMenu,
    QStyle,
    QStyledItemDelegate,
    QStyleOptionViewItem,
    QTextBrowser,
    QTextEdit,
    QWidget,
)

from acai_desktop.ui.links import REFUSED_TEXT, open_link
from acai_desktop.ui.message_document import COPY_SCHEME, MessageDocument
from acai_desktop.ui.models.messages_model import MessageRoles
from acai_desktop.ui.syntax import warm_up
from acai_desktop.ui.theme import Theme, load_theme

SIDE_MARGIN = 28
ROW_GAP = 8
PAD_X = 14
PAD_Y = 10
AVATAR = 28
MAX_BUBBLE_WIDTH = 760
#: Documents kept laid out; others are rebuilt when scrolled back into view.
DOCUMENT_CACHE_SIZE = 300
WARM_UP_MS = 1500

RETRY = "retry"
REGENERATE = "regenerate"
SOURCES = "sources"
EDIT = "edit"
CODE_COPIED_TEXT = "Code copied."


@dataclass
class BubbleLayout:
    bubble: QRect
    text: QRect
    text_width: int = 0  # the document's layout width (text may use less)
    error: QRect | None = None
    avatar: QRect | None = None
    notes: list[tuple[QRect, str, str]] = field(default_factory=list)  # rect, text, colour
    actions: list[tuple[QRect, str, str]] = field(default_factory=list)  # (rect, action, label)
    height: int = 0


def _fonts(base: QFont) -> tuple[QFont, QFont]:
    body = QFont(base)
    body.setPointSizeF(max(base.pointSizeF(), 10.0) + 0.5)
    small = QFont(base)
    small.setPointSizeF(max(base.pointSizeF(), 10.0) - 1.0)
    return body, small


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


def footer_of(
    index: QModelIndex, *, last_user: bool = False
) -> tuple[list[tuple[str, str]], list[tuple[str, str]]]:
    """Notes (text, theme colour) and actions (name, label) shown under a message."""
    status = index.data(MessageRoles.STATUS)
    notes: list[tuple[str, str]] = []
    actions: list[tuple[str, str]] = []
    if index.data(MessageRoles.ROLE) == "user":
        if last_user:
            actions.append((EDIT, "Edit"))
        return notes, actions
    count = index.data(MessageRoles.SOURCES_COUNT)
    if status == "streaming":
        notes.append(("Writing…", "faint"))
    elif status == "stopped":
        notes.append(("Stopped", "stopped"))
        actions.append((RETRY, "Retry"))
    elif status == "error":
        actions.append((RETRY, "Retry"))
    else:
        actions.append((REGENERATE, "Regenerate"))
    if status != "streaming" and count:
        actions.append((SOURCES, f"Memories used ({count})"))
    return notes, actions


def _wrapped_height(text: str, font: QFont, width: int) -> QSize:
    rect = QFontMetrics(font).boundingRect(
        QRect(0, 0, width, 100_000), int(Qt.TextFlag.TextWordWrap), text
    )
    return rect.size()


class MessageDocuments:
    """The rendered document of each message, by id; the least recently used go."""

    def __init__(self, theme: Theme, font: QFont, capacity: int = DOCUMENT_CACHE_SIZE) -> None:
        self.theme = theme
        self.font = font
        self.capacity = capacity
        self._documents: OrderedDict[int, MessageDocument] = OrderedDict()
        #: Ids whose document a reader shows: never dropped while it does.
        self.pinned: set[int] = set()

    def document(self, index: QModelIndex, width: int) -> MessageDocument:
        message_id = index.data(MessageRoles.ID)
        markdown = index.data(MessageRoles.ROLE) != "user"
        document = self._documents.get(message_id)
        if document is None or document.markdown != markdown:
            document = MessageDocument(self.theme, self.font, markdown=markdown)
            self._documents[message_id] = document
        else:
            self._documents.move_to_end(message_id)
        document.set_width(width)
        document.set_source(shown_text(index))
        while len(self._documents) > self.capacity:
            oldest = next((i for i in self._documents if i not in self.pinned), None)
            if oldest is None:
                break
            del self._documents[oldest]
        return document

    def get(self, message_id: int) -> MessageDocument | None:
        return self._documents.get(message_id)

    def reset(self, theme: Theme, font: QFont) -> None:
        self.theme, self.font = theme, font
        self._documents = OrderedDict(
            (i, d) for i, d in self._documents.items() if i in self.pinned
        )


class MessageReader(QTextBrowser):
    """A message's document, opened for selecting text with the mouse or the keyboard."""

    link_activated = Signal(str)
    dismissed = Signal()

    def __init__(self, document: MessageDocument, ink: QColor, parent: QWidget) -> None:
        super().__init__(parent)
        self.setObjectName("MessageReader")
        self.setAccessibleName("Message text")
        self.setFrameShape(QFrame.Shape.NoFrame)
        self.setVerticalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        self.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        self.setOpenLinks(False)
        self.setOpenExternalLinks(False)
        self.setTextInteractionFlags(
            Qt.TextInteractionFlag.TextBrowserInteraction
            | Qt.TextInteractionFlag.TextSelectableByKeyboard
        )
        self.setLineWrapMode(QTextEdit.LineWrapMode.FixedPixelWidth)
        self.setLineWrapColumnOrWidth(max(1, math.floor(document.textWidth())))
        self.setFont(document.defaultFont())
        self.viewport().setAutoFillBackground(False)
        palette = self.palette()
        palette.setColor(QPalette.ColorRole.Base, QColor(0, 0, 0, 0))
        palette.setColor(QPalette.ColorRole.Text, ink)
        self.setPalette(palette)
        # Kept alive with the reader: the view's cache may drop the document while the
        # reader waits for its deferred deletion.
        self.shared_document = document
        self.setDocument(document)
        self.anchorClicked.connect(self._on_anchor_clicked)

    def _on_anchor_clicked(self, url: QUrl) -> None:
        self.link_activated.emit(url.toString())

    def keyPressEvent(self, event: QKeyEvent) -> None:
        if event.key() == Qt.Key.Key_Escape and not event.modifiers():
            self.dismissed.emit()
            event.accept()
            return
        super().keyPressEvent(event)


class MessageDelegate(QStyledItemDelegate):
    def __init__(self, view: ChatView) -> None:
        super().__init__(view)
        self.view = view
        self.theme = load_theme()
        self.documents = MessageDocuments(self.theme, _fonts(view.font())[0])
        self._heights: dict[int, tuple[tuple, int]] = {}  # id: (what it showed, height)

    def set_theme(self, theme: Theme) -> None:
        self.theme = theme
        self._heights.clear()
        self.documents.reset(theme, _fonts(self.view.font())[0])

    def _ink(self, index: QModelIndex) -> QColor:
        is_user = index.data(MessageRoles.ROLE) == "user"
        return self.theme.color("bubble_user_ink" if is_user else "ink")

    def document(self, index: QModelIndex) -> MessageDocument:
        layout = self.bubble_layout(self.view.visualRect(index), index)
        return self.documents.document(index, layout.text_width)

    def bubble_layout(self, rect: QRect, index: QModelIndex) -> BubbleLayout:
        _body_font, small_font = _fonts(self.view.font())
        small = QFontMetrics(small_font)
        link = QFontMetrics(_link_font(small_font))
        is_user = index.data(MessageRoles.ROLE) == "user"
        status = index.data(MessageRoles.STATUS)
        error = index.data(MessageRoles.ERROR) if status == "error" else None
        avatar_space = 0 if is_user else AVATAR + 10
        usable = rect.width() - 2 * SIDE_MARGIN - avatar_space
        max_width = max(120, min(int(usable * (0.8 if is_user else 0.94)), MAX_BUBBLE_WIDTH))
        text_width = max_width - 2 * PAD_X
        document = self.documents.document(index, text_width)
        size = document.size()
        used = text_width if document.is_wide else min(text_width, math.ceil(document.idealWidth()))
        text_size = QSize(used, math.ceil(size.height()))
        error_size = QSize(0, 0)
        if error:
            error_size = _wrapped_height("⚠  " + error, small_font, text_width)
        inner_width = max(text_size.width(), error_size.width(), 24)
        inner_height = text_size.height() + error_size.height() + (6 if error else 0)
        bubble_w = inner_width + 2 * PAD_X
        bubble_h = inner_height + 2 * PAD_Y
        top = rect.top() + ROW_GAP // 2
        if is_user:
            left = rect.right() - SIDE_MARGIN - bubble_w
        else:
            left = rect.left() + SIDE_MARGIN + avatar_space
        bubble = QRect(left, top, bubble_w, bubble_h)
        text = QRect(left + PAD_X, top + PAD_Y, inner_width, text_size.height())
        layout = BubbleLayout(bubble=bubble, text=text, text_width=text_width)
        if error:
            error_top = text.bottom() + 7
            layout.error = QRect(left + PAD_X, error_top, inner_width, error_size.height())
        bottom = bubble.bottom()
        if not is_user:
            layout.avatar = QRect(rect.left() + SIDE_MARGIN, top, AVATAR, AVATAR)
        last_user = is_user and index.row() == self.view.model().last_user_row()
        notes, actions = footer_of(index, last_user=last_user)
        if notes or actions:
            y = bubble.bottom() + 5
            widths = [small.horizontalAdvance(n) + 14 for n, _ in notes]
            widths += [link.horizontalAdvance(label) + 16 for _, label in actions]
            x = bubble.right() - 4 - sum(widths) + 14 if is_user else left + 4
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
        if not self.view.isVisible():
            # Measured for real once shown, at the width it will have then: rendering
            # every message at a hidden view's width would be thrown away.
            return QSize(width, 0)
        # The list asks every row's size on each layout (a long conversation's every
        # row per streamed batch): a row's height changes only with its record (replaced
        # on every change), its sources count or its "Edit" link, so it is kept, and the
        # check reads the model's records directly, not through Qt's data().
        model = self.view.model()
        row = index.row()
        message = model.message_at(row)
        state = (width, message, model.sources_count_of(message.id), row == model.last_user_row())
        cached = self._heights.get(message.id)
        if (
            cached is not None
            and cached[0][0] == width
            and cached[0][1] is message
            and (cached[0][2:] == state[2:])
        ):
            return QSize(width, cached[1])
        layout = self.bubble_layout(QRect(0, 0, width, 0), index)
        self._heights[message.id] = (state, layout.height)
        return QSize(width, layout.height)

    def paint(self, painter: QPainter, option: QStyleOptionViewItem, index: QModelIndex) -> None:
        theme = self.theme
        layout = self.bubble_layout(option.rect, index)
        _body_font, small_font = _fonts(self.view.font())
        is_user = index.data(MessageRoles.ROLE) == "user"
        status = index.data(MessageRoles.STATUS)
        painter.save()
        painter.setRenderHint(QPainter.RenderHint.Antialiasing)
        path = QPainterPath()
        path.addRoundedRect(layout.bubble.adjusted(0, 0, -1, -1), 14, 14)
        if is_user:
            painter.fillPath(path, theme.color("bubble_user"))
        else:
            painter.fillPath(path, theme.color("bubble_answer"))
            border = "bubble_error_border" if status == "error" else "bubble_answer_border"
            painter.setPen(QPen(theme.color(border), 1))
            painter.drawPath(path)
        if option.state & QStyle.StateFlag.State_HasFocus:
            ring = QPainterPath()
            ring.addRoundedRect(QRectF(layout.bubble).adjusted(-3, -3, 2, 2), 16, 16)
            painter.setPen(QPen(theme.color("focus_ring"), 2))
            painter.drawPath(ring)
        if index.data(MessageRoles.ID) == self.view.highlighted_message_id:
            # The message an answer's provenance link opened.
            painter.setPen(QPen(theme.color("recall_highlight"), 3))
            painter.drawPath(path)
        if layout.avatar is not None:
            painter.setPen(Qt.PenStyle.NoPen)
            painter.setBrush(theme.color("avatar_bg"))
            painter.drawEllipse(layout.avatar)
            painter.setPen(theme.color("accent"))
            painter.setFont(small_font)
            painter.drawText(layout.avatar, Qt.AlignmentFlag.AlignCenter, "✦")
        if not self.view.is_reading(index):  # the open reader draws the text itself
            document = self.documents.document(index, layout.text_width)
            context = QAbstractTextDocumentLayout.PaintContext()
            context.palette.setColor(QPalette.ColorRole.Text, self._ink(index))
            # Only the part on screen: a long answer is taller than the view.
            visible = QRectF(layout.text.intersected(self.view.viewport().rect()))
            context.clip = visible.translated(-QPointF(layout.text.topLeft()))
            painter.save()
            painter.translate(layout.text.topLeft())
            painter.setClipRect(context.clip)
            document.documentLayout().draw(painter, context)
            painter.restore()
        painter.setFont(small_font)
        if layout.error is not None:
            painter.setPen(theme.color("danger"))
            error = "⚠  " + (index.data(MessageRoles.ERROR) or "")
            painter.drawText(layout.error, int(Qt.TextFlag.TextWordWrap), error)
        for rect, note, colour in layout.notes:
            painter.setPen(theme.color(colour))
            painter.drawText(rect, Qt.AlignmentFlag.AlignLeft, note)
        painter.setFont(_link_font(small_font))
        for rect, _action, label in layout.actions:
            painter.setPen(theme.color("link"))
            painter.drawText(rect, Qt.AlignmentFlag.AlignLeft, label)
        painter.restore()

    # -- the reader (a persistent editor) ----------------------------------------------

    def createEditor(
        self, parent: QWidget, option: QStyleOptionViewItem, index: QModelIndex
    ) -> QWidget:
        document = self.document(index)
        reader = MessageReader(document, self._ink(index), parent)
        row = QPersistentModelIndex(index)
        reader.link_activated.connect(lambda href: self.view.activate_link(row, href))
        reader.dismissed.connect(self.view.close_reader)
        return reader

    def updateEditorGeometry(
        self, editor: QWidget, option: QStyleOptionViewItem, index: QModelIndex
    ) -> None:
        layout = self.bubble_layout(option.rect, index)
        if isinstance(editor, MessageReader):
            editor.setLineWrapColumnOrWidth(max(1, layout.text_width))
        editor.setGeometry(layout.text)

    def setEditorData(self, editor: QWidget, index: QModelIndex) -> None:
        pass  # the reader shares the document: nothing to copy

    def setModelData(self, editor: QWidget, model, index: QModelIndex) -> None:
        pass  # read-only

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        # QStyledItemDelegate would close the editor on Tab, Enter or focus loss; the
        # reader stays until the user moves on, and handles its own keys.
        return False


class ChatView(QListView):
    retry_requested = Signal(int)  # answer message id (Retry and Regenerate)
    sources_requested = Signal(int)  # answer message id
    edit_requested = Signal(int)  # user message id (edit and send again)
    notice_requested = Signal(str)  # a short note for the status bar
    #: The message an answer's provenance pointed at (drawn with a border), or None.
    highlighted_message_id: int | None = None

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("ChatView")
        self.setAccessibleName("Conversation")
        self.setAccessibleDescription(
            "Messages of this conversation. Up and Down move between them; Enter opens "
            "one for selecting text; Ctrl+C copies it."
        )
        self.setSelectionMode(QAbstractItemView.SelectionMode.NoSelection)
        self.setFocusPolicy(Qt.FocusPolicy.StrongFocus)
        self.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        self.setVerticalScrollMode(QAbstractItemView.ScrollMode.ScrollPerPixel)
        self.verticalScrollBar().setSingleStep(24)
        self.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        # Always there: a scroll bar appearing would narrow every row and re-lay out all.
        self.setVerticalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOn)
        self.setResizeMode(QListView.ResizeMode.Adjust)
        self.setUniformItemSizes(False)
        self.setMouseTracking(True)
        self.setSpacing(0)
        self.setViewportMargins(0, 14, 0, 0)  # air under the header
        self.delegate = MessageDelegate(self)
        self.setItemDelegate(self.delegate)
        self._reader_index: QPersistentModelIndex | None = None
        # Once the window is up, not before: the first code block then costs no import.
        QTimer.singleShot(WARM_UP_MS, self, warm_up)

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
        model.modelAboutToBeReset.connect(self.close_reader)

    def set_theme(self, theme: Theme) -> None:
        self.close_reader()
        self.delegate.set_theme(theme)
        self.scheduleDelayedItemsLayout()
        self.viewport().update()

    def document_at(self, row: int) -> MessageDocument:
        """The rendered document of ``row`` (tests inspect it)."""
        return self.delegate.document(self.model().index(row, 0))

    # -- the reader ----------------------------------------------------------------------

    def is_reading(self, index: QModelIndex) -> bool:
        return (
            self._reader_index is not None
            and self._reader_index.isValid()
            and self._reader_index.row() == index.row()
        )

    def reader(self) -> MessageReader | None:
        if self._reader_index is None or not self._reader_index.isValid():
            return None
        widget = self.indexWidget(QModelIndex(self._reader_index))
        return widget if isinstance(widget, MessageReader) else None

    def open_reader(self, index: QModelIndex) -> MessageReader | None:
        """Open the reader over ``index`` (closing another), for selecting its text."""
        if not index.isValid():
            return None
        if self.is_reading(index):
            return self.reader()
        self.close_reader()
        message_id = index.data(MessageRoles.ID)
        self.delegate.documents.pinned.add(message_id)
        self._reader_index = QPersistentModelIndex(index)
        self.openPersistentEditor(index)
        return self.reader()

    def close_reader(self) -> None:
        if self._reader_index is None:
            return
        index, self._reader_index = self._reader_index, None
        self.delegate.documents.pinned.clear()
        had_focus = False
        if index.isValid():
            reader = self.indexWidget(QModelIndex(index))
            had_focus = reader is not None and reader.hasFocus()
            self.closePersistentEditor(QModelIndex(index))
            self.update(QModelIndex(index))
        if had_focus:
            self.setFocus()

    def _reader_has_selection(self) -> bool:
        reader = self.reader()
        return reader is not None and reader.textCursor().hasSelection()

    # -- links and actions ---------------------------------------------------------------

    def activate_link(self, index: QModelIndex | QPersistentModelIndex, href: str) -> None:
        """A link in a message was clicked: copy a code block, or open a web link."""
        url = QUrl(href)
        if url.scheme() == COPY_SCHEME:
            document = self.delegate.documents.get(index.data(MessageRoles.ID))
            number = int(url.path()) if url.path().isdigit() else -1
            if document is not None and 0 <= number < len(document.code_blocks):
                QGuiApplication.clipboard().setText(document.code_blocks[number])
                self.notice_requested.emit(CODE_COPIED_TEXT)
            return
        if not open_link(url):
            self.notice_requested.emit(REFUSED_TEXT)

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

    def _anchor_at(self, pos: QPoint) -> tuple[QModelIndex, str] | None:
        index = self.indexAt(pos)
        if not index.isValid():
            return None
        layout = self.delegate.bubble_layout(self.visualRect(index), index)
        if not layout.text.contains(pos):
            return None
        document = self.delegate.documents.document(index, layout.text_width)
        href = document.documentLayout().anchorAt(QPointF(pos - layout.text.topLeft()))
        return (index, href) if href else None

    def _text_index_at(self, pos: QPoint) -> QModelIndex | None:
        index = self.indexAt(pos)
        if not index.isValid():
            return None
        layout = self.delegate.bubble_layout(self.visualRect(index), index)
        return index if layout.text.contains(pos) else None

    def _trigger(self, index: QModelIndex, action: str) -> None:
        message_id = index.data(MessageRoles.ID)
        if action in (RETRY, REGENERATE):
            self.retry_requested.emit(message_id)
        elif action == SOURCES:
            self.sources_requested.emit(message_id)
        elif action == EDIT:
            self.edit_requested.emit(message_id)

    # -- mouse and keyboard ------------------------------------------------------------

    def mouseMoveEvent(self, event: QMouseEvent) -> None:
        pos = event.position().toPoint()
        clickable = self.action_at(pos) is not None or self._anchor_at(pos) is not None
        cursor = Qt.CursorShape.PointingHandCursor if clickable else Qt.CursorShape.ArrowCursor
        self.viewport().setCursor(cursor)
        # Over a message's text, open the reader there so a drag selects at once; a
        # selection elsewhere is kept until the user clicks away from it.
        if not event.buttons() and not self._reader_has_selection():
            index = self._text_index_at(pos)
            if index is not None:
                self.open_reader(index)
        super().mouseMoveEvent(event)

    def mousePressEvent(self, event: QMouseEvent) -> None:
        pos = event.position().toPoint()
        index = self.indexAt(pos)
        if index.isValid():
            self.setCurrentIndex(index)
        if self._text_index_at(pos) is not None and not self.is_reading(index):
            self.open_reader(index)
        super().mousePressEvent(event)

    def mouseReleaseEvent(self, event: QMouseEvent) -> None:
        pos = event.position().toPoint()
        if event.button() == Qt.MouseButton.LeftButton:
            hit = self.action_at(pos)
            if hit is not None:
                self._trigger(*hit)
                event.accept()
                return
            anchor = self._anchor_at(pos)
            if anchor is not None:
                self.activate_link(*anchor)
                event.accept()
                return
        super().mouseReleaseEvent(event)

    def keyPressEvent(self, event: QKeyEvent) -> None:
        index = self.currentIndex()
        if event.matches(QKeySequence.StandardKey.Copy) and index.isValid():
            QGuiApplication.clipboard().setText(index.data(MessageRoles.CONTENT) or "")
            event.accept()
            return
        if event.key() in (Qt.Key.Key_Return, Qt.Key.Key_Enter, Qt.Key.Key_F2) and (
            index.isValid()
        ):
            reader = self.open_reader(index)
            if reader is not None:
                reader.setFocus(Qt.FocusReason.OtherFocusReason)
            event.accept()
            return
        super().keyPressEvent(event)

    def focusInEvent(self, event) -> None:
        # Tab into the chat lands on the latest message.
        if not self.currentIndex().isValid() and self.model() and self.model().rowCount():
            self.setCurrentIndex(self.model().index(self.model().rowCount() - 1, 0))
        super().focusInEvent(event)

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
        # A streamed chunk can make the bubble taller: ask for a new layout (rows keep
        # their measured heights, so only the changed one is measured again), and stay
        # at the bottom if there.
        follow = self._at_bottom()
        for row in range(top.row(), bottom.row() + 1):
            self.delegate.sizeHintChanged.emit(self.model().index(row, 0))
        if follow:
            self.scrollToBottom()

    def _on_model_rows_inserted(self, parent: QModelIndex, first: int, last: int) -> None:
        # The "Edit" link moves to the newest user message.
        if first > 0:
            self.delegate.sizeHintChanged.emit(self.model().index(first - 1, 0))
        self.scrollToBottom()

    def _on_model_reset(self) -> None:
        self.highlighted_message_id = None
        self.scrollToBottom()

    def showEvent(self, event) -> None:
        super().showEvent(event)
        # Rows were given no height while hidden: measure them now, and show the end.
        self.scheduleDelayedItemsLayout()
        self.scrollToBottom()
