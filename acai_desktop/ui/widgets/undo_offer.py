"""Undo after forgetting a memory: a status-bar button offered for a few seconds."""

from __future__ import annotations

from PySide6.QtCore import QObject, QTimer, Signal, Slot
from PySide6.QtWidgets import QPushButton

UNDO_SECONDS = 10


class UndoOffer(QObject):
    """Owns the Undo button (the window places it) and how long it is offered."""

    restore_requested = Signal(int)  # the forgotten memory's id

    def __init__(self, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self._memory_id: int | None = None
        self.button = QPushButton("Undo")
        self.button.setObjectName("UndoButton")
        self.button.setVisible(False)
        self.button.setAccessibleName("Undo forgetting")
        self.timer = QTimer(self)
        self.timer.setSingleShot(True)
        self.timer.setInterval(UNDO_SECONDS * 1000)
        self.button.clicked.connect(self._on_button_clicked)
        self.timer.timeout.connect(self.withdraw)

    def offer(self, memory_id: int) -> None:
        self._memory_id = memory_id
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
            self.restore_requested.emit(memory_id)
