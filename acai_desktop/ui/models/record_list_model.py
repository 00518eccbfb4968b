"""What every list model of the window shares: a list of records shown one per row, its
roles named after an enum, ``data()`` that answers None outside the rows, and the row of
a record by its key (its ``id``)."""

from __future__ import annotations

from enum import IntEnum
from typing import Any, ClassVar

from PySide6.QtCore import QAbstractListModel, QModelIndex, QPersistentModelIndex, Qt

Index = QModelIndex | QPersistentModelIndex


class RecordListModel(QAbstractListModel):
    """A flat Qt list model over ``self._records``; a subclass names its ``roles`` and
    says what a record shows for each in :meth:`value`."""

    roles: ClassVar[type[IntEnum]]

    def __init__(self, parent=None) -> None:
        super().__init__(parent)
        self._records: list[Any] = []

    # -- Qt's model interface ------------------------------------------------------

    def rowCount(self, parent: Index = QModelIndex()) -> int:  # noqa: B008 (Qt's signature)
        return 0 if parent.isValid() else len(self._records)

    def roleNames(self) -> dict[int, bytes]:
        return {role.value: role.name.lower().encode() for role in self.roles}

    def data(self, index: Index, role: int = Qt.ItemDataRole.DisplayRole) -> Any:
        if not index.isValid() or not 0 <= index.row() < len(self._records):
            return None
        return self.value(self._records[index.row()], role)

    def value(self, record: Any, role: int) -> Any:
        """What ``record`` shows for ``role`` (None: nothing)."""
        raise NotImplementedError

    # -- reading -------------------------------------------------------------------

    @staticmethod
    def key_of(record: Any) -> Any:
        return record.id

    def row_of(self, key: Any) -> int | None:
        """The row of the record whose key is ``key`` (None: not among the rows)."""
        for row, record in enumerate(self._records):
            if self.key_of(record) == key:
                return row
        return None

    def record_at(self, row: int) -> Any:
        return self._records[row]

    def records(self) -> list[Any]:
        return list(self._records)

    def _reset(self, records: list[Any]) -> None:
        """Show ``records`` instead of the rows shown."""
        self.beginResetModel()
        self._records = list(records)
        self.endResetModel()

    def _changed(self, row: int, roles: list[int] | None = None) -> None:
        """Say that the record in ``row`` changed (for ``roles``; None: every role)."""
        index = self.index(row)
        self.dataChanged.emit(index, index, roles or [])
