"""Full-text search on PostgreSQL: the branches of the store's search functions whose
SQL differs from SQLite's FTS5 (docs/architecture.md, "Two stores").

Each FTS5 table of SQLite has a ``tsvector`` column here (``postgres/migrations.py``):
the content weighted ``A``, the second column (category, heading, context) ``B``. A
score sums, per word, the word's IDF in the table times ``ts_rank`` with the weights of
SQLite's ``bm25()`` columns (an unweighted ``D``/``C`` counts 0); it is returned with
SQLite's sign conventions so the callers need no branch of their own.

The match expressions retrieval builds (``memory/query.fts_match_expression``: quoted
terms joined by ``OR`` or ``AND``) are FTS5 syntax; :func:`web_query` says the same in
``websearch_to_tsquery``'s, which stems each term with the index's English stemmer.
"""

from __future__ import annotations

import math
import re
from collections.abc import Sequence

#: SQLite's FTS5 table -> (the PostgreSQL table with its ``search_vector``, weight of B).
TABLES = {
    "memories_fts": ("memories", 0.4),
    "messages_fts": ("message_recall", 1.0),
    "chunks_fts": ("chunks", 0.5),
}
#: ts_rank's normalisation: none. Measured on LoCoMo dev (eval retrieval --store),
#: recall@10: 0.847 with none, 0.811 over 1 + log(length), 0.758 over the length
#: (SQLite's BM25: 0.858).
_NORMALISATION = 0
_QUOTED = re.compile(r'"((?:[^"]|"")*)"')
#: One word of a match (a parameter), stemmed as the index's words are.
_WORD = "websearch_to_tsquery('english', ?)"


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


#: The search box's order (most relevant message first, as BM25 puts a short message
#: holding the words above a long one): over 1 + log(the text's length).
_SEARCH_BOX_NORMALISATION = 1


def rank(
    table: str, second_weight: float | None = None, normalisation: int = _NORMALISATION
) -> str:
    _, weight = _table(table)
    weights = _weights(weight if second_weight is None else second_weight)
    return f"ts_rank({weights}, t.search_vector, q, {normalisation})"


def _terms(match: str) -> list[str]:
    """The words of a match expression (its quoted terms, or bare words)."""
    words = [term.replace('"', "") for term in _QUOTED.findall(match)]
    if not words:
        words = [w for w in match.split() if w not in ("OR", "AND")]
    return list(dict.fromkeys(word for word in words if word.strip()))


#: FTS5's bm25() constants (fts5_aux.c): term-frequency saturation and length weight.
_K1 = 1.2
_B = 0.75
#: FTS5's floor for a word in more than half of the rows (its IDF would be <= 0).
_IDF_FLOOR = 1e-6
#: Per table, the text a row's length is measured over (both indexed columns), as
#: FTS5's BM25 counts a row's tokens in every column; characters stand for tokens (the
#: length only counts relative to the table's average), so no stored length is needed.
_LENGTH = {
    "memories": "length(t.content) + length(coalesce(t.category, ''))",
    "message_recall": "length(t.content) + length(t.context)",
    "chunks": "length(t.content) + length(t.heading)",
}


def _idf(total: int, holding: int) -> float:
    """A word's IDF exactly as FTS5's bm25() computes it."""
    holding = min(holding, total)
    idf = math.log((total - holding + 0.5) / (holding + 0.5))
    return idf if idf > 0 else _IDF_FLOOR


def _frequency(second: float) -> str:
    """SQL: the weighted count of a word's lexemes (parameter: text[]) in row ``t``,
    BM25's column-weighted term frequency (a lexeme in the second column counts
    ``second``); a word stemmed to several lexemes counts their mean."""
    return (
        "(SELECT coalesce(sum(CASE w WHEN 'A' THEN 1.0 WHEN 'B' THEN "
        f"{float(second)!r} ELSE 0 END), 0) / greatest(cardinality(?::text[]), 1) "
        "FROM unnest(t.search_vector) AS u(lexeme, positions, weights), "
        "unnest(u.weights) AS w WHERE u.lexeme = ANY(?::text[]))"
    )


def bm25_rank(db, table: str, match: str, second_weight: float | None = None):
    """``(SQL, params)``: a match's score over row ``t`` of ``table``'s PostgreSQL table,
    higher is better, as FTS5's bm25() computes it: per word, its IDF in the table times
    its column-weighted frequency in the row saturated by k1 and normalised by the row's
    length against the table's average (b), summed over the words."""
    target, weight = _table(table)
    terms = _terms(match)
    if not terms:
        return "0.0", []
    second = weight if second_weight is None else second_weight
    count = f"(SELECT count(*) FROM {target} WHERE search_vector @@ {_WORD})"
    lexemes = "(SELECT coalesce(array_agg(lexeme), '{}') FROM unnest(to_tsvector('english', ?)))"
    length = _LENGTH[target]
    # One statement, so one snapshot: the table's size and each word's count must agree.
    # Read apart, another process's rows committed in between made a word's count
    # exceed the total, and its IDF the log of a negative number.
    found = db.execute(
        f"SELECT (SELECT count(*) FROM {target}), "
        f"(SELECT coalesce(avg({length}), 0) FROM {target} AS t), "
        + ", ".join([f"{count}, {lexemes}"] * len(terms)),
        [value for term in terms for value in (f'"{term}"', term)],
    ).fetchone()
    total, average = found[0], float(found[1] or 0.0)
    norm = f"{_K1!r} * ({1 - _B!r} + {_B!r} * ({length}) / {max(average, 1.0)!r})"
    parts, params = [], []
    for index in range(len(terms)):
        holding, words = found[2 + 2 * index], list(found[3 + 2 * index] or [])
        if not words:
            continue
        tf = _frequency(second)
        parts.append(f"{_idf(total, holding)!r} * ({tf} * {_K1 + 1!r}) / ({tf} + {norm})")
        params += [words, words, words, words]
    if not parts:
        return "0.0", []
    return "(" + " + ".join(parts) + ")", params


def scored_memory_hits(db, match: str, limit: int) -> list[tuple[int, float]]:
    """The best ``limit`` memories' ids and BM25 scores, lower is better, as FTS5's
    ``bm25()`` gives them (the rest of :func:`acai_desktop.core.store.search.lexical_hits`
    is the same on both stores)."""
    score, score_params = bm25_rank(db, "memories_fts", match)
    return db.execute(
        f"SELECT t.id, -{score} AS score "
        "FROM memories AS t, websearch_to_tsquery('english', ?) AS q "
        "WHERE t.search_vector @@ q ORDER BY score, t.id LIMIT ?",
        [*score_params, web_query(match), limit],
    ).fetchall()


def message_scores(db, match: str, context_weight: float) -> tuple[str, list]:
    """``(SQL, params)``: (id, score: lower is better) of the recallable messages that
    match, a word in a message's neighbours weighing ``context_weight``."""
    score, params = bm25_rank(db, "messages_fts", match, context_weight)
    return (
        f"SELECT t.id, -{score} AS score "
        "FROM message_recall AS t, websearch_to_tsquery('english', ?) AS q "
        "WHERE t.search_vector @@ q",
        [*params, web_query(match)],
    )


def message_bm25(db, match: str, wanted: set[int], context_weight: float) -> dict[int, float]:
    sql, params = message_scores(db, match, context_weight)
    rows = db.execute(sql, params).fetchall()
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
        FROM (SELECT t.id, -{rank("messages_fts", 0.0, _SEARCH_BOX_NORMALISATION)} AS score
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
