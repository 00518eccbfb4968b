"""The SQL behind retrieval: BM25 candidates from FTS5, candidate features, embeddings.

These run on the database thread (see :class:`Store`) with the connection; the
retriever calls them inside one :meth:`Store.run`, so a search costs one hop to that
thread. They return plain tuples and arrays, not records, because they sit on the hot
path: building a :class:`MemoryItem` per candidate would cost more than the search.
"""

from __future__ import annotations

from collections.abc import Sequence

from sqlite_utils import Database

from acai_desktop.core.records import MemoryItem
from acai_desktop.core.store.memories import SELECT_COLUMNS

# bm25() weights of memories_fts's columns (content, category): a category word
# ("food") should count, but less than the same word in the memory's text.
BM25_WEIGHTS = (1.0, 0.4)

_COLUMN_NAMES = [c.strip() for c in SELECT_COLUMNS.split(",")]


# Fusion inputs of a memory, in this column order: id, importance, pinned, age in days
# (since the later of updated_at and last_used_at), conversation id (-1 for none).
_FEATURES = (
    "m.id, m.importance, m.pinned, "
    "max(julianday('now') - julianday(max(m.updated_at, coalesce(m.last_used_at, ''))), 0), "
    "coalesce(m.conversation_id, -1)"
)


def document_counts(db: Database, terms: Sequence[str], cap: int) -> list[int]:
    """How many memories contain each term (counted up to ``cap + 1``, so a common term
    costs no more than a rare one). Terms must be plain tokens (no FTS syntax)."""
    counts = []
    for term in terms:
        phrase = '"' + term.replace('"', '""') + '"'
        row = db.execute(
            "SELECT count(*) FROM (SELECT rowid FROM memories_fts WHERE memories_fts MATCH ? "
            "LIMIT ?)",
            [phrase, cap + 1],
        ).fetchone()
        counts.append(row[0])
    return counts


def lexical_candidates(db: Database, match: str, limit: int) -> tuple[list[tuple], list[float]]:
    """The best ``limit`` active memories for an FTS5 MATCH expression, as rows of
    ``(*features, embedding blob)``, and their BM25 scores (negated: higher is better).

    ``match`` must come from :func:`acai_desktop.core.memory.query.fts_match_expression`
    (quoted terms only). FTS5 keeps only the best rows while it scores (ORDER BY its
    score with a LIMIT); the status filter then runs over that short list, so we ask
    for spare rows.
    """
    weights = ", ".join(str(w) for w in BM25_WEIGHTS)
    rows = db.execute(
        f"""
        SELECT {_FEATURES}, m.embedding, f.score FROM (
            SELECT rowid, bm25(memories_fts, {weights}) AS score
            FROM memories_fts WHERE memories_fts MATCH ?
            ORDER BY score LIMIT ?
        ) AS f JOIN memories AS m ON m.id = f.rowid
        WHERE +m.status = 'active'
        ORDER BY f.score LIMIT ?
        """,
        [match, limit * 2, limit],
    ).fetchall()
    return [row[:-1] for row in rows], [-row[-1] for row in rows]


def candidate_features(db: Database, ids: Sequence[int]) -> list[tuple]:
    """Fusion inputs (see ``_FEATURES``) of the active memories among ``ids``.

    The unary ``+`` on status keeps SQLite from choosing the (status, kind) index,
    which would walk every active memory instead of looking up a few ids.
    """
    if not len(ids):
        return []
    marks = ",".join("?" * len(ids))
    return db.execute(
        f"SELECT {_FEATURES} FROM memories AS m WHERE +m.status = 'active' AND m.id IN ({marks})",
        [int(i) for i in ids],
    ).fetchall()


def memories_by_id(db: Database, ids: Sequence[int]) -> dict[int, MemoryItem]:
    """The records of ``ids`` in one query (for the few that are returned)."""
    if not len(ids):
        return {}
    marks = ",".join("?" * len(ids))
    rows = db.execute(
        f"SELECT {SELECT_COLUMNS} FROM memories WHERE id IN ({marks})",
        [int(i) for i in ids],
    ).fetchall()
    items = (MemoryItem.from_row(dict(zip(_COLUMN_NAMES, row, strict=True))) for row in rows)
    return {item.id: item for item in items}


def pinned_memories(db: Database) -> list[MemoryItem]:
    """Every active pinned memory, oldest first (a stable order keeps prompts stable)."""
    rows = db.execute(
        f"SELECT {SELECT_COLUMNS} FROM memories WHERE status = 'active' AND pinned = 1 "
        "ORDER BY created_at, id"
    ).fetchall()
    return [MemoryItem.from_row(dict(zip(_COLUMN_NAMES, row, strict=True))) for row in rows]
