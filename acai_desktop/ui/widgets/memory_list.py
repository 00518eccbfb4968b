"""The memory panel's list: a selection that never moves under the user.

Memories come and go while the user looks at the list (a suggestion remembered, a fact
learned, one forgotten or superseded). Qt's list would let the rows slide: a row
inserted or removed above keeps the scroll position in pixels, so everything below moves
by a row, and in single selection Qt selects the neighbour of a removed selected row by
itself. Then the next click lands on another memory, and Delete forgets a memory nobody
chose. So this view:

- keeps the row under the pointer (or else the selected row) where it was on screen when
  rows are inserted or removed above it (it scrolls by the difference once laid out);
- lets a removed selected row leave nothing selected (the current row moves on, without
  being selected);
- remembers which memory the user chose (a click, the keyboard, or Show in panel):
  ``chosen_id``. The panel asks before forgetting any other.
"""

from __future__ import annotations

from PySide6.QtCore import (
    QEvent,
    QItemSelectionModel,
    QModelIndex,
    QPersistentModelIndex,
    QPoint,
)
from PySide6.QtWidgets import QListView

from acai_desktop.ui.models.memories_model import MemoryRoles


class MemoryListView(QListView):
    def __init__(self, parent=None) -> None:
        super().__init__(parent)
        self.setMouseTracking(True)  # where the pointer is: the row to keep still
        self._pointer: QPoint | None = None
        self._removing = False
        self._user_acting = False
        #: The memory the user selected themselves (None: none, or it left the list).
        self.chosen_id: int | None = None
        #: The row to keep in place and its top in the viewport, until laid out again.
        self._anchor: tuple[QPersistentModelIndex, int] | None = None
        self._laid_out = True

    def setModel(self, model) -> None:
        super().setModel(model)
        model.rowsAboutToBeInserted.connect(self._on_rows_about_to_be_inserted)
        model.modelReset.connect(self._on_model_reset)

    # -- what the user chose -------------------------------------------------------------

    def choose(self, index: QModelIndex) -> None:
        """Select ``index`` on the user's behalf (Show in panel from an answer's sources)."""
        self._user_acting = True
        try:
            self.setCurrentIndex(index)
        finally:
            self._user_acting = False

    def mousePressEvent(self, event) -> None:
        self._user_acting = True
        try:
            super().mousePressEvent(event)
        finally:
            self._user_acting = False

    def keyPressEvent(self, event) -> None:
        self._user_acting = True
        try:
            super().keyPressEvent(event)
        finally:
            self._user_acting = False

    def selectionChanged(self, selected, deselected) -> None:
        super().selectionChanged(selected, deselected)
        indexes = self.selectionModel().selectedIndexes()
        if self._user_acting:
            self.chosen_id = indexes[0].data(MemoryRoles.ID) if indexes else None
        elif not indexes:
            self.chosen_id = None

    def selectionCommand(self, index, event=None):
        # Qt moves the current row off a removed one and, in single selection, selects
        # the new current row too: move it, select nothing.
        if self._removing:
            return QItemSelectionModel.SelectionFlag.NoUpdate
        return super().selectionCommand(index, event)

    def rowsAboutToBeRemoved(self, parent, start: int, end: int) -> None:
        # Before Qt's own handling, which forgets the rows' places.
        self._hold(start, self._held_row(start, end))
        self._removing = True
        try:
            super().rowsAboutToBeRemoved(parent, start, end)
        finally:
            self._removing = False

    # -- keeping rows still ----------------------------------------------------------------

    def mouseMoveEvent(self, event) -> None:
        self._pointer = event.position().toPoint()
        super().mouseMoveEvent(event)

    def viewportEvent(self, event) -> bool:
        if event.type() == QEvent.Type.Leave:
            self._pointer = None
        return super().viewportEvent(event)

    def _held_row(self, start: int, end: int) -> QModelIndex:
        """The row the user has in view: under the pointer, or else the selected one
        when it shows; never one of the rows ``start``..``end`` about to change."""
        candidates = []
        if self._pointer is not None:
            candidates.append(self.indexAt(self._pointer))
        candidates.extend(self.selectionModel().selectedIndexes())
        for index in candidates:
            if not index.isValid() or start <= index.row() <= end:
                continue
            if self.visualRect(index).intersects(self.viewport().rect()):
                return index
        return QModelIndex()

    def _on_rows_about_to_be_inserted(self, parent, start: int, end: int) -> None:
        self._hold(start, self._held_row(start, start - 1))

    def _hold(self, start: int, held: QModelIndex) -> None:
        """Remember where ``held`` shows if rows change above it (from ``start``)."""
        self._laid_out = False
        if self._anchor is not None and self._anchor[0].isValid():
            return  # still waiting for the layout after an earlier change: keep that
        if held.isValid() and start <= held.row():
            self._anchor = (QPersistentModelIndex(held), self.visualRect(held).top())

    def doItemsLayout(self) -> None:
        super().doItemsLayout()
        self._laid_out = True  # rows' places are new from here on (batch by batch)

    def _on_model_reset(self) -> None:
        self._anchor = None

    def updateGeometries(self) -> None:
        # Called once the rows are laid out again (each batch, and at the end).
        super().updateGeometries()
        if self._anchor is None or not self._laid_out:
            return
        index, top = self._anchor
        if not index.isValid():
            self._anchor = None
            return
        rect = self.visualRect(QModelIndex(index))
        if not rect.isValid():
            return  # not laid out yet: a later batch
        self._anchor = None
        bar = self.verticalScrollBar()
        bar.setValue(bar.value() + rect.top() - top)
