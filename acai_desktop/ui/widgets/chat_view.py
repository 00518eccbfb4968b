"""The transcript: a QListView over :class:`MessagesModel` with a bubble delegate.

User messages are accent bubbles on the right, shown as plain text; answers are bubbles
on the left, rendered from Markdown (:class:`MessageDocument`: headings, lists, tables,
quotes, links, highlighted code with a *Copy* link), with their status and actions
underneath: "Stopped", the error with "Retry", "Regenerate", "Copy" (the Markdown) and
"Copy text" (plain text), and "Sources (N)" (the memories and passages that fed it).
A paragraph that cited a passage or a recalled message ends with numbered chips, each
opening its source (``citation_requested``; see :mod:`acai_desktop.ui.citation_chips`).
Hovering a message shows when it was written (the model's tooltip).
Under each of the user's messages, "Edit" puts it back in the composer, where sending
it branches the chat there. A message with other versions (a regenerated answer, an
edited message) shows ‹ n/m › arrows that ask for the one before or after it
(``version_requested``).

Each message's document is cached (by message id; laid out for the current width) and
painted by the delegate; one layout function serves painting, sizing and hit-testing.
To select text, a read-only :class:`MessageReader` (a QTextBrowser sharing the same
document) opens over the message under the mouse, or on Enter for the current message.
"""

from __future__ import annotations

from PySide6.QtCore import (
    QEvent,
    QModelIndex,
    QPersistentModelIndex,
    QPoint,
    QPointF,
    QRect,
    Qt,
    QTimer,
    QUrl,
    Signal,
)
from PySide6.QtGui import (
    QAction,
    QGuiApplication,
    QKeyEvent,
    QKeySequence,
    QMouseEvent,
)
from PySide6.QtWidgets import (
    QAbstractItemView,
    QListView,
    QMenu,
    QToolTip,
    QWidget,
)

from acai_desktop.core.turns.citations import copied_text
from acai_desktop.ui.citation_chips import CITE_SCHEME, cited_number
from acai_desktop.ui.links import REFUSED_TEXT, open_link
from acai_desktop.ui.markdown_blocks import code_at
from acai_desktop.ui.message_document import MessageDocument
from acai_desktop.ui.message_links import (
    COPY_SCHEME,
    LONG_CODE_SCHEME,
    MORE_SCHEME,
    TABLE_SCHEME,
    WHOLE_ANSWER_SCHEME,
    offset_in,
)
from acai_desktop.ui.models.messages_model import MessageRoles
from acai_desktop.ui.plain_text import plain_text_of
from acai_desktop.ui.syntax import warm_up
from acai_desktop.ui.theme import Theme
from acai_desktop.ui.widgets.message_delegate import (
    COPY,
    COPY_TEXT,
    EDIT,
    NEXT_VERSION,
    PREVIOUS_VERSION,
    REGENERATE,
    RETRY,
    SOURCES,
    BubbleLayout,
    MessageDelegate,
)
from acai_desktop.ui.widgets.message_reader import MessageReader, chip_tooltip

WARM_UP_MS = 1500

CODE_COPIED_TEXT = "Code copied."
ANSWER_COPIED_TEXT = "Answer copied as Markdown."
ANSWER_TEXT_COPIED_TEXT = "Answer copied as plain text."


def copied_markdown(index: QModelIndex) -> str:
    """A message as *Copy* gives it: an answer's citations as ``[n]`` after their
    paragraphs and its cited sources listed under it (core.turns.citations.copied_text)."""
    content = index.data(MessageRoles.CONTENT) or ""
    return copied_text(content, index.data(MessageRoles.CITATIONS) or ())


class ChatView(QListView):
    retry_requested = Signal(int)  # answer message id (Retry and Regenerate)
    sources_requested = Signal(int)  # answer message id
    edit_requested = Signal(int)  # user message id (edit and send again)
    version_requested = Signal(int)  # the message to show at its fork (‹ › arrows)
    notice_requested = Signal(str)  # a short note for the status bar
    #: A citation chip was clicked: open its source (a core.turns.citations.Citation).
    citation_requested = Signal(object)
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
        # Lay the messages out again when the width changes too (see MemoryPanel).
        self.setWordWrap(True)
        self.setUniformItemSizes(False)
        self.setMouseTracking(True)
        self.setSpacing(0)
        self.setViewportMargins(0, 14, 0, 0)  # air under the header
        self.delegate = MessageDelegate(self)
        self.setItemDelegate(self.delegate)
        self._reader_index: QPersistentModelIndex | None = None

    def warm_up_later(self) -> None:
        """Import Pygments a while after the profile is on screen (the app controller
        calls this), so the first code block costs no import. Counted from there, not
        from this view's creation: on a slow machine a fixed delay from creation fell
        inside the start-up itself."""
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

    def set_prompt_budget(self, budget_tokens: int | None) -> None:
        """The prompt budget the user's messages are measured against (their notes)."""
        if budget_tokens != self.delegate.documents.budget_tokens:
            self.delegate.documents.budget_tokens = budget_tokens
            self.delegate.forget_heights()
            self.scheduleDelayedItemsLayout()
            self.viewport().update()

    def set_unfolded(self, message_id: int, unfolded: bool) -> None:
        """Show a user's long message whole (up to the chat's limit) or folded."""
        unfolded_ids = self.delegate.documents.unfolded
        if unfolded == (message_id in unfolded_ids):
            return
        if unfolded:
            unfolded_ids.add(message_id)
        else:
            unfolded_ids.discard(message_id)
        self.close_reader()
        self.delegate.forget_heights(message_id)
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
        """A link in a message was clicked: open a citation chip's source, copy a code
        block, show a large table or a long answer whole, or open a web link."""
        url = QUrl(href)
        if url.scheme() == CITE_SCHEME:
            # Only a real source of this answer opens (a forged link names none).
            number = cited_number(href)
            for citation in index.data(MessageRoles.CITATIONS) or ():
                if citation.number == number:
                    self.citation_requested.emit(citation)
            return
        if url.scheme() == MORE_SCHEME:
            self.set_unfolded(index.data(MessageRoles.ID), url.path() == "unfold")
            return
        if url.scheme() in (TABLE_SCHEME, WHOLE_ANSWER_SCHEME):
            # Loaded when first opened: the window paints without it.
            from acai_desktop.ui.widgets.large_answer_dialogs import open_large_part

            user = index.data(MessageRoles.ROLE) == "user"
            open_large_part(index.data(MessageRoles.CONTENT) or "", url, self, user=user)
            return
        if url.scheme() == LONG_CODE_SCHEME:
            content, offset = index.data(MessageRoles.CONTENT) or "", offset_in(url)
            if 0 <= offset < len(content):
                QGuiApplication.clipboard().setText(code_at(content, offset))
                self.notice_requested.emit(CODE_COPIED_TEXT)
            return
        if url.scheme() == COPY_SCHEME:
            document = self.delegate.documents.get(index.data(MessageRoles.ID))
            number = offset_in(url)
            if document is not None and 0 <= number < len(document.code_blocks):
                QGuiApplication.clipboard().setText(document.code_blocks[number])
                self.notice_requested.emit(CODE_COPIED_TEXT)
            return
        if not open_link(url):
            self.notice_requested.emit(REFUSED_TEXT)

    def action_rect(self, row: int, action: str) -> QRect | None:
        """Where ``action`` is drawn for ``row``, in viewport coordinates (tests use it)."""
        layout = self._row_layout(self.model().index(row, 0))
        return next((rect for rect, name, _label in layout.actions if name == action), None)

    def usage_shown(self, row: int) -> str | None:
        """The token usage line drawn under ``row`` (None: none; tests use it)."""
        layout = self._row_layout(self.model().index(row, 0))
        return layout.usage[1] if layout.usage is not None else None

    def _row_layout(self, index: QModelIndex) -> BubbleLayout:
        # Where the delegate draws each part of the row: hit-tests ask the same layout.
        return self.delegate.bubble_layout(self.visualRect(index), index)

    def _layout_at(self, pos: QPoint) -> tuple[QModelIndex, BubbleLayout] | None:
        index = self.indexAt(pos)
        return (index, self._row_layout(index)) if index.isValid() else None

    def action_at(self, pos: QPoint) -> tuple[QModelIndex, str] | None:
        if (hit := self._layout_at(pos)) is None:
            return None
        index, layout = hit
        for rect, action, _label in layout.actions:
            if rect.adjusted(-4, -3, 8, 3).contains(pos):
                return index, action
        return None

    def _anchor_at(self, pos: QPoint) -> tuple[QModelIndex, str] | None:
        if (hit := self._layout_at(pos)) is None or not hit[1].text.contains(pos):
            return None
        index, layout = hit
        document = self.delegate.documents.document(index, layout.text_width)
        href = document.documentLayout().anchorAt(QPointF(pos - layout.text.topLeft()))
        return (index, href) if href else None

    def _text_index_at(self, pos: QPoint) -> QModelIndex | None:
        hit = self._layout_at(pos)
        return hit[0] if hit is not None and hit[1].text.contains(pos) else None

    def _trigger(self, index: QModelIndex, action: str) -> None:
        message_id = index.data(MessageRoles.ID)
        if action in (RETRY, REGENERATE):
            self.retry_requested.emit(message_id)
        elif action == SOURCES:
            self.sources_requested.emit(message_id)
        elif action == EDIT:
            self.edit_requested.emit(message_id)
        elif action in (PREVIOUS_VERSION, NEXT_VERSION):
            message = index.data(MessageRoles.MESSAGE)
            place = message.version_number - 1 + (1 if action == NEXT_VERSION else -1)
            if 0 <= place < len(message.versions):
                self.version_requested.emit(message.versions[place])
        elif action == COPY:
            QGuiApplication.clipboard().setText(copied_markdown(index))
            self.notice_requested.emit(ANSWER_COPIED_TEXT)
        elif action == COPY_TEXT:
            QGuiApplication.clipboard().setText(plain_text_of(copied_markdown(index)))
            self.notice_requested.emit(ANSWER_TEXT_COPIED_TEXT)

    # -- mouse and keyboard ------------------------------------------------------------

    def viewportEvent(self, event: QEvent) -> bool:
        # Over a citation chip (the reader closed), its source's name, not the time.
        if event.type() == QEvent.Type.ToolTip:
            anchor = self._anchor_at(event.pos())
            if anchor is not None:
                document = self.delegate.documents.get(anchor[0].data(MessageRoles.ID))
                tip = chip_tooltip(document, anchor[1]) if document is not None else ""
                if tip:
                    QToolTip.showText(event.globalPos(), tip, self.viewport())
                    return True
        return super().viewportEvent(event)

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
            QGuiApplication.clipboard().setText(copied_markdown(index))
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
        copy.triggered.connect(lambda: QGuiApplication.clipboard().setText(copied_markdown(index)))
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
        self.scrollToBottom()

    def _on_model_reset(self) -> None:
        self.highlighted_message_id = None
        self.scrollToBottom()

    def showEvent(self, event) -> None:
        super().showEvent(event)
        # Rows were given no height while hidden: measure them now, and show the end.
        self.scheduleDelayedItemsLayout()
        self.scrollToBottom()
