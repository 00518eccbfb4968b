"""Projects on disk (m013): the ``projects`` rows, which project a chat, a memory or a
document belongs to, and what a project's chat must not see. Runs on the database
thread (see :class:`Store`)."""

from __future__ import annotations

from dataclasses import dataclass

from acai_desktop.core.clock import now_iso
from acai_desktop.core.conversations.custom_instructions import CustomInstructions
from acai_desktop.core.errors import NotFoundError
from acai_desktop.core.projects.names import clean_project_name
from acai_desktop.core.records.conversations import Conversation
from acai_desktop.core.records.memories import Actor, MemoryItem, MemoryStatus
from acai_desktop.core.records.projects import PROMOTED_FROM, Project
from acai_desktop.core.store import documents
from acai_desktop.core.store.connection import Database
from acai_desktop.core.store.conversations import fetch_conversation
from acai_desktop.core.store.memories import fetch_memory
from acai_desktop.core.store.memory_writes import update_memory

PROJECT_COLUMNS = "id, name, created_at, updated_at, default_model, local_only"
#: The history's action when the user moves a memory between a project and everywhere.
PROMOTED = "promoted to everywhere"
DEMOTED = "kept to its project"
MOVED_WITH_CHAT = "moved with its chat"
PROJECT_DELETED = "forgotten with its project"
PROJECT_UNGROUPED = "left its deleted project"


def fetch_project(db: Database, project_id: int) -> Project:
    row = db.execute(
        f"SELECT {PROJECT_COLUMNS} FROM projects WHERE id = ?", [project_id]
    ).fetchone()
    if row is None:
        raise NotFoundError(f"No project with id {project_id}.")
    return Project(*row)


def list_projects(db: Database) -> list[Project]:
    """By name (case-insensitive), the sidebar's order."""
    rows = db.execute(f"SELECT {PROJECT_COLUMNS} FROM projects ORDER BY lower(name), id").fetchall()
    return [Project(*row) for row in rows]


def create_project(db: Database, name: str) -> Project:
    at = now_iso()
    with db.atomic():
        project_id = db.execute(
            "INSERT INTO projects (name, created_at, updated_at) VALUES (?, ?, ?) RETURNING id",
            [clean_project_name(name), at, at],
        ).fetchone()[0]
    return fetch_project(db, project_id)


def rename_project(db: Database, project_id: int, name: str) -> Project:
    with db.atomic():
        fetch_project(db, project_id)
        db.execute(
            "UPDATE projects SET name = ?, updated_at = ? WHERE id = ?",
            [clean_project_name(name), now_iso(), project_id],
        )
    return fetch_project(db, project_id)


@dataclass(frozen=True)
class ProjectContents:
    """What deleting a project touches (the question asked before it)."""

    chats: int
    memories: int
    documents: int


def project_contents(db: Database, project_id: int) -> ProjectContents:
    fetch_project(db, project_id)

    def count(sql: str) -> int:
        return db.execute(sql, [project_id]).fetchone()[0]

    return ProjectContents(
        count("SELECT count(*) FROM conversations WHERE project_id = ?"),
        count(
            "SELECT count(*) FROM memories WHERE project_id = ? "
            "AND status IN ('active', 'conflict', 'temporary')"
        ),
        count("SELECT count(*) FROM documents WHERE project_id = ?"),
    )


@dataclass(frozen=True)
class DeletedProject:
    project_id: int
    #: Its chats left, now outside any project (kept, with every message).
    chats: list[Conversation]
    #: Its memories as they are now: everywhere's, or forgotten (restorable from their
    #: history, then everywhere's).
    memories: list[MemoryItem]


def delete_project(db: Database, project_id: int, *, forget: bool = False) -> DeletedProject:
    """One transaction: the row goes; what is left of the project (chats, documents,
    memories) is outside any project from then on, seen everywhere — or, with
    ``forget``, its memories are forgotten (each with a history event; restored, one is
    everywhere's), so nothing learned in the project spreads (the caller deleted its
    chats and documents first)."""
    with db.atomic():
        fetch_project(db, project_id)
        chat_ids = [
            r[0]
            for r in db.execute("SELECT id FROM conversations WHERE project_id = ?", [project_id])
        ]
        memory_ids = [
            r[0] for r in db.execute("SELECT id FROM memories WHERE project_id = ?", [project_id])
        ]
        at = now_iso()
        memories = []
        for memory_id in memory_ids:
            changes: dict = {"project_id": None}
            current = db.execute("SELECT status FROM memories WHERE id = ?", [memory_id]).fetchone()
            if forget and current[0] in ("active", "conflict", "temporary"):
                changes["status"] = MemoryStatus.FORGOTTEN
            action = PROJECT_DELETED if forget else PROJECT_UNGROUPED
            memories.append(
                update_memory(db, memory_id, changes, actor=Actor.USER, action=action, at=at)
            )
        db.execute("UPDATE conversations SET project_id = NULL WHERE project_id = ?", [project_id])
        db.execute("UPDATE documents SET project_id = NULL WHERE project_id = ?", [project_id])
        db.execute("DELETE FROM projects WHERE id = ?", [project_id])
    return DeletedProject(project_id, [fetch_conversation(db, c) for c in chat_ids], memories)


@dataclass(frozen=True)
class MovedChat:
    conversation: Conversation
    #: The memories learned in it that were its project's: they follow the chat.
    memories: list[MemoryItem]


def move_conversation(db: Database, conversation_id: int, project_id: int | None) -> MovedChat:
    """Put a chat in ``project_id`` (None: outside any project). The memories learned in
    it that belonged where it was follow it (out of a project they become everywhere's,
    as a chat outside any project's are); one the user promoted stays everywhere's. Its
    messages are recalled where it now is."""
    with db.atomic():
        old = fetch_conversation(db, conversation_id).project_id
        if project_id is not None:
            fetch_project(db, project_id)
        if old == project_id:
            return MovedChat(fetch_conversation(db, conversation_id), [])
        db.execute(
            "UPDATE conversations SET project_id = ? WHERE id = ?", [project_id, conversation_id]
        )
        moved = []
        at = now_iso()
        for (memory_id,) in db.execute(
            "SELECT id FROM memories WHERE conversation_id = ? "
            "AND project_id IS NOT DISTINCT FROM ? "
            f"AND {db.dialect.json_text('meta', PROMOTED_FROM)} IS NULL",
            [conversation_id, old],
        ).fetchall():
            moved.append(
                update_memory(
                    db,
                    memory_id,
                    {"project_id": project_id},
                    actor=Actor.USER,
                    action=MOVED_WITH_CHAT,
                    at=at,
                )
            )
    return MovedChat(fetch_conversation(db, conversation_id), moved)


def set_memory_project(db: Database, memory_id: int, project_id: int | None) -> MemoryItem:
    """Promote a memory to everywhere (``project_id`` None) or keep it to a project; the
    change goes into its history like any edit. A promoted memory remembers where it
    came from (``meta``), for its demotion."""
    with db.atomic():
        if project_id is not None:
            fetch_project(db, project_id)
        current = fetch_memory(db, memory_id)
        if current.project_id == project_id:
            return current  # already there: nothing to record
        meta = {k: v for k, v in current.meta.items() if k != PROMOTED_FROM}
        if project_id is None and current.project_id is not None:
            meta[PROMOTED_FROM] = current.project_id
        action = PROMOTED if project_id is None else DEMOTED
        return update_memory(
            db,
            memory_id,
            {"project_id": project_id, "meta": meta},
            actor=Actor.USER,
            action=action,
        )


def home_project_of(db: Database, memory_id: int) -> int | None:
    """The project a memory goes back to when demoted: the one it was promoted from,
    else the project of the chat it was learned in (None: neither)."""
    promoted_from = fetch_memory(db, memory_id).meta.get(PROMOTED_FROM)
    if (
        isinstance(promoted_from, int)
        and db.execute("SELECT 1 FROM projects WHERE id = ?", [promoted_from]).fetchone()
    ):
        return promoted_from
    row = db.execute(
        "SELECT c.project_id FROM memories AS m JOIN conversations AS c "
        "ON c.id = m.conversation_id WHERE m.id = ?",
        [memory_id],
    ).fetchone()
    return row[0] if row else None


# -- a project's settings --------------------------------------------------------------


def project_instructions(db: Database, project_id: int) -> CustomInstructions | None:
    fetch_project(db, project_id)
    row = db.execute("SELECT instructions FROM projects WHERE id = ?", [project_id]).fetchone()
    return CustomInstructions.from_json(row[0])


def save_project_instructions(
    db: Database, project_id: int, instructions: CustomInstructions | None
) -> None:
    with db.atomic():
        fetch_project(db, project_id)
        db.execute(
            "UPDATE projects SET instructions = ?, updated_at = ? WHERE id = ?",
            [None if instructions is None else instructions.to_json(), now_iso(), project_id],
        )


def default_model_of_chat(db: Database, conversation_id: int) -> str | None:
    """The default model of the chat's project (None: no project, or none named)."""
    fetch_conversation(db, conversation_id)  # NotFoundError for a deleted chat
    row = db.execute(
        "SELECT p.default_model FROM conversations AS c JOIN projects AS p "
        "ON p.id = c.project_id WHERE c.id = ?",
        [conversation_id],
    ).fetchone()
    return row[0] if row else None


def set_default_model(db: Database, project_id: int, model: str | None) -> Project:
    with db.atomic():
        fetch_project(db, project_id)
        db.execute(
            "UPDATE projects SET default_model = ?, updated_at = ? WHERE id = ?",
            [model or None, now_iso(), project_id],
        )
    return fetch_project(db, project_id)


# -- what a project's chat must not see --------------------------------------------------


@dataclass(frozen=True)
class OutOfScope:
    """The ids a search in one scope leaves out: other projects' memories and the
    messages of their chats. Both empty in a profile without projects."""

    memory_ids: list[int]
    message_ids: list[int]


def out_of_scope(db: Database, project_id: int | None) -> OutOfScope:
    """What a chat in ``project_id`` (None: outside any project) must never see."""
    if not db.execute("SELECT 1 FROM projects LIMIT 1").fetchone():
        # No project, nothing kept to one (a project's rows reference it: see m013).
        return OutOfScope([], [])
    memories = [
        r[0]
        for r in db.execute(
            "SELECT id FROM memories "
            "WHERE project_id IS NOT NULL AND project_id IS DISTINCT FROM ?",
            [project_id],
        )
    ]
    messages = [
        r[0]
        for r in db.execute(
            "SELECT m.id FROM messages AS m JOIN conversations AS c ON c.id = m.conversation_id "
            "WHERE c.project_id IS NOT NULL AND c.project_id IS DISTINCT FROM ?",
            [project_id],
        )
    ]
    return OutOfScope(memories, messages)


def documents_out_of_scope(db: Database, project_id: int | None) -> set[int]:
    """The documents of other projects (a chat in ``project_id`` draws on its project's
    and on those outside any project)."""
    return {
        r[0]
        for r in db.execute(
            "SELECT id FROM documents "
            "WHERE project_id IS NOT NULL AND project_id IS DISTINCT FROM ?",
            [project_id],
        )
    }


def set_document_project(db: Database, document_id: int, project_id: int | None) -> None:
    with db.atomic():
        if project_id is not None:
            fetch_project(db, project_id)
        if not db.execute(
            "UPDATE documents SET project_id = ? WHERE id = ?", [project_id, document_id]
        ).rowcount:
            raise NotFoundError(f"No document with id {document_id}.")


def evidence_documents_for_chat(
    db: Database, conversation_id: int
) -> tuple[list[int] | None, list[int]]:
    """Which documents a turn of the chat may quote (see
    ``documents.evidence_documents``: allowed ids, None for every one not excluded;
    excluded ids), less the documents of other projects."""
    allowed, excluded = documents.evidence_documents(db, conversation_id)
    hidden = documents_out_of_scope(db, fetch_conversation(db, conversation_id).project_id)
    if not hidden:
        return allowed, excluded
    if allowed is not None:
        allowed = [d for d in allowed if d not in hidden]
    return allowed, sorted(set(excluded) | hidden)
