"""SQL of the documents feature: documents, their indexing jobs, the conversations'
document scope and the evidence that fed answers (a document's chunks: ``chunks.py``).
Runs on the database thread (see Store)."""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass

from acai_desktop.core.clock import now_iso
from acai_desktop.core.documents.model import (
    Document,
    DocumentScope,
    DocumentStatus,
    EvidenceSource,
    ScopeMode,
)
from acai_desktop.core.errors import NotFoundError
from acai_desktop.core.records.jobs import Job
from acai_desktop.core.redaction import redact
from acai_desktop.core.store.connection import Database
from acai_desktop.core.store.jobs import JobSpec, fetch_job, insert_job

#: The background job that reads, chunks, embeds and stores one document.
INDEX_JOB = "index_document"

DOCUMENT_COLUMNS = (
    "id, path, name, size, sha256, mtime, kind, status, error, chunk_count, page_count, "
    "added_at, indexed_at, attachment, conversation_id, project_id, local_only"
)


def _documents(cursor) -> list[Document]:
    names = [d[0] for d in cursor.description]
    return [Document.from_row(dict(zip(names, row, strict=True))) for row in cursor.fetchall()]


def fetch_document(db: Database, document_id: int) -> Document:
    found = _documents(
        db.execute(f"SELECT {DOCUMENT_COLUMNS} FROM documents WHERE id = ?", [document_id])
    )
    if not found:
        raise NotFoundError(f"No document with id {document_id}.")
    return found[0]


def document_at(db: Database, path: str) -> Document | None:
    found = _documents(
        db.execute(f"SELECT {DOCUMENT_COLUMNS} FROM documents WHERE path = ?", [path])
    )
    return found[0] if found else None


def list_documents(db: Database) -> list[Document]:
    """The user's library (the Documents tab): every document but the chats' attachments."""
    return _documents(
        db.execute(f"SELECT {DOCUMENT_COLUMNS} FROM documents WHERE NOT attachment ORDER BY id")
    )


def attachments_of(db: Database, conversation_id: int | None) -> list[Document]:
    """The files attached in a chat (None: those held by a new chat), in order."""
    return _documents(
        db.execute(
            f"SELECT {DOCUMENT_COLUMNS} FROM documents WHERE attachment "
            "AND conversation_id IS NOT DISTINCT FROM ? ORDER BY id",
            [conversation_id],
        )
    )


def attachment_paths(db: Database) -> set[str]:
    """Where every attachment's copy is (to find copies no document owns any more)."""
    return {row[0] for row in db.execute("SELECT path FROM documents WHERE attachment")}


def bind_attachments(db: Database, document_ids: Sequence[int], conversation_id: int) -> None:
    """Held attachments (a new chat's) become the chat's, once the send has started it."""
    with db.atomic():
        _require_conversation(db, conversation_id)
        db.conn.executemany(
            "UPDATE documents SET conversation_id = ? WHERE id = ? AND attachment "
            "AND conversation_id IS NULL",
            [(conversation_id, document_id) for document_id in document_ids],
        )


def evidence_documents(db: Database, conversation_id: int) -> tuple[list[int] | None, list[int]]:
    """Which documents a turn of ``conversation_id`` may quote: (the allowed ids, None
    for "every one not excluded"; the excluded ids). Its scope chooses among the
    library; its own attachments are always in (the user attached them to ask about
    them, whatever the scope), every other chat's never."""
    scope = get_scope(db, conversation_id)
    own = [
        row[0]
        for row in db.execute(
            "SELECT id FROM documents WHERE attachment AND conversation_id = ?",
            [conversation_id],
        )
    ]
    if scope.mode == ScopeMode.ALL:
        others = [
            row[0]
            for row in db.execute(
                "SELECT id FROM documents WHERE attachment AND conversation_id IS DISTINCT FROM ?",
                [conversation_id],
            )
        ]
        return None, others
    library = list(scope.document_ids) if scope.mode == ScopeMode.SOME else []
    return sorted(set(library) | set(own)), []


def queue_document(
    db: Database,
    path: str,
    name: str,
    kind: str,
    size: int,
    *,
    force: bool = False,
    attachment: bool = False,
    conversation_id: int | None = None,
) -> tuple[Document, int]:
    """Add a document (or queue an existing one at ``path`` again) with its indexing
    job, in one transaction; returns the document and the job's id. ``attachment``: a
    file attached in a chat (``conversation_id``; None while its new chat is held).

    A document has at most one indexing job: if one is waiting or running already (in
    this process or another: the check and the insert share the write lock), its id is
    returned and nothing is queued. ``force``: index even an unchanged file."""
    at = now_iso()
    with db.atomic():
        existing = document_at(db, path)
        if existing is None:
            document_id = db.execute(
                "INSERT INTO documents (path, name, size, kind, status, added_at, "
                "attachment, conversation_id) VALUES (?, ?, ?, ?, 'queued', ?, ?, ?) RETURNING id",
                [path, name, size, kind, at, bool(attachment), conversation_id],
            ).fetchone()[0]
        else:
            document_id = existing.id
            open_job = open_index_job(db, document_id)
            if open_job is not None:
                if force:
                    db.execute(
                        f"UPDATE jobs SET payload = {db.dialect.json_set_true('payload', 'force')} "
                        "WHERE id = ?",
                        [open_job],
                    )
                return existing, open_job
            db.execute(
                "UPDATE documents SET status = 'queued', error = NULL WHERE id = ?",
                [document_id],
            )
            # Its failed indexing jobs are superseded by the new one (no stale Retry).
            db.execute(
                f"DELETE FROM jobs WHERE kind = ? AND status = 'failed' AND {_document_id(db)} = ?",
                [INDEX_JOB, document_id],
            )
        payload = {"document_id": document_id, **({"force": True} if force else {})}
        job_id = insert_job(db, JobSpec(INDEX_JOB, payload), at=at)
    return fetch_document(db, document_id), job_id


def add_ready_attachment(
    db: Database,
    path: str,
    name: str,
    kind: str,
    size: int,
    sha256: str,
    conversation_id: int | None,
) -> Document:
    """An attachment with nothing to index (an image, which a model reads whole): ready
    at once, with no chunks and no indexing job."""
    at = now_iso()
    with db.atomic():
        document_id = db.execute(
            "INSERT INTO documents (path, name, size, sha256, kind, status, added_at, "
            "indexed_at, attachment, conversation_id) "
            "VALUES (?, ?, ?, ?, ?, 'ready', ?, ?, TRUE, ?) RETURNING id",
            [path, name, size, sha256, kind, at, at, conversation_id],
        ).fetchone()[0]
    return fetch_document(db, document_id)


def _document_id(db: Database) -> str:
    """An indexing job's document id (from its JSON payload), in SQL."""
    return f"CAST({db.dialect.json_text('payload', 'document_id')} AS INTEGER)"


def open_index_job(db: Database, document_id: int) -> int | None:
    """The id of the document's indexing job that is waiting or running, if any."""
    row = db.execute(
        "SELECT id FROM jobs WHERE kind = ? AND status IN ('pending', 'running') "
        f"AND {_document_id(db)} = ? ORDER BY id LIMIT 1",
        [INDEX_JOB, document_id],
    ).fetchone()
    return row[0] if row else None


#: What a document shows when its indexing was found interrupted a second time.
STOPPED_THE_APP_TWICE = (
    "Not indexed: it stopped the app twice while indexing, so it is not tried again "
    "automatically. Re-index it to try again."
)
#: The job's reason, as ``jobs list`` shows it.
JOB_STOPPED_THE_APP_TWICE = "stopped the app twice while indexing"
#: A job found running at this many starts is not started again by itself.
MAX_INTERRUPTIONS = 2


@dataclass(frozen=True)
class RecoveredIndexing:
    requeued: list[Document]
    given_up: list[Document]
    failed_jobs: list[Job]


def recover_indexing_jobs(db: Database) -> RecoveredIndexing:
    """At a start that owns the profile: the indexing jobs left ``running`` died with the
    app. Each is counted; one found so for the second time is failed (not retryable
    automatically; the user may retry it) and its document shows why, the others are
    queued again."""
    requeued, given_up, failed = [], [], []
    with db.atomic():
        running = db.execute(
            f"SELECT id, {_document_id(db)}, "
            "interruptions + 1 FROM jobs WHERE kind = ? AND status = 'running'",
            [INDEX_JOB],
        ).fetchall()
        at = now_iso()
        for job_id, document_id, interruptions in running:
            if interruptions >= MAX_INTERRUPTIONS:
                db.execute(
                    "UPDATE jobs SET status = 'failed', interruptions = ?, last_error = ?, "
                    "retryable = FALSE, run_after = NULL, updated_at = ? WHERE id = ?",
                    [interruptions, JOB_STOPPED_THE_APP_TWICE, at, job_id],
                )
                status, error, into = "error", STOPPED_THE_APP_TWICE, given_up
                failed.append(fetch_job(db, job_id))
            else:
                db.execute(
                    "UPDATE jobs SET status = 'pending', interruptions = ?, attempts = "
                    f"{db.dialect.later('attempts - 1', '0')}, updated_at = ? WHERE id = ?",
                    [interruptions, at, job_id],
                )
                status, error, into = "queued", None, requeued
            changed = db.execute(
                "UPDATE documents SET status = ?, error = ? WHERE id = ?",
                [status, error, document_id],
            ).rowcount
            if changed:
                into.append(fetch_document(db, document_id))
    return RecoveredIndexing(requeued, given_up, failed)


def set_status(
    db: Database, document_id: int, status: DocumentStatus, error: str | None = None
) -> Document:
    with db.atomic():
        changed = db.execute(
            "UPDATE documents SET status = ?, error = ? WHERE id = ?",
            [str(status), redact(error), document_id],  # a provider's error may echo the key
        ).rowcount
    if not changed:
        raise NotFoundError(f"No document with id {document_id}.")
    return fetch_document(db, document_id)


def is_indexed_as(db: Database, document_id: int, sha256: str, embedding_model: str) -> bool:
    """Whether the document's chunks were made from content with this hash by this
    embedder (then indexing the file again would give the same chunks)."""
    document = fetch_document(db, document_id)
    if document.sha256 != sha256 or not document.chunk_count:
        return False
    other = db.execute(
        "SELECT 1 FROM chunks WHERE document_id = ? AND ordinal >= 0 "
        "AND embedding_model IS DISTINCT FROM ? LIMIT 1",
        [document_id, embedding_model],
    ).fetchone()
    return other is None


def mark_ready(db: Database, document_id: int, mtime: float) -> Document:
    """An unchanged file's document is ready again, with its chunks as they were."""
    with db.atomic():
        db.execute(
            "UPDATE documents SET status = 'ready', error = NULL, mtime = ? WHERE id = ?",
            [mtime, document_id],
        )
    return fetch_document(db, document_id)


def delete_document(db: Database, document_id: int) -> Document:
    """Remove a document, its chunks (the full-text index follows) and its waiting
    indexing jobs. Answers that quoted it keep their copied citation."""
    with db.atomic():
        document = fetch_document(db, document_id)
        db.execute(
            f"DELETE FROM jobs WHERE kind = ? AND status != 'running' AND {_document_id(db)} = ?",
            [INDEX_JOB, document_id],
        )
        db.execute("DELETE FROM chunks WHERE document_id = ?", [document_id])
        db.execute("DELETE FROM documents WHERE id = ?", [document_id])
    return document


def _require_conversation(db: Database, conversation_id: int) -> None:
    if not db.execute("SELECT 1 FROM conversations WHERE id = ?", [conversation_id]).fetchone():
        raise NotFoundError(f"No conversation with id {conversation_id}.")


def get_scope(db: Database, conversation_id: int) -> DocumentScope:
    """Which documents the conversation draws evidence from (all, unless it was set)."""
    _require_conversation(db, conversation_id)
    row = db.execute(
        "SELECT mode FROM document_scopes WHERE conversation_id = ?", [conversation_id]
    ).fetchone()
    mode = ScopeMode(row[0]) if row else ScopeMode.ALL
    ids: tuple[int, ...] = ()
    if mode == ScopeMode.SOME:
        ids = tuple(
            r[0]
            for r in db.execute(
                "SELECT document_id FROM conversation_documents WHERE conversation_id = ? "
                "ORDER BY document_id",
                [conversation_id],
            )
        )
    return DocumentScope(mode, ids)


def set_scope(db: Database, conversation_id: int, scope: DocumentScope) -> DocumentScope:
    with db.atomic():
        _require_conversation(db, conversation_id)
        for document_id in scope.document_ids:
            fetch_document(db, document_id)  # NotFoundError names a wrong id
        db.execute(
            "INSERT INTO document_scopes (conversation_id, mode) VALUES (?, ?) "
            "ON CONFLICT (conversation_id) DO UPDATE SET mode = excluded.mode",
            [conversation_id, str(scope.mode)],
        )
        db.execute(
            "DELETE FROM conversation_documents WHERE conversation_id = ?", [conversation_id]
        )
        if scope.mode == ScopeMode.SOME:
            db.conn.executemany(
                "INSERT INTO conversation_documents (conversation_id, document_id) VALUES (?, ?)",
                [(conversation_id, d) for d in sorted(set(scope.document_ids))],
            )
    return get_scope(db, conversation_id)


def record_evidence(db: Database, message_id: int, sources: Sequence[EvidenceSource]) -> None:
    with db.atomic():
        db.execute("DELETE FROM answer_evidence WHERE message_id = ?", [message_id])
        db.conn.executemany(
            "INSERT INTO answer_evidence (message_id, rank, chunk_id, document_id, "
            "document_name, page, score, reasons, snippet) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
            [
                (
                    message_id,
                    s.rank,
                    s.chunk_id,
                    s.document_id,
                    s.document_name,
                    s.page,
                    s.score,
                    json.dumps(s.reasons),
                    s.snippet,
                )
                for s in sources
            ],
        )


def evidence_of_answer(db: Database, message_id: int) -> list[EvidenceSource]:
    rows = db.execute(
        "SELECT message_id, rank, chunk_id, document_id, document_name, page, score, "
        "reasons, snippet FROM answer_evidence WHERE message_id = ? ORDER BY rank",
        [message_id],
    )
    return [EvidenceSource(*row[:7], json.loads(row[7]), row[8]) for row in rows]
