"""Undo in the status bar, offered for a few seconds: after the user forgot a memory
(Undo restores it) and after a processor stored one (Undo forgets it)."""

from __future__ import annotations

from PySide6.QtCore import QObject, QTimer, Signal, Slot
from PySide6.QtWidgets import QPushButton

UNDO_SECONDS = 10


class UndoOffer(QObject):
    """Owns the Undo button (the window places it) and how long it is offered."""

    restore_requested = Signal(int)  # the forgotten memory's id
    forget_requested = Signal(int)  # the memory a processor just stored

    def __init__(self, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self._memory_id: int | None = None
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

    def offer(self, memory_id: int, *, forgets: bool = False) -> None:
        """``forgets``: Undo forgets the memory (it was just stored), else restores it."""
        self._memory_id, self._undo_forgets = memory_id, forgets
        self.button.setAccessibleName("Undo: forget it" if forgets else "Undo forgetting")
        self.button.setVisible(True)
        self.timer.start()

    @Slot()
    def withdraw(self) -> None:
        self.button.setVisible(False)
        self.timer.stop()

    @Slot()
    def _on_button_clicked(self) -> None:
        memory_id, self._memory_id = self._memory_id, None
        self.withdraw()
        if memory_id is not None:
            signal = self.forget_requested if self._undo_forgets else self.restore_requested
            signal.emit(memory_id)
