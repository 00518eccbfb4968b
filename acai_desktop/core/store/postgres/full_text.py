"""Full-text search on PostgreSQL: the store's full-text operation where its SQL differs
from SQLite's FTS5 (docs/architecture.md, "Two stores").

Each FTS5 table of SQLite has a ``tsvector`` column here holding FTS5's words (unicode61
split, porter stems; ``acai_fts_words``, migration m018): the content weighted ``A`` at
positions 1-8191, the second column (category, context, heading) ``B`` from 8192 on,
with the row's word count beside it (``search_length``). A score is FTS5's ``bm25()``
(``_BM25``) over the rows the GIN index matches, from statistics the triggers keep
(:func:`statistics_in`), never counted by the search; it is returned with SQLite's sign
conventions, so the callers need no branch of their own.

The match expressions retrieval builds (``memory/query.fts_match_expression``: quoted
terms joined by ``OR`` or ``AND``) are read as their terms and conjunction; each term
becomes the phrase of its words (``acai_fts_query``), as FTS5 reads a quoted term.
"""

from __future__ import annotations

import contextlib
import re
from collections.abc import Iterator, Sequence
from dataclasses import dataclass

#: SQLite's FTS5 table -> (the PostgreSQL table with its ``search_vector``, weight of B
#: as SQLite's bm25() calls give it).
TABLES = {
    "memories_fts": ("memories", 0.4),
    "messages_fts": ("message_recall", 1.0),
    "chunks_fts": ("chunks", 0.5),
}
_QUOTED = re.compile(r'"((?:[^"]|"")*)"')


def _table(fts_table: str) -> tuple[str, float]:
    if fts_table not in TABLES:
        raise ValueError(f"not a full-text table: {fts_table!r}")
    return TABLES[fts_table]


def terms_of(match: str) -> tuple[list[str], str]:
    """The terms of an FTS5 expression of quoted terms (or bare words) and the tsquery
    operator joining them: ``&`` when the expression ANDs them, else ``|``."""
    words = [term.replace('""', '"') for term in _QUOTED.findall(match)]
    if not words:
        words = [w for w in match.split() if w not in ("OR", "AND")]
    joiner = " & " if " AND " in _QUOTED.sub("", match) else " | "
    return list(dict.fromkeys(word for word in words if word.strip())), joiner


@dataclass(frozen=True)
class Statistics:
    """What bm25() reads of a table for some terms: each term's words, how many rows
    hold each word, the table's rows and its words in all."""

    words: list[list[str]]
    documents: dict[str, int]
    rows: int
    tokens: int

    def term_documents(self, position: int) -> int:
        """Rows holding term ``position`` (a term of several words: as many as hold
        its rarest word, an upper bound of the rows holding the phrase)."""
        words = self.words[position]
        return min((self.documents.get(word, 0) for word in words), default=0)


def statistics_in(db, terms: Sequence[str], tables: Sequence[str]) -> dict[str, Statistics]:
    """BM25's statistics of ``terms`` in each full-text table of ``tables``, in one
    statement (kept by the triggers of migration m018, so reading them costs a few index
    lookups whatever the size)."""
    targets = {_table(table)[0]: table for table in tables}
    rows = db.execute(
        "SELECT f.target, c.* FROM unnest(?::text[]) AS f(target), "
        "acai_full_text_counts(f.target, ?::text[]) AS c",
        [list(targets), list(terms)],
    ).fetchall()
    words: dict[str, list[list[str]]] = {table: [[] for _ in terms] for table in tables}
    documents: dict[str, dict[str, int]] = {table: {} for table in tables}
    totals: dict[str, tuple[int, int]] = {table: (0, 0) for table in tables}
    for target, term, _place, word, count, length in rows:
        table = targets[target]
        if term == 0:
            totals[table] = (count, length)
        else:
            words[table][term - 1].append(word)
            documents[table][word] = count
    return {table: Statistics(words[table], documents[table], *totals[table]) for table in tables}


def document_counts_in(
    db, terms: Sequence[str], cap: int, tables: Sequence[str]
) -> dict[str, list[int]]:
    """See :func:`acai_desktop.core.store.search.document_counts_in`."""
    found = statistics_in(db, terms, tables)
    return {
        table: [min(found[table].term_documents(i), cap + 1) for i in range(len(terms))]
        for table in tables
    }


def match_count(db, match: str, cap: int, table: str) -> int:
    target, _ = _table(table)
    terms, joiner = terms_of(match)
    if not terms:
        return 0
    return db.execute(
        f"SELECT count(*) FROM (SELECT 1 FROM {target} "
        "WHERE search_vector @@ acai_fts_query(?::text[], ?) LIMIT ?) AS found",
        [terms, joiner, cap + 1],
    ).fetchone()[0]


def scores(table: str, match: str, second_weight: float | None = None) -> tuple[str, list]:
    """``(SQL, params)``: ``SELECT t.id, score`` (lower is better, as FTS5's bm25()) of
    the rows of ``table`` that ``match`` matches. The caller may add ``AND …``
    conditions on ``t`` and an order."""
    terms, joiner = terms_of(match)
    return _scored(table, terms, second_weight, "acai_fts_query(?::text[], ?)", [terms, joiner])


# A query word's column-weighted count in row ``t`` (its entry ``e``: its positions up
# to 8191 are in the first column, the rest in the second, which counts the second
# parameter), and FTS5's bm25() of the row: per word, IDF x count saturated by k1 = 1.2
# and scaled by the row's length against the table's average (b = 0.75), with the
# words, IDFs and average of ``b`` (acai_bm25_words). The row's vector is first cut
# down to the query's words (marked with weight C, then filtered: two passes in C, half
# the cost of unnesting every word of a message and its neighbours), then unnested.
_HITS = (
    "(width_bucket(8191, e.positions) "
    "+ ?::float8 * (cardinality(e.positions) - width_bucket(8191, e.positions)))"
)
_BM25 = (
    f"(SELECT coalesce(sum(b.idfs[array_position(b.words, e.lexeme)] * {_HITS} * 2.2 "
    f"/ ({_HITS} + 1.2 * (0.25 + 0.75 * t.search_length / b.average))), 0) "
    "FROM unnest(ts_filter(setweight(t.search_vector, 'C', b.words), '{c}')) AS e)"
)


def _scored(
    table: str, terms: list[str], second_weight: float | None, query: str, query_params: list
) -> tuple[str, list]:
    """``(SQL, params)`` of the rows of ``table`` whose vector matches the tsquery
    ``query`` (SQL, with ``query_params``), scored with FTS5's bm25() for ``terms``
    (``_BM25``; a word in the second column counts ``second_weight``). One statement:
    the statistics are read with the rows."""
    target, default_weight = _table(table)
    second = float(default_weight if second_weight is None else second_weight)
    return (
        f"SELECT t.id, -{_BM25} AS score FROM {target} AS t, "
        "acai_bm25_words(?, ?::text[]) AS b WHERE t.search_vector @@ " + query,
        [second, second, target, list(terms), *query_params],
    )


def rank(table: str) -> str:
    """SQL: a cheap relevance of row ``t`` to the tsquery ``q`` (``ts_rank`` with the
    column weights of SQLite's ``bm25()`` call), where no statistics are at hand."""
    _, weight = _table(table)
    return f"ts_rank('{{0, 0, {float(weight)}, 1}}'::real[], t.search_vector, q)"


def best_memories_clause() -> str:
    """See :func:`acai_desktop.core.store.fts5.best_memories_clause` (ranked by
    :func:`rank`: cheap, no statistics)."""
    return (
        "id IN (SELECT t.id FROM memories AS t, CAST(? AS tsquery) AS q "
        f"WHERE t.search_vector @@ q ORDER BY {rank('memories_fts')} DESC LIMIT ?)"
    )


def match_parameter(db, match: str) -> str:
    """``match`` as the text of its tsquery (for a query that takes it as ``?``)."""
    terms, joiner = terms_of(match)
    return db.execute("SELECT acai_fts_query(?::text[], ?)::text", [terms, joiner]).fetchone()[0]


def scored_memory_hits(db, match: str, limit: int) -> list[tuple[int, float]]:
    """The best ``limit`` memories' ids and BM25 scores, lower is better, as FTS5's
    ``bm25()`` gives them (the rest of :func:`acai_desktop.core.store.search.lexical_hits`
    is the same on both stores)."""
    sql, params = scores("memories_fts", match)
    return db.execute(f"{sql} ORDER BY score, t.id LIMIT ?", [*params, limit]).fetchall()


def message_scores(match: str, context_weight: float) -> tuple[str, list]:
    """``(SQL, params)``: (id, score: lower is better) of the recallable messages that
    match, a word in a message's neighbours weighing ``context_weight``."""
    return scores("messages_fts", match, context_weight)


def best_message_scores(match: str, context_weight: float, limit: int) -> tuple[str, list]:
    """As :func:`message_scores`, the best ``limit``."""
    sql, params = message_scores(match, context_weight)
    return f"{sql} ORDER BY score, t.id LIMIT ?", [*params, int(limit)]


def message_bm25(db, match: str, wanted: set[int], context_weight: float) -> dict[int, float]:
    sql, params = message_scores(match, context_weight)
    rows = db.execute(sql, params).fetchall()
    return {rowid: -score for rowid, score in rows if rowid in wanted}


def conversation_message_rows(db, terms: Sequence[str], match: str, limit: int) -> list[tuple]:
    """See :func:`acai_desktop.core.store.conversation_search.message_hits`: every term
    in the message itself as a word or (longer than one letter) the start of one, as
    ``conversation_search.match_expression`` asks of FTS5, best BM25 first (the
    message's own words: ``bm25(messages_fts, 1.0, 0.0)``)."""
    terms = list(terms)
    sql, params = _scored("messages_fts", terms, 0.0, "acai_fts_prefix_query(?::text[])", [terms])
    return db.execute(
        f"""
        SELECT m.id, m.conversation_id, c.title, m.content, m.created_at, m.role
        FROM ({sql} ORDER BY score, t.id LIMIT ?) AS h
        JOIN messages AS m ON m.id = h.id
        JOIN conversations AS c ON c.id = m.conversation_id
        ORDER BY h.score, h.id
        """,
        [*params, int(limit)],
    ).fetchall()


def chunk_hits(
    db, match: str, limit: int, document_ids: Sequence[int] | None, excluded: Sequence[int] = ()
) -> list[tuple[int, float]]:
    """See :func:`acai_desktop.core.store.documents.chunk_hits`."""
    sql, params = scores("chunks_fts", match)
    sql += " AND t.ordinal >= 0"
    if document_ids is not None:
        sql += f" AND t.document_id IN ({', '.join('?' for _ in document_ids)})"
        params += list(document_ids)
    if excluded:
        sql += f" AND t.document_id NOT IN ({', '.join('?' for _ in excluded)})"
        params += list(excluded)
    sql += " ORDER BY score, t.id LIMIT ?"
    return [(r[0], -float(r[1])) for r in db.execute(sql, [*params, limit])]


def merge_step(db, table: str, pages: int) -> bool:
    """PostgreSQL's side of :func:`~acai_desktop.core.store.full_text_upkeep.merge_step`
    (the upkeep after start), for ``table``, done whole (False: nothing to repeat):
    vacuumed, which merges its GIN index's pending entries (an index takes inserts into
    a pending list that every search reads through: 1.6 of a 3 ms memories query after
    5,000 inserts) and drops the dead rows
    that a recall window's updates leave (a search found 419 entries for 174 rows); the
    statistics' changes folded, and the old versions of their rows that many folds
    leave vacuumed too (a word's lookup walked a chain of them: 2.3 ms). Autovacuum
    does the same in time; this is for the search right after an import."""
    target, _ = _table(table)
    db.execute(f"VACUUM (ANALYZE) {target}")
    db.execute("SELECT acai_fold_full_text_changes()")
    db.execute("VACUUM (ANALYZE) full_text_totals, full_text_changes")
    return False


@contextlib.contextmanager
def messages_indexed_once(db) -> Iterator[list[int]]:
    """See :func:`acai_desktop.core.store.fts5.messages_indexed_once`. Here the trigger
    indexes each message as it is inserted: dropping it would lock the table against
    every other computer for the whole batch."""
    yield []
