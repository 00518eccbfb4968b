"""The SQL behind retrieval: BM25 candidates from FTS5, candidate features, records.

These run on the database thread (see :class:`Store`) with the connection. A search
makes one hop for its lexical candidates (:func:`lexical_hits`, which runs while the
event loop computes the cosine product) and one for the records of its top ``k``
(:func:`~acai_desktop.core.store.memories.memories_by_id`, re-exported here); everything
else comes from the in-memory
:class:`~acai_desktop.core.memory.vector_index.VectorIndex`. They return plain tuples
and arrays, not records, because they sit on the hot path: building a
:class:`MemoryItem` per candidate would cost more than the search.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

import numpy as np

from acai_desktop.core.records.memories import MemoryItem
from acai_desktop.core.store.connection import Database, contents_by_id
from acai_desktop.core.store.dialect import JULIAN_EPOCH_MS
from acai_desktop.core.store.memories import SELECT_COLUMNS, memories_by_id, memory_from_row

__all__ = [
    "JULIAN_EPOCH_MS",
    "active_ranking_facts",
    "candidate_rows",
    "document_counts",
    "document_counts_in",
    "ids_written_after",
    "lexical_hits",
    "memories_by_id",
    "memory_contents",
    "pinned_memories",
]

# The full-text tables a term may be counted in (their names go into the SQL text).
FULL_TEXT_TABLES = ("memories_fts", "messages_fts", "chunks_fts")

# The current time, as both engines read a time.
_NOW = "'now'"
# The later of updated_at and last_used_at, from which recency is measured.
_TOUCHED = "CASE WHEN m.last_used_at > m.updated_at THEN m.last_used_at ELSE m.updated_at END"


def _features(db: Database) -> str:
    """Fusion inputs of a memory, in this column order: id, importance, pinned, age in
    days (since the later of updated_at and last_used_at), conversation id (-1 for none)."""
    return (
        "m.id, m.importance, m.pinned, "
        f"{db.dialect.days_since(_NOW, _TOUCHED)}, coalesce(m.conversation_id, -1)"
    )


def document_counts(
    db: Database, terms: Sequence[str], cap: int, table: str = "memories_fts"
) -> list[int]:
    """How many rows of the full-text ``table`` (``memories_fts`` or ``messages_fts``)
    contain each term (counted up to ``cap + 1``, so a common term costs no more than a
    rare one), in one statement. Terms must be plain tokens (no FTS syntax)."""
    if not terms:
        return []
    if table not in FULL_TEXT_TABLES:
        raise ValueError(f"not a full-text table: {table!r}")
    return db.dialect.full_text.document_counts_in(db, terms, cap, [table])[table]


def document_counts_in(
    db: Database, terms: Sequence[str], cap: int, tables: Sequence[str]
) -> dict[str, list[int]]:
    """:func:`document_counts` of ``terms`` in each of ``tables``, by table, in one
    statement (a search needs them for messages and for memories: one round trip)."""
    if not terms or not tables:
        return {table: [] for table in tables}
    for table in tables:
        if table not in FULL_TEXT_TABLES:
            raise ValueError(f"not a full-text table: {table!r}")
    return db.dialect.full_text.document_counts_in(db, terms, cap, tables)


def match_count(db: Database, match: str, cap: int, table: str = "memories_fts") -> int:
    """How many rows of the full-text ``table`` match the FTS5 expression ``match``,
    counted up to ``cap + 1`` (no BM25: the rows are not scored)."""
    if table not in FULL_TEXT_TABLES:
        raise ValueError(f"not a full-text table: {table!r}")
    return db.dialect.full_text.match_count(db, match, cap, table)


def lexical_hits(
    db: Database, match: str, limit: int, indexed: Callable[[int], bool]
) -> tuple[list[int], list[float], dict[int, tuple]]:
    """The best ``limit`` active memories for an FTS5 MATCH expression: their ids, BM25
    scores (negated: higher is better), and for those not in the vector index the row
    of :func:`candidate_rows` (their fusion inputs and stored embedding).

    ``match`` must come from :func:`acai_desktop.core.memory.query.fts_match_expression`
    (quoted terms only). FTS5 keeps only the best rows while it scores (ORDER BY its
    score with a LIMIT); we ask for spare rows because some may not be active. A memory
    in the vector index (``indexed``) is active, so only the others are looked up:
    joining every hit to ``memories`` cost as much as the scoring (its rows are wide,
    with the embedding, so each lookup reads a page).
    """
    hits = db.dialect.full_text.scored_memory_hits(db, match, limit * 2)
    in_index = [indexed(rowid) for rowid, _ in hits]
    others = [rowid for (rowid, _), known in zip(hits, in_index, strict=True) if not known]
    rows = {row[0]: row for row in candidate_rows(db, others)} if others else {}
    ids, scores = [], []
    for (rowid, score), known in zip(hits, in_index, strict=True):
        if known or rowid in rows:
            ids.append(rowid)
            scores.append(-score)
            if len(ids) == limit:
                break
    return ids, scores, rows


def candidate_rows(db: Database, ids: Sequence[int]) -> list[tuple]:
    """``(*features, embedding blob)`` (see :func:`_features`) of the active memories
    among ``ids``, in id order.

    Status is kept out of index choice: SQLite would choose the (status, kind) index
    and walk every active memory instead of looking up a few ids.
    """
    if not len(ids):
        return []
    marks = ",".join("?" * len(ids))
    return db.execute(
        f"SELECT {_features(db)}, m.embedding FROM memories AS m "
        f"WHERE {db.dialect.unindexed('m.status')} = 'active' AND m.id IN ({marks}) "
        "ORDER BY m.id",
        [int(i) for i in ids],
    ).fetchall()


def memory_contents(db: Database, ids: Sequence[int]) -> dict[int, str]:
    """The text of each memory among ``ids`` (the ranking's lexical candidates, fifty or
    so), by id: the text alone, not the wide row with its embedding."""
    return contents_by_id(db, "memories", ids)


def active_ranking_facts(db: Database) -> tuple[np.ndarray, ...]:
    """``(ids, importance, pinned, touched_ms, conversation_id)`` of every active memory,
    for :meth:`VectorIndex.set_facts_many` (touched_ms: milliseconds since the epoch,
    recovered exactly from julianday(), which counts whole milliseconds)."""
    rows = db.execute(
        f"SELECT m.id, m.importance, m.pinned, "
        f"{db.dialect.epoch_ms(_TOUCHED)}, "
        "coalesce(m.conversation_id, -1) "
        "FROM memories AS m WHERE m.status = 'active'"
    ).fetchall()
    count = len(rows)
    columns = list(zip(*rows, strict=True)) if rows else [(), (), (), (), ()]
    return (
        np.fromiter(columns[0], np.int64, count),
        np.fromiter(columns[1], np.float32, count),
        np.fromiter(columns[2], bool, count),
        np.fromiter((np.nan if t is None else t for t in columns[3]), np.float64, count),
        np.fromiter(columns[4], np.int64, count),
    )


def pinned_memories(db: Database) -> list[MemoryItem]:
    """Every active pinned memory, oldest first (a stable order keeps prompts stable)."""
    rows = db.execute(
        f"SELECT {SELECT_COLUMNS} FROM memories WHERE status = 'active' AND pinned "
        "ORDER BY created_at, id"
    ).fetchall()
    return [memory_from_row(row) for row in rows]


def best_matches_clause(db: Database) -> str:
    """``id IN (…)``: the ids of the best memories for a match expression and a limit
    (its two parameters, see :func:`match_parameter`), for a query of ``memories``."""
    return db.dialect.full_text.best_memories_clause()


def most_important_facts(db: Database, limit: int) -> list[MemoryItem]:
    """Active facts and notes, most important first, at most ``limit``: what is known
    of the user, for a question about them (core.rules.bearings)."""
    return [
        memory_from_row(row)
        for row in db.execute(
            f"SELECT {SELECT_COLUMNS} FROM memories WHERE status = 'active' "
            "AND kind IN ('fact', 'note') ORDER BY importance DESC, updated_at DESC, id LIMIT ?",
            [limit],
        ).fetchall()
    ]


def known_facts(db: Database) -> list[MemoryItem]:
    """Every active fact and note, pinned first, then most important: what the app lists
    for "What do you know about me?" with the built-in model (core.turns.memory_commands)."""
    return [
        memory_from_row(row)
        for row in db.execute(
            f"SELECT {SELECT_COLUMNS} FROM memories WHERE status = 'active' "
            "AND kind IN ('fact', 'note') ORDER BY pinned DESC, importance DESC, "
            "updated_at DESC, id"
        ).fetchall()
    ]


def match_parameter(db: Database, match: str) -> str:
    """``match`` (an FTS5 expression of quoted terms) as this store's search takes it."""
    return db.dialect.full_text.match_parameter(db, match)


def ids_written_after(db: Database, at: str) -> tuple[list[int], list[int]]:
    """The memories created or changed after ``at`` (an ISO time, UTC) and the messages
    written after it: what a prompt rebuilt "as of" ``at`` must leave out (a regenerated
    answer). A memory changed later is left out whole: its text, vector and index
    entries are today's, and a search can't rank the words it had then."""
    memories = [
        row[0]
        for row in db.execute(
            "SELECT id FROM memories WHERE created_at > ? OR updated_at > ?", [at, at]
        )
    ]
    messages = [row[0] for row in db.execute("SELECT id FROM messages WHERE created_at > ?", [at])]
    return memories, messages


def facts_holding(db: Database, match: str, limit: int) -> list[MemoryItem]:
    """Active facts and notes that hold any term of ``match`` (an expression of
    :func:`acai_desktop.core.memory.query.fts_match_expression`), most important first,
    at most ``limit``: the facts that may bear on a kind of request (core.rules.bearings).
    The full-text side keeps spare rows, as some of the best matches are summaries or no
    longer active."""
    return [
        memory_from_row(row)
        for row in db.execute(
            f"SELECT {SELECT_COLUMNS} FROM memories WHERE status = 'active' "
            f"AND kind IN ('fact', 'note') AND {best_matches_clause(db)} "
            "ORDER BY importance DESC, updated_at DESC, id LIMIT ?",
            [match_parameter(db, match), limit * 2, limit],
        ).fetchall()
    ]
