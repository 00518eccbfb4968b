"""Deleting a conversation: its messages go, every memory learned from it stays.

:class:`~acai_desktop.core.conversations.service.ConversationService` runs
:func:`delete_conversation` and publishes what it did.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from acai_desktop.core.clock import now_iso
from acai_desktop.core.documents.model import Document
from acai_desktop.core.records.conversations import Conversation
from acai_desktop.core.records.memories import Actor, MemoryItem
from acai_desktop.core.store.connection import Database
from acai_desktop.core.store.conversation_locks import lock_conversation
from acai_desktop.core.store.conversations import fetch_conversation
from acai_desktop.core.store.documents import attachments_of, delete_document
from acai_desktop.core.store.memories import memories_by_id
from acai_desktop.core.store.memory_writes import write_memory_event

#: The history line a memory gets when the conversation it came from is deleted.
SOURCE_DELETED_ACTION = "source_conversation_deleted"


@dataclass(frozen=True)
class DeletedConversation:
    """What deleting a conversation removed, and the memories it left standing."""

    conversation: Conversation
    message_ids: list[int] = field(default_factory=list)
    #: Memories that came from the conversation, now without it (as stored after).
    kept_memories: list[MemoryItem] = field(default_factory=list)
    jobs_removed: int = 0
    #: The files attached in the chat: their documents and passages went with it (their
    #: copies and vectors are the service's to drop).
    attachments: list[Document] = field(default_factory=list)


def delete_conversation(db: Database, conversation_id: int) -> DeletedConversation:
    """Delete a conversation and its messages in one transaction, keeping every memory.

    What ACAI learned from the chat — facts and summaries alike — stays: those memories
    lose their link to the deleted messages and their ``conversation_id``, and each
    gets a history line naming the deleted conversation, so nothing a memory came from
    vanishes without a trace. The files attached in the chat are its own: they go
    with it. The links pointing at the messages go first (foreign keys are on), then
    the messages, then the conversation. A job already running keeps its row: its
    processor finds the message gone and ends without work.
    """
    at = now_iso()
    with db.atomic():
        conversation = fetch_conversation(db, conversation_id)
        lock_conversation(db, conversation_id)  # no turn is being appended as it goes
        message_ids = [
            row[0]
            for row in db.execute(
                "SELECT id FROM messages WHERE conversation_id = ? ORDER BY id", [conversation_id]
            ).fetchall()
        ]
        of_conversation = "SELECT id FROM messages WHERE conversation_id = ?"
        sources: dict[int, list[int]] = {}
        for memory_id, message_id in db.execute(
            f"SELECT memory_id, message_id FROM memory_sources "
            f"WHERE message_id IN ({of_conversation}) ORDER BY memory_id, message_id",
            [conversation_id],
        ).fetchall():
            sources.setdefault(memory_id, []).append(message_id)
        for (memory_id,) in db.execute(
            "SELECT id FROM memories WHERE conversation_id = ?", [conversation_id]
        ).fetchall():
            sources.setdefault(memory_id, [])
        for memory_id, from_messages in sorted(sources.items()):
            before = {
                "conversation_id": conversation_id,
                "conversation_title": conversation.title,
                "messages": from_messages,
            }
            write_memory_event(db, memory_id, Actor.USER, SOURCE_DELETED_ACTION, before, None, at)
        # Its answers' provenance, and other answers' mentions of its messages.
        db.execute(
            f"DELETE FROM answer_sources WHERE message_id IN ({of_conversation}) "
            f"OR recalled_message_id IN ({of_conversation})",
            [conversation_id, conversation_id],
        )
        db.execute(
            f"DELETE FROM memory_sources WHERE message_id IN ({of_conversation})",
            [conversation_id],
        )
        db.execute(
            "UPDATE memories SET conversation_id = NULL WHERE conversation_id = ?",
            [conversation_id],
        )
        jobs_removed = db.execute(
            "DELETE FROM jobs WHERE conversation_id = ? AND status != 'running'",
            [conversation_id],
        ).rowcount
        attachments = attachments_of(db, conversation_id)
        for document in attachments:
            delete_document(db, document.id)
        db.execute("DELETE FROM messages WHERE conversation_id = ?", [conversation_id])
        db.execute("DELETE FROM conversations WHERE id = ?", [conversation_id])
        kept = list(memories_by_id(db, sources).values())
    return DeletedConversation(conversation, message_ids, kept, jobs_removed, attachments)
