"""Reading what another process wrote (the MCP server beside the window, a command-line
import): SQLite's ``data_version`` changes only when another connection commits, so one
cheap pragma says whether anything needs reading, and id cursors say what."""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from acai_desktop.core.records.conversations import Conversation
from acai_desktop.core.records.memories import MemoryItem, Suggestion
from acai_desktop.core.store.connection import Database
from acai_desktop.core.store.conversations import CONVERSATION_COLUMNS
from acai_desktop.core.store.memories import ids_and_vectors, memories_by_id
from acai_desktop.core.store.suggestions import fetch_suggestion


@dataclass
class Cursors:
    """How far this process has read: the data version and the last id of each table."""

    data_version: int | None = -1
    memory_event: int = 0
    memory: int = 0
    suggestion: int = 0
    conversation: int = 0
    message: int = 0


@dataclass
class OutsideWrites:
    added: list[MemoryItem] = field(default_factory=list)
    changed: list[MemoryItem] = field(default_factory=list)
    suggestions: list[Suggestion] = field(default_factory=list)
    conversations: list[Conversation] = field(default_factory=list)
    #: (ids, vectors) of new recallable messages that have a vector from ``model``.
    message_vectors: tuple[np.ndarray, np.ndarray] | None = None


def _max(db: Database, table: str) -> int:
    return db.execute(f"SELECT coalesce(max(id), 0) FROM {table}").fetchone()[0]


def current_cursors(db: Database) -> Cursors:
    return Cursors(
        data_version=db.dialect.data_version(db),
        memory_event=_max(db, "memory_events"),
        memory=_max(db, "memories"),
        suggestion=_max(db, "memory_suggestions"),
        conversation=_max(db, "conversations"),
        message=_max(db, "messages"),
    )


def read_outside_writes(
    db: Database, cursors: Cursors, model: str, dimensions: int
) -> tuple[Cursors, OutsideWrites | None]:
    """What was written since ``cursors`` (None when no other connection committed).
    Our own writes since then come back too: publishing them again changes nothing."""
    now = current_cursors(db)
    # Without a data version (PostgreSQL: its listener says when to read), every
    # cursor is compared.
    unchanged = (
        now == cursors if now.data_version is None else now.data_version == cursors.data_version
    )
    if unchanged:
        return cursors, None
    writes = OutsideWrites()
    touched = [
        row[0]
        for row in db.execute(
            "SELECT DISTINCT memory_id FROM memory_events WHERE id > ? AND id <= ?",
            [cursors.memory_event, now.memory_event],
        )
    ]
    for item in memories_by_id(db, touched).values():
        (writes.added if item.id > cursors.memory else writes.changed).append(item)
    writes.suggestions = [
        fetch_suggestion(db, row[0])
        for row in db.execute(
            "SELECT id FROM memory_suggestions WHERE id > ? AND id <= ?",
            [cursors.suggestion, now.suggestion],
        )
    ]
    rows = db.execute(
        f"SELECT {CONVERSATION_COLUMNS} FROM conversations WHERE id > ? AND id <= ? "
        "AND NOT temporary ORDER BY id",
        [cursors.conversation, now.conversation],
    )
    names = [d[0] for d in rows.description]
    writes.conversations = [
        Conversation.from_row(dict(zip(names, row, strict=True))) for row in rows.fetchall()
    ]
    vectors = db.execute(
        "SELECT r.id, e.embedding FROM recallable_messages AS r "
        "JOIN message_embeddings AS e ON e.message_id = r.id "
        "WHERE r.id > ? AND r.id <= ? AND e.embedding_model = ? AND length(e.embedding) = ?",
        [cursors.message, now.message, model, dimensions * 4],
    ).fetchall()
    writes.message_vectors = ids_and_vectors(vectors, dimensions)
    return now, writes
