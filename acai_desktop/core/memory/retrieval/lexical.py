"""The full-text (BM25) side of a search, over memories and over messages."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from acai_desktop.core.memory.query import fts_match_expression
from acai_desktop.core.memory.retrieval.candidates import EpisodicQuery
from acai_desktop.core.memory.retrieval.weights import RetrievalWeights
from acai_desktop.core.store import episodes
from acai_desktop.core.store import search as sql
from acai_desktop.core.store.connection import Database


@dataclass
class LexicalCandidates:
    ids: list[int]  # best BM25 first
    bm25: list[float]
    # Fusion inputs and stored embedding of the candidates that are not in the index
    # (see sql.candidate_rows); the others' come from the index.
    rows: dict[int, tuple]


NO_LEXICAL = LexicalCandidates([], [], {})


def lexical_candidates(
    db: Database,
    terms: list[str],
    weights: RetrievalWeights,
    indexed: Callable[[int], bool],
    counts: dict[str, list[int]] | None = None,
    spare: int = 0,
) -> LexicalCandidates:
    """Runs on the database thread: the BM25 candidates of ``terms`` among memories.

    ``spare``: how many of them the caller will leave out (excluded ids: another
    project's memories), asked for beyond ``weights.candidates`` so that they don't
    crowd out the ones it keeps.

    ``indexed`` is the index's membership test, a single dict lookup (atomic under the
    GIL) while the loop may be changing the index; a memory it reports is active, and
    the ranking checks again when it loads the records.
    """
    match = lexical_match(db, terms, weights.lexical_budget_documents, counts=counts)
    if not match:
        return NO_LEXICAL
    return LexicalCandidates(*sql.lexical_hits(db, match, weights.candidates + spare, indexed))


def lexical_match(
    db: Database,
    terms: list[str],
    budget: int,
    table: str = "memories_fts",
    counts: dict[str, list[int]] | None = None,
) -> str | None:
    """The FTS5 expression for ``terms``, kept cheap (see ``lexical_budget_documents``).

    BM25 reads the length of every row that matches, so the expression must match at
    most about ``budget`` rows. Rarest words first, OR-ed, while together they occur
    in at most ``budget`` rows. When even the rarest word is commoner than that, the
    rarest ones are AND-ed instead, as many as it takes to match ``budget`` rows or
    fewer (rows holding them all are few and are the ones BM25 would have put on top
    anyway). A lone word commoner than the budget gives no expression: its IDF is
    near zero, every match would score about alike, and scoring thousands of them
    (a message's row holds its neighbours' words too) cost milliseconds. The
    semantic side still sees everything. ``counts``: where to keep how many rows
    hold each term (by table), for the relevance floor; the ones it already holds
    for ``table`` (counted up to ``budget``, see :func:`count_terms`) are used.
    """
    if not terms:
        return None
    found = counts.get(table) if counts is not None else None
    if found is None:
        found = sql.document_counts(db, terms, budget, table)
    if counts is not None:
        counts[table] = found  # the relevance floor weighs the words with them
    present = sorted((count, position) for position, count in enumerate(found) if count)
    kept, total = [], 0
    for count, position in present:
        if total + count > budget:
            break
        kept.append(position)
        total += count
    if kept:
        return fts_match_expression([terms[position] for position in sorted(kept)])
    if len(present) < 2:
        return None
    rarest = [position for _, position in present]
    chosen = rarest[:2]
    for position in rarest[2:]:
        together = fts_match_expression([terms[p] for p in sorted(chosen)], conjunction="AND")
        if sql.match_count(db, together, budget, table) <= budget:
            break
        chosen.append(position)
    return fts_match_expression([terms[p] for p in sorted(chosen)], conjunction="AND")


def count_terms(
    db: Database, terms: list[str], weights: RetrievalWeights, tables: list[str]
) -> dict[str, list[int]]:
    """How many rows of each full-text table in ``tables`` hold each term, counted up
    to ``lexical_budget_documents`` (what :func:`lexical_match` counts), in one
    statement: a search's ranking counts the words in messages and in memories."""
    if not terms or not tables:
        return {}
    return sql.document_counts_in(db, terms, weights.lexical_budget_documents, tables)


def message_matches(
    db: Database,
    terms: list[str],
    weights: RetrievalWeights,
    episodic: EpisodicQuery,
    counts: dict[str, list[int]] | None = None,
) -> tuple[str | None, list[tuple]]:
    """The message tier's FTS expression and its best BM25 rows (see
    :func:`episodes.message_hits`), the excluded messages left out."""
    if not terms:
        return None, []
    match = lexical_match(
        db, terms, weights.lexical_budget_documents, episodes.MESSAGES_FTS, counts
    )
    if not match:
        return None, []
    rows = episodes.message_hits(
        db,
        match,
        weights.message_candidates + len(episodic.excluded),
        weights.message_context,
        episodic.now,
    )
    rows = [row for row in rows if row[0] not in episodic.excluded]
    return match, rows[: weights.message_candidates]
