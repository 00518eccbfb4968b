"""A large table of an answer, for :class:`~acai_desktop.ui.widgets.table_dialog.TableDialog`:
rows of cell text (the first row is the header). A QTableView draws only the cells on
screen, so a 2,000 x 30 table opens at once where a rich-text table would freeze."""

from __future__ import annotations

from PySide6.QtCore import QAbstractTableModel, QModelIndex, QPersistentModelIndex, Qt

Index = QModelIndex | QPersistentModelIndex
DISPLAY = Qt.ItemDataRole.DisplayRole
_ROOT = QModelIndex()


class TableCellsModel(QAbstractTableModel):
    def __init__(self, rows: list[list[str]], parent=None) -> None:
        super().__init__(parent)
        self._header = rows[0] if rows else []
        self._rows = rows[1:]
        self._columns = max([len(self._header), *(len(row) for row in self._rows)], default=0)

    def rowCount(self, parent: Index = _ROOT) -> int:
        return 0 if parent.isValid() else len(self._rows)

    def columnCount(self, parent: Index = _ROOT) -> int:
        return 0 if parent.isValid() else self._columns

    def data(
        self, index: QModelIndex | QPersistentModelIndex, role: int = Qt.ItemDataRole.DisplayRole
    ):
        if not index.isValid() or role not in (
            Qt.ItemDataRole.DisplayRole,
            Qt.ItemDataRole.ToolTipRole,
        ):
            return None
        row = self._rows[index.row()]
        return row[index.column()] if index.column() < len(row) else ""

    def headerData(
        self, section: int, orientation: Qt.Orientation, role: int = Qt.ItemDataRole.DisplayRole
    ):
        if role != DISPLAY:
            return None
        if orientation == Qt.Orientation.Vertical:
            return str(section + 1)
        return self._header[section] if section < len(self._header) else ""
