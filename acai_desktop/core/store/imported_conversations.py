"""SQL for conversations imported from other assistants (see ``core/conversations/chat_import``).

Each imported conversation and message keeps its ``source_id`` (unique), so an export
imported again adds only what is new. A batch of conversations is written in one
transaction with the learning jobs the user's budget asked for: a conversation is
there whole, with its jobs, or not at all.

Exports repeat message ids: a chat copied or branched in ChatGPT, or one uuid in two
Claude chats, carries the other chat's ids. The first conversation to bring an id keeps
it; in any other conversation the message is stored under an id scoped to that
conversation (:func:`scoped_source_id`), so it is still there, and found again by a
later import of the same file. An id repeated inside one conversation is the same
message twice: the repeat is left out. Both are counted in the report.
"""

from __future__ import annotations

import json
from collections.abc import Collection, Sequence
from dataclasses import dataclass, field

from acai_desktop.core.clock import now_iso
from acai_desktop.core.conversations.chat_import.model import ImportedConversation, ImportedMessage
from acai_desktop.core.records.conversations import Conversation, Message
from acai_desktop.core.store.connection import Database
from acai_desktop.core.store.conversations import fetch_conversation, fetch_message

#: The job that learns facts from one imported message (the critical-info processor's
#: work, queued apart from a live chat's so the user can pause it on its own).
LEARN_IMPORTED_JOB = "learn_imported"


@dataclass
class StoredBatch:
    """What one batch wrote."""

    #: Conversations created or given new messages, as stored now.
    conversations: list[Conversation] = field(default_factory=list)
    new_conversations: int = 0
    message_ids: list[int] = field(default_factory=list)
    #: (id, content) of each new message, for its vector.
    messages: list[tuple[int, str]] = field(default_factory=list)
    jobs: int = 0
    #: Conversations / messages already there from an earlier import.
    skipped_conversations: int = 0
    skipped_messages: int = 0
    #: Messages whose id another conversation has: stored under a scoped id.
    repeated_ids_kept: int = 0
    #: Messages whose id came earlier in the same conversation: left out.
    repeated_ids_dropped: int = 0


def scoped_source_id(message_source_id: str, conversation_source_id: str) -> str:
    """The id a message is stored under when another conversation has its own id."""
    return f"{message_source_id}@{conversation_source_id}"


def message_owners(db: Database, source_ids: Sequence[str]) -> dict[str, int]:
    """source id -> the conversation whose message has it, for those stored."""
    found: dict[str, int] = {}
    for start in range(0, len(source_ids), 500):
        chunk = list(source_ids[start : start + 500])
        marks = ",".join("?" * len(chunk))
        rows = db.execute(
            f"SELECT source_id, conversation_id FROM messages WHERE source_id IN ({marks})", chunk
        )
        found.update((row[0], row[1]) for row in rows)
    return found


def _conversation_id(db: Database, conversation: ImportedConversation) -> int | None:
    row = db.execute(
        "SELECT id FROM conversations WHERE source_id = ?", [conversation.source_id]
    ).fetchone()
    return row[0] if row else None


def store_imported_batch(
    db: Database, batch: Sequence[ImportedConversation], learn_from: Collection[str]
) -> StoredBatch:
    """Write ``batch`` in one transaction: each conversation not here yet, with its
    messages, and the messages of one already here that it doesn't have (a chat
    continued since the last export). A learning job is queued for each new message
    whose source id is in ``learn_from``."""
    stored = StoredBatch()
    with db.atomic():
        known = {c.source_id for c in batch if _conversation_id(db, c) is not None}
        with db.dialect.full_text.messages_indexed_once(db) as inserted:
            for conversation in batch:
                if conversation.source_id not in known:
                    inserted += _store_conversation(db, conversation, learn_from, stored)
        for conversation in batch:
            if conversation.source_id in known:  # continued: the trigger indexes them
                _store_conversation(db, conversation, learn_from, stored)
    return stored


def _store_conversation(
    db: Database,
    conversation: ImportedConversation,
    learn_from: Collection[str],
    stored: StoredBatch,
) -> list[int]:
    """Write one conversation, or its messages not here yet; the new message ids."""
    at = now_iso()
    conversation_id = _conversation_id(db, conversation)
    if conversation_id is None:
        conversation_id = db.execute(
            "INSERT INTO conversations (title, created_at, updated_at, temporary, "
            "source_id) VALUES (?, ?, ?, FALSE, ?) RETURNING id",
            [conversation.title, conversation.created_at, conversation.updated_at,
             conversation.source_id],
        ).fetchone()[0]  # fmt: skip
        stored.new_conversations += 1
    new = _new_messages(db, conversation, conversation_id, stored)
    if not new:
        stored.skipped_conversations += 1
        return []
    ids = []
    # Each message follows the one before it (the end of the shown path for a chat
    # continued since the last export): set here, the insert trigger that would find
    # it (migration m010) does not run for every message.
    (parent_id,) = db.execute(
        "SELECT max(id) FROM messages WHERE conversation_id = ? AND NOT hidden",
        [conversation_id],
    ).fetchone()
    for message, source_id in new:
        parent_id = db.execute(
            "INSERT INTO messages (conversation_id, role, content, status, model, "
            "created_at, author, source_id, parent_id) "
            "VALUES (?, ?, ?, 'complete', ?, ?, ?, ?, ?) RETURNING id",
            [conversation_id, message.role, message.content, message.model,
             message.created_at, message.author, source_id, parent_id],
        ).fetchone()[0]  # fmt: skip
        ids.append(parent_id)
    jobs = [
        (
            LEARN_IMPORTED_JOB,
            json.dumps({"message_id": message_id}),
            conversation_id,
            at,
            at,
        )
        for message_id, (message, _source_id) in zip(ids, new, strict=True)
        if message.source_id in learn_from
    ]
    db.conn.executemany(
        "INSERT INTO jobs (kind, payload, conversation_id, status, attempts, "
        "created_at, updated_at) VALUES (?, ?, ?, 'pending', 0, ?, ?)",
        jobs,
    )
    db.execute(
        f"UPDATE conversations SET updated_at = {db.dialect.later('updated_at', '?')} WHERE id = ?",
        [conversation.updated_at, conversation_id],
    )
    stored.jobs += len(jobs)
    stored.message_ids += ids
    stored.messages += [(i, m.content) for i, (m, _) in zip(ids, new, strict=True)]
    stored.conversations.append(fetch_conversation(db, conversation_id))
    return ids


def _new_messages(
    db: Database, conversation: ImportedConversation, conversation_id: int, stored: StoredBatch
) -> list[tuple[ImportedMessage, str]]:
    """The messages of ``conversation`` not stored yet, each with the id to store it
    under (its own, or scoped when another conversation has it: see the module)."""
    own = [m.source_id for m in conversation.messages]
    scoped = [scoped_source_id(m, conversation.source_id) for m in own]
    owners = message_owners(db, own + scoped)
    new: list[tuple[ImportedMessage, str]] = []
    seen: set[str] = set()
    for message, scoped_id in zip(conversation.messages, scoped, strict=True):
        if message.source_id in seen:
            stored.repeated_ids_dropped += 1
            continue
        seen.add(message.source_id)
        candidates = (message.source_id, scoped_id)
        if any(owners.get(source_id) == conversation_id for source_id in candidates):
            stored.skipped_messages += 1  # here from an earlier import
        elif message.source_id not in owners:
            new.append((message, message.source_id))
        elif scoped_id not in owners:
            stored.repeated_ids_kept += 1
            new.append((message, scoped_id))
        else:  # both taken by other conversations: only a made-up file gets here
            stored.repeated_ids_dropped += 1
    return new


def conversation_from(db: Database, source_id: str, title: str) -> Conversation:
    """The conversation that collects what an outside client brought in (its source id
    names the client), created the first time."""
    with db.atomic():
        row = db.execute("SELECT id FROM conversations WHERE source_id = ?", [source_id]).fetchone()
        if row is None:
            at = now_iso()
            row = (
                db.execute(
                    "INSERT INTO conversations (title, created_at, updated_at, temporary, "
                    "source_id) VALUES (?, ?, ?, FALSE, ?) RETURNING id",
                    [title, at, at, source_id],
                ).fetchone()[0],
            )
    return fetch_conversation(db, row[0])


def user_message_with(db: Database, conversation_id: int, content: str) -> Message | None:
    """The user's message of these very words in the conversation, if there is one: an
    outside client that hands in the same words again (a memory list imported twice)
    brings no second copy of them."""
    row = db.execute(
        "SELECT id FROM messages WHERE conversation_id = ? AND role = 'user' AND content = ? "
        "ORDER BY id LIMIT 1",
        [conversation_id, content],
    ).fetchone()
    return fetch_message(db, row[0]) if row is not None else None
