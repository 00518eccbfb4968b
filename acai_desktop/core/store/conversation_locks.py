"""One conversation's messages are written one transaction at a time, on every computer
(docs/architecture.md, "Answers across computers"; issue 39 G1).

A new message's parent is the end of the shown path when it is inserted (a trigger,
migration m010), and each insert re-indexes the recall window around it. On SQLite
every write transaction takes the database's write lock first (``BEGIN IMMEDIATE``), so
"read the end, then insert after it" is never interleaved. On PostgreSQL two computers'
transactions run side by side: both read the same end (one question became a second
root), and both re-indexed one window (a duplicate key). So every transaction that adds,
changes or re-threads a conversation's messages first takes a transaction-scoped advisory
lock keyed on the conversation; the next one waits its turn, then sees what the first
committed. Taken first in the transaction, before any row lock, it can't deadlock with
another such transaction.
"""

from __future__ import annotations

#: The advisory lock namespace of a conversation's message writes ("CONV").
WRITING_CONVERSATION = 0x434F4E56


def lock_conversation(db, conversation_id: int) -> None:
    """Wait until no other transaction writes ``conversation_id``'s messages, and keep
    it so until the caller's transaction ends (a no-op on SQLite: see the module)."""
    db.dialect.lock_for_transaction(db, WRITING_CONVERSATION, conversation_id)
