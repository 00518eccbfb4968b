"""How a message is drawn in the transcript: one layout function (bubble, text, error,
avatar, notes and action links, and an answer's token usage on a quiet line under them)
serves painting, sizing and hit-testing; the actions are named here (Retry, Regenerate,
Copy, Copy text, Sources, Edit)."""

from __future__ import annotations

import math
from dataclasses import dataclass, field

from PySide6.QtCore import (
    QEvent,
    QModelIndex,
    QObject,
    QPersistentModelIndex,
    QPointF,
    QRect,
    QRectF,
    QSize,
    Qt,
)
from PySide6.QtGui import (
    QAbstractTextDocumentLayout,
    QColor,
    QFont,
    QFontMetrics,
    QPainter,
    QPainterPath,
    QPalette,
    QPen,
)
from PySide6.QtWidgets import (
    QListView,
    QStyle,
    QStyledItemDelegate,
    QStyleOptionViewItem,
    QWidget,
)

from acai_desktop.ui.local_only_text import withheld_note
from acai_desktop.ui.message_document import MessageDocument
from acai_desktop.ui.models.messages_model import MessageRoles
from acai_desktop.ui.theme import Theme, load_theme
from acai_desktop.ui.token_usage_text import usage_line
from acai_desktop.ui.widgets.message_images import image_boxes, paint_images
from acai_desktop.ui.widgets.message_reader import MessageDocuments, MessageReader

SIDE_MARGIN = 28
ROW_GAP = 8
PAD_X = 14
PAD_Y = 10
AVATAR = 28
MAX_BUBBLE_WIDTH = 760
RETRY = "retry"
REGENERATE = "regenerate"
SOURCES = "sources"
NOTHING_RELEVANT_NOTE = "Sources: nothing relevant remembered"
WHY_NOT_LABEL = "Why not…?"
EDIT = "edit"
PREVIOUS_VERSION = "previous_version"  # ‹ : the version or branch before this one
NEXT_VERSION = "next_version"  # › : the one after it
COPY = "copy"  # the answer as Markdown
COPY_TEXT = "copy_text"  # the answer as plain text


@dataclass
class BubbleLayout:
    bubble: QRect
    text: QRect
    text_width: int = 0  # the document's layout width (text may use less)
    error: QRect | None = None
    avatar: QRect | None = None
    notes: list[tuple[QRect, str, str]] = field(default_factory=list)  # rect, text, colour
    actions: list[tuple[QRect, str, str]] = field(default_factory=list)  # (rect, action, label)
    usage: tuple[QRect, str] | None = None  # an answer's tokens, under its actions
    images: list[QRect] = field(default_factory=list)  # a user message's, under its bubble
    height: int = 0


def _fonts(base: QFont) -> tuple[QFont, QFont]:
    body = QFont(base)
    body.setPointSizeF(max(base.pointSizeF(), 10.0) + 0.5)
    small = QFont(base)
    small.setPointSizeF(max(base.pointSizeF(), 10.0) - 1.0)
    return body, small


def _link_font(small: QFont) -> QFont:
    font = QFont(small)
    font.setWeight(QFont.Weight.DemiBold)
    return font


def footer_of(
    index: QModelIndex,
) -> tuple[list[tuple[str, str]], list[tuple[str, str]]]:
    """Notes (text, theme colour) and actions (name, label) shown under a message."""
    status = index.data(MessageRoles.STATUS)
    notes: list[tuple[str, str]] = []
    actions: list[tuple[str, str]] = []
    if index.data(MessageRoles.ROLE) == "user":
        if attached := index.data(MessageRoles.ATTACHMENTS):
            notes.append((attachments_note(attached), "faint"))  # the files sent with it
        # Any message of the user's: editing it branches the chat there.
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
    if status != "streaming" and index.data(MessageRoles.CONTENT):
        actions += [(COPY, "Copy"), (COPY_TEXT, "Copy text")]
    message = index.data(MessageRoles.MESSAGE)
    routed = route_note(message) if status != "streaming" else None
    # What its prompt left out as local only (Sources list it, with why).
    withheld = withheld_note(getattr(message, "plan", None)) if status != "streaming" else None
    if status != "streaming" and (count or routed or withheld):
        # A routed answer's Sources say which model answered and why, too.
        actions.append((SOURCES, f"Sources ({count})" if count else "Sources"))
    elif status == "complete" and count == 0 and _answered_here(index):
        # Known to have used nothing: no memory or passage passed the relevance floor.
        # Sources (empty) offer "Why not …?" for what should have been used.
        notes.append((NOTHING_RELEVANT_NOTE, "faint"))
        actions.append((SOURCES, WHY_NOT_LABEL))
    notes += [(note, "faint") for note in (routed, withheld) if note]
    return notes, actions


def route_note(message) -> str | None:
    """Which model answered and why, when the profile routes turns: "code →
    qwen2.5-coder:7b on this computer", or the fallback that happened."""
    plan = getattr(message, "plan", None) or {}
    route = plan.get("route") if isinstance(plan, dict) else None
    if not isinstance(route, dict):
        return None
    note = route.get("fallback") or route.get("reason")
    return note if isinstance(note, str) else None


#: How many attached files' names a message's note lists before "and N more".
NAMED_ATTACHMENTS = 3


def attachments_note(names: tuple[str, ...]) -> str:
    """ "📎 report.pdf, notes.txt" under the message they were sent with."""
    named = ", ".join(names[:NAMED_ATTACHMENTS])
    more = len(names) - NAMED_ATTACHMENTS
    return f"📎 {named}" + (f" and {more} more" if more > 0 else "")


def _answered_here(index: QModelIndex) -> bool:
    """Whether this app's turn wrote the answer (so its empty sources mean "nothing
    relevant"): a turn records its token usage; an imported answer has none, and what
    fed it is not known."""
    message = index.data(MessageRoles.MESSAGE)
    return message is not None and message.usage is not None


def usage_of(index: QModelIndex) -> str | None:
    """The token usage line under a finished answer (None: nothing to say)."""
    message = index.data(MessageRoles.MESSAGE)
    if message is None or message.role != "assistant" or message.status == "streaming":
        return None
    return usage_line(message.usage)


def version_controls(index: QModelIndex) -> list[tuple[str, str, bool]]:
    """The ‹ n/m › shown under a message with other versions (or branches): items
    (name, text, clickable), in order; [] for a message without any."""
    message = index.data(MessageRoles.MESSAGE)
    if message is None or len(message.versions) < 2:
        return []
    number, count = message.version_number, len(message.versions)
    return [
        (PREVIOUS_VERSION, "‹", number > 1),
        ("", f"{number}/{count}", False),
        (NEXT_VERSION, "›", number < count),
    ]


def _wrapped_height(text: str, font: QFont, width: int) -> QSize:
    rect = QFontMetrics(font).boundingRect(
        QRect(0, 0, width, 100_000), int(Qt.TextFlag.TextWordWrap), text
    )
    return rect.size()


class MessageDelegate(QStyledItemDelegate):
    def __init__(self, view: QListView) -> None:
        super().__init__(view)
        self.view = view
        self.theme = load_theme()
        self.documents = MessageDocuments(self.theme, _fonts(view.font())[0])
        self._heights: dict[int, tuple[tuple, int]] = {}  # id: (what it showed, height)

    def forget_heights(self, message_id: int | None = None) -> None:
        """Measure that message (None: every message) again at the next layout."""
        if message_id is None:
            self._heights.clear()
        else:
            self._heights.pop(message_id, None)

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
        elif images := index.data(MessageRoles.IMAGES):
            left_limit = rect.left() + SIDE_MARGIN
            layout.images, bottom = image_boxes(images, bubble.right(), bottom + 6, left_limit)
        notes, actions = footer_of(index)
        versions = version_controls(index)
        if notes or actions or versions:
            y = bottom + 5
            widths = [link.horizontalAdvance(text) + 10 for _, text, _ in versions]
            widths += [small.horizontalAdvance(n) + 14 for n, _ in notes]
            widths += [link.horizontalAdvance(label) + 16 for _, label in actions]
            x = bubble.right() - 4 - sum(widths) + 14 if is_user else left + 4
            start, limit = x, rect.right() - SIDE_MARGIN
            line = small.height() + 4

            def place(width: int, gap: int) -> QRect:
                """The next item's box: on this line, or the next one when it would
                run past the row (a narrow window: "Regenerate", "Copy" cut off)."""
                nonlocal x, y
                if x + width > limit and x > start:
                    x, y = start, y + line
                box = QRect(x, y, width, small.height())
                x += width + gap
                return box

            for name, text, clickable in versions:
                box = place(link.horizontalAdvance(text) + 2, 8)
                if clickable:
                    layout.actions.append((box, name, text))
                else:
                    layout.notes.append((box, text, "faint"))
            if versions:
                x += 6
            for note, colour in notes:
                layout.notes.append((place(small.horizontalAdvance(note), 14), note, colour))
            for action, label in actions:
                box = place(link.horizontalAdvance(label) + 2, 14)
                layout.actions.append((box, action, label))
            bottom = y + small.height()
        usage = usage_of(index)
        if usage:
            y = bottom + 3 if bottom != bubble.bottom() else bubble.bottom() + 5
            width = min(small.horizontalAdvance(usage) + 2, max(rect.right() - left, 40))
            layout.usage = (QRect(left + 4, y, width, small.height()), usage)
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
        # on every change), its sources count or its citations, so it is kept, and the
        # check reads the model's records directly, not through Qt's data().
        model = self.view.model()
        message = model.message_at(index.row())
        state = (
            width,
            message,
            model.sources_count_of(message.id),
            model.citations_of(message.id),
            model.images_of(message.id),
        )
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
        if layout.images:
            images = index.data(MessageRoles.IMAGES)
            paint_images(painter, layout.images, images, theme, small_font)
        painter.setFont(small_font)
        if layout.error is not None:
            painter.setPen(theme.color("danger"))
            error = "⚠  " + (index.data(MessageRoles.ERROR) or "")
            painter.drawText(layout.error, int(Qt.TextFlag.TextWordWrap), error)
        for rect, note, colour in layout.notes:
            painter.setPen(theme.color(colour))
            painter.drawText(rect, Qt.AlignmentFlag.AlignLeft, note)
        if layout.usage is not None:
            rect, usage = layout.usage
            painter.setPen(theme.color("faint"))
            shown = painter.fontMetrics().elidedText(
                usage, Qt.TextElideMode.ElideRight, rect.width()
            )
            painter.drawText(rect, Qt.AlignmentFlag.AlignLeft, shown)
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
        # The reader covers the text: it shows the message's time on hover too.
        reader.setToolTip(index.data(Qt.ItemDataRole.ToolTipRole) or "")
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
