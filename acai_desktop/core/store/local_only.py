"""What the user keeps off remote models (issue 42, item 4), as rows.

A project, chat, memory or document is marked ``local_only`` by the user (m021). What
counts as local only follows from the marks, read when a prompt is made, so marking a
chat later covers what was learned from it before, and unmarking it frees it again:

* a memory: marked itself, or learned in a marked chat (its ``conversation_id``), or
  kept to a marked project, or learned in a chat of a marked project;
* a message: its chat or the chat's project is marked;
* a document: marked itself, or attached in a marked chat, or in a marked project.

Nothing here decides who may read what: core/turns/privacy.py keeps these out of a
remote model's prompt, and the MCP server out of other tools' reach.
"""

from __future__ import annotations

from dataclasses import dataclass

from acai_desktop.core.store.connection import Database
from acai_desktop.core.store.conversations import fetch_conversation
from acai_desktop.core.store.documents import fetch_document
from acai_desktop.core.store.projects import fetch_project

_ANY_MARKED = " UNION ALL ".join(
    f"SELECT 1 FROM (SELECT 1 FROM {table} WHERE local_only LIMIT 1) AS {table}_marked"
    for table in ("projects", "conversations", "memories", "documents")
)

_MEMORIES = """
    SELECT m.id FROM memories AS m
    LEFT JOIN conversations AS c ON c.id = m.conversation_id
    LEFT JOIN projects AS cp ON cp.id = c.project_id
    LEFT JOIN projects AS p ON p.id = m.project_id
    WHERE m.local_only OR COALESCE(c.local_only, FALSE) OR COALESCE(cp.local_only, FALSE)
       OR COALESCE(p.local_only, FALSE)"""

_MESSAGES = """
    SELECT m.id FROM messages AS m
    JOIN conversations AS c ON c.id = m.conversation_id
    LEFT JOIN projects AS p ON p.id = c.project_id
    WHERE c.local_only OR COALESCE(p.local_only, FALSE)"""

_DOCUMENTS = """
    SELECT d.id FROM documents AS d
    LEFT JOIN conversations AS c ON c.id = d.conversation_id
    LEFT JOIN projects AS p ON p.id = d.project_id
    WHERE d.local_only OR COALESCE(c.local_only, FALSE) OR COALESCE(p.local_only, FALSE)"""


@dataclass(frozen=True)
class LocalOnly:
    """The ids of what is local only, by kind (all empty when nothing is marked)."""

    memory_ids: frozenset[int] = frozenset()
    message_ids: frozenset[int] = frozenset()
    document_ids: frozenset[int] = frozenset()

    def __bool__(self) -> bool:
        return bool(self.memory_ids or self.message_ids or self.document_ids)


NOTHING = LocalOnly()


def local_only_items(db: Database) -> LocalOnly:
    """Everything local only now (one cheap look first: most profiles mark nothing)."""
    if not db.execute(_ANY_MARKED).fetchone():
        return NOTHING
    return LocalOnly(
        frozenset(row[0] for row in db.execute(_MEMORIES)),
        frozenset(row[0] for row in db.execute(_MESSAGES)),
        frozenset(row[0] for row in db.execute(_DOCUMENTS)),
    )


def is_private_chat(db: Database, conversation_id: int) -> bool:
    """The chat is local only, itself or by its project: its every message is."""
    row = db.execute(
        "SELECT c.local_only OR COALESCE(p.local_only, FALSE) FROM conversations AS c "
        "LEFT JOIN projects AS p ON p.id = c.project_id WHERE c.id = ?",
        [conversation_id],
    ).fetchone()
    return bool(row and row[0])


def chat_privacy(db: Database, conversation_id: int) -> tuple[bool, LocalOnly]:
    """Whether the chat is local only, and everything local only (one read)."""
    with db.atomic():
        return is_private_chat(db, conversation_id), local_only_items(db)


def set_chat_local_only(db: Database, conversation_id: int, local_only: bool):
    # Like pinning, not activity: updated_at stays.
    with db.atomic():
        fetch_conversation(db, conversation_id)
        db.execute(
            "UPDATE conversations SET local_only = ? WHERE id = ?",
            [bool(local_only), conversation_id],
        )
    return fetch_conversation(db, conversation_id)


def set_project_local_only(db: Database, project_id: int, local_only: bool):
    with db.atomic():
        fetch_project(db, project_id)
        db.execute(
            "UPDATE projects SET local_only = ? WHERE id = ?", [bool(local_only), project_id]
        )
    return fetch_project(db, project_id)


def set_document_local_only(db: Database, document_id: int, local_only: bool) -> None:
    with db.atomic():
        fetch_document(db, document_id)
        db.execute(
            "UPDATE documents SET local_only = ? WHERE id = ?", [bool(local_only), document_id]
        )
