"""Repository for conversations and their messages.

The user's message is committed before anything else in a turn happens, and an
answer is created as a ``streaming`` row and finalised with its status, so whatever
breaks later, the transcript on disk keeps every word already written.
"""

from __future__ import annotations

import json
from collections import defaultdict
from collections.abc import Callable, Iterable
from dataclasses import dataclass, replace

from acai_desktop.core.clock import now_iso
from acai_desktop.core.conversations.titles import MAX_TITLE_CHARS as MAX_TITLE_CHARS
from acai_desktop.core.conversations.titles import clean_title, title_from_words
from acai_desktop.core.errors import NotFoundError
from acai_desktop.core.records.conversations import (
    Conversation,
    Message,
    MessageStatus,
    RecalledMessage,
)
from acai_desktop.core.records.jobs import Job
from acai_desktop.core.redaction import redact, redact_known
from acai_desktop.core.store import session_locks
from acai_desktop.core.store.connection import Database
from acai_desktop.core.store.conversation_locks import lock_conversation
from acai_desktop.core.store.jobs import JobSpec, fetch_job, insert_job

MESSAGE_COLUMNS = (
    "id, conversation_id, role, content, status, model, tokens, folded_into, error, plan, "
    "created_at, author, parent_id, hidden, instructions, usage, sent_content"
)
CONVERSATION_COLUMNS = (
    "id, title, created_at, updated_at, temporary, title_auto, pinned, project_id, local_only"
)

#: On PostgreSQL, while an answer streams its process holds a session lock on it
#: (core/store/session_locks.py): a computer that starts marks stopped only the
#: streaming answers no live process writes, not the one another computer is writing.
WRITING_ANSWERS = 0x57524954  # "WRIT"


def _rows(cursor) -> list[dict]:
    names = [d[0] for d in cursor.description]
    return [dict(zip(names, row, strict=True)) for row in cursor.fetchall()]


def fetch_conversation(db: Database, conversation_id: int) -> Conversation:
    rows = _rows(
        db.execute(
            f"SELECT {CONVERSATION_COLUMNS} FROM conversations WHERE id = ?", [conversation_id]
        )
    )
    if not rows:
        raise NotFoundError(f"No conversation with id {conversation_id}.")
    return Conversation.from_row(rows[0])


def fetch_message(db: Database, message_id: int) -> Message:
    rows = _rows(db.execute(f"SELECT {MESSAGE_COLUMNS} FROM messages WHERE id = ?", [message_id]))
    if not rows:
        raise NotFoundError(f"No message with id {message_id}.")
    return Message.from_row(rows[0])


def create_conversation(
    db: Database,
    title: str = "",
    temporary: bool = False,
    project_id: int | None = None,
    local_only: bool = False,
) -> Conversation:
    at = now_iso()
    with db.atomic():
        if (
            project_id is not None
            and not db.execute("SELECT 1 FROM projects WHERE id = ?", [project_id]).fetchone()
        ):
            raise NotFoundError(f"No project with id {project_id}.")
        conversation_id = db.execute(
            "INSERT INTO conversations "
            "(title, created_at, updated_at, temporary, project_id, local_only) "
            "VALUES (?, ?, ?, ?, ?, ?) RETURNING id",
            [title, at, at, bool(temporary), project_id, bool(local_only)],
        ).fetchone()[0]
    return fetch_conversation(db, conversation_id)


def latest_conversation(db: Database) -> Conversation | None:
    rows = _rows(
        db.execute(
            f"SELECT {CONVERSATION_COLUMNS} FROM conversations WHERE NOT temporary "
            "ORDER BY updated_at DESC, id DESC LIMIT 1"
        )
    )
    return Conversation.from_row(rows[0]) if rows else None


def list_conversations(db: Database) -> list[Conversation]:
    """Pinned chats first, then latest activity first (the sidebar's order)."""
    cursor = db.execute(
        f"SELECT {CONVERSATION_COLUMNS} FROM conversations "
        "ORDER BY pinned DESC, updated_at DESC, id DESC"
    )
    return [Conversation.from_row(row) for row in _rows(cursor)]


def _insert_message(
    db: Database,
    conversation_id: int,
    role: str,
    content: str,
    *,
    status: MessageStatus = MessageStatus.COMPLETE,
    model: str | None = None,
    tokens: int | None = None,
    at: str,
    author: str | None = None,
    created_at: str | None = None,
    parent_id: int | None = None,
) -> int:
    """Insert a message in the caller's transaction; returns its id. ``created_at``
    (default ``at``) and ``author`` are for a recorded dialogue brought in as a
    conversation. Without ``parent_id`` it follows the end of the shown path (a
    trigger, see migration m010)."""
    (message_id,) = db.execute(
        "INSERT INTO messages (conversation_id, role, content, status, model, tokens, "
        "created_at, author, parent_id) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?) RETURNING id",
        [
            conversation_id,
            role,
            content,
            str(status),
            model,
            tokens,
            created_at or at,
            author,
            parent_id,
        ],
    ).fetchone()
    if status == MessageStatus.STREAMING:
        session_locks.hold(db, WRITING_ANSWERS, message_id)
    db.execute("UPDATE conversations SET updated_at = ? WHERE id = ?", [at, conversation_id])
    if role == "user":
        # A new conversation takes its title from the first thing the user said: a
        # stand-in (title_auto) that the title job may replace with a model's title.
        db.execute(
            "UPDATE conversations SET title = ?, title_auto = TRUE WHERE id = ? AND title = ''",
            [title_from_words(content), conversation_id],
        )
    return message_id


def add_message(
    db: Database,
    conversation_id: int,
    role: str,
    content: str,
    *,
    status: MessageStatus = MessageStatus.COMPLETE,
    model: str | None = None,
    tokens: int | None = None,
    author: str | None = None,
    created_at: str | None = None,
) -> Message:
    """``author`` and ``created_at`` are for a recorded dialogue brought in as a
    conversation (who said it, and when); the app's own turns have neither."""
    at = now_iso()
    if role == "assistant":
        content = redact_known(content)  # as update_message does for a streamed answer
    with db.atomic():
        fetch_conversation(db, conversation_id)
        lock_conversation(db, conversation_id)
        message_id = _insert_message(
            db,
            conversation_id,
            role,
            content,
            status=status,
            model=model,
            tokens=tokens,
            at=at,
            author=author,
            created_at=created_at,
        )
    return fetch_message(db, message_id)


@dataclass(frozen=True)
class NewTurn:
    """What :func:`add_turn` committed: the user's message, the answer being written,
    and the jobs queued to learn from the message."""

    user_message: Message
    answer: Message
    jobs: list[Job]
    #: The conversation as the turn left it: moved up, titled by its first message.
    conversation: Conversation

    @property
    def job_ids(self) -> list[int]:
        return [job.id for job in self.jobs]


def add_turn(
    db: Database,
    conversation_id: int,
    text: str,
    jobs_for: Callable[[int], Iterable[JobSpec]] | None = None,
) -> NewTurn:
    """The user's message, its answer (``streaming``, empty) and the processors' jobs
    (``jobs_for(user_message_id)``), in one transaction: once the message is on disk, so
    is the learning it is owed, whatever happens to the answer. The jobs wait until the
    answer is no longer streaming (they need the whole turn, and must not compete with it
    for the model)."""
    at = now_iso()
    with db.atomic():
        fetch_conversation(db, conversation_id)
        # The user's message follows the end of the chat as it is when the lock is
        # ours, whatever another computer appended meanwhile.
        lock_conversation(db, conversation_id)
        user_id = _insert_message(db, conversation_id, "user", text, at=at)
        answer_id = _insert_message(
            db, conversation_id, "assistant", "", status=MessageStatus.STREAMING, at=at
        )
        specs = jobs_for(user_id) if jobs_for is not None else ()
        job_ids = [insert_job(db, spec, wait_for_message_id=answer_id, at=at) for spec in specs]
    jobs = [fetch_job(db, job_id) for job_id in job_ids]
    return NewTurn(
        fetch_message(db, user_id),
        fetch_message(db, answer_id),
        jobs,
        fetch_conversation(db, conversation_id),
    )


def update_message(db: Database, message_id: int, **changes) -> Message:
    allowed = {
        "content",
        "status",
        "model",
        "tokens",
        "error",
        "plan",
        "folded_into",
        "instructions",
        "usage",
        "sent_content",
    }
    unknown = set(changes) - allowed
    if unknown:
        raise ValueError(f"not message columns: {sorted(unknown)}")
    if "plan" in changes and changes["plan"] is not None:
        changes["plan"] = json.dumps(changes["plan"], ensure_ascii=False)
    if "status" in changes:
        changes["status"] = str(changes["status"])
    if changes.get("instructions") is not None:
        changes["instructions"] = changes["instructions"].to_json()  # UsedInstructions
    if changes.get("usage") is not None:
        changes["usage"] = changes["usage"].to_json()  # TokenUsage
    if changes.get("error"):
        changes["error"] = redact(changes["error"])  # a server may echo the key
    if changes.get("content"):
        # Only answers are rewritten after their insert: a model quoting the user's own
        # key (from a pasted config, say) would have it stored, indexed and recalled
        # into a prompt to another provider. Just the keys the app holds are cut:
        # key-like examples in an answer are the answer.
        changes["content"] = redact_known(changes["content"])
    assignments = ", ".join(f"{column} = ?" for column in changes)
    with db.atomic():
        # Its text and status re-index the recall window around it, which another
        # computer's new message may be re-indexing too.
        lock_conversation(db, fetch_message(db, message_id).conversation_id)
        db.execute(
            f"UPDATE messages SET {assignments} WHERE id = ?", [*changes.values(), message_id]
        )
    if changes.get("status") == MessageStatus.STREAMING:
        session_locks.hold(db, WRITING_ANSWERS, message_id)
    elif "status" in changes:
        session_locks.release(db, WRITING_ANSWERS, [message_id])
    return fetch_message(db, message_id)


def list_messages(
    db: Database,
    conversation_id: int,
    *,
    include_folded: bool = True,
    include_hidden: bool = False,
) -> list[Message]:
    """The conversation's messages as shown, in order: the other versions of answers
    and the other branches are left out unless ``include_hidden`` (an export). Each
    carries the ids of the alternatives at its place (``Message.versions``)."""
    sql = f"SELECT {MESSAGE_COLUMNS} FROM messages WHERE conversation_id = ?"
    if not include_folded:
        sql += " AND folded_into IS NULL"
    if not include_hidden:
        sql += " AND NOT hidden"
    cursor = db.execute(sql + " ORDER BY id", [conversation_id])
    messages = [Message.from_row(row) for row in _rows(cursor)]
    versions = versions_by_message(db, conversation_id)
    return [replace(m, versions=versions[m.id]) if m.id in versions else m for m in messages]


def versions_by_message(db: Database, conversation_id: int) -> dict[int, tuple[int, ...]]:
    """For each message with alternatives, the ids at its place (itself included),
    oldest first. Read from the index on (conversation_id, parent_id) alone: most
    conversations have no fork, and every turn reads its transcript."""
    siblings: dict[int | None, list[int]] = defaultdict(list)
    for message_id, parent_id in db.execute(
        """SELECT id, parent_id FROM messages
        WHERE conversation_id = ?1 AND parent_id IS NULL
            AND (SELECT count(*) FROM messages
                 WHERE conversation_id = ?1 AND parent_id IS NULL) > 1
        UNION ALL
        SELECT m.id, m.parent_id FROM messages AS m
        WHERE m.conversation_id = ?1 AND m.parent_id IN (
            SELECT parent_id FROM messages WHERE conversation_id = ?1
            GROUP BY parent_id HAVING count(*) > 1)
        ORDER BY 1""",
        [conversation_id],
    ):
        siblings[parent_id].append(message_id)
    return {message_id: tuple(group) for group in siblings.values() for message_id in group}


def list_messages_with_sources(
    db: Database, conversation_id: int
) -> tuple[list[Message], dict[int, int]]:
    """A conversation's messages as shown (as :func:`list_messages`) and, for each
    finished answer, how many memories, recalled messages and document passages fed it,
    and the user's custom instructions (one source) when its prompt carried them: one
    query, however long the chat."""
    cursor = db.execute(
        f"SELECT {MESSAGE_COLUMNS}, "
        "(SELECT count(*) FROM answer_sources s WHERE s.message_id = messages.id) "
        "+ (SELECT count(*) FROM answer_evidence e WHERE e.message_id = messages.id) "
        "AS sources_count, "
        # The versions at this message's place: its siblings under the same parent (the
        # (conversation_id, parent_id) index), so the transcript stays one query.
        f"(SELECT {db.dialect.joined('v.id')} FROM messages v WHERE v.conversation_id = "
        "messages.conversation_id AND v.parent_id IS NOT DISTINCT FROM messages.parent_id) "
        "AS version_ids "
        "FROM messages WHERE conversation_id = ? AND NOT hidden ORDER BY id",
        [conversation_id],
    )
    messages, counts = [], {}
    for row in _rows(cursor):
        count = row.pop("sources_count")
        version_ids = sorted(int(i) for i in (row.pop("version_ids") or "").split(",") if i)
        message = Message.from_row(row)
        if len(version_ids) > 1:
            message = replace(message, versions=tuple(version_ids))
        messages.append(message)
        if message.role == "assistant" and message.status != MessageStatus.STREAMING:
            counts[message.id] = count + (message.instructions is not None)
    return messages, counts


def fold_messages(db: Database, message_ids: Iterable[int], summary_memory_id: int) -> None:
    """Mark messages as now represented by a summary (caller's transaction)."""
    for message_id in message_ids:
        db.execute(
            "UPDATE messages SET folded_into = ? WHERE id = ?", [summary_memory_id, message_id]
        )


def fold_block(db: Database, message_ids: list[int], summary_memory_id: int) -> None:
    with db.atomic():
        fold_messages(db, message_ids, summary_memory_id)


def summary_covering(db: Database, message_ids: list[int]) -> int | None:
    """The active summary memory whose sources are exactly these messages, if any."""
    if not message_ids:
        return None
    marks = ", ".join("?" for _ in message_ids)
    row = db.execute(
        f"""SELECT s.memory_id FROM memory_sources s JOIN memories m ON m.id = s.memory_id
        WHERE m.kind = 'summary' AND m.status = 'active' AND s.message_id IN ({marks})
        GROUP BY s.memory_id
        HAVING count(*) = ? AND count(*) = (
            SELECT count(*) FROM memory_sources t WHERE t.memory_id = s.memory_id)
        ORDER BY s.memory_id DESC LIMIT 1""",
        [*message_ids, len(message_ids)],
    ).fetchone()
    return row[0] if row else None


def rename_conversation(db: Database, conversation_id: int, title: str) -> Conversation:
    # Renaming is not activity: updated_at (the list's order) stays as it was.
    title = clean_title(title)
    with db.atomic():
        fetch_conversation(db, conversation_id)
        # The user's title wins over the automatic one, now and later (title_auto = 0).
        db.execute(
            "UPDATE conversations SET title = ?, title_auto = FALSE WHERE id = ?",
            [title, conversation_id],
        )
    return fetch_conversation(db, conversation_id)


def set_pinned(db: Database, conversation_id: int, pinned: bool) -> Conversation:
    # Pinning is not activity either: updated_at stays.
    with db.atomic():
        fetch_conversation(db, conversation_id)
        db.execute(
            "UPDATE conversations SET pinned = ? WHERE id = ?", [bool(pinned), conversation_id]
        )
    return fetch_conversation(db, conversation_id)


def set_automatic_title(db: Database, conversation_id: int, title: str) -> Conversation | None:
    """Replace the first-words stand-in with ``title`` (the title job's), unless the user
    renamed the conversation meanwhile: the conversation as changed, or None when it was
    left alone (renamed, already titled, or deleted)."""
    with db.atomic():
        changed = db.execute(
            "UPDATE conversations SET title = ?, title_auto = FALSE WHERE id = ? AND title_auto",
            [title, conversation_id],
        ).rowcount
    return fetch_conversation(db, conversation_id) if changed else None


def fetch_recalled_message(db: Database, message_id: int) -> RecalledMessage:
    """A message with its conversation's title, as provenance shows a recalled one."""
    message = fetch_message(db, message_id)
    conversation = fetch_conversation(db, message.conversation_id)
    return RecalledMessage(
        id=message.id,
        conversation_id=conversation.id,
        conversation_title=conversation.title,
        role=message.role,
        content=message.content,
        created_at=message.created_at,
        author=message.author,
    )
