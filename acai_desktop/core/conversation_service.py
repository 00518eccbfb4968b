"""Renaming, pinning and deleting conversations: the writes, then the news, in one place.

The repository does the SQL (one transaction each); this service announces the change:
``ConversationChanged`` with the renamed (or pinned) :class:`Conversation`, ``ConversationRemoved``
with the deleted conversation's id. The memories a deletion left standing (they stay;
only their link to the deleted chat is gone) are published through the
:class:`MemoryService`, which brings the index in line and says ``MemoryChanged``.
"""

from __future__ import annotations

from acai_desktop.core.events import ConversationChanged, ConversationRemoved, EventBus
from acai_desktop.core.memory.service import MemoryService
from acai_desktop.core.records import Conversation
from acai_desktop.core.store.conversation_deletion import DeletedConversation, delete_conversation
from acai_desktop.core.store.conversations import ConversationRepository
from acai_desktop.core.store.memory_changes import MemoryChange


class ConversationService:
    def __init__(
        self, conversations: ConversationRepository, memories: MemoryService, events: EventBus
    ) -> None:
        self.conversations = conversations
        self.memories = memories
        self.events = events

    async def delete_temporary(self) -> int:
        """Delete every temporary chat: they last as long as the program that opened
        them (at close, and at start for those a crash left behind)."""
        temporary = [c for c in await self.conversations.list() if c.temporary]
        for conversation in temporary:
            await self.delete(conversation.id)
        return len(temporary)

    async def rename(self, conversation_id: int, title: str) -> Conversation:
        conversation = await self.conversations.rename(conversation_id, title)
        self.events.emit(ConversationChanged(conversation))
        return conversation

    async def pin(self, conversation_id: int) -> Conversation:
        """Keep the chat at the top of the list."""
        return await self._set_pinned(conversation_id, True)

    async def unpin(self, conversation_id: int) -> Conversation:
        return await self._set_pinned(conversation_id, False)

    async def _set_pinned(self, conversation_id: int, pinned: bool) -> Conversation:
        conversation = await self.conversations.set_pinned(conversation_id, pinned)
        self.events.emit(ConversationChanged(conversation))
        return conversation

    async def delete(self, conversation_id: int) -> DeletedConversation:
        deleted = await self.conversations.store.run(delete_conversation, conversation_id)
        self.memories.episodes.forget(deleted.message_ids)
        # Retrieval favours memories of the current chat; a later chat may get the
        # deleted one's id back (SQLite reuses the highest), so the index forgets it.
        await self.memories.publish(
            MemoryChange(changed=list(deleted.kept_memories), ranking_only=True)
        )
        self.events.emit(ConversationRemoved(conversation_id))
        return deleted
