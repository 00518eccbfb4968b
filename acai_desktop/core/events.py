"""A small, Qt-free observer with typed events, so views update live.

Each kind of news is a frozen dataclass; a service ``emit``s an instance and a listener
``subscribe``s to the class::

    bus.subscribe(MemoryAdded, lambda event: print(event.memory.content))
    bus.emit(MemoryAdded(memory=item))

A misspelt event class is a NameError at import, and a wrong field a TypeError at the
emitter, not silence. Handlers run synchronously on the emitting thread, which is always
the asyncio loop's thread: services emit after their database call returns.
"""

from __future__ import annotations

import logging
from collections import defaultdict
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TypeVar

from acai_desktop.core.conversations.custom_instructions import UsedInstructions
from acai_desktop.core.documents.model import Document, EvidenceSource
from acai_desktop.core.records.conversations import (
    AnswerSource,
    Conversation,
    Message,
    MessageStatus,
)
from acai_desktop.core.records.jobs import Job
from acai_desktop.core.records.memories import MemoryItem, Suggestion
from acai_desktop.core.turns.citations import Citation

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class MemoryAdded:
    """A new memory row exists (remembered, a successor, a conflict, an import)."""

    memory: MemoryItem
    #: News to tell the user (False: learned in bulk, from imported chats, whose
    #: progress is told instead; see core.memory.quiet_learning).
    told: bool = True


@dataclass(frozen=True)
class MemoriesChangedInBulk:
    """Another process wrote many memories at once (an import beside the window): views
    read their list again, once, instead of taking thousands of rows one by one."""

    count: int


@dataclass(frozen=True)
class MemoryChanged:
    """An existing memory changed, its status included (restore, pin, reinforce, use).
    A view decides by ``memory.status`` whether the memory still belongs in it."""

    memory: MemoryItem


@dataclass(frozen=True)
class MemoryRemoved:
    """The memory left the user's memory (forgotten; it can be restored)."""

    memory: MemoryItem


@dataclass(frozen=True)
class ForgottenOnRequest:
    """The user asked in a message to forget something ("Forget that I have a dog"):
    these memories were forgotten for them (each also a :class:`MemoryRemoved`). None
    forgotten: no memory held what was asked (``matching`` 0), or too many did to act
    on (``matching`` of them); the window says so and offers the panel's search."""

    memories: tuple[MemoryItem, ...]
    #: What the user asked to forget, as said ("I have a dog").
    asked: str = ""
    #: How many current memories held every word of it.
    matching: int = 0


@dataclass(frozen=True)
class MessageAdded:
    message: Message


@dataclass(frozen=True)
class MessageDelta:
    """One answer row while it streams (one new chunk) or as it ends (``delta`` empty,
    ``status`` final, ``error`` the reason when the answer failed)."""

    message_id: int
    conversation_id: int
    delta: str
    content: str
    status: MessageStatus
    error: str | None = None


@dataclass(frozen=True)
class MessageUpdated:
    delta: MessageDelta


@dataclass(frozen=True)
class AnswerFinished:
    """An answer is no longer streaming: ``message`` as stored, with its final status
    (complete, stopped or error) and, when it failed, ``message.error``; ``sources``
    are what fed it (memories and recalled messages), as recorded for provenance."""

    message: Message
    sources: tuple[AnswerSource, ...] = ()
    #: The document passages that fed it ("Sources: file.pdf, p. 12").
    evidence: tuple[EvidenceSource, ...] = ()
    #: The user's custom instructions its prompt carried (None: none).
    instructions: UsedInstructions | None = None
    #: Its numbered sources, which its ``[n]`` markers may cite (core.turns.citations).
    citations: tuple[Citation, ...] = ()

    @property
    def error(self) -> str | None:
        return self.message.error


@dataclass(frozen=True)
class TurnStarted:
    """The user waits for an answer from now on (a send or a retry); the matching
    :class:`TurnEnded` always follows, however the turn ends."""

    answer_id: int


@dataclass(frozen=True)
class TurnEnded:
    answer_id: int


@dataclass(frozen=True)
class ConversationCreated:
    """A conversation was started (by a turn sent without one, or by the service)."""

    conversation: Conversation


@dataclass(frozen=True)
class ConversationChanged:
    """A conversation's row changed: renamed (by the user or the title job), pinned or
    unpinned, titled by its first message, or moved up the list by a new message (its
    ``updated_at``). Listeners need not re-read it."""

    conversation: Conversation


@dataclass(frozen=True)
class TranscriptChanged:
    """Another version of an answer or another branch is shown in a conversation:
    its shown messages now, and how many sources fed each answer among them (by id)."""

    conversation_id: int
    messages: tuple[Message, ...]
    sources_count: dict[int, int] = field(default_factory=dict)


@dataclass(frozen=True)
class InstructionsChanged:
    """The user changed custom instructions: the profile's (``conversation_id`` None)
    or one chat's override."""

    conversation_id: int | None


@dataclass(frozen=True)
class ProjectsChanged:
    """A project was created, renamed, changed or deleted: every project, by name."""

    projects: tuple


@dataclass(frozen=True)
class ConversationRemoved:
    conversation_id: int


@dataclass(frozen=True)
class JobStatusChanged:
    job: Job


@dataclass(frozen=True)
class SuggestionsChanged:
    """A memory suggestion was proposed, accepted or dismissed ("Ask before remembering")."""

    suggestion: Suggestion


@dataclass(frozen=True)
class EmbeddingProgress:
    """Re-embedding memories: ``done`` of ``total`` so far."""

    done: int
    total: int


@dataclass(frozen=True)
class DocumentAdded:
    """A document row exists (queued for indexing)."""

    document: Document


@dataclass(frozen=True)
class DocumentChanged:
    """A document's state changed (queued, indexing, ready with its chunk count, error)."""

    document: Document


@dataclass(frozen=True)
class DocumentRemoved:
    document_id: int


@dataclass(frozen=True)
class IndexingProgress:
    """Indexing one document: ``stage`` is "reading", "embedding" or "storing";
    ``done`` of ``total`` units of that stage (pages read, chunks embedded)."""

    document_id: int
    stage: str
    done: int
    total: int


@dataclass(frozen=True)
class FolderProgress:
    """Adding a folder: ``done`` of ``total`` files queued (or refused) so far;
    ``finished`` once the walk ended (``stopped`` when the user stopped it)."""

    folder: str
    done: int
    total: int
    finished: bool = False
    stopped: bool = False


@dataclass(frozen=True)
class StoreLost:
    """The PostgreSQL server holding the memory went away (noticed by the listener of
    other computers' writes, while nothing else was asked of it): the window reconnects."""

    reason: str


Event = (
    MemoryAdded
    | MemoryChanged
    | MemoriesChangedInBulk
    | MemoryRemoved
    | ForgottenOnRequest
    | MessageAdded
    | MessageUpdated
    | AnswerFinished
    | TurnStarted
    | TurnEnded
    | ConversationCreated
    | ConversationChanged
    | TranscriptChanged
    | ConversationRemoved
    | InstructionsChanged
    | ProjectsChanged
    | JobStatusChanged
    | SuggestionsChanged
    | EmbeddingProgress
    | DocumentAdded
    | DocumentChanged
    | DocumentRemoved
    | IndexingProgress
    | FolderProgress
    | StoreLost
)
EVENT_TYPES: tuple[type, ...] = Event.__args__  # type: ignore[attr-defined]

E = TypeVar("E")


@dataclass
class EventBus:
    _handlers: dict[type, list[Callable]] = field(default_factory=lambda: defaultdict(list))

    def subscribe(self, event_type: type[E], handler: Callable[[E], None]) -> Callable[[], None]:
        """Call ``handler(event)`` on every event of ``event_type``; returns an
        unsubscribe function."""
        if event_type not in EVENT_TYPES:
            raise TypeError(f"{event_type!r} is not an event class of acai_desktop.core.events")
        self._handlers[event_type].append(handler)

        def unsubscribe() -> None:
            if handler in self._handlers[event_type]:
                self._handlers[event_type].remove(handler)

        return unsubscribe

    def emit(self, event: Event) -> None:
        if type(event) not in EVENT_TYPES:
            raise TypeError(f"{event!r} is not an event of acai_desktop.core.events")
        # One broken view must not stop the others from hearing the news, nor undo
        # the write that caused it; the error is logged with its traceback.
        for handler in list(self._handlers.get(type(event), ())):
            try:
                handler(event)
            except Exception:
                log.exception("handler %r for %s failed", handler, type(event).__name__)
