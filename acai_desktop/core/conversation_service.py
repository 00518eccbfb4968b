"""Renaming and deleting conversations: the writes, then the news, in one place.

The repository does the SQL (one transaction each); this service brings the memory
index in line with memories that lost their conversation and announces the change:
``CONVERSATION_CHANGED`` with the renamed :class:`Conversation`, ``CONVERSATION_REMOVED``
with the deleted conversation's id, and ``MEMORY_CHANGED`` for every memory it left
standing (they stay; only their link to the deleted chat is gone).
"""

from __future__ import annotations

from acai_desktop.core import events as ev
from acai_desktop.core.events import EventBus
from acai_desktop.core.memory.service import MemoryService
from acai_desktop.core.memory.vector_index import RankingFacts
from acai_desktop.core.records import Conversation
from acai_desktop.core.store.conversations import ConversationRepository, DeletedConversation


class ConversationService:
    def __init__(
        self, conversations: ConversationRepository, memories: MemoryService, events: EventBus
    ) -> None:
        self.conversations = conversations
        self.memories = memories
        self.events = events

    async def rename(self, conversation_id: int, title: str) -> Conversation:
        conversation = await self.conversations.rename(conversation_id, title)
        self.events.emit(ev.CONVERSATION_CHANGED, conversation)
        return conversation

    async def delete(self, conversation_id: int) -> DeletedConversation:
        deleted = await self.conversations.delete(conversation_id)
        self.memories.episodes.forget(deleted.message_ids)
        for item in deleted.kept_memories:
            # Retrieval favours memories of the current chat; a later chat may get the
            # deleted one's id back (SQLite reuses the highest), so the index forgets it.
            self.memories.index.set_facts(item.id, RankingFacts.of(item))
            self.events.emit(ev.MEMORY_CHANGED, item)
        self.events.emit(ev.CONVERSATION_REMOVED, conversation_id)
        return deleted
