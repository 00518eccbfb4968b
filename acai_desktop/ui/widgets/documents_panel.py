"""The Documents tab: the user's files that answers can quote, live, with their state.

Files come in by the *Files…* and *Folder…* buttons (file dialogs opened with
``open()``, never ``exec()``) or dropped onto the tab; a folder is added recursively
with a progress bar and a Stop. Each row shows the name, the size, the chunk count,
the state (queued, indexing, ready, error) and an error's reason — as plain item text:
names and errors come from the user's files. Re-index and Remove act on the selected
document (buttons, context menu; Delete removes, after a confirmation); the menu also
marks it local only, or unmarks it.

The scope line says which documents the shown conversation draws evidence from (all,
some, none). The panel only asks, through its ``*_requested`` signals; the session does
the work through the document service, and the core's events bring the result back.
"""

from __future__ import annotations

from pathlib import Path

from PySide6.QtCore import QModelIndex, QPoint, Qt, Signal
from PySide6.QtGui import QDragEnterEvent, QDropEvent, QKeySequence, QShortcut
from PySide6.QtWidgets import (
    QAbstractItemView,
    QComboBox,
    QFileDialog,
    QHBoxLayout,
    QLabel,
    QListView,
    QMenu,
    QMessageBox,
    QProgressBar,
    QPushButton,
    QStackedWidget,
    QVBoxLayout,
    QWidget,
)

from acai_desktop.core.documents.model import DocumentScope, ScopeMode
from acai_desktop.ui.local_only_text import MARK_TEXT, UNMARK_TEXT
from acai_desktop.ui.models.documents_model import DocumentRoles, DocumentsModel
from acai_desktop.ui.theme import Theme
from acai_desktop.ui.untrusted import plain_label
from acai_desktop.ui.widgets.dialogs import ask_before
from acai_desktop.ui.widgets.document_dialogs import DocumentScopeDialog
from acai_desktop.ui.widgets.document_row import DocumentRowDelegate
from acai_desktop.ui.widgets.empty_state import EmptyState
from acai_desktop.ui.widgets.file_dialogs import file_dialog
from acai_desktop.ui.widgets.file_drop import local_paths
from acai_desktop.ui.widgets.wheel_guard import ignore_wheel_unless_focused

EMPTY_TITLE = "Add documents to quote"
EMPTY_TEXT = (
    "Drop files or a folder here, or use Files… and Folder…: text, Markdown, PDF, "
    "HTML and source code. Answers cite the passages they use."
)
#: The file dialog's filter; the core decides what it can read (and says why not).
FILE_FILTERS = [
    "Documents (*.txt *.md *.markdown *.pdf *.html *.htm *.rst *.csv *.log *.json *.yaml "
    "*.yml *.toml *.py *.js *.ts *.java *.c *.h *.cpp *.go *.rs *.sql *.sh)",
    "All files (*)",
]
#: The scope box's choices, in order.
KEEP_TO_PROJECT_TEXT = "Keep to project"
EVERY_CHAT_TEXT = "Every chat"
SCOPE_CHOICES = (
    (ScopeMode.ALL, "All documents"),
    (ScopeMode.SOME, "Some…"),
    (ScopeMode.NONE, "No documents"),
)

NO_CHAT_SCOPE_TIP = "Start the chat first; a new chat uses all documents."


class DocumentsPanel(QWidget):
    add_files_requested = Signal(list)  # paths
    add_folder_requested = Signal(str)  # folder path
    stop_folder_requested = Signal()
    remove_requested = Signal(int)  # document id (confirmed)
    reindex_requested = Signal(int)  # document id
    scope_requested = Signal(object)  # DocumentScope for the shown conversation
    project_requested = Signal(int, object)  # document id, project id (None: every chat)
    local_only_requested = Signal(int, bool)  # document id, local only (True) or not
    #: What the shown chat's scope is, said briefly ("" when it uses all documents).
    scope_summary_changed = Signal(str)

    def __init__(self, model: DocumentsModel, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("DocumentsPanel")
        self.setAttribute(Qt.WidgetAttribute.WA_StyledBackground, True)
        self.setAcceptDrops(True)
        self.model = model
        #: The shown conversation's scope (None: a new chat, not on disk yet).
        self.scope: DocumentScope | None = None
        self.projects: list = []  # see set_projects

        title_row = QHBoxLayout()
        title = QLabel("Documents")
        title.setObjectName("PanelTitle")
        self.count_label = QLabel("")
        self.count_label.setObjectName("CountBadge")
        self.add_files_button = QPushButton("+ Files…")
        self.add_files_button.setObjectName("AddNoteButton")
        self.add_files_button.setToolTip("Add files for answers to quote")
        self.add_folder_button = QPushButton("+ Folder…")
        self.add_folder_button.setObjectName("AddNoteButton")
        self.add_folder_button.setToolTip("Add every file of a folder, and of its folders")
        title_row.addWidget(title)
        title_row.addWidget(self.count_label)
        title_row.addStretch(1)
        add_row = QHBoxLayout()
        add_row.setSpacing(6)
        add_row.addWidget(self.add_files_button)
        add_row.addWidget(self.add_folder_button)
        add_row.addStretch(1)

        scope_row = QHBoxLayout()
        scope_label = QLabel("Use in this chat:")
        scope_label.setObjectName("DialogNote")
        self.scope_box = ignore_wheel_unless_focused(QComboBox())
        for _mode, text in SCOPE_CHOICES:
            self.scope_box.addItem(text)
        scope_label.setBuddy(self.scope_box)
        scope_row.addWidget(scope_label)
        scope_row.addWidget(self.scope_box, 1)

        self.list = QListView()
        self.list.setObjectName("DocumentList")
        self.list.setModel(model)
        self.list.setItemDelegate(DocumentRowDelegate(self.list))
        self.list.setWordWrap(True)
        self.list.setTextElideMode(Qt.TextElideMode.ElideMiddle)
        self.list.setSpacing(2)
        self.list.setUniformItemSizes(False)
        self.list.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        self.list.setSelectionMode(QAbstractItemView.SelectionMode.SingleSelection)
        self.list.setContextMenuPolicy(Qt.ContextMenuPolicy.CustomContextMenu)
        self.remove_shortcut = QShortcut(QKeySequence(QKeySequence.StandardKey.Delete), self.list)
        self.remove_shortcut.setContext(Qt.ShortcutContext.WidgetShortcut)

        self.empty_state = EmptyState(EMPTY_TITLE, EMPTY_TEXT, glyph="▤", text_width=220)
        self.area = QStackedWidget()
        self.area.addWidget(self.empty_state)
        self.area.addWidget(self.list)

        # Adding a folder: how far, and a Stop.
        self.folder_bar = QWidget()
        folder_layout = QHBoxLayout(self.folder_bar)
        folder_layout.setContentsMargins(0, 0, 0, 0)
        self.folder_progress = QProgressBar()
        self.folder_progress.setTextVisible(True)
        self.folder_progress.setFormat("%v of %m files")
        self.stop_button = QPushButton("Stop")
        self.stop_button.setToolTip("Stop adding this folder; files not indexed yet are left out")
        folder_layout.addWidget(self.folder_progress, 1)
        folder_layout.addWidget(self.stop_button)
        self.folder_bar.setVisible(False)

        # The shown chat's own files (its composer's attachments): not the library's, but
        # listed here too, so the tab says every file the chat's answers may quote.
        self.chat_files = plain_label("", "DialogNote")
        self.chat_files.setWordWrap(True)
        self.chat_files.setVisible(False)

        # A refusal (too big, unsupported, unreadable): plain, it names the user's file.
        self.notice = plain_label("", "DialogError")
        self.notice.setWordWrap(True)
        self.notice.setVisible(False)

        self.reindex_button = QPushButton("Re-index")
        self.reindex_button.setToolTip("Read the file again if it changed (or failed)")
        self.remove_button = QPushButton("Remove")
        self.remove_button.setObjectName("DangerButton")
        self.remove_button.setToolTip("Remove the document and its passages (Delete)")
        self.actions_bar = QWidget()
        actions = QHBoxLayout(self.actions_bar)
        actions.setContentsMargins(0, 0, 0, 0)
        actions.setSpacing(6)
        for button in (self.reindex_button, self.remove_button):
            actions.addWidget(button)
        actions.addStretch(1)

        for button in (
            self.add_files_button,
            self.add_folder_button,
            self.stop_button,
            self.reindex_button,
            self.remove_button,
        ):
            button.setCursor(Qt.CursorShape.PointingHandCursor)
            button.setAccessibleName(button.text().strip("+ …"))
        self.add_files_button.setAccessibleName("Add files")
        self.add_folder_button.setAccessibleName("Add a folder")
        self.stop_button.setAccessibleName("Stop adding the folder")
        self.scope_box.setAccessibleName("Documents used in this chat")
        self.list.setAccessibleName("Documents")
        self.folder_progress.setAccessibleName("Adding the folder")
        self.notice.setAccessibleName("Files not added")

        layout = QVBoxLayout(self)
        layout.setContentsMargins(16, 18, 16, 12)
        layout.setSpacing(10)
        layout.addLayout(title_row)
        layout.addLayout(add_row)
        layout.addLayout(scope_row)
        layout.addWidget(self.area, 1)
        layout.addWidget(self.chat_files)
        layout.addWidget(self.folder_bar)
        layout.addWidget(self.notice)
        layout.addWidget(self.actions_bar)
        self._connect_signals()
        self._update_page()
        self.set_scope(None)

    def _connect_signals(self) -> None:
        for signal in (self.model.rowsInserted, self.model.rowsRemoved, self.model.modelReset):
            signal.connect(self._update_page)
        self.list.selectionModel().selectionChanged.connect(self._update_actions)
        self.list.customContextMenuRequested.connect(self._on_list_context_menu_requested)
        self.add_files_button.clicked.connect(self.choose_files)
        self.add_folder_button.clicked.connect(self.choose_folder)
        self.stop_button.clicked.connect(self._on_stop_button_clicked)
        self.reindex_button.clicked.connect(self._on_reindex_button_clicked)
        self.remove_button.clicked.connect(self.confirm_remove)
        self.remove_shortcut.activated.connect(self.confirm_remove)
        self.scope_box.activated.connect(self._on_scope_box_activated)

    # -- state -------------------------------------------------------------------------

    def set_chat_files(self, names: list[str]) -> None:
        """The shown chat's attachments, under the library (hidden when it has none)."""
        self.chat_files.setText(
            "Attached to this chat (quoted in its answers only): " + ", ".join(names)
        )
        self.chat_files.setVisible(bool(names))

    def focus_chain(self) -> list[QWidget]:
        """The tab's controls in the order Tab visits them."""
        return [
            self.add_files_button,
            self.add_folder_button,
            self.scope_box,
            self.list,
            self.stop_button,
            self.reindex_button,
            self.remove_button,
        ]

    def set_theme(self, theme: Theme) -> None:
        self.list.itemDelegate().theme = theme
        self.list.viewport().update()

    def selected_document_id(self) -> int | None:
        indexes = self.list.selectionModel().selectedIndexes()
        return indexes[0].data(DocumentRoles.ID) if indexes else None

    def select_document(self, document_id: int) -> bool:
        row = self.model.row_of(document_id)
        if row is None:
            return False
        self.list.setCurrentIndex(self.model.index(row))
        return True

    def set_scope(self, scope: DocumentScope | None) -> None:
        """Show the shown conversation's scope (None: a new chat, which uses all)."""
        self.scope = scope
        self.scope_box.setEnabled(scope is not None)
        self.scope_box.setToolTip(NO_CHAT_SCOPE_TIP if scope is None else "")
        mode = ScopeMode.ALL if scope is None else scope.mode
        modes = [m for m, _text in SCOPE_CHOICES]
        some = "Some…"
        if scope is not None and scope.mode == ScopeMode.SOME:
            some = f"Some ({len(scope.document_ids)})…"
        self.scope_box.setItemText(modes.index(ScopeMode.SOME), some)
        self.scope_box.setCurrentIndex(modes.index(mode))
        self.scope_summary_changed.emit(scope_summary(scope))

    def show_folder_progress(self, done: int, total: int, finished: bool) -> None:
        self.folder_bar.setVisible(not finished)
        self.stop_button.setEnabled(not finished)
        # Before the walk has counted the files: a busy bar, no "0 of 0".
        self.folder_progress.setRange(0, total)
        self.folder_progress.setValue(min(done, total))

    def on_folder_progress(self, progress) -> None:
        """``events.FolderProgress``: files of the folder queued so far."""
        self.show_folder_progress(progress.done, progress.total, progress.finished)

    def show_notice(self, text: str) -> None:
        """Say which files were not added and why ("" hides it)."""
        self.notice.setText(text)
        self.notice.setVisible(bool(text))

    def _update_page(self, *args) -> None:
        count = self.model.rowCount()
        self.count_label.setText(f"{count:,}" if count else "")
        self.count_label.setVisible(bool(count))
        self.area.setCurrentWidget(self.list if count else self.empty_state)
        self._update_actions()

    def _update_actions(self, *args) -> None:
        self.actions_bar.setVisible(self.selected_document_id() is not None)

    # -- asking --------------------------------------------------------------------------

    def choose_files(self) -> QFileDialog:
        dialog = file_dialog(self, "Add documents")
        dialog.setFileMode(QFileDialog.FileMode.ExistingFiles)
        dialog.setNameFilters(FILE_FILTERS)
        dialog.filesSelected.connect(self._on_files_chosen)
        dialog.open()  # never exec(): no nested loop
        return dialog

    def choose_folder(self) -> QFileDialog:
        dialog = file_dialog(self, "Add a folder of documents")
        dialog.setFileMode(QFileDialog.FileMode.Directory)
        dialog.setOption(QFileDialog.Option.ShowDirsOnly, True)
        dialog.fileSelected.connect(self.add_folder_requested)
        dialog.open()
        return dialog

    def _on_files_chosen(self, paths: list[str]) -> None:
        if paths:
            self.add_files_requested.emit(list(paths))

    def confirm_remove(self) -> QMessageBox | None:
        document_id = self.selected_document_id()
        if document_id is None:
            return None
        name = self.model.document_at(self.model.row_of(document_id)).name
        return ask_before(
            self,
            "Remove document",
            f"Remove “{name}” and its passages? Answers that cited it keep the citation.",
            "Remove",
            lambda: self.remove_requested.emit(document_id),
        )

    def _on_reindex_button_clicked(self) -> None:
        if (document_id := self.selected_document_id()) is not None:
            self.reindex_requested.emit(document_id)

    def _on_stop_button_clicked(self) -> None:
        self.stop_button.setEnabled(False)
        self.stop_folder_requested.emit()

    def _on_list_context_menu_requested(self, point: QPoint) -> None:
        index: QModelIndex = self.list.indexAt(point)
        if index.isValid():
            self.row_menu(index).popup(self.list.viewport().mapToGlobal(point))

    def row_menu(self, index: QModelIndex) -> QMenu:
        """A row's context menu (the row is selected first: its actions act on it)."""
        self.list.setCurrentIndex(index)
        menu = QMenu(self)
        menu.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose, True)
        menu.addAction("Re-index", self._on_reindex_button_clicked)
        document = index.data(DocumentRoles.DOCUMENT)
        marked = document.local_only
        menu.addAction(
            UNMARK_TEXT if marked else MARK_TEXT,
            lambda: self.local_only_requested.emit(document.id, not marked),
        )
        if self.projects:
            self._add_project_menu(menu, document)
        menu.addAction("Remove…", self.confirm_remove)
        return menu

    def set_projects(self, projects: list) -> None:
        """The projects a document can be kept to (its menu's *Keep to project*);
        a local-only one's documents are marked."""
        self.projects = list(projects)
        self.model.set_projects(self.projects)

    def _add_project_menu(self, menu: QMenu, document) -> None:
        """Another project's chats never quote a document kept to a project."""
        keep = menu.addMenu(KEEP_TO_PROJECT_TEXT)
        choices = [*((p.id, p.name) for p in self.projects), (None, EVERY_CHAT_TEXT)]
        for project_id, name in choices:
            action = keep.addAction(name)
            action.setCheckable(True)
            action.setChecked(document.project_id == project_id)
            action.triggered.connect(
                lambda _=False, p=project_id: self.project_requested.emit(document.id, p)
            )

    def _on_scope_box_activated(self, row: int) -> None:
        mode = SCOPE_CHOICES[row][0]
        if self.scope is None:
            return
        if mode != ScopeMode.SOME:
            self.scope_requested.emit(DocumentScope(mode))
            return
        chosen = self.scope.document_ids if self.scope.mode == ScopeMode.SOME else ()
        dialog = DocumentScopeDialog(self.model.documents(), chosen, self)
        dialog.scope_chosen.connect(self.scope_requested)
        # Cancelled: the box shows the scope as it is.
        dialog.rejected.connect(lambda: self.set_scope(self.scope))
        dialog.open()

    # -- dropping files --------------------------------------------------------------------

    def dragEnterEvent(self, event: QDragEnterEvent) -> None:
        if _local_paths(event):
            event.acceptProposedAction()
        else:
            event.ignore()

    def dragMoveEvent(self, event) -> None:
        if _local_paths(event):
            event.acceptProposedAction()

    def dropEvent(self, event: QDropEvent) -> None:
        paths = _local_paths(event)
        if not paths:
            event.ignore()
            return
        event.acceptProposedAction()
        files = [p for p in paths if not Path(p).is_dir()]
        if files:
            self.add_files_requested.emit(files)
        for folder in (p for p in paths if Path(p).is_dir()):
            self.add_folder_requested.emit(folder)


def scope_summary(scope: DocumentScope | None) -> str:
    """The chat header's note when a chat doesn't use all documents ("" when it does)."""
    if scope is None or scope.mode == ScopeMode.ALL:
        return ""
    if scope.mode == ScopeMode.NONE:
        return "No documents"
    count = len(scope.document_ids)
    return f"{count} document{'' if count == 1 else 's'}"


def _local_paths(event) -> list[str]:
    return local_paths(event.mimeData())
