"""The conversations in the sidebar: title and when it was last active.

Right-click on a conversation, or click the "⋯" shown on the row under the mouse, for
*Pin*/*Unpin*, *Mark local only*/*Unmark local only*, *Rename…*, *Instructions…* (the
chat's own custom instructions), *Export…* and *Delete…*; the list only asks
(``*_requested``), the window answers. A pinned chat's second line starts with
:data:`PINNED_MARK`, a local-only one's (marked, or in a local-only project) with
:data:`LOCAL_ONLY_MARK`.

Once there is a project, the chats are grouped under project headers; a click on a
header opens its menu: *New chat in this project*, *Instructions…*, *Rename…*, *Mark
local only*/*Unmark local only*, *Delete…* (the "Chats" header of the chats outside any
project: *New chat*). A chat's menu then also has *Move to project*. A local-only
project's header ends with the mark.
"""

from __future__ import annotations

from datetime import datetime

from PySide6.QtCore import QModelIndex, QPoint, QRect, QSize, Qt, Signal
from PySide6.QtGui import (
    QContextMenuEvent,
    QFont,
    QFontMetrics,
    QMouseEvent,
    QPainter,
    QPainterPath,
)
from PySide6.QtWidgets import (
    QAbstractItemView,
    QListView,
    QMenu,
    QStyle,
    QStyleOptionViewItem,
    QWidget,
)

from acai_desktop.ui.local_only_text import LOCAL_ONLY_MARK, MARK_TEXT, UNMARK_TEXT
from acai_desktop.ui.models.conversations_model import ConversationRoles
from acai_desktop.ui.theme import Theme, load_theme
from acai_desktop.ui.untrusted import PlainToolTipDelegate

ROW_HEIGHT = 50
HEADER_HEIGHT = 30  # a project's header row
NEW_CHAT_IN_PROJECT_TEXT = "New chat in this project"
NEW_CHAT_TEXT = "New chat"
PROJECT_INSTRUCTIONS_TEXT = "Project instructions…"
RENAME_PROJECT_TEXT = "Rename project…"
DELETE_PROJECT_TEXT = "Delete project…"
MOVE_TO_PROJECT_TEXT = "Move to project"
NO_PROJECT_TEXT = "No project"
MORE_WIDTH = 26  # the "⋯" button at the right of the row under the mouse
MORE_MARK = "⋯"
PIN_TEXT = "Pin to top"
UNPIN_TEXT = "Unpin"
#: Drawn before a pinned chat's date (text, not an emoji: no font needed).
PINNED_MARK = "Pinned"
RENAME_TEXT = "Rename…"
INSTRUCTIONS_TEXT = "Instructions…"
EXPORT_TEXT = "Export…"
DELETE_TEXT = "Delete…"
# Short enough for the sidebar; the tooltip says "Temporary — nothing is remembered".
TEMPORARY_MARK = "Temporary — not remembered"


def more_rect(row_rect: QRect) -> QRect:
    """Where a row draws its "⋯" (and where a click on it opens the menu)."""
    rect = row_rect.adjusted(0, 2, 0, -2)
    return QRect(rect.right() - MORE_WIDTH - 4, rect.top() + 4, MORE_WIDTH, 22)


def when_label(at: str, now: datetime | None = None) -> str:
    try:
        moment = datetime.fromisoformat(at).astimezone()
    except ValueError:
        return ""
    now = now or datetime.now().astimezone()
    if moment.date() == now.date():
        return moment.strftime("Today %H:%M")
    if moment.year == now.year:
        return moment.strftime("%d %b")
    return moment.strftime("%d %b %Y")


class ConversationDelegate(PlainToolTipDelegate):
    def __init__(self, parent=None) -> None:
        super().__init__(parent)
        self.theme = load_theme()

    def sizeHint(self, option: QStyleOptionViewItem, index: QModelIndex) -> QSize:
        header = bool(index.data(ConversationRoles.HEADER))
        return QSize(option.rect.width(), HEADER_HEIGHT if header else ROW_HEIGHT)

    def paint(self, painter: QPainter, option: QStyleOptionViewItem, index: QModelIndex) -> None:
        if index.data(ConversationRoles.HEADER):
            self._paint_header(painter, option, index)
            return
        rect = option.rect.adjusted(0, 2, 0, -2)
        selected = bool(option.state & QStyle.StateFlag.State_Selected)
        hovered = bool(option.state & QStyle.StateFlag.State_MouseOver)
        painter.save()
        painter.setRenderHint(QPainter.RenderHint.Antialiasing)
        if selected or hovered:
            path = QPainterPath()
            path.addRoundedRect(rect, 8, 8)
            painter.fillPath(path, self.theme.color("selected_bg" if selected else "sidebar_hover"))
        title_font = QFont(option.font)
        title_font.setWeight(QFont.Weight.DemiBold if selected else QFont.Weight.Medium)
        small = QFont(option.font)
        small.setPointSizeF(max(option.font.pointSizeF(), 10.0) - 1.5)
        text_rect = rect.adjusted(10, 7, -10, -7)
        if hovered or selected:
            more = more_rect(option.rect)
            painter.setFont(title_font)
            painter.setPen(self.theme.color("soft_ink"))
            painter.drawText(more, Qt.AlignmentFlag.AlignCenter, MORE_MARK)
            text_rect.setRight(more.left() - 4)
        metrics = QFontMetrics(title_font)
        title = metrics.elidedText(
            index.data(ConversationRoles.TITLE), Qt.TextElideMode.ElideRight, text_rect.width()
        )
        painter.setFont(title_font)
        painter.setPen(self.theme.color("selected_ink" if selected else "ink"))
        painter.drawText(
            QRect(text_rect.left(), text_rect.top(), text_rect.width(), metrics.height()),
            Qt.AlignmentFlag.AlignLeft,
            title,
        )
        painter.setFont(small)
        when = when_label(index.data(ConversationRoles.UPDATED_AT) or "")
        if index.data(ConversationRoles.TEMPORARY):
            # Marked where it is listed: ACAI learns nothing from this chat.
            painter.setPen(self.theme.color("warning_strong"))
            when = TEMPORARY_MARK
        else:
            marks = [PINNED_MARK] if index.data(ConversationRoles.PINNED) else []
            if index.data(ConversationRoles.LOCAL_ONLY):
                marks.append(LOCAL_ONLY_MARK)
                painter.setPen(self.theme.color("local_only_ink"))
            else:
                painter.setPen(self.theme.color("accent" if marks else "faint"))
            when = " · ".join([*marks, when])
        painter.drawText(
            text_rect,
            Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignBottom,
            QFontMetrics(small).elidedText(when, Qt.TextElideMode.ElideRight, text_rect.width()),
        )
        painter.restore()

    def _paint_header(
        self, painter: QPainter, option: QStyleOptionViewItem, index: QModelIndex
    ) -> None:
        """A project's name in small bold letters, with its "⋯" under the mouse."""
        painter.save()
        font = QFont(option.font)
        font.setWeight(QFont.Weight.Bold)
        font.setPointSizeF(max(option.font.pointSizeF(), 10.0) - 1.0)
        painter.setFont(font)
        text_rect = option.rect.adjusted(6, 8, -6, -2)
        if option.state & QStyle.StateFlag.State_MouseOver:
            more = more_rect(option.rect)
            painter.setPen(self.theme.color("soft_ink"))
            painter.drawText(more, Qt.AlignmentFlag.AlignCenter, MORE_MARK)
            text_rect.setRight(more.left() - 4)
        middle = Qt.AlignmentFlag.AlignVCenter
        if index.data(ConversationRoles.LOCAL_ONLY):
            # The mark keeps its room at the right; the name gives way.
            painter.setPen(self.theme.color("local_only_ink"))
            painter.drawText(text_rect, Qt.AlignmentFlag.AlignRight | middle, LOCAL_ONLY_MARK)
            mark = QFontMetrics(font).horizontalAdvance(LOCAL_ONLY_MARK) + 8
            text_rect.setRight(text_rect.right() - mark)
        painter.setPen(self.theme.color("muted"))
        name = QFontMetrics(font).elidedText(
            index.data(ConversationRoles.TITLE), Qt.TextElideMode.ElideRight, text_rect.width()
        )
        painter.drawText(text_rect, Qt.AlignmentFlag.AlignLeft | middle, name)
        painter.restore()


class ConversationList(QListView):
    open_conversation_requested = Signal(int)
    rename_requested = Signal(int)  # conversation id
    delete_requested = Signal(int)  # conversation id
    export_requested = Signal(int)  # conversation id
    pin_requested = Signal(int, bool)  # conversation id, pinned (True) or not
    local_only_requested = Signal(int, bool)  # conversation id, local only (True) or not
    instructions_requested = Signal(int)  # conversation id: its custom instructions
    new_chat_in_project_requested = Signal(object)  # project id (None: outside any)
    move_to_project_requested = Signal(int, object)  # conversation id, project id or None
    rename_project_requested = Signal(int)  # project id
    delete_project_requested = Signal(int)  # project id
    project_instructions_requested = Signal(int)  # project id
    project_local_only_requested = Signal(int, bool)  # project id, local only (True) or not

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("ConversationList")
        self.setAccessibleName("Conversations")
        self.delegate = ConversationDelegate(self)
        self.setItemDelegate(self.delegate)
        self.setSelectionMode(QAbstractItemView.SelectionMode.SingleSelection)
        self.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        self.setMouseTracking(True)
        #: The open actions menu (kept so it lives while shown; tests look at it).
        self.menu: QMenu | None = None
        #: The conversation open in the chat: the highlight stays on it whatever rows
        #: come, go or get a menu.
        self._open_id: int | None = None
        self.activated.connect(self._on_activated)

    def setModel(self, model) -> None:
        super().setModel(model)
        for signal in (model.rowsInserted, model.rowsRemoved, model.modelReset,
                       model.rowsMoved, model.layoutChanged):  # fmt: skip
            signal.connect(self._show_open)

    def set_theme(self, theme: Theme) -> None:
        self.delegate.theme = theme
        self.viewport().update()

    def select_conversation(self, conversation_id: int | None) -> None:
        """Show ``conversation_id`` as the current one, without announcing a choice."""
        self._open_id = conversation_id
        self._show_open()

    def _show_open(self, *args) -> None:
        model = self.model()
        conversation_id = self._open_id
        row = model.row_of(conversation_id) if conversation_id is not None else None
        if row is None:
            self.clearSelection()
            return
        self.selectionModel().select(
            model.index(row), self.selectionModel().SelectionFlag.ClearAndSelect
        )

    def open_menu(self, row: int, at: QPoint) -> QMenu:
        """Show Pin/Unpin, Mark/Unmark local only, Rename…, Instructions…, Export…,
        Delete… (and Move to project) for ``row``'s chat at ``at`` (viewport); a header's
        menu for a header."""
        index = self.model().index(row)
        if index.data(ConversationRoles.HEADER):
            return self._open_header_menu(row, at)
        conversation_id = index.data(ConversationRoles.ID)
        pinned = bool(index.data(ConversationRoles.PINNED))
        marked = index.data(ConversationRoles.LOCAL_ONLY) == "own"  # not its project's mark
        if self.menu is not None:
            self.menu.close()
        menu = QMenu(self)
        menu.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose, True)
        pin = menu.addAction(UNPIN_TEXT if pinned else PIN_TEXT)
        pin.triggered.connect(lambda: self.pin_requested.emit(conversation_id, not pinned))
        local = menu.addAction(UNMARK_TEXT if marked else MARK_TEXT)
        local.triggered.connect(lambda: self.local_only_requested.emit(conversation_id, not marked))
        rename = menu.addAction(RENAME_TEXT)
        rename.triggered.connect(lambda: self.rename_requested.emit(conversation_id))
        instructions = menu.addAction(INSTRUCTIONS_TEXT)
        instructions.triggered.connect(lambda: self.instructions_requested.emit(conversation_id))
        export = menu.addAction(EXPORT_TEXT)
        export.triggered.connect(lambda: self.export_requested.emit(conversation_id))
        projects = self.model().projects()
        if projects:
            self._add_move_menu(menu, conversation_id, row, projects)
        delete = menu.addAction(DELETE_TEXT)
        delete.triggered.connect(lambda: self.delete_requested.emit(conversation_id))
        return self._show_menu(menu, at)

    def _add_move_menu(self, menu: QMenu, conversation_id: int, row: int, projects) -> None:
        current = self.model().index(row).data(ConversationRoles.PROJECT_ID)
        move = menu.addMenu(MOVE_TO_PROJECT_TEXT)
        for project_id, name in [*((p.id, p.name) for p in projects), (None, NO_PROJECT_TEXT)]:
            action = move.addAction(name)
            action.setEnabled(project_id != current)
            action.triggered.connect(
                lambda _=False, p=project_id: self.move_to_project_requested.emit(
                    conversation_id, p
                )
            )

    def _open_header_menu(self, row: int, at: QPoint) -> QMenu:
        project_id = self.model().index(row).data(ConversationRoles.PROJECT_ID)
        if self.menu is not None:
            self.menu.close()
        menu = QMenu(self)
        menu.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose, True)
        new = menu.addAction(NEW_CHAT_IN_PROJECT_TEXT if project_id is not None else NEW_CHAT_TEXT)
        new.triggered.connect(lambda: self.new_chat_in_project_requested.emit(project_id))
        if project_id is not None:
            instructions = menu.addAction(PROJECT_INSTRUCTIONS_TEXT)
            instructions.triggered.connect(
                lambda: self.project_instructions_requested.emit(project_id)
            )
            rename = menu.addAction(RENAME_PROJECT_TEXT)
            rename.triggered.connect(lambda: self.rename_project_requested.emit(project_id))
            marked = bool(self.model().index(row).data(ConversationRoles.LOCAL_ONLY))
            local = menu.addAction(UNMARK_TEXT if marked else MARK_TEXT)
            local.triggered.connect(
                lambda: self.project_local_only_requested.emit(project_id, not marked)
            )
            delete = menu.addAction(DELETE_PROJECT_TEXT)
            delete.triggered.connect(lambda: self.delete_project_requested.emit(project_id))
        return self._show_menu(menu, at)

    def _show_menu(self, menu: QMenu, at: QPoint) -> QMenu:
        menu.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose, True)
        menu.destroyed.connect(self._on_menu_destroyed)
        self.menu = menu
        menu.popup(self.viewport().mapToGlobal(at))  # never exec(): no nested loop
        return menu

    def contextMenuEvent(self, event: QContextMenuEvent) -> None:
        index = self.indexAt(event.pos())
        if index.isValid():
            self.open_menu(index.row(), event.pos())
            event.accept()

    def mousePressEvent(self, event: QMouseEvent) -> None:
        # A press on a row's ⋯, or a right-click, opens a menu: it doesn't choose the
        # row, so the highlight stays on the open chat.
        index = self.indexAt(event.position().toPoint())
        on_more = index.isValid() and (
            more_rect(self.visualRect(index)).contains(event.position().toPoint())
            or bool(index.data(ConversationRoles.HEADER))  # a header is not a chat to open
        )
        if on_more or event.button() == Qt.MouseButton.RightButton:
            event.accept()
            return
        super().mousePressEvent(event)

    def mouseReleaseEvent(self, event: QMouseEvent) -> None:
        index = self.indexAt(event.position().toPoint())
        if event.button() == Qt.MouseButton.LeftButton and index.isValid():
            rect = more_rect(self.visualRect(index))
            if index.data(ConversationRoles.HEADER):
                self.open_menu(index.row(), event.position().toPoint())
            elif rect.contains(event.position().toPoint()):
                self.open_menu(index.row(), rect.bottomLeft())
            else:
                self.open_conversation_requested.emit(index.data(ConversationRoles.ID))
            event.accept()
            return
        super().mouseReleaseEvent(event)

    def _on_menu_destroyed(self) -> None:
        self.menu = None

    def _on_activated(self, index: QModelIndex) -> None:
        if index.data(ConversationRoles.HEADER):
            self.open_menu(index.row(), self.visualRect(index).bottomLeft())
            return
        self.open_conversation_requested.emit(index.data(ConversationRoles.ID))
