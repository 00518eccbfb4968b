"""The UI's one subscriber to the core :class:`EventBus`: every core event comes back
out as a Qt signal, so Qt models and widgets connect to news the Qt way.

Core services emit on the asyncio loop's thread, which under qasync is Qt's own
thread, so re-emitting directly is safe (no queued connection needed).
"""

from __future__ import annotations

from collections.abc import Callable

from PySide6.QtCore import QObject, Signal

from acai_desktop.core import events as ev
from acai_desktop.core.events import EventBus


class EventBridge(QObject):
    message_added = Signal(object)  # Message
    message_updated = Signal(object)  # orchestrator.MessageDelta
    memory_added = Signal(object)  # MemoryItem
    memory_changed = Signal(object)  # MemoryItem
    memory_removed = Signal(object)  # MemoryItem
    conversation_changed = Signal(object)  # Conversation (renamed)
    conversation_removed = Signal(int)  # conversation id (deleted)
    job_status_changed = Signal(object)  # Job
    embedding_progress_changed = Signal(object)  # {"done": n, "total": m}

    def __init__(self, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self._unsubscribers: list[Callable[[], None]] = []

    def attach(self, bus: EventBus) -> None:
        """Start relaying ``bus``; a bridge relays one bus at a time."""
        self.detach()
        relays = {
            ev.MESSAGE_ADDED: self.message_added,
            ev.MESSAGE_UPDATED: self.message_updated,
            ev.MEMORY_ADDED: self.memory_added,
            ev.MEMORY_CHANGED: self.memory_changed,
            ev.MEMORY_REMOVED: self.memory_removed,
            ev.CONVERSATION_CHANGED: self.conversation_changed,
            ev.CONVERSATION_REMOVED: self.conversation_removed,
            ev.JOB_STATUS_CHANGED: self.job_status_changed,
            ev.EMBEDDING_PROGRESS: self.embedding_progress_changed,
        }
        for name, signal in relays.items():
            self._unsubscribers.append(bus.subscribe(name, signal.emit))

    def detach(self) -> None:
        while self._unsubscribers:
            self._unsubscribers.pop()()
