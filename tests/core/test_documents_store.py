"""The documents tables, on both stores: the full-text index in step with chunks,
provenance that outlives a document, and rows that go with their conversation."""

from __future__ import annotations

import sqlite3

import numpy as np
import psycopg
import pytest

from acai_desktop.core.documents.chunking import Chunk
from acai_desktop.core.documents.model import DocumentScope, EvidenceSource, ScopeMode
from acai_desktop.core.store import chunks as chunk_sql
from acai_desktop.core.store import documents as sql
from acai_desktop.core.store.conversation_deletion import delete_conversation
from tests.support.store_db import store_db


def _document_with_chunks(db, texts: list[str]) -> int:
    document, _ = sql.queue_document(db, "/x/manual.pdf", "manual.pdf", "pdf", 10)
    chunks = [Chunk(i, text, 3, page=i + 1) for i, text in enumerate(texts)]
    facts = {"size": 10, "sha256": "ab", "mtime": 1.0, "page_count": len(texts)}
    chunk_sql.store_chunks(db, document.id, chunks, np.ones((len(texts), 4)), "m", facts)
    return document.id


def _answer(db) -> int:
    db.execute(
        "INSERT INTO conversations (id, title, created_at, updated_at) "
        "VALUES (1, '', '2026-12-07', '2026-12-07')"
    )
    return db.execute(
        "INSERT INTO messages (conversation_id, role, content, created_at) "
        "VALUES (1, 'assistant', 'answer', '2026-12-07') RETURNING id"
    ).fetchone()[0]


def test_replacing_chunks_keeps_the_full_text_index_in_step(store_location):
    db = store_db(store_location)
    document_id = _document_with_chunks(db, ["alpha pump", "beta valve"])
    facts = {"size": 10, "sha256": "cd", "mtime": 2.0, "page_count": 1}
    chunk_sql.store_chunks(
        db, document_id, [Chunk(0, "gamma fan", 2, page=1)], np.ones((1, 4)), "m", facts
    )
    assert chunk_sql.chunk_hits(db, '"pump"', 10, None) == []
    assert len(chunk_sql.chunk_hits(db, '"gamma"', 10, None)) == 1
    assert sql.fetch_document(db, document_id).chunk_count == 1


def test_an_answers_evidence_outlives_its_document_and_goes_with_its_conversation(store_location):
    db = store_db(store_location)
    document_id = _document_with_chunks(db, ["alpha pump"])
    (chunk_id,) = chunk_sql.chunk_ids_of(db, document_id)
    answer_id = _answer(db)
    source = EvidenceSource(
        answer_id, 1, chunk_id, document_id, "manual.pdf", 1, 0.5, ["lexical"], "alpha pump"
    )
    sql.record_evidence(db, answer_id, [source])
    sql.set_scope(db, 1, DocumentScope(ScopeMode.SOME, (document_id,)))

    sql.delete_document(db, document_id)
    (kept,) = sql.evidence_of_answer(db, answer_id)
    assert (kept.document_name, kept.page, kept.snippet) == ("manual.pdf", 1, "alpha pump")
    assert kept.chunk_id is None and kept.document_id is None
    assert sql.get_scope(db, 1) == DocumentScope(ScopeMode.SOME, ())

    delete_conversation(db, 1)
    assert sql.evidence_of_answer(db, answer_id) == []
    count = "SELECT count(*) FROM document_scopes"
    assert db.execute(count).fetchone() == (0,)
    db.close()


def test_a_document_path_is_queued_once_with_one_indexing_job(store_location):
    db = store_db(store_location)
    first, job_one = sql.queue_document(db, "/x/a.md", "a.md", "markdown", 1)
    again, job_two = sql.queue_document(db, "/x/a.md", "a.md", "markdown", 1)
    assert first.id == again.id and job_one == job_two  # waiting: not queued twice
    db.execute("UPDATE jobs SET status = 'running' WHERE id = ?", [job_one])
    _, job_three = sql.queue_document(db, "/x/a.md", "a.md", "markdown", 1)
    assert job_three == job_one  # being indexed (here or by another process)
    db.execute("UPDATE jobs SET status = 'done' WHERE id = ?", [job_one])
    _, job_four = sql.queue_document(db, "/x/a.md", "a.md", "markdown", 1)
    assert job_four != job_one  # finished: a new add queues a new job
    assert db.execute("SELECT count(*) FROM jobs").fetchone() == (2,)
    assert len(sql.list_documents(db)) == 1
    with pytest.raises((sqlite3.IntegrityError, psycopg.IntegrityError)):
        db.execute(
            "INSERT INTO documents (path, name, kind, added_at) "
            "VALUES ('/x/a.md', 'a', 'text', '2026-12-07')"
        )


def test_staged_chunks_are_invisible_until_published(store_location):
    db = store_db(store_location)
    document_id = _document_with_chunks(db, ["alpha pump"])
    new = [Chunk(i, text, 2) for i, text in enumerate(["gamma fan", "delta belt"])]
    assert chunk_sql.stage_chunks(db, document_id, new, np.ones((2, 4)), "m")
    # Search, listing and loading still see the old chunk only.
    assert [p.content for p in chunk_sql.chunks_of(db, document_id)] == ["alpha pump"]
    assert chunk_sql.chunk_hits(db, "gamma", 5, None) == []
    assert len(chunk_sql.chunk_vectors(db, "m")[0]) == 1
    facts = {"size": 10, "sha256": "ef", "mtime": 3.0, "page_count": 0}
    document, ids = chunk_sql.publish_chunks(db, document_id, facts)
    assert [p.content for p in chunk_sql.chunks_of(db, document_id)] == ["gamma fan", "delta belt"]
    assert document.chunk_count == 2 and len(ids) == 2 and document.sha256 == "ef"
    assert [hit[0] for hit in chunk_sql.chunk_hits(db, "gamma", 5, None)] == [ids[0]]
    # A killed indexing's staged chunks are dropped before the next one.
    chunk_sql.stage_chunks(db, document_id, new[:1], np.ones((1, 4)), "m")
    chunk_sql.drop_staged_chunks(db, document_id)
    assert db.execute("SELECT count(*) FROM chunks").fetchone() == (2,)
