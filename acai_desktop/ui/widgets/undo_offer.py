"""Undo in the status bar, offered for a few seconds: after the user forgot memories
(Undo restores them) and after a processor stored one (Undo forgets it)."""

from __future__ import annotations

from collections.abc import Sequence

from PySide6.QtCore import QObject, QTimer, Signal, Slot
from PySide6.QtWidgets import QPushButton

UNDO_SECONDS = 10


class UndoOffer(QObject):
    """Owns the Undo button (the window places it) and how long it is offered."""

    restore_requested = Signal(int)  # a forgotten memory's id (one signal for each)
    forget_requested = Signal(int)  # the memory a processor just stored

    def __init__(self, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self._memory_ids: tuple[int, ...] = ()
        self._undo_forgets = False
        self.button = QPushButton("Undo")
        self.button.setObjectName("UndoButton")
        self.button.setVisible(False)
        self.button.setAccessibleName("Undo forgetting")
        self.timer = QTimer(self)
        self.timer.setSingleShot(True)
        self.timer.setInterval(UNDO_SECONDS * 1000)
        self.button.clicked.connect(self._on_button_clicked)
        self.timer.timeout.connect(self.withdraw)

    def offer(self, memory_id: int | Sequence[int], *, forgets: bool = False) -> None:
        """``forgets``: Undo forgets the memory (it was just stored), else restores it
        (or each of them)."""
        ids = (memory_id,) if isinstance(memory_id, int) else tuple(memory_id)
        self._memory_ids, self._undo_forgets = ids, forgets
        self.button.setAccessibleName("Undo: forget it" if forgets else "Undo forgetting")
        self.button.setVisible(True)
        self.timer.start()

    @Slot()
    def withdraw(self) -> None:
        self.button.setVisible(False)
        self.timer.stop()

    @Slot()
    def _on_button_clicked(self) -> None:
        memory_ids, self._memory_ids = self._memory_ids, ()
        self.withdraw()
        signal = self.forget_requested if self._undo_forgets else self.restore_requested
        for memory_id in memory_ids:
            signal.emit(memory_id)
