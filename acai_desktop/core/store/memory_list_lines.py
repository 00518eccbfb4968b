"""SQL for a memory list imported again (core/memory/list_import.py): what became of each
line an earlier import of the same assistant's list took in.

An import keeps each line it takes as a user message of the assistant's conversation
("ChatGPT (memory import)", found by its ``source_id``): the source of the memory made
of it, or the message its suggestion belongs to. A line whose message is there already
was imported before, whatever the user did with it since (edited, forgot, dismissed).
"""

from __future__ import annotations

from dataclasses import dataclass

from acai_desktop.core.store.connection import Database


@dataclass(frozen=True)
class TakenLine:
    """An earlier import's line: the memory made of it (and that memory's status now)
    or the suggestion it waits in (and its status)."""

    message_id: int
    memory_id: int | None = None
    memory_status: str | None = None
    suggestion_id: int | None = None
    suggestion_status: str | None = None


def lines_taken_before(db: Database, source_id: str) -> dict[str, TakenLine]:
    """The lines (message texts) of the conversation ``source_id`` that became a memory
    or a suggestion, by text; the newest memory of a line when it has several."""
    rows = db.execute(
        """
        SELECT m.id, m.content, mem.id, mem.status, s.id, s.status
        FROM conversations AS c
        JOIN messages AS m ON m.conversation_id = c.id AND m.role = 'user'
        LEFT JOIN memory_sources AS ms ON ms.message_id = m.id
        LEFT JOIN memories AS mem ON mem.id = ms.memory_id
        LEFT JOIN memory_suggestions AS s ON s.message_id = m.id
        WHERE c.source_id = ? AND (mem.id IS NOT NULL OR s.id IS NOT NULL)
        ORDER BY m.id, mem.id, s.id
        """,
        [source_id],
    ).fetchall()
    taken: dict[str, TakenLine] = {}
    for message_id, content, memory_id, memory_status, suggestion_id, suggestion_status in rows:
        taken[content] = TakenLine(
            message_id, memory_id, memory_status, suggestion_id, suggestion_status
        )
    return taken
