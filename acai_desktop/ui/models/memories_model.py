"""The memories the panel shows, as a Qt list model that loads them a page at a time.

Which memories are visible, in what order, is the core's rule
(:mod:`acai_desktop.core.memory.listing`): the model asks the core for pages (keyset
pages, on the database thread) and counts, and holds only what the view has scrolled
to. Search and filter are a :class:`PanelQuery`; a new query reloads from the first
page. ``canFetchMore``/``fetchMore`` bring the next page when the view reaches the end.

``MEMORY_ADDED`` / ``MEMORY_CHANGED`` / ``MEMORY_REMOVED`` keep the loaded rows live
without a reload: a memory that no longer matches leaves, one that now matches joins at
its place in the order when that place is among the loaded rows (otherwise a later page
brings it), and the counts are read again from the database shortly after.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from enum import IntEnum

from PySide6.QtCore import (
    QModelIndex,
    Qt,
    QTimer,
    Signal,
)

from acai_desktop.core.memory.listing import (
    DEFAULT_PAGE_SIZE,
    PanelKey,
    PanelPage,
    PanelQuery,
)
from acai_desktop.core.memory.policy import MemoryPolicy
from acai_desktop.core.records.memories import MemoryItem, MemoryStatus
from acai_desktop.core.records.projects import Project
from acai_desktop.ui.local_only_text import local_only_tip
from acai_desktop.ui.models.record_list_model import Index, RecordListModel
from acai_desktop.ui.tasks import TaskTracker

#: The tooltip of a temporary memory says what its badge means.
TEMPORARY_EXPLANATION = MemoryPolicy().temporary_explanation()
#: The badge of a memory whose project the model has not heard of yet.
PROJECT_UNKNOWN = "Project"
#: ``read(query, after, limit, with_total)``: a page from the core (MemoryService.read_panel).
PanelReader = Callable[[PanelQuery, PanelKey | None, int, bool], Awaitable[PanelPage]]
#: ``count(query)``: how many memories match (MemoryService.count_panel).
PanelCounter = Callable[[PanelQuery], Awaitable[int]]
#: Live changes are counted again from the database after this quiet time (a processor
#: or an import may announce many memories in a row).
RECOUNT_DELAY_MS = 150
LOAD_TASK = "load"
MORE_TASK = "more"
COUNT_TASK = "count"


class MemoryRoles(IntEnum):
    ID = Qt.ItemDataRole.UserRole + 1
    CONTENT = Qt.ItemDataRole.UserRole + 2
    KIND = Qt.ItemDataRole.UserRole + 3
    CATEGORY = Qt.ItemDataRole.UserRole + 4
    CONFIDENCE = Qt.ItemDataRole.UserRole + 5
    ORIGIN = Qt.ItemDataRole.UserRole + 6
    PINNED = Qt.ItemDataRole.UserRole + 7
    STATUS = Qt.ItemDataRole.UserRole + 8
    USER_EDITED = Qt.ItemDataRole.UserRole + 9
    IMPORTANCE = Qt.ItemDataRole.UserRole + 10
    UPDATED_AT = Qt.ItemDataRole.UserRole + 11
    ITEM = Qt.ItemDataRole.UserRole + 12  # the MemoryItem record
    PROJECT = Qt.ItemDataRole.UserRole + 13  # its project's name (None: everywhere)
    #: Why it is kept off remote models: "own" (marked), "chat" or "project" (kept with
    #: a local-only one); None: it is not.
    LOCAL_ONLY = Qt.ItemDataRole.UserRole + 14


def _value(item: MemoryItem, role: int):
    match role:
        case Qt.ItemDataRole.DisplayRole | MemoryRoles.CONTENT:
            return item.content
        case Qt.ItemDataRole.ToolTipRole:
            if item.status == MemoryStatus.TEMPORARY:
                return f"{item.content}\n\n{TEMPORARY_EXPLANATION}"
            return item.content
        case MemoryRoles.ID:
            return item.id
        case MemoryRoles.KIND:
            return item.kind.value
        case MemoryRoles.CATEGORY:
            return item.category
        case MemoryRoles.CONFIDENCE:
            return float(item.confidence)
        case MemoryRoles.ORIGIN:
            return item.origin.value
        case MemoryRoles.PINNED:
            return item.pinned
        case MemoryRoles.STATUS:
            return item.status.value
        case MemoryRoles.USER_EDITED:
            return item.user_edited
        case MemoryRoles.IMPORTANCE:
            return float(item.importance)
        case MemoryRoles.UPDATED_AT:
            return item.updated_at
        case MemoryRoles.ITEM:
            return item
    return None


class MemoriesModel(RecordListModel):
    roles = MemoryRoles

    #: The counts changed: (memories matching the query, memories the panel has at all).
    counts_changed = Signal(int, int)
    #: The first page of a new query arrived (or the model was detached).
    loaded = Signal()
    #: A page the view asked for was dropped as stale (or another may follow): a view
    #: at its end should ask again.
    more_available = Signal()

    def __init__(self, parent=None, *, page_size: int = DEFAULT_PAGE_SIZE) -> None:
        super().__init__(parent)
        self.page_size = page_size
        self._query = PanelQuery()
        self._project_names: dict[int, str] = {}
        #: The local-only projects, and the chats local only (themselves or by their
        #: project): a memory kept with one is local only too (core/store/local_only.py).
        self._local_only_projects: frozenset[int] = frozenset()
        self._local_only_chats: frozenset[int] = frozenset()
        self._read: PanelReader | None = None
        self._count: PanelCounter | None = None
        self._more = False  # rows after the loaded ones may match
        self._loading = False  # the first page of the current query is on its way
        #: Rows loaded by reading (first page and fetchMore); live additions may add up
        #: to a page on top before the oldest loaded rows are let go again.
        self._window = 0
        self._generation = 0  # a reload makes every older answer stale
        self._trims = 0  # letting rows go from the end makes a page on its way stale
        self.matching_count = 0
        self.total_count = 0
        self.tasks = TaskTracker()
        self._recount_timer = QTimer(self)
        self._recount_timer.setSingleShot(True)
        self._recount_timer.setInterval(RECOUNT_DELAY_MS)
        self._recount_timer.timeout.connect(self._on_recount_timer_timeout)

    # -- Qt's model API ----------------------------------------------------------------

    def value(self, item: MemoryItem, role: int):
        if role == MemoryRoles.PROJECT:
            if item.project_id is None:
                return None
            return self._project_names.get(item.project_id, PROJECT_UNKNOWN)
        if role == MemoryRoles.LOCAL_ONLY:
            return self._local_only_why(item)
        if role == Qt.ItemDataRole.ToolTipRole and (why := self._local_only_why(item)):
            return f"{_value(item, role)}\n\n{local_only_tip(why)}"
        return _value(item, role)

    def _local_only_why(self, item: MemoryItem) -> str | None:
        if item.local_only:
            return "own"
        if item.conversation_id in self._local_only_chats:
            return "chat"
        if item.project_id in self._local_only_projects:
            return "project"
        return None

    def set_projects(self, projects: list[Project]) -> None:
        """The projects' names, for each memory's project badge, and which are local only."""
        self._project_names = {p.id: p.name for p in projects}
        self._local_only_projects = frozenset(p.id for p in projects if p.local_only)
        self._all_changed([MemoryRoles.PROJECT, MemoryRoles.LOCAL_ONLY])

    def set_local_only_chats(self, conversation_ids: frozenset[int]) -> None:
        """The chats local only now (the conversation list's): their memories are too."""
        if conversation_ids != self._local_only_chats:
            self._local_only_chats = frozenset(conversation_ids)
            self._all_changed([MemoryRoles.LOCAL_ONLY])

    def _all_changed(self, roles: list[int]) -> None:
        if self._records:
            self.dataChanged.emit(self.index(0), self.index(len(self._records) - 1), roles)

    def project_name(self, project_id: int) -> str:
        return self._project_names.get(project_id, PROJECT_UNKNOWN)

    def canFetchMore(self, parent: Index) -> bool:
        return (
            not parent.isValid()
            and self._read is not None
            and self._more
            and not self._loading
            and self.tasks.get(MORE_TASK) is None
        )

    def fetchMore(self, parent: Index) -> None:
        if not self.canFetchMore(parent) or not _loop_running():
            return
        after = self._query.key(self._records[-1]) if self._records else None
        self.tasks.start(self._fetch_more(self._generation, self._trims, after), key=MORE_TASK)

    # -- the source and the query -------------------------------------------------------

    @property
    def query(self) -> PanelQuery:
        return self._query

    @property
    def loading(self) -> bool:
        """True while the first page of the current query is on its way."""
        return self._loading

    @property
    def settled(self) -> bool:
        """No page or count is being read or waiting to be (tests, the start-up probe)."""
        return not self._loading and not len(self.tasks) and not self._recount_timer.isActive()

    def attach(self, read: PanelReader, count: PanelCounter) -> asyncio.Task | None:
        """Show the memories ``read`` gives (the profile just opened); returns the task
        loading the first page (None without a running loop)."""
        self._read, self._count = read, count
        return self.reload()

    async def detach(self) -> None:
        """Forget the source (its database is closing) and everything it gave."""
        self._read = self._count = None
        self._generation += 1
        self._recount_timer.stop()
        await self.tasks.cancel_all()
        self.beginResetModel()
        self._records, self._more, self._window = [], False, 0
        self.endResetModel()
        self._loading = False
        self._set_counts(0, 0)
        self.loaded.emit()

    def set_query(self, query: PanelQuery) -> None:
        if query == self._query:
            return
        self._query = query
        self.reload()

    def show_first(self, memory_id: int) -> asyncio.Task | None:
        """Show every memory with ``memory_id`` first (no search, no filter); returns the
        task loading the first page."""
        self._query = PanelQuery(near=(memory_id,))
        return self.reload()

    def reload(self) -> asyncio.Task | None:
        """Read the first page (and the counts) of the current query again."""
        if self._read is None or not _loop_running():
            return None
        self._generation += 1
        self._loading = True
        self.tasks.cancel(MORE_TASK)
        return self.tasks.start(self._load_first_page(self._generation), key=LOAD_TASK)

    async def _load_first_page(self, generation: int) -> None:
        assert self._read is not None and self._count is not None
        try:
            page = await self._read(self._query, None, self.page_size, True)
            total = page.total if self._query == PanelQuery() else await self._count(PanelQuery())
        finally:
            if generation == self._generation:
                self._loading = False
        if generation != self._generation:
            return
        self.beginResetModel()
        self._records = list(page.items)
        self._more = page.more
        self._window = len(self._records)
        self.endResetModel()
        self._set_counts(page.total or 0, total or 0)
        self.loaded.emit()

    async def _fetch_more(self, generation: int, trims: int, after: PanelKey | None) -> None:
        assert self._read is not None
        page = await self._read(self._query, after, self.page_size, False)
        if generation != self._generation or trims != self._trims:
            # A new query, or rows let go from the end meanwhile: this page would not
            # continue the loaded rows. The view asks again once this task is done.
            QTimer.singleShot(0, self.more_available.emit)
            return
        known = {item.id for item in self._records}
        new = [item for item in page.items if item.id not in known]
        self._more = page.more
        if new:
            first = len(self._records)
            self.beginInsertRows(QModelIndex(), first, first + len(new) - 1)
            self._records.extend(new)
            self.endInsertRows()
        self._window = len(self._records)

    # -- rows ----------------------------------------------------------------------------

    item_at = RecordListModel.record_at
    #: The loaded rows (not every matching memory: see ``matching_count``).
    items = RecordListModel.records

    # -- core events ---------------------------------------------------------------------

    def on_memory_added(self, item: MemoryItem) -> None:
        self._put(item, added=True)

    def on_memory_changed(self, item: MemoryItem) -> None:
        self._put(item, added=False)

    def on_memory_removed(self, item: MemoryItem) -> None:
        self._recount_soon()
        self._drop(item.id, left_panel=True)

    def _put(self, item: MemoryItem, *, added: bool) -> None:
        # The local arithmetic below keeps the counts right at once in the usual cases;
        # the database's count settles the rest (a change beyond the loaded rows).
        self._recount_soon()
        if not self._query.matches(item):
            self._drop(item.id, left_panel=not PanelQuery().matches(item))
            return
        row = self.row_of(item.id)
        if row is not None:
            self._records[row] = item
            self._changed(row)
            return
        row = self._place_for(self._query.key(item))
        if row is None:
            return  # after the loaded rows: a later page brings it
        self.beginInsertRows(QModelIndex(), row, row)
        self._records.insert(row, item)
        self.endInsertRows()
        self._set_counts(self.matching_count + 1, self.total_count + int(added))
        if len(self._records) > self._window + self.page_size:
            # Many live additions (an import): keep the loaded rows bounded; the
            # oldest come back as a page when the view scrolls to them.
            last = len(self._records) - 1
            self.beginRemoveRows(QModelIndex(), last, last)
            del self._records[last]
            self.endRemoveRows()
            self._more = True
            self._trims += 1

    def _place_for(self, key: PanelKey) -> int | None:
        """The row where a memory with ``key`` goes (the query's order), or None when it
        falls after the loaded rows and more rows are still to be read."""
        low, high = 0, len(self._records)
        while low < high:
            middle = (low + high) // 2
            if self._query.key(self._records[middle]) > key:
                low = middle + 1
            else:
                high = middle
        if low == len(self._records) and self._more:
            return None
        return low

    def _drop(self, memory_id: int, *, left_panel: bool) -> None:
        """Remove the row of ``memory_id`` if loaded; ``left_panel``: the memory is no
        longer visible under any query (forgotten, superseded), not only this one."""
        row = self.row_of(memory_id)
        if row is None:
            return
        self.beginRemoveRows(QModelIndex(), row, row)
        del self._records[row]
        self.endRemoveRows()
        self._window = min(self._window, len(self._records))
        self._set_counts(
            max(0, self.matching_count - 1), max(0, self.total_count - int(left_panel))
        )

    # -- counts --------------------------------------------------------------------------

    def _set_counts(self, matching: int, total: int) -> None:
        if (matching, total) != (self.matching_count, self.total_count):
            self.matching_count, self.total_count = matching, total
            self.counts_changed.emit(matching, total)

    def _recount_soon(self) -> None:
        if self._count is not None:
            self._recount_timer.start()

    def _on_recount_timer_timeout(self) -> None:
        if self._count is not None and _loop_running():
            self.tasks.start(self._recount(self._generation), key=COUNT_TASK)

    async def _recount(self, generation: int) -> None:
        assert self._count is not None
        matching = await self._count(self._query)
        total = matching if self._query == PanelQuery() else await self._count(PanelQuery())
        if generation == self._generation and self.tasks.get(LOAD_TASK) is None:
            self._set_counts(matching, total)


def _loop_running() -> bool:
    try:
        asyncio.get_running_loop()
    except RuntimeError:
        return False
    return True
