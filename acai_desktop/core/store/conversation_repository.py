"""The conversations and their messages for the event loop: each call runs its store
function (``conversations.py``, ``interrupted_answers.py``, ``conversation_search.py``)
on the database thread."""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Iterable, Mapping

from acai_desktop.core.records.conversations import (
    Conversation,
    ConversationHit,
    Message,
    RecalledMessage,
)
from acai_desktop.core.store.conversation_search import search_conversations
from acai_desktop.core.store.conversations import (
    NewTurn,
    add_message,
    add_turn,
    create_conversation,
    fetch_conversation,
    fetch_message,
    fetch_recalled_message,
    fold_block,
    latest_conversation,
    list_conversations,
    list_messages,
    list_messages_with_sources,
    rename_conversation,
    set_automatic_title,
    set_pinned,
    summary_covering,
    update_message,
)
from acai_desktop.core.store.database import Store
from acai_desktop.core.store.interrupted_answers import recover_interrupted_answers
from acai_desktop.core.store.jobs import JobSpec
from acai_desktop.core.store.local_only import (
    LocalOnly,
    chat_privacy,
    is_private_chat,
    set_chat_local_only,
)


class ConversationRepository:
    """Async facade for the event loop."""

    def __init__(self, store: Store) -> None:
        self.store = store

    async def create(
        self,
        title: str = "",
        temporary: bool = False,
        project_id: int | None = None,
        local_only: bool = False,
    ) -> Conversation:
        return await self.store.run(create_conversation, title, temporary, project_id, local_only)

    async def get(self, conversation_id: int) -> Conversation:
        return await self.store.run(fetch_conversation, conversation_id)

    async def latest(self) -> Conversation | None:
        return await self.store.run(latest_conversation)

    async def list(self) -> list[Conversation]:
        return await self.store.run(list_conversations)

    async def add_message(self, conversation_id: int, role: str, content: str, **kw) -> Message:
        return await self.store.run(add_message, conversation_id, role, content, **kw)

    async def add_turn(
        self,
        conversation_id: int,
        text: str,
        jobs_for: Callable[[int], Iterable[JobSpec]] | None = None,
    ) -> NewTurn:
        # A database busy for a while (an import in another process) is waited out by
        # every write transaction (see database.begin_patiently).
        return await self.store.run(add_turn, conversation_id, text, jobs_for)

    async def update_message(self, message_id: int, **changes) -> Message:
        return await self.store.run(update_message, message_id, **changes)

    def queue_update(self, message_id: int, **changes) -> asyncio.Future[Message]:
        """Like :meth:`update_message`, queued on the database thread at once (after every
        call queued before it): the caller goes on, and awaits the future if it wants."""
        return self.store.submit(update_message, message_id, **changes)

    async def get_message(self, message_id: int) -> Message:
        return await self.store.run(fetch_message, message_id)

    async def recalled_message(self, message_id: int) -> RecalledMessage:
        return await self.store.run(fetch_recalled_message, message_id)

    async def messages(
        self, conversation_id: int, *, include_folded: bool = True, include_hidden: bool = False
    ) -> list[Message]:
        return await self.store.run(
            list_messages,
            conversation_id,
            include_folded=include_folded,
            include_hidden=include_hidden,
        )

    async def messages_with_sources(
        self, conversation_id: int
    ) -> tuple[list[Message], dict[int, int]]:
        return await self.store.run(list_messages_with_sources, conversation_id)

    async def fold(self, message_ids: list[int], summary_memory_id: int) -> None:
        await self.store.run(fold_block, list(message_ids), summary_memory_id)

    async def summary_covering(self, message_ids: list[int]) -> int | None:
        return await self.store.run(summary_covering, list(message_ids))

    async def recover_interrupted_answers(self, lost: Mapping[int, str] | None = None) -> int:
        return await self.store.run(recover_interrupted_answers, lost)

    async def rename(self, conversation_id: int, title: str) -> Conversation:
        return await self.store.run(rename_conversation, conversation_id, title)

    async def set_pinned(self, conversation_id: int, pinned: bool) -> Conversation:
        return await self.store.run(set_pinned, conversation_id, pinned)

    async def set_local_only(self, conversation_id: int, local_only: bool) -> Conversation:
        return await self.store.run(set_chat_local_only, conversation_id, local_only)

    async def is_private(self, conversation_id: int) -> bool:
        """The chat is local only, itself or by its project."""
        return await self.store.run(is_private_chat, conversation_id)

    async def privacy_of(self, conversation_id: int) -> tuple[bool, LocalOnly]:
        """Whether the chat is local only, and everything that is (core/turns/privacy.py)."""
        return await self.store.run(chat_privacy, conversation_id)

    async def set_automatic_title(self, conversation_id: int, title: str) -> Conversation | None:
        return await self.store.run(set_automatic_title, conversation_id, title)

    async def search(self, query: str, limit: int = 50) -> list[ConversationHit]:
        """The search box: conversations by title, then messages by their words."""
        return await self.store.run(search_conversations, query, limit)
