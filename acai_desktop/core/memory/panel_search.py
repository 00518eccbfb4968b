"""The memory panel's search by topic and meaning: which memories a search finds beside
those holding its words, most relevant first.

A memory's relevance to a search is

    relevance = max(cosine(search, memory), cosine(search + topic words, memory))
                + words    if the memory uses a word of the search or of its topics
                + category if its category belongs to a topic the search names

Topics come from a small lexicon (:mod:`~acai_desktop.core.memory.topics`): "food" is
about diets and allergies, "family" about partners, children and siblings, "work"
about jobs and employers. The candidates are the memories closest in meaning (the
vector index: active memories) and those holding a topic word or in a topic's category
(any memory the panel shows). Those at or above ``threshold`` are kept, best first, at
most ``limit``. The weights and the threshold were calibrated on the ``tune`` profile of
``benchmarks/data/panel_search_queries.json`` (``eval panel-search``): 0.30
with bonuses of 0.15 is the highest threshold that keeps recall@20 at 1.0 there (0.35
drops it to 0.963, bonuses of 0.10 to 0.963; 0.25 lists 3.0 memories a query, not 2.8).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np

from acai_desktop.core.memory.query import STOP_WORDS, fts_match_expression
from acai_desktop.core.memory.topics import search_words, topics_of
from acai_desktop.core.records.memories import MemoryStatus
from acai_desktop.core.store.search import best_matches_clause, match_parameter

if TYPE_CHECKING:
    from acai_desktop.core.memory.vector_index import VectorIndex
    from acai_desktop.core.models.embeddings.base import Embedder
    from acai_desktop.core.store.connection import Database
    from acai_desktop.core.store.database import Store

PANEL_STATUSES = tuple(status.value for status in MemoryStatus if status.is_current)


@dataclass(frozen=True)
class PanelSearchWeights:
    words: float = 0.15
    category: float = 0.15
    threshold: float = 0.30
    limit: int = 40
    #: Memories closest in meaning looked at (per query vector).
    semantic_candidates: int = 100
    #: Memories holding a topic word, or in a topic's category, looked at.
    topic_candidates: int = 400


@dataclass(frozen=True)
class SearchTerms:
    """What a search asks for: its own words, its topics' words and categories."""

    text: str
    words: tuple[str, ...]
    related: tuple[str, ...]
    categories: frozenset[str]

    @classmethod
    def of(cls, text: str) -> SearchTerms:
        own = tuple(w for w in dict.fromkeys(search_words(text)) if w not in STOP_WORDS)
        topics = topics_of(text)
        related = tuple(dict.fromkeys([*own, *(w for t in topics for w in t.words)]))
        categories = frozenset(c for t in topics for c in t.categories)
        return cls(text, own, related, categories)

    @property
    def expanded(self) -> str:
        """The search with its topics' words: the text whose meaning stands for the topic."""
        extra = [w for w in self.related if w not in self.words]
        return " ".join([self.text, *extra])

    def uses_a_word(self) -> re.Pattern[str] | None:
        if not self.related:
            return None
        alternatives = "|".join(re.escape(w) for w in sorted(self.related, key=len, reverse=True))
        return re.compile(rf"\b(?:{alternatives})(?:s|es)?\b", re.IGNORECASE)


def _topic_rows(
    db: Database, terms: SearchTerms, ids: list[int], limit: int
) -> list[tuple[int, str, str | None, bytes | None, str | None]]:
    """(id, content, category, embedding, embedding model) of the current memories that
    are semantic candidates (``ids``), hold a word of the search or its topics, or are in
    one of its topics' categories (database thread)."""
    statuses = ", ".join("?" for _ in PANEL_STATUSES)
    clauses, params = [], []
    match = fts_match_expression(
        [w.replace("'", " ").split()[0] for w in terms.related if w.replace("'", " ").strip()]
    )
    if match:
        clauses.append(best_matches_clause(db))
        params += [match_parameter(db, match), limit]
    if terms.categories:
        clauses.append(f"lower(category) IN ({', '.join('?' for _ in terms.categories)})")
        params += sorted(terms.categories)
    if ids:
        clauses.append(f"id IN ({', '.join('?' for _ in ids)})")
        params += ids
    if not clauses:
        return []
    return db.execute(
        "SELECT id, content, category, embedding, embedding_model FROM memories "
        f"WHERE status IN ({statuses}) AND ({' OR '.join(clauses)}) LIMIT ?",
        [*PANEL_STATUSES, *params, limit + len(ids)],
    ).fetchall()


async def rank_for_panel(
    store: Store,
    index: VectorIndex,
    embedder: Embedder,
    text: str,
    weights: PanelSearchWeights | None = None,
) -> list[tuple[int, float]]:
    """(memory id, relevance) of the memories a panel search finds, most relevant first
    (see the module docstring)."""
    weights = weights or PanelSearchWeights()
    terms = SearchTerms.of(text)
    if not text.strip():
        return []
    vectors = np.asarray(await embedder.embed([text, terms.expanded]), dtype=np.float32)
    candidates: list[int] = []
    if len(index):
        for vector in vectors:
            ids, _ = index.top_k(vector, weights.semantic_candidates)
            candidates += [int(i) for i in ids]
    candidates = list(dict.fromkeys(candidates))
    rows = await store.run(_topic_rows, terms, candidates, weights.topic_candidates)
    pattern = terms.uses_a_word()
    found: list[tuple[int, float]] = []
    for memory_id, content, category, blob, model in rows:
        if blob is not None and model == embedder.name and len(blob) == embedder.dimensions * 4:
            vector = np.frombuffer(blob, dtype=np.float32)
            norm = float(np.linalg.norm(vector)) or 1.0
            meaning = float(np.max(vectors @ vector)) / norm
        else:
            meaning = 0.0
        relevance = meaning
        if pattern is not None and pattern.search(content or ""):
            relevance += weights.words
        if (category or "").strip().lower() in terms.categories:
            relevance += weights.category
        if relevance >= weights.threshold:
            found.append((int(memory_id), round(relevance, 4)))
    found.sort(key=lambda hit: (-hit[1], -hit[0]))
    return found[: weights.limit]
