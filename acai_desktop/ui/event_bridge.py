"""The UI's one subscriber to the core :class:`EventBus`: every core event comes back
out as a Qt signal, so Qt models and widgets connect to news the Qt way.

Core services emit on the asyncio loop's thread, which under qasync is Qt's own
thread, so re-emitting directly is safe (no queued connection needed). Each signal
carries the event's payload (the record it is about), so a slot takes a ``Message`` or a
``MemoryItem`` as it always did; ``answer_finished``, which carries more than one thing,
passes the :class:`~acai_desktop.core.events.AnswerFinished` event itself.
"""

from __future__ import annotations

from collections.abc import Callable

from PySide6.QtCore import QObject, Signal

from acai_desktop.core import events as ev
from acai_desktop.core.events import EventBus


class EventBridge(QObject):
    message_added = Signal(object)  # Message
    message_updated = Signal(object)  # events.MessageDelta (with ``error`` once it failed)
    # events.AnswerFinished itself: .message (final status, .error when it failed), .sources
    answer_finished = Signal(object)
    memory_added = Signal(object)  # MemoryItem
    memory_learned = Signal(object)  # MemoryItem: an added memory to tell the user of
    memories_changed_in_bulk = Signal(int)  # how many: read the list again, once
    memory_changed = Signal(object)  # MemoryItem
    memory_removed = Signal(object)  # MemoryItem
    forgotten_on_request = Signal(object)  # ForgottenOnRequest: what a message asked to forget
    conversation_created = Signal(object)  # Conversation (started)
    conversation_changed = Signal(object)  # Conversation (renamed, titled, moved up)
    conversation_removed = Signal(int)  # conversation id (deleted)
    instructions_changed = Signal(object)  # conversation id, or None: the profile's
    projects_changed = Signal(object)  # every Project, by name (one was added, renamed...)
    # events.TranscriptChanged itself: another version or branch is shown
    transcript_changed = Signal(object)
    job_status_changed = Signal(object)  # Job
    suggestions_changed = Signal(object)  # Suggestion (proposed, accepted or dismissed)
    embedding_progress_changed = Signal(object)  # {"done": n, "total": m}
    document_added = Signal(object)  # Document
    document_changed = Signal(object)  # Document (queued, indexing, ready, error)
    document_removed = Signal(int)  # document id
    indexing_progress_changed = Signal(int, str, int, int)  # document id, stage, done, total
    folder_progress_changed = Signal(object)  # events.FolderProgress
    store_lost = Signal(str)  # why: the memory's server went away

    def __init__(self, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self._unsubscribers: list[Callable[[], None]] = []

    def attach(self, bus: EventBus) -> None:
        """Start relaying ``bus``; a bridge relays one bus at a time."""
        self.detach()
        relays: list[tuple[type, Callable]] = [
            (ev.MessageAdded, lambda e: self.message_added.emit(e.message)),
            (ev.MessageUpdated, lambda e: self.message_updated.emit(e.delta)),
            (ev.AnswerFinished, self.answer_finished.emit),
            (ev.MemoryAdded, lambda e: self.memory_added.emit(e.memory)),
            (ev.MemoryAdded, self._relay_learned),
            (ev.MemoryChanged, lambda e: self.memory_changed.emit(e.memory)),
            (ev.MemoriesChangedInBulk, lambda e: self.memories_changed_in_bulk.emit(e.count)),
            (ev.MemoryRemoved, lambda e: self.memory_removed.emit(e.memory)),
            (ev.ForgottenOnRequest, self.forgotten_on_request.emit),
            (ev.ConversationCreated, lambda e: self.conversation_created.emit(e.conversation)),
            (ev.ConversationChanged, lambda e: self.conversation_changed.emit(e.conversation)),
            (ev.ConversationRemoved, lambda e: self.conversation_removed.emit(e.conversation_id)),
            (ev.InstructionsChanged, lambda e: self.instructions_changed.emit(e.conversation_id)),
            (ev.ProjectsChanged, lambda e: self.projects_changed.emit(list(e.projects))),
            (ev.TranscriptChanged, self.transcript_changed.emit),
            (ev.JobStatusChanged, lambda e: self.job_status_changed.emit(e.job)),
            (ev.SuggestionsChanged, lambda e: self.suggestions_changed.emit(e.suggestion)),
            (
                ev.EmbeddingProgress,
                lambda e: self.embedding_progress_changed.emit({"done": e.done, "total": e.total}),
            ),
            (ev.DocumentAdded, lambda e: self.document_added.emit(e.document)),
            (ev.DocumentChanged, lambda e: self.document_changed.emit(e.document)),
            (ev.DocumentRemoved, lambda e: self.document_removed.emit(e.document_id)),
            (
                ev.IndexingProgress,
                lambda e: self.indexing_progress_changed.emit(
                    e.document_id, e.stage, e.done, e.total
                ),
            ),
            (ev.FolderProgress, self.folder_progress_changed.emit),
            (ev.StoreLost, lambda e: self.store_lost.emit(e.reason)),
        ]
        for event_type, relay in relays:
            self._unsubscribers.append(bus.subscribe(event_type, relay))

    def _relay_learned(self, event: ev.MemoryAdded) -> None:
        if event.told:
            self.memory_learned.emit(event.memory)

    def detach(self) -> None:
        while self._unsubscribers:
            self._unsubscribers.pop()()
