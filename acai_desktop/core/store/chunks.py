"""SQL of a document's chunks: staged while it is indexed, published at once, read,
loaded into the vector matrix and searched. Runs on the database thread (see Store)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from acai_desktop.core.clock import now_iso
from acai_desktop.core.documents.model import Document, Passage
from acai_desktop.core.store.connection import Database
from acai_desktop.core.store.documents import fetch_document

if TYPE_CHECKING:
    # numpy loads where vectors are stored or read: the window opens the profile (which
    # imports the store) before numpy has loaded (see core/store/__init__.py).
    import numpy as np

#: Chunks' vectors copied into the matrix at a time when loading (see chunk_vectors).
VECTOR_BLOCK = 4096


def drop_staged_chunks(db: Database, document_id: int) -> None:
    """Chunks staged by an indexing that did not finish (killed, failed, cancelled)."""
    with db.atomic():
        db.execute("DELETE FROM chunks WHERE document_id = ? AND ordinal < 0", [document_id])


def stage_chunks(
    db: Database,
    document_id: int,
    chunks: Sequence,
    vectors: np.ndarray,
    embedding_model: str,
) -> bool:
    """Store a batch of a document's new chunks, staged: their ordinal is ``-1 - n``, so
    no search, listing or loading sees them until :func:`publish_chunks`. Indexing a
    large file commits batch by batch (the write lock is held for a batch, not for the
    file) and keeps only a batch in memory. False if the document was removed."""
    import numpy as np

    with db.atomic():
        if not db.execute("SELECT 1 FROM documents WHERE id = ?", [document_id]).fetchone():
            return False
        db.conn.executemany(
            "INSERT INTO chunks (document_id, ordinal, page, heading, content, token_count, "
            "embedding, embedding_model) VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
            [
                (
                    document_id,
                    -1 - chunk.ordinal,
                    chunk.page,
                    chunk.heading,
                    chunk.content,
                    chunk.token_count,
                    np.asarray(vector, np.float32).tobytes(),
                    embedding_model,
                )
                for chunk, vector in zip(chunks, vectors, strict=True)
            ],
        )
    return True


def publish_chunks(
    db: Database, document_id: int, facts: dict
) -> tuple[Document, list[int]] | None:
    """The staged chunks replace the document's chunks, and it is marked ready, in one
    transaction (a crash leaves the old chunks or the new ones, never half); returns the
    document and its chunks' ids in order. ``facts``: size, sha256, mtime, page_count.
    None if the document was removed meanwhile."""
    with db.atomic():
        if not db.execute("SELECT 1 FROM documents WHERE id = ?", [document_id]).fetchone():
            return None
        db.execute("DELETE FROM chunks WHERE document_id = ? AND ordinal >= 0", [document_id])
        count = db.execute(
            "UPDATE chunks SET ordinal = -1 - ordinal WHERE document_id = ? AND ordinal < 0",
            [document_id],
        ).rowcount
        db.execute(
            "UPDATE documents SET status = 'ready', error = NULL, chunk_count = ?, size = ?, "
            "sha256 = ?, mtime = ?, page_count = ?, indexed_at = ? WHERE id = ?",
            [
                count,
                facts["size"],
                facts["sha256"],
                facts["mtime"],
                facts["page_count"],
                now_iso(),
                document_id,
            ],
        )
        return fetch_document(db, document_id), chunk_ids_of(db, document_id)


def store_chunks(
    db: Database,
    document_id: int,
    chunks: Sequence,
    vectors: np.ndarray,
    embedding_model: str,
    facts: dict,
) -> tuple[Document, list[int]] | None:
    """Replace the document's chunks with these at once (small documents and tests):
    staged and published in one transaction."""
    with db.atomic():
        drop_staged_chunks(db, document_id)
        if not stage_chunks(db, document_id, chunks, vectors, embedding_model):
            return None
        return publish_chunks(db, document_id, facts)


def chunk_ids_of(db: Database, document_id: int) -> list[int]:
    """The document's chunk ids by ordinal (the order their vectors were computed in)."""
    return [
        r[0]
        for r in db.execute(
            "SELECT id FROM chunks WHERE document_id = ? AND ordinal >= 0 ORDER BY ordinal",
            [document_id],
        )
    ]


def document_tokens(db: Database, document_ids: Sequence[int]) -> dict[int, int]:
    """Each document's text, in estimated tokens (its published chunks' counts)."""
    if not document_ids:
        return {}
    marks = ", ".join("?" * len(document_ids))
    rows = db.execute(
        f"SELECT document_id, SUM(token_count) FROM chunks WHERE document_id IN ({marks}) "
        "AND ordinal >= 0 GROUP BY document_id",
        list(document_ids),
    )
    return {document_id: int(tokens) for document_id, tokens in rows}


def chunk_vectors(db: Database, embedding_model: str) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(chunk ids, document ids, vectors) of every chunk embedded by ``embedding_model``."""
    import numpy as np

    rows = db.execute(
        "SELECT id, document_id, embedding FROM chunks "
        "WHERE embedding IS NOT NULL AND embedding_model = ? AND ordinal >= 0",
        [embedding_model],
    ).fetchall()
    if not rows:
        return np.zeros(0, np.int64), np.zeros(0, np.int64), np.zeros((0, 0), np.float32)
    ids = np.fromiter((r[0] for r in rows), np.int64, len(rows))
    documents = np.fromiter((r[1] for r in rows), np.int64, len(rows))
    # Copied into numpy's own memory a block at a time, not viewed in one joined bytes
    # object: numpy asks Linux for huge pages for a large array (fewer TLB misses:
    # reading 2,000 rows all over the matrix took a quarter less), and no temporary
    # doubles the blobs in memory.
    vectors = np.empty((len(rows), len(rows[0][2]) // 4), np.float32)
    for start in range(0, len(rows), VECTOR_BLOCK):
        block = rows[start : start + VECTOR_BLOCK]
        joined = np.frombuffer(b"".join(r[2] for r in block), np.float32)
        vectors[start : start + len(block)] = joined.reshape(len(block), -1)
    return ids, documents, vectors


def chunk_hits(
    db: Database,
    match: str,
    limit: int,
    document_ids: Sequence[int] | None,
    excluded: Sequence[int] = (),
) -> list[tuple[int, float]]:
    """(chunk id, BM25 as a positive score) of the best full-text matches, within
    ``document_ids`` when given, never in ``excluded``."""
    if document_ids is not None and not len(document_ids):
        return []
    return db.dialect.full_text.chunk_hits(db, match, limit, document_ids, excluded)


def passages_by_id(db: Database, chunk_ids: Sequence[int]) -> dict[int, Passage]:
    if not chunk_ids:
        return {}
    marks = ", ".join("?" for _ in chunk_ids)
    rows = db.execute(
        "SELECT c.id, c.document_id, d.name, c.ordinal, c.page, c.heading, c.content "
        f"FROM chunks AS c JOIN documents AS d ON d.id = c.document_id WHERE c.id IN ({marks})",
        list(chunk_ids),
    )
    return {row[0]: Passage(*row) for row in rows}


def chunks_of(db: Database, document_id: int) -> list[Passage]:
    rows = db.execute(
        "SELECT c.id, c.document_id, d.name, c.ordinal, c.page, c.heading, c.content "
        "FROM chunks AS c JOIN documents AS d ON d.id = c.document_id "
        "WHERE c.document_id = ? AND c.ordinal >= 0 ORDER BY c.ordinal",
        [document_id],
    )
    return [Passage(*row) for row in rows]
