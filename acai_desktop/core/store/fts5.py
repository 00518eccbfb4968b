"""Full-text search on SQLite: FTS5 (docs/architecture.md, "Two stores").

The store's full-text operation, SQLite's side; ``postgres/full_text.py`` is
PostgreSQL's, with the same functions. A store function reaches its store's as
``db.dialect.full_text``. Match expressions are FTS5's: quoted terms joined by ``OR`` or
``AND`` (``memory/query.fts_match_expression``). Scores are FTS5's ``bm25()``: lower is
better, except where a function says it returns them negated.
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator, Sequence

# bm25() weights of memories_fts's columns (content, category): a category word
# ("food") should count, but less than the same word in the memory's text.
BM25_WEIGHTS = (1.0, 0.4)


def document_counts_in(
    db, terms: Sequence[str], cap: int, tables: Sequence[str]
) -> dict[str, list[int]]:
    """See :func:`acai_desktop.core.store.search.document_counts_in`."""
    counts, arguments = [], []
    for table in tables:
        count = f"(SELECT count(*) FROM (SELECT rowid FROM {table} WHERE {table} MATCH ? LIMIT ?))"
        for term in terms:
            counts.append(count)
            arguments += ['"' + term.replace('"', '""') + '"', cap + 1]
    row = list(db.execute("SELECT " + ", ".join(counts), arguments).fetchone())
    return {
        table: row[position * len(terms) : (position + 1) * len(terms)]
        for position, table in enumerate(tables)
    }


def match_count(db, match: str, cap: int, table: str) -> int:
    """See :func:`acai_desktop.core.store.search.match_count`."""
    return db.execute(
        f"SELECT count(*) FROM (SELECT rowid FROM {table} WHERE {table} MATCH ? LIMIT ?)",
        [match, cap + 1],
    ).fetchone()[0]


def scored_memory_hits(db, match: str, limit: int) -> list[tuple[int, float]]:
    """The best ``limit`` memories' ids and BM25 scores, lower is better. FTS5 keeps
    only the best rows while it scores (ORDER BY its score with a LIMIT)."""
    weights = ", ".join(str(w) for w in BM25_WEIGHTS)
    return db.execute(
        f"""
        SELECT rowid, bm25(memories_fts, {weights}) AS score
        FROM memories_fts WHERE memories_fts MATCH ?
        ORDER BY score LIMIT ?
        """,
        [match, limit],
    ).fetchall()


def best_memories_clause() -> str:
    """``id IN (…)``: the ids of the best memories for a match expression and a limit
    (its two parameters: :func:`match_parameter`'s and the limit)."""
    return "id IN (SELECT rowid FROM memories_fts WHERE memories_fts MATCH ? ORDER BY rank LIMIT ?)"


def match_parameter(db, match: str) -> str:
    """``match`` as this store's search takes it (FTS5 reads the expression itself)."""
    return match


def best_message_scores(match: str, context_weight: float, limit: int) -> tuple[str, list]:
    """``(SQL, params)``: ``SELECT id, score`` (lower is better) of the best ``limit``
    recallable messages for ``match``, BM25 weighing a word in the message 1 and in its
    neighbours' text ``context_weight``."""
    return (
        "SELECT rowid AS id, bm25(messages_fts, 1.0, ?) AS score FROM messages_fts "
        "WHERE messages_fts MATCH ? ORDER BY score LIMIT ?",
        [float(context_weight), match, int(limit)],
    )


def message_scores(match: str, context_weight: float) -> tuple[str, list]:
    """As :func:`best_message_scores`, every match (in no order)."""
    return (
        "SELECT rowid AS id, bm25(messages_fts, 1.0, ?) AS score FROM messages_fts "
        "WHERE messages_fts MATCH ?",
        [float(context_weight), match],
    )


def message_bm25(db, match: str, wanted: set[int], context_weight: float) -> dict[int, float]:
    """See :func:`acai_desktop.core.store.episodes.message_bm25`: every match is scored
    and the wanted ones kept (FTS5 answers ``rowid IN (...)`` by running the query once
    per id)."""
    rows = db.execute(
        "SELECT rowid, -bm25(messages_fts, 1.0, ?) FROM messages_fts WHERE messages_fts MATCH ?",
        [float(context_weight), match],
    ).fetchall()
    return {rowid: score for rowid, score in rows if rowid in wanted}


def conversation_message_rows(db, terms: Sequence[str], match: str, limit: int) -> list[tuple]:
    """See :func:`acai_desktop.core.store.conversation_search.message_hits` (``match``:
    the FTS5 expression of ``terms``)."""
    return db.execute(
        """
        SELECT m.id, m.conversation_id, c.title, m.content, m.created_at, m.role
        FROM (SELECT rowid AS id, bm25(messages_fts, 1.0, 0.0) AS score
              FROM messages_fts WHERE messages_fts MATCH ?
              ORDER BY score LIMIT ?) AS h
        JOIN messages AS m ON m.id = h.id
        JOIN conversations AS c ON c.id = m.conversation_id
        ORDER BY h.score, h.id
        """,
        [match, int(limit)],
    ).fetchall()


def chunk_hits(
    db, match: str, limit: int, document_ids: Sequence[int] | None, excluded: Sequence[int]
) -> list[tuple[int, float]]:
    """See :func:`acai_desktop.core.store.documents.chunk_hits`."""
    sql = (
        "SELECT c.id, -bm25(chunks_fts, 1.0, 0.5) FROM chunks_fts "
        "JOIN chunks AS c ON c.id = chunks_fts.rowid WHERE chunks_fts MATCH ? AND c.ordinal >= 0"
    )
    params: list = [match]
    if document_ids is not None:
        sql += f" AND c.document_id IN ({', '.join('?' for _ in document_ids)})"
        params += list(document_ids)
    if excluded:
        sql += f" AND c.document_id NOT IN ({', '.join('?' for _ in excluded)})"
        params += list(excluded)
    sql += " ORDER BY bm25(chunks_fts, 1.0, 0.5) LIMIT ?"
    return [(r[0], float(r[1])) for r in db.execute(sql, [*params, limit])]


def merge_step(db, table: str, pages: int) -> bool:
    """See :func:`acai_desktop.core.store.full_text_upkeep.merge_step`: one bounded merge
    of ``table``'s segments into one. (FTS5 tells whether a merge did anything only
    through the connection's change count: a step that worked counts two or more.)"""
    before = db.conn.total_changes
    with db.atomic():
        db.execute(f"INSERT INTO {table}({table}, rank) VALUES('merge', ?)", [-pages])
    return db.conn.total_changes - before >= 2


# The pair that re-indexes a window around each inserted message: the BEFORE one takes
# the window's rows out (as the view shows them before the insert), the AFTER one puts
# them back. Both go: with only the first, each new message would take its conversation's
# earlier ones out of an index they are not in yet.
_INSERT_TRIGGERS = ("messages_fts_insert_before", "messages_fts_insert")


@contextlib.contextmanager
def messages_indexed_once(db) -> Iterator[list[int]]:
    """Inside the caller's transaction: messages inserted meanwhile (their ids go in
    the list) are put in ``messages_fts`` once each, at the end, instead of by the
    insert triggers, which re-index the two messages before each new one with their
    neighbours' text (a whole conversation written message by message is indexed three
    times over: two thirds of an import's time). For new conversations only: no
    message of theirs was indexed before. The triggers are dropped and made again from
    their own stored SQL in the same transaction, so no other connection ever sees the
    schema without them."""
    triggers = [
        db.execute(
            "SELECT sql FROM sqlite_master WHERE type = 'trigger' AND name = ?", [name]
        ).fetchone()[0]
        for name in _INSERT_TRIGGERS
    ]
    for name in _INSERT_TRIGGERS:
        db.execute(f"DROP TRIGGER {name}")
    ids: list[int] = []
    yield ids
    for start in range(0, len(ids), 500):
        chunk = ids[start : start + 500]
        marks = ",".join("?" * len(chunk))
        db.execute(
            "INSERT INTO messages_fts (rowid, content, context) SELECT id, content, context "
            f"FROM message_recall_rows WHERE id IN ({marks})",
            chunk,
        )
    for trigger_sql in triggers:
        db.execute(trigger_sql)
