"""Full-text search on PostgreSQL: the branches of the store's search functions whose
SQL differs from SQLite's FTS5 (docs/architecture.md, "Two stores").

Each FTS5 table of SQLite has a ``tsvector`` column here (``postgres/migrations.py``):
the content weighted ``A``, the second column (category, heading, context) ``B``. A
score is ``ts_rank`` with the weights of SQLite's ``bm25()`` columns (an unweighted
``D``/``C`` counts 0), divided by 1 + log(length) as BM25 also prefers short texts; it is
returned with SQLite's sign conventions so the callers need no branch of their own.

The match expressions retrieval builds (``memory/query.fts_match_expression``: quoted
terms joined by ``OR`` or ``AND``) are FTS5 syntax; :func:`web_query` says the same in
``websearch_to_tsquery``'s, which stems each term with the index's English stemmer.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence

#: SQLite's FTS5 table -> (the PostgreSQL table with its ``search_vector``, weight of B).
TABLES = {
    "memories_fts": ("memories", 0.4),
    "messages_fts": ("message_recall", 1.0),
    "chunks_fts": ("chunks", 0.5),
}
#: ts_rank's normalisation: divide by 1 + log(the text's length).
_NORMALISATION = 1
_QUOTED = re.compile(r'"((?:[^"]|"")*)"')


def web_query(match: str) -> str:
    """An FTS5 expression of quoted terms (or bare words) joined by OR/AND as
    websearch_to_tsquery text."""
    parts = []
    for token in re.split(r'("(?:[^"]|"")*")', match):
        quoted = _QUOTED.fullmatch(token)
        if quoted:
            # websearch has no escape for a quote inside a phrase; a term holds none
            # (tokenize strips them), so dropping one loses nothing.
            parts.append('"' + quoted.group(1).replace('"', "") + '"')
        elif token.strip() == "OR":
            parts.append(" or ")
        elif token.strip() == "AND" or not token.strip():
            parts.append(" ")
        else:
            # Bare words: websearch_to_tsquery reads any text (it never fails on syntax).
            parts.append(token)
    return "".join(parts).strip()


def _weights(second: float) -> str:
    return f"'{{0, 0, {float(second)}, 1}}'::real[]"


def _table(fts_table: str) -> tuple[str, float]:
    if fts_table not in TABLES:
        raise ValueError(f"not a full-text table: {fts_table!r}")
    return TABLES[fts_table]


def document_counts(db, terms: Sequence[str], cap: int, table: str) -> list[int]:
    """See :func:`acai_desktop.core.store.search.document_counts`."""
    target, _ = _table(table)
    count = (
        f"(SELECT count(*) FROM (SELECT 1 FROM {target} "
        "WHERE search_vector @@ websearch_to_tsquery('english', ?) LIMIT ?) AS found)"
    )
    arguments: list = []
    for term in terms:
        arguments += ['"' + term.replace('"', "") + '"', cap + 1]
    row = db.execute("SELECT " + ", ".join([count] * len(terms)), arguments).fetchone()
    return list(row)


def match_count(db, match: str, cap: int, table: str) -> int:
    target, _ = _table(table)
    return db.execute(
        f"SELECT count(*) FROM (SELECT 1 FROM {target} "
        "WHERE search_vector @@ websearch_to_tsquery('english', ?) LIMIT ?) AS found",
        [web_query(match), cap + 1],
    ).fetchone()[0]


def rank(table: str, second_weight: float | None = None) -> str:
    _, weight = _table(table)
    weights = _weights(weight if second_weight is None else second_weight)
    return f"ts_rank({weights}, t.search_vector, q, {_NORMALISATION})"


def lexical_hits(
    db, match: str, limit: int, indexed: Callable[[int], bool], candidate_rows
) -> tuple[list[int], list[float], dict[int, tuple]]:
    """See :func:`acai_desktop.core.store.search.lexical_hits` (same result)."""
    hits = db.execute(
        f"SELECT t.id, -{rank('memories_fts')} AS score "
        "FROM memories AS t, websearch_to_tsquery('english', ?) AS q "
        "WHERE t.search_vector @@ q ORDER BY score, t.id LIMIT ?",
        [web_query(match), limit * 2],
    ).fetchall()
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


def message_scores_sql(context_weight: float) -> str:
    """The subquery of (id, score: lower is better) of the recallable messages that match
    the websearch parameter (its one ``?``)."""
    return (
        f"SELECT t.id, -{rank('messages_fts', context_weight)} AS score "
        "FROM message_recall AS t, websearch_to_tsquery('english', ?) AS q "
        "WHERE t.search_vector @@ q"
    )


def message_bm25(db, match: str, wanted: set[int], context_weight: float) -> dict[int, float]:
    rows = db.execute(message_scores_sql(context_weight), [web_query(match)]).fetchall()
    return {rowid: -score for rowid, score in rows if rowid in wanted}


def prefix_query(terms: Sequence[str]) -> str:
    """A to_tsquery text requiring every term in the message itself (weight A), each as
    a stemmed word or a prefix (a one-letter term only as a word), as
    ``conversation_search.match_expression`` asks of FTS5."""
    parts = []
    for term in terms:
        quoted = "'" + term.replace("'", "''").replace("\\", "") + "'"
        parts.append(f"({quoted}:A | {quoted}:*A)" if len(term) > 1 else f"{quoted}:A")
    return " & ".join(parts)


def conversation_message_rows(db, terms: Sequence[str], limit: int) -> list[tuple]:
    """See :func:`acai_desktop.core.store.conversation_search.message_hits`."""
    return db.execute(
        f"""
        SELECT m.id, m.conversation_id, c.title, m.content, m.created_at, m.role
        FROM (SELECT t.id, -{rank("messages_fts", 0.0)} AS score
              FROM message_recall AS t, to_tsquery('english', ?) AS q
              WHERE t.search_vector @@ q ORDER BY score, t.id LIMIT ?) AS h
        JOIN messages AS m ON m.id = h.id
        JOIN conversations AS c ON c.id = m.conversation_id
        ORDER BY h.score, h.id
        """,
        [prefix_query(terms), int(limit)],
    ).fetchall()


def chunk_hits(
    db, match: str, limit: int, document_ids: Sequence[int] | None, excluded: Sequence[int] = ()
) -> list[tuple[int, float]]:
    """See :func:`acai_desktop.core.store.documents.chunk_hits`."""
    sql = (
        f"SELECT t.id, {rank('chunks_fts')} AS score "
        "FROM chunks AS t, websearch_to_tsquery('english', ?) AS q "
        "WHERE t.search_vector @@ q AND t.ordinal >= 0"
    )
    params: list = [web_query(match)]
    if document_ids is not None:
        sql += f" AND t.document_id IN ({', '.join('?' for _ in document_ids)})"
        params += list(document_ids)
    if excluded:
        sql += f" AND t.document_id NOT IN ({', '.join('?' for _ in excluded)})"
        params += list(excluded)
    sql += " ORDER BY score DESC, t.id LIMIT ?"
    return [(r[0], float(r[1])) for r in db.execute(sql, [*params, limit])]
