"""The profile's documents as a Qt list model, in the order they were added: the
library only (the files attached in chats show with their chat, not here).

The documents controller loads the list once the assistant is open; after that the core's document
events, relayed by the window's EventBridge, keep it current: DocumentAdded inserts a
row, DocumentChanged replaces one (queued, indexing, ready with its chunk count, error),
DocumentRemoved removes it, and IndexingProgress says how far the one being indexed is
(for one role of one row). The model never writes anything.

A document kept local only (marked, or kept to a local-only project) says so on its
state line ("… · ready · Local only") and in its tooltip.

Document names and errors come from the user's files: the view shows them as item text
(never rich text), and their tooltips go through ``PlainToolTipDelegate``.
"""

from __future__ import annotations

from enum import IntEnum

from PySide6.QtCore import QModelIndex, Qt

from acai_desktop.core.documents.model import Document
from acai_desktop.core.records.projects import Project
from acai_desktop.ui.local_only_text import LOCAL_ONLY_MARK, local_only_tip
from acai_desktop.ui.models.record_list_model import RecordListModel

#: What each indexing stage is called in a row's state line.
STAGE_LABELS = {"reading": "reading", "embedding": "embedding", "storing": "saving"}


class DocumentRoles(IntEnum):
    ID = Qt.ItemDataRole.UserRole + 1
    NAME = Qt.ItemDataRole.UserRole + 2
    SIZE = Qt.ItemDataRole.UserRole + 3
    CHUNKS = Qt.ItemDataRole.UserRole + 4
    STATUS = Qt.ItemDataRole.UserRole + 5  # queued, indexing, ready, error
    ERROR = Qt.ItemDataRole.UserRole + 6
    PATH = Qt.ItemDataRole.UserRole + 7
    PROGRESS = Qt.ItemDataRole.UserRole + 8  # "embedding 30/120" while indexing, else ""
    DOCUMENT = Qt.ItemDataRole.UserRole + 9
    #: Why it is kept off remote models: "own" (marked) or "project" (kept to a
    #: local-only project); None: it is not.
    LOCAL_ONLY = Qt.ItemDataRole.UserRole + 10


def size_text(size: int) -> str:
    """1,234 bytes as "1.2 KB" (decimal units, as file managers show)."""
    if size < 1000:
        return f"{size} B"
    for unit in ("KB", "MB", "GB"):
        size /= 1000
        if size < 1000 or unit == "GB":
            return f"{size:.1f} {unit}" if size < 100 else f"{size:.0f} {unit}"
    raise AssertionError("unreachable")


def state_text(document: Document, progress: str = "") -> str:
    """The row's second line: size, chunks and state ("12.3 KB · 41 chunks · ready")."""
    parts = [size_text(document.size)]
    if document.chunk_count or document.status == "ready":
        plural = "" if document.chunk_count == 1 else "s"
        parts.append(f"{document.chunk_count:,} chunk{plural}")
    if document.page_count:
        parts.append(f"{document.page_count:,} page{'' if document.page_count == 1 else 's'}")
    state = str(document.status)
    if document.status == "indexing" and progress:
        state = f"indexing: {progress}"
    parts.append(state)
    return " · ".join(parts)


class DocumentsModel(RecordListModel):
    roles = DocumentRoles

    def __init__(self, parent=None) -> None:
        super().__init__(parent)
        #: Rows by document id: indexing progress arrives many times a second.
        self._row_of: dict[int, int] = {}
        self._progress: dict[int, str] = {}
        self._local_only_projects: frozenset[int] = frozenset()

    def value(self, document: Document, role: int):
        progress = self._progress.get(document.id, "")
        why = self._local_only_why(document)
        state = state_text(document, progress) + (f" · {LOCAL_ONLY_MARK}" if why else "")
        if role == Qt.ItemDataRole.DisplayRole:
            lines = [document.name, state]
            if document.status == "error" and document.error:
                lines.append(document.error)
            return "\n".join(lines)
        if role == Qt.ItemDataRole.ToolTipRole:
            return "\n".join(filter(None, [document.path, document.error, local_only_tip(why)]))
        if role == Qt.ItemDataRole.AccessibleTextRole:
            return f"{document.name}, {state}"
        if role == DocumentRoles.LOCAL_ONLY:
            return why
        if role == DocumentRoles.ID:
            return document.id
        if role == DocumentRoles.NAME:
            return document.name
        if role == DocumentRoles.SIZE:
            return document.size
        if role == DocumentRoles.CHUNKS:
            return document.chunk_count
        if role == DocumentRoles.STATUS:
            return str(document.status)
        if role == DocumentRoles.ERROR:
            return document.error or ""
        if role == DocumentRoles.PATH:
            return document.path
        if role == DocumentRoles.PROGRESS:
            return progress
        if role == DocumentRoles.DOCUMENT:
            return document
        return None

    def _local_only_why(self, document: Document) -> str | None:
        if document.local_only:
            return "own"
        return "project" if document.project_id in self._local_only_projects else None

    # -- what the controller and the events give it -----------------------------------

    def set_projects(self, projects: list[Project]) -> None:
        """Which projects are local only: their documents are too."""
        local_only = frozenset(p.id for p in projects if p.local_only)
        if local_only != self._local_only_projects:
            self._local_only_projects = local_only
            if self._records:
                self.dataChanged.emit(self.index(0), self.index(len(self._records) - 1))

    def set_documents(self, documents: list[Document]) -> None:
        self._progress.clear()
        self._row_of = {document.id: row for row, document in enumerate(documents)}
        self._reset(documents)

    def on_document_added(self, document: Document) -> None:
        if document.attachment:
            return  # a chat's, shown with its chat (the composer's chips), not the library
        if document.id in self._row_of:  # the list was read after it was added
            self.on_document_changed(document)
            return
        row = len(self._records)
        self.beginInsertRows(QModelIndex(), row, row)
        self._records.append(document)
        self._row_of[document.id] = row
        self.endInsertRows()

    def on_document_changed(self, document: Document) -> None:
        if document.attachment:
            return  # a chat's, not the library's
        row = self._row_of.get(document.id)
        if row is None:
            # Added by another process (the ``docs`` command) while the window runs.
            self.on_document_added(document)
            return
        self._records[row] = document
        if document.status != "indexing":
            self._progress.pop(document.id, None)
        self._changed(row)

    def on_document_removed(self, document_id: int) -> None:
        row = self._row_of.get(document_id)
        if row is None:
            return
        self.beginRemoveRows(QModelIndex(), row, row)
        del self._records[row]
        self._progress.pop(document_id, None)
        self._reindex()
        self.endRemoveRows()

    def on_indexing_progress(self, document_id: int, stage: str, done: int, total: int) -> None:
        row = self._row_of.get(document_id)
        if row is None:
            return
        self._progress[document_id] = f"{STAGE_LABELS.get(stage, stage)} {done}/{total}"
        self._changed(row, [Qt.ItemDataRole.DisplayRole, DocumentRoles.PROGRESS])

    # -- reading ---------------------------------------------------------------------

    def row_of(self, document_id: int) -> int | None:
        return self._row_of.get(document_id)

    document_at = RecordListModel.record_at
    documents = RecordListModel.records

    def _reindex(self) -> None:
        self._row_of = {document.id: row for row, document in enumerate(self._records)}
