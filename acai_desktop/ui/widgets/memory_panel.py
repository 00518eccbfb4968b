"""The memory panel: the user's current memories, live, with search, filters and actions.

Each memory is a card with its text and badges (kind, category, confidence, origin,
pinned, local only, temporary, edited, conflict, its project). Selecting one shows the
actions: edit, pin or unpin, forget, details, mark or unmark local only, and for a
project's memory *Use in every chat*
(a promoted one offers *Keep to its project*); a selected conflict also
offers *Use new* (it replaces the memory it contradicts) and *Keep old* (the conflict
is forgotten). Once there is a project, a menu shows one project's memories, those of
no project, or all. The panel only
asks, through its ``*_requested`` signals; the session does the work through the memory
service, and the core's events bring the result back into the list.
"""

from __future__ import annotations

from PySide6.QtCore import QModelIndex, Qt, QTimer, Signal
from PySide6.QtGui import (
    QKeySequence,
    QShortcut,
)
from PySide6.QtWidgets import (
    QAbstractItemView,
    QComboBox,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QListView,
    QMessageBox,
    QPushButton,
    QStackedWidget,
    QVBoxLayout,
    QWidget,
)

from acai_desktop.core.memory.listing import EVERYWHERE, PanelFilter, PanelQuery
from acai_desktop.core.records.memories import MemoryItem
from acai_desktop.core.records.projects import PROMOTED_FROM, Project
from acai_desktop.ui.models.memories_model import MemoriesModel, MemoryRoles
from acai_desktop.ui.theme import Theme
from acai_desktop.ui.widgets.dialogs import ask_before
from acai_desktop.ui.widgets.empty_state import EmptyState
from acai_desktop.ui.widgets.instructions_widgets import InstructionsBox
from acai_desktop.ui.widgets.memory_actions import ConflictBar, MemoryActionsBar
from acai_desktop.ui.widgets.memory_card import MemoryCardDelegate
from acai_desktop.ui.widgets.memory_list import MemoryListView
from acai_desktop.ui.widgets.review_box import ReviewBox
from acai_desktop.ui.widgets.suggestions_box import SuggestionsBox
from acai_desktop.ui.widgets.wheel_guard import ignore_wheel_unless_focused

EMPTY_TITLE = "Memories will appear here"
EMPTY_TEXT = (
    "Facts you share, summaries of past chats and your own notes. Pin, edit or forget any of them."
)
NO_MATCH_TITLE = "No memory matches"
NO_MATCH_TEXT = "Try other words or another filter."

ALL_PROJECTS_TEXT = "All projects"
EVERYWHERE_TEXT = "Seen everywhere"

#: Typing pauses this long before the search runs (in the core, over every memory).
SEARCH_DELAY_MS = 200


class MemoryPanel(QWidget):
    edit_requested = Signal(int)
    pin_requested = Signal(int, bool)  # memory id, pinned
    local_only_requested = Signal(int, bool)  # memory id, marked local only (True) or not
    forget_requested = Signal(int)
    details_requested = Signal(int)
    resolve_requested = Signal(int, str)  # conflict id, "new" or "old" (the one to keep)
    add_note_requested = Signal()
    search_requested = Signal(object)  # PanelQuery: find memories close in meaning too
    suggestion_accept_requested = Signal(int)  # suggestion id
    suggestion_dismiss_requested = Signal(int)  # suggestion id
    promote_requested = Signal(int)  # memory id: seen in every chat
    demote_requested = Signal(int)  # memory id: back to its project's chats only

    def __init__(self, model: MemoriesModel, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("MemoryPanel")
        self.setAttribute(Qt.WidgetAttribute.WA_StyledBackground, True)
        self.setMinimumWidth(260)
        self.model = model
        #: The last "Forget memory?" question asked (tests answer it).
        self.forget_question: QMessageBox | None = None
        self._search_timer = QTimer(self)
        self._search_timer.setSingleShot(True)
        self._search_timer.setInterval(SEARCH_DELAY_MS)

        title_row = QHBoxLayout()
        title = QLabel("Memory")
        title.setObjectName("PanelTitle")
        self.count_label = QLabel("")
        self.count_label.setObjectName("CountBadge")
        title_row.addWidget(title)
        title_row.addWidget(self.count_label)
        title_row.addStretch(1)
        self.add_note_button = QPushButton("+ Note")
        self.add_note_button.setObjectName("AddNoteButton")
        self.add_note_button.setToolTip("Write something for ACAI to remember")
        self.add_note_button.setCursor(Qt.CursorShape.PointingHandCursor)
        title_row.addWidget(self.add_note_button)

        self.search = QLineEdit()
        self.search.setPlaceholderText("Search memories")
        self.search.setClearButtonEnabled(True)
        self.filter_box = ignore_wheel_unless_focused(QComboBox())
        self.filter_box.addItems([choice.value for choice in PanelFilter])
        self.filter_box.setToolTip("Show only some memories")
        search_row = QHBoxLayout()
        search_row.setSpacing(6)
        search_row.addWidget(self.search, 1)
        search_row.addWidget(self.filter_box)
        # Which project's memories (shown once there is a project): every one, those
        # outside every project, or one project's.
        self.project_box = ignore_wheel_unless_focused(QComboBox())
        self.project_box.setAccessibleName("Project")
        self.project_box.setToolTip("Show the memories of one project, or those seen everywhere")
        self.project_box.setVisible(False)
        self.project_box.addItem(ALL_PROJECTS_TEXT, None)
        self.project_box.addItem(EVERYWHERE_TEXT, EVERYWHERE)

        self.list = MemoryListView()
        self.list.setObjectName("MemoryList")
        self.list.setModel(model)
        self.list.setItemDelegate(MemoryCardDelegate(self.list))
        self.list.setVerticalScrollMode(QAbstractItemView.ScrollMode.ScrollPerPixel)
        self.list.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        self.list.setResizeMode(QListView.ResizeMode.Adjust)
        # A card's height depends on the width, but Adjust lays the list out again only
        # when the height changes (the flow's direction), unless the view wraps text:
        # without this a narrower panel left cards at their old height, overlapping.
        self.list.setWordWrap(True)
        self.list.setSelectionMode(QAbstractItemView.SelectionMode.SingleSelection)
        self.list.setUniformItemSizes(False)
        # Thousands of cards are laid out a few at a time between events, so a large
        # profile's first layout doesn't stall the window.
        self.list.setLayoutMode(QListView.LayoutMode.Batched)
        self.list.setBatchSize(25)
        self.list.setAccessibleName("Memories")
        self.search.setAccessibleName("Search memories")
        self.filter_box.setAccessibleName("Show only")
        # Delete forgets the selected memory (Undo in the status bar brings it back).
        self.forget_shortcut = QShortcut(QKeySequence(QKeySequence.StandardKey.Delete), self.list)
        self.forget_shortcut.setContext(Qt.ShortcutContext.WidgetShortcut)

        self.empty_state = EmptyState(EMPTY_TITLE, EMPTY_TEXT, glyph="◎", text_width=220)
        self.no_match = EmptyState(NO_MATCH_TITLE, NO_MATCH_TEXT, text_width=220)
        self.area = QStackedWidget()
        for page in (self.empty_state, self.list, self.no_match):
            self.area.addWidget(page)

        self.actions_bar = MemoryActionsBar()
        # Only for a selected conflict: the user's decision, beside the usual actions.
        self.conflict_bar = ConflictBar()

        layout = QVBoxLayout(self)
        layout.setContentsMargins(16, 18, 16, 12)
        layout.setSpacing(10)
        layout.addLayout(title_row)
        # The user's own instructions, apart from what ACAI learned.
        self.instructions_box = InstructionsBox()
        layout.addWidget(self.instructions_box)
        layout.addLayout(search_row)
        layout.addWidget(self.project_box)
        # The suggestions come and go below the list, never above it: a box shrinking
        # above would slide every memory up under the pointer (the next click would
        # land on another one).
        self.suggestions = SuggestionsBox()
        self.review = ReviewBox()  # the facts past their lifetime: "Still true?"
        layout.addWidget(self.area, 1)
        layout.addWidget(self.suggestions)
        layout.addWidget(self.review)
        layout.addWidget(self.conflict_bar)
        layout.addWidget(self.actions_bar)
        self._connect_signals()
        self._update_page()
        self._update_actions()

    def _connect_signals(self) -> None:
        self.suggestions.accept_requested.connect(self.suggestion_accept_requested)
        self.suggestions.dismiss_requested.connect(self.suggestion_dismiss_requested)
        self.search.textChanged.connect(self._on_search_text_changed)
        self._search_timer.timeout.connect(self._on_search_timer_timeout)
        self.filter_box.currentTextChanged.connect(self._on_filter_box_changed)
        self.project_box.currentIndexChanged.connect(self._on_project_box_changed)
        self.actions_bar.scope_button.clicked.connect(self._on_scope_button_clicked)
        for signal in (
            self.model.rowsInserted,
            self.model.rowsRemoved,
            self.model.modelReset,
            self.model.counts_changed,
            self.model.loaded,
        ):
            signal.connect(self._update_page)
        self.model.dataChanged.connect(self._on_model_data_changed)
        # Qt asks for the next page when the scroll bar's value reaches its end; while
        # cards are laid out in batches the end moves on, and a page asked for at the
        # wrong moment is dropped, so the list also asks whenever it sits at its end.
        self.list.verticalScrollBar().rangeChanged.connect(self._fetch_more_at_the_end)
        self.model.more_available.connect(self._fetch_more_at_the_end)
        self.list.selectionModel().selectionChanged.connect(self._update_actions)
        self.list.doubleClicked.connect(self._on_list_double_clicked)
        actions, conflict = self.actions_bar, self.conflict_bar
        actions.edit_button.clicked.connect(self._on_edit_button_clicked)
        actions.pin_button.clicked.connect(self._on_pin_button_clicked)
        actions.local_only_button.clicked.connect(self._on_local_only_button_clicked)
        actions.forget_button.clicked.connect(self._on_forget_button_clicked)
        self.forget_shortcut.activated.connect(self._on_forget_shortcut_activated)
        actions.details_button.clicked.connect(self._on_details_button_clicked)
        conflict.use_new_button.clicked.connect(self._on_use_new_button_clicked)
        conflict.keep_old_button.clicked.connect(self._on_keep_old_button_clicked)
        self.add_note_button.clicked.connect(self.add_note_requested)

    # -- state ---------------------------------------------------------------------

    def set_theme(self, theme: Theme) -> None:
        self.list.itemDelegate().theme = theme
        self.list.viewport().update()

    def selected_memory_id(self) -> int | None:
        indexes = self.list.selectionModel().selectedIndexes()
        return indexes[0].data(MemoryRoles.ID) if indexes else None

    def select_memory(self, memory_id: int) -> bool:
        """Select a memory among the loaded rows; False when it is not among them."""
        row = self.model.row_of(memory_id)
        if row is None:
            return False
        self.list.choose(self.model.index(row))
        return True

    def search_again_soon(self, *_news: object) -> None:
        """Run the shown search again after the usual pause (new memories may be on its
        topic); nothing without a search."""
        if self.model.query.text.strip():
            self._search_timer.start()

    def clear_query(self) -> None:
        """Empty the search box and show every kind, without starting a search (the
        caller sets the model's query)."""
        self._search_timer.stop()
        for widget in (self.search, self.filter_box, self.project_box):
            widget.blockSignals(True)
        self.search.clear()
        self.filter_box.setCurrentIndex(0)
        self.project_box.setCurrentIndex(0)
        for widget in (self.search, self.filter_box, self.project_box):
            widget.blockSignals(False)

    def search_for(self, text: str) -> None:
        """Show every kind of memory matching ``text``, searched at once (no pause)."""
        self.clear_query()
        self.search.blockSignals(True)
        self.search.setText(text)
        self.search.blockSignals(False)
        self.apply_query()

    def current_query(self) -> PanelQuery:
        return PanelQuery.of(
            self.search.text(), self.filter_box.currentText(), self.project_box.currentData()
        )

    def set_projects(self, projects: list[Project]) -> None:
        """The project choices (kept on the one chosen while it exists); hidden while
        there is no project. Also gives the list its projects' names for the badges."""
        chosen = self.project_box.currentData()
        self.project_box.blockSignals(True)
        self.project_box.clear()
        self.project_box.addItem(ALL_PROJECTS_TEXT, None)
        self.project_box.addItem(EVERYWHERE_TEXT, EVERYWHERE)
        for project in projects:
            self.project_box.addItem(project.name, project.id)
        position = self.project_box.findData(chosen) if chosen is not None else 0
        self.project_box.setCurrentIndex(max(position, 0))
        self.project_box.blockSignals(False)
        self.project_box.setVisible(bool(projects))
        self.model.set_projects(projects)
        if chosen is not None and position < 0:
            self.apply_query()  # the chosen project is gone: show every memory
        self._update_actions()

    def apply_query(self) -> None:
        """Ask the model for what the search box and the filter say now (by words at
        once), and the session for the memories close in meaning (which come after)."""
        self._search_timer.stop()
        query = self.current_query()
        if query != self.model.query.asked():
            self.model.set_query(query)
        if query.text.strip():
            self.search_requested.emit(query)

    def _update_page(self, *args) -> None:
        total = self.model.total_count
        self.count_label.setText(f"{total:,}" if total else "")
        self.count_label.setVisible(bool(total))  # an empty badge would be a blank pill
        if self.model.rowCount():
            self.area.setCurrentWidget(self.list)
        elif self.model.loading or self.model.query.asked() != self.current_query():
            pass  # the answer to the new search is on its way: keep what is shown
        elif not total:
            self.area.setCurrentWidget(self.empty_state)
        else:
            self.area.setCurrentWidget(self.no_match)
        self._update_actions()

    def _update_actions(self, *args) -> None:
        indexes = self.list.selectionModel().selectedIndexes()
        self.actions_bar.setVisible(bool(indexes))
        conflict = bool(indexes) and indexes[0].data(MemoryRoles.STATUS) == "conflict"
        self.conflict_bar.setVisible(conflict)
        if conflict:
            self.conflict_bar.show_conflict(self.model, indexes[0].data(MemoryRoles.ID))
        if indexes:
            item = indexes[0].data(MemoryRoles.ITEM)
            project, promoted_from = self._projects_of(item) if item is not None else (None, None)
            self.actions_bar.show_for(
                pinned=bool(indexes[0].data(MemoryRoles.PINNED)),
                conflict=conflict,
                project=project,
                promoted_from=promoted_from,
                local_only=item is not None and item.local_only,
            )

    def _projects_of(self, item: MemoryItem) -> tuple[str | None, str | None]:
        """The project ``item`` is kept to, and the one it was promoted from while that
        one exists (a project deleted since is no place to go back to)."""
        if item.project_id is not None:
            return self.model.project_name(item.project_id), None
        home = item.meta.get(PROMOTED_FROM)
        known = self.project_box.findData(home) >= 2 if isinstance(home, int) else False
        return None, self.model.project_name(home) if known else None

    # -- slots ---------------------------------------------------------------------

    def _fetch_more_at_the_end(self, *args) -> None:
        bar = self.list.verticalScrollBar()
        if bar.value() >= bar.maximum() and self.model.canFetchMore(QModelIndex()):
            self.model.fetchMore(QModelIndex())

    def _on_model_data_changed(self, top, bottom, roles) -> None:
        # Cards change height with their text or badges: measure them again.
        for row in range(top.row(), bottom.row() + 1):
            self.list.itemDelegate().sizeHintChanged.emit(self.model.index(row))
        self._update_actions()

    def _on_search_text_changed(self, text: str) -> None:
        # Each keystroke restarts the wait: one search when the typing pauses.
        self._search_timer.start()

    def _on_search_timer_timeout(self) -> None:
        self.apply_query()

    def _on_filter_box_changed(self, name: str) -> None:
        self.apply_query()

    def _on_project_box_changed(self, _position: int) -> None:
        self.apply_query()

    def _on_scope_button_clicked(self) -> None:
        indexes = self.list.selectionModel().selectedIndexes()
        if not indexes:
            return
        item = indexes[0].data(MemoryRoles.ITEM)
        if item.project_id is not None:
            self.promote_requested.emit(item.id)
        else:
            self.demote_requested.emit(item.id)

    def _on_list_double_clicked(self, index: QModelIndex) -> None:
        self.details_requested.emit(index.data(MemoryRoles.ID))

    def _on_edit_button_clicked(self) -> None:
        if (memory_id := self.selected_memory_id()) is not None:
            self.edit_requested.emit(memory_id)

    def _on_pin_button_clicked(self) -> None:
        indexes = self.list.selectionModel().selectedIndexes()
        if indexes:
            pinned = bool(indexes[0].data(MemoryRoles.PINNED))
            self.pin_requested.emit(indexes[0].data(MemoryRoles.ID), not pinned)

    def _on_local_only_button_clicked(self) -> None:
        indexes = self.list.selectionModel().selectedIndexes()
        if indexes:
            marked = indexes[0].data(MemoryRoles.ITEM).local_only
            self.local_only_requested.emit(indexes[0].data(MemoryRoles.ID), not marked)

    def _on_forget_button_clicked(self) -> None:
        if (memory_id := self.selected_memory_id()) is not None:
            self.forget(memory_id)

    def _on_forget_shortcut_activated(self) -> None:
        # Delete acts on the selected memory or, with none selected, on the current row
        # (where the keyboard is) — which may have become current by itself.
        memory_id = self.selected_memory_id()
        if memory_id is None and self.list.currentIndex().isValid():
            memory_id = self.list.currentIndex().data(MemoryRoles.ID)
        if memory_id is not None:
            self.forget(memory_id)

    def forget(self, memory_id: int) -> QMessageBox | None:
        """Forget ``memory_id`` at once if the user chose it in the list; otherwise (it
        became current or selected by itself, as rows came and went) ask first. Returns
        the question's box when it asks."""
        if memory_id == self.list.chosen_id:
            self.forget_requested.emit(memory_id)
            return None
        row = self.model.row_of(memory_id)
        text = " ".join(self.model.item_at(row).content.split()) if row is not None else ""
        if len(text) > 120:
            text = text[:119] + "…"
        box = ask_before(
            self,
            "Forget memory",
            f"Forget “{text}”? You did not select this memory yourself.",
            "Forget",
            lambda: self.forget_requested.emit(memory_id),
        )
        self.forget_question = box
        return box

    def _on_details_button_clicked(self) -> None:
        if (memory_id := self.selected_memory_id()) is not None:
            self.details_requested.emit(memory_id)

    def _on_use_new_button_clicked(self) -> None:
        if (memory_id := self.selected_memory_id()) is not None:
            self.resolve_requested.emit(memory_id, "new")

    def _on_keep_old_button_clicked(self) -> None:
        if (memory_id := self.selected_memory_id()) is not None:
            self.resolve_requested.emit(memory_id, "old")
