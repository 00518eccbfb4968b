"""The user's current memories (active, temporary and conflicts), as a Qt list model.

The session loads the list once; ``MEMORY_ADDED`` / ``MEMORY_CHANGED`` /
``MEMORY_REMOVED`` keep it live. A changed memory whose status leaves the visible
set (forgotten, superseded) leaves the list; one that comes back (restored) joins it.
Newest first; the panel's proxy does searching and filtering.
"""

from __future__ import annotations

from enum import IntEnum

from PySide6.QtCore import QAbstractListModel, QModelIndex, QPersistentModelIndex, Qt

from acai_desktop.core.records import MemoryItem, MemoryStatus

Index = QModelIndex | QPersistentModelIndex

VISIBLE_STATUSES = frozenset({MemoryStatus.ACTIVE, MemoryStatus.TEMPORARY, MemoryStatus.CONFLICT})


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


def _value(item: MemoryItem, role: int):
    match role:
        case Qt.ItemDataRole.DisplayRole | MemoryRoles.CONTENT:
            return item.content
        case Qt.ItemDataRole.ToolTipRole:
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


class MemoriesModel(QAbstractListModel):
    def __init__(self, parent=None) -> None:
        super().__init__(parent)
        self._items: list[MemoryItem] = []

    def rowCount(self, parent: Index = QModelIndex()) -> int:  # noqa: B008 (Qt's signature)
        return 0 if parent.isValid() else len(self._items)

    def roleNames(self) -> dict[int, bytes]:
        return {role.value: role.name.lower().encode() for role in MemoryRoles}

    def data(self, index: Index, role: int = Qt.ItemDataRole.DisplayRole):
        if not index.isValid() or not 0 <= index.row() < len(self._items):
            return None
        return _value(self._items[index.row()], role)

    # -- loading -----------------------------------------------------------------------

    def set_memories(self, items: list[MemoryItem]) -> None:
        self.beginResetModel()
        self._items = [item for item in items if item.status in VISIBLE_STATUSES]
        self._items.sort(key=lambda item: (item.created_at, item.id), reverse=True)
        self.endResetModel()

    def row_of(self, memory_id: int) -> int | None:
        for row, item in enumerate(self._items):
            if item.id == memory_id:
                return row
        return None

    def item_at(self, row: int) -> MemoryItem:
        return self._items[row]

    def items(self) -> list[MemoryItem]:
        return list(self._items)

    # -- core events -------------------------------------------------------------------

    def on_memory_added(self, item: MemoryItem) -> None:
        self._put(item)

    def on_memory_changed(self, item: MemoryItem) -> None:
        self._put(item)

    def on_memory_removed(self, item: MemoryItem) -> None:
        self._drop(item.id)

    def _put(self, item: MemoryItem) -> None:
        if item.status not in VISIBLE_STATUSES:
            self._drop(item.id)
            return
        row = self.row_of(item.id)
        if row is None:
            # Newest first: a new memory (or a restored one) goes to the top.
            self.beginInsertRows(QModelIndex(), 0, 0)
            self._items.insert(0, item)
            self.endInsertRows()
            return
        self._items[row] = item
        index = self.index(row)
        self.dataChanged.emit(index, index)

    def _drop(self, memory_id: int) -> None:
        row = self.row_of(memory_id)
        if row is None:
            return
        self.beginRemoveRows(QModelIndex(), row, row)
        del self._items[row]
        self.endRemoveRows()
