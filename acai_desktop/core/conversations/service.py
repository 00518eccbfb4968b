"""Conversations as the UI and the command line use them: read, start, rename, pin,
delete, search, export, show another version of an answer or another branch, and where
an answer came from.

The repositories do the SQL (one transaction each); this service is the only way to them
from outside the core, and announces every change on the event bus:
``ConversationCreated`` with a new :class:`Conversation`, ``ConversationChanged`` with
the renamed (or pinned) one, ``ConversationRemoved`` with a deleted conversation's id.
The memories a deletion left standing (they stay; only their link to the deleted chat is
gone) are published through the :class:`MemoryService`, which brings the index in line
and says ``MemoryChanged``. (A turn's own changes, a new chat's title from its first
message and its move up the list, are announced by the orchestrator; the title job's
better title by the title processor.)
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import dataclass

from acai_desktop.core.conversations.custom_instructions import UsedInstructions
from acai_desktop.core.conversations.export import export_text, write_export
from acai_desktop.core.conversations.transcript import recall_follows, transcript_changed
from acai_desktop.core.documents.attachments import ChatAttachments
from acai_desktop.core.documents.model import EvidenceSource
from acai_desktop.core.errors import NotFoundError
from acai_desktop.core.events import (
    ConversationChanged,
    ConversationCreated,
    ConversationRemoved,
    EventBus,
)
from acai_desktop.core.memory.service import MemoryService
from acai_desktop.core.profile.paths import Profile
from acai_desktop.core.profile.store_opening import open_profile_store
from acai_desktop.core.records.conversations import (
    AnswerSource,
    Conversation,
    ConversationHit,
    Message,
    RecalledMessage,
)
from acai_desktop.core.records.memories import MemoryItem
from acai_desktop.core.store.conversation_deletion import DeletedConversation, delete_conversation
from acai_desktop.core.store.conversation_repository import ConversationRepository
from acai_desktop.core.store.memory_changes import MemoryChange
from acai_desktop.core.store.message_tree import select_version
from acai_desktop.core.store.provenance import ProvenanceRepository
from acai_desktop.core.turns.citations import Citation

SEARCH_LIMIT = 50


@dataclass(frozen=True)
class AnswerSources:
    """Where an answer came from, as its Sources dialog shows it."""

    #: Each memory or recalled message that fed it, with the item (None: gone since).
    rows: list[tuple[AnswerSource, MemoryItem | RecalledMessage | None]]
    #: The document passages it quoted, by rank.
    evidence: list[EvidenceSource]
    #: The user's message it answered ("" when that is gone).
    question: str
    #: The user's custom instructions its prompt carried (None: none).
    instructions: UsedInstructions | None = None
    #: The router's decision, when the turn was routed (turns/routed_answer.py).
    route: dict | None = None


class ConversationReader:
    """The reading half: all the ``conversations`` command needs beside the window."""

    def __init__(self, conversations: ConversationRepository) -> None:
        self._conversations = conversations

    async def get(self, conversation_id: int) -> Conversation:
        return await self._conversations.get(conversation_id)

    async def list(self) -> list[Conversation]:
        return await self._conversations.list()

    async def latest(self) -> Conversation | None:
        """The most recently active conversation that is not temporary."""
        return await self._conversations.latest()

    async def messages(
        self, conversation_id: int, *, include_folded: bool = True, include_hidden: bool = False
    ) -> list[Message]:
        """In order, as shown; without ``include_folded``, those a summary does not stand
        for; with ``include_hidden``, the other versions of answers and other branches
        too (docs/architecture.md, versions and branches)."""
        return await self._conversations.messages(
            conversation_id, include_folded=include_folded, include_hidden=include_hidden
        )

    async def messages_with_sources(
        self, conversation_id: int
    ) -> tuple[list[Message], dict[int, int]]:
        """The messages, and how many sources fed each finished answer (one query)."""
        return await self._conversations.messages_with_sources(conversation_id)

    async def get_message(self, message_id: int) -> Message:
        return await self._conversations.get_message(message_id)

    async def search(self, query: str, limit: int = SEARCH_LIMIT) -> list[ConversationHit]:
        """The search box: conversations by title, then messages by their words."""
        return await self._conversations.search(query, limit)


class ConversationService(ConversationReader):
    def __init__(
        self,
        conversations: ConversationRepository,
        provenance: ProvenanceRepository,
        memories: MemoryService,
        events: EventBus,
        attachments: ChatAttachments | None = None,
    ) -> None:
        super().__init__(conversations)
        self._provenance = provenance
        self._memories = memories
        self._events = events
        #: The chats' attached files, which go with their chat.
        self._attachments = attachments

    # -- changing --------------------------------------------------------------------

    async def create(
        self,
        title: str = "",
        temporary: bool = False,
        project_id: int | None = None,
        local_only: bool = False,
    ) -> Conversation:
        """A new conversation, in ``project_id`` (None: outside any project), local only
        from its start or not."""
        conversation = await self._conversations.create(title, temporary, project_id, local_only)
        self._events.emit(ConversationCreated(conversation))
        return conversation

    async def add_message(self, conversation_id: int, role: str, content: str, **kw) -> Message:
        """A message brought in from elsewhere (a recorded dialogue, with its author and
        time). Not a turn: the user's messages go through the orchestrator's ``send``."""
        return await self._conversations.add_message(conversation_id, role, content, **kw)

    async def rename(self, conversation_id: int, title: str) -> Conversation:
        conversation = await self._conversations.rename(conversation_id, title)
        self._events.emit(ConversationChanged(conversation))
        return conversation

    async def delete(self, conversation_id: int) -> DeletedConversation:
        deleted = await self._conversations.store.run(delete_conversation, conversation_id)
        self._memories.episodes.forget(deleted.message_ids)
        if self._attachments is not None:
            await self._attachments.forget(deleted.attachments)
        # Retrieval favours memories of the current chat; a later chat may get the
        # deleted one's id back (SQLite reuses the highest), so the index forgets it.
        await self._memories.publish(
            MemoryChange(changed=list(deleted.kept_memories), ranking_only=True)
        )
        self._events.emit(ConversationRemoved(conversation_id))
        return deleted

    async def show_version(self, message_id: int) -> None:
        """Show ``message_id`` (a version of an answer, or a branch's user message) in
        place of its siblings, with what was shown after it before; announces the
        transcript (``TranscriptChanged``)."""
        change = await self._conversations.store.run(select_version, message_id)
        await recall_follows(self._memories.episodes, change)
        self._events.emit(await transcript_changed(self._conversations, change.conversation_id))

    async def delete_temporary(self) -> int:
        """Delete every temporary chat: they last as long as the program that opened
        them (at close, and at start for those a crash left behind)."""
        temporary = [c for c in await self._conversations.list() if c.temporary]
        for conversation in temporary:
            await self.delete(conversation.id)
        return len(temporary)

    async def export(self, conversation_id: int, path: str, file_format: str) -> int:
        """Write the conversation to ``path`` (``md`` or ``json``); returns how many
        messages were written. The file is written on a worker thread."""
        conversation = await self._conversations.get(conversation_id)
        # Every version and branch (the export says which are shown).
        messages = await self._conversations.messages(conversation_id, include_hidden=True)
        text = export_text(conversation, messages, file_format)
        await asyncio.to_thread(write_export, path, text)
        return len(messages)

    # -- provenance ------------------------------------------------------------------

    async def answer_sources(self, answer_id: int) -> AnswerSources:
        rows: list[tuple[AnswerSource, MemoryItem | RecalledMessage | None]] = []
        for source in await self._provenance.sources_of_answer(answer_id):
            item: MemoryItem | RecalledMessage | None = None
            with contextlib.suppress(NotFoundError):
                if source.recalled_message_id is not None:
                    item = await self._conversations.recalled_message(source.recalled_message_id)
                else:
                    item = await self._memories.get(source.memory_id)
            rows.append((source, item))
        evidence = await self._provenance.evidence_of_answer(answer_id)
        try:
            answer = await self._conversations.get_message(answer_id)
        except NotFoundError:
            answer = None
        instructions = answer.instructions if answer is not None else None
        route = (answer.plan or {}).get("route") if answer is not None else None
        question = await self._question_of(answer_id)
        return AnswerSources(rows, evidence, question, instructions, route)

    async def _question_of(self, answer_id: int) -> str:
        try:
            answer = await self._conversations.get_message(answer_id)
            history = await self._conversations.messages(answer.conversation_id)
        except NotFoundError:
            return ""
        asked = [m for m in history if m.id < answer_id and m.role == "user"]
        return asked[-1].content if asked else ""

    async def citations(self, conversation_id: int) -> dict[int, tuple[Citation, ...]]:
        """The numbered sources an answer may cite, for each answer of the conversation
        that has any (every version and branch; see core.turns.citations)."""
        return await self._provenance.citations_in_conversation(conversation_id)

    async def answers_using_memory(self, memory_id: int) -> int:
        """How many answers a memory has fed."""
        return len(await self._provenance.answers_using_memory(memory_id))

    # -- pinning ---------------------------------------------------------------------

    async def pin(self, conversation_id: int) -> Conversation:
        """Keep the chat at the top of the list."""
        return await self._set_pinned(conversation_id, True)

    async def unpin(self, conversation_id: int) -> Conversation:
        return await self._set_pinned(conversation_id, False)

    async def set_local_only(self, conversation_id: int, local_only: bool) -> Conversation:
        """Keep the chat, with what it holds and what was learned in it, off remote
        models (core/turns/privacy.py), or let it reach them again."""
        conversation = await self._conversations.set_local_only(conversation_id, local_only)
        self._events.emit(ConversationChanged(conversation))
        return conversation

    async def _set_pinned(self, conversation_id: int, pinned: bool) -> Conversation:
        conversation = await self._conversations.set_pinned(conversation_id, pinned)
        self._events.emit(ConversationChanged(conversation))
        return conversation


@asynccontextmanager
async def open_conversation_reader(profile: Profile) -> AsyncIterator[ConversationReader]:
    """A profile's conversations to read, without its lock: SQLite's WAL (or the
    server) lets this read while a running window writes. The store is closed on exit."""
    store = await open_profile_store(profile.ensure())
    try:
        yield ConversationReader(ConversationRepository(store))
    finally:
        await store.close()
