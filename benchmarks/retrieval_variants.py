"""Variants of the app's ranking, for ``python -m benchmarks eval retrieval`` experiments.

The app ranks one way (:class:`HybridRetriever` with plain :class:`RetrievalWeights`).
The ideas measured against it and not adopted live here, as a retriever that
overrides the steps they change, so the table in docs/benchmarks.md can be measured again:

- ``fusion``: "rrf" (reciprocal rank fusion), "lexical" (BM25 only: no semantic
  candidates, no cosine in the score) or "semantic" (no full-text query at all);
- ``prf_docs``: pseudo-relevance feedback, a second semantic pass with the query
  vector moved towards the first pass's best memories;
- ``stop_words`` off: every word of the question is a query word;
- ``semantic_query`` "raw": the question is embedded as typed, not its informative words;
- ``lexical_norm`` "saturate": a memory's words weigh its BM25 scaled as s / (s + c)
  (the app's until 2026-12-02), "max": its BM25 divided by the query's best score,
  not the share of the query's weight they hold (``memory_tier.held_weight``);
- ``semantic_norm`` "minmax": the cosine rescaled between the semantic candidates'
  worst and best, not the raw cosine.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from datetime import date

import numpy as np

from acai_desktop.core.memory.query import ProcessedQuery, fts_match_expression, process_query
from acai_desktop.core.memory.retrieval import (
    HybridRetriever,
    RetrievalWeights,
    Retrieved,
    RetrievedMemory,
    SearchQuery,
)
from acai_desktop.core.memory.retrieval.candidates import (
    SemanticCandidates,
    no_semantic_candidates,
    scale_between,
)
from acai_desktop.core.memory.retrieval.fusion import Evidence
from acai_desktop.core.memory.retrieval.ranking import RankRequest
from acai_desktop.core.memory.vector_index import VectorIndex
from acai_desktop.core.models.embeddings.base import Embedder
from acai_desktop.core.rules.words import tokenize
from acai_desktop.core.store.database import Store

FUSIONS = ("normalised", "rrf", "lexical", "semantic")


@dataclass(frozen=True)
class RetrievalVariant:
    """One idea (or several) changed from the app's ranking; the defaults are the app's."""

    fusion: str = "normalised"  # see FUSIONS
    rrf_k: float = 60.0
    prf_docs: int = 0
    prf_weight: float = 0.5
    stop_words: bool = True
    semantic_query: str = "terms"  # | "raw"
    lexical_norm: str = "share"  # | "saturate" | "max"
    semantic_norm: str = "raw"  # | "minmax"

    @property
    def is_the_app(self) -> bool:
        return self == RetrievalVariant()


class VariantRetriever(HybridRetriever):
    """:class:`HybridRetriever` with the steps a :class:`RetrievalVariant` changes."""

    def __init__(self, *args, variant: RetrievalVariant, **kwargs) -> None:
        super().__init__(*args, **kwargs)
        if variant.fusion not in FUSIONS:
            raise ValueError(f"fusion must be one of {FUSIONS}")
        self.variant = variant

    def understand(self, query: str, today: date | None = None) -> SearchQuery:
        variant = self.variant
        if variant.stop_words:
            processed = process_query(query, today)
        else:
            terms = list(dict.fromkeys(tokenize(query)))
            processed = ProcessedQuery(text=query, terms=terms, fts=fts_match_expression(terms))
        embedded = query
        if variant.semantic_query == "terms" and processed.terms:
            embedded = " ".join(processed.terms)
        understood = SearchQuery.of(processed, embedded)
        if variant.fusion == "semantic":
            understood = replace(understood, terms=[])
        return understood

    async def rank(
        self, request: RankRequest, vector: np.ndarray | None, *, embed: str | None = None
    ) -> list[Retrieved]:
        if self.variant.prf_docs and embed is not None:
            # Feedback needs the query's vector here, not only on the database thread.
            vector, embed = (await self.embedder.embed([embed]))[0], None
        hits = await super().rank(request, vector, embed=embed)
        if self.variant.prf_docs and vector is not None and hits:
            memory_ids = [h.memory.id for h in hits if isinstance(h, RetrievedMemory)]
            vector = self._feedback_vector(vector, memory_ids[: self.variant.prf_docs])
            hits = await super().rank(request, vector)
        return hits

    def semantic_candidates(
        self,
        index: VectorIndex | None,
        vector: np.ndarray | None,
        excluded: frozenset[int],
        candidates: int,
    ) -> SemanticCandidates:
        if self.variant.fusion == "lexical":
            return no_semantic_candidates()
        return super().semantic_candidates(index, vector, excluded, candidates)

    def fuse(self, evidence: Evidence) -> np.ndarray:
        variant, weights = self.variant, self.weights
        if variant.fusion == "rrf":
            return _reciprocal_rank_fusion(evidence, weights, variant.rrf_k)
        bm25, cosine = evidence.bm25, evidence.cosine
        if variant.lexical_norm == "max":
            best_bm25 = float(bm25.max())
            lexical_part = bm25 / best_bm25 if best_bm25 > 0 else bm25
        elif variant.lexical_norm == "share" and evidence.coverage is not None:
            lexical_part = evidence.coverage
        else:
            lexical_part = bm25 / (bm25 + weights.lexical_saturation)
        if variant.semantic_norm == "raw":
            semantic_part = np.clip(cosine, 0.0, 1.0)
        elif len(evidence.semantic.ids):
            semantic_part = scale_between(cosine, evidence.semantic.floor, float(cosine.max()))
        else:
            semantic_part = np.zeros(len(cosine), np.float32)
        lexical_weight = 0.0 if variant.fusion == "semantic" else weights.lexical
        semantic_weight = 0.0 if variant.fusion == "lexical" else weights.semantic
        fused = lexical_weight * lexical_part + semantic_weight * semantic_part
        return fused / max(lexical_weight + semantic_weight, 1e-9)

    def _feedback_vector(self, vector: np.ndarray, ids: list[int]) -> np.ndarray:
        rows = [self.index.vector(i) for i in ids if i in self.index]
        if not rows:
            return vector
        moved = vector + self.variant.prf_weight * np.mean(rows, axis=0)
        norm = float(np.linalg.norm(moved))
        return (moved / norm).astype(np.float32) if norm else vector


def _reciprocal_rank_fusion(
    evidence: Evidence, weights: RetrievalWeights, rrf_k: float
) -> np.ndarray:
    count = len(evidence.cosine)
    fused = np.zeros(count, np.float32)
    for flags, raw, weight in (
        (evidence.is_lexical, evidence.bm25, weights.lexical),
        (evidence.in_semantic, evidence.cosine, weights.semantic),
    ):
        order = np.argsort(-np.where(flags, raw, -np.inf), kind="stable")
        ranks = np.empty(count, np.float32)
        ranks[order] = np.arange(1, count + 1)
        fused += np.where(flags, weight / (rrf_k + ranks), 0.0).astype(np.float32)
    # Scaled to [0, 1] so the adjustments mean the same as with normalised fusion.
    return fused / ((weights.lexical + weights.semantic) / (rrf_k + 1))


def build_retriever(
    store: Store,
    embedder: Embedder,
    index: VectorIndex,
    *,
    weights: RetrievalWeights,
    messages: VectorIndex | None = None,
    variant: RetrievalVariant | None = None,
) -> HybridRetriever:
    """The app's own retriever when ``variant`` changes nothing, so the default figures
    measure exactly what the app runs; else a :class:`VariantRetriever`."""
    if variant is None or variant.is_the_app:
        return HybridRetriever(store, embedder, index, weights=weights, messages=messages)
    return VariantRetriever(
        store, embedder, index, weights=weights, messages=messages, variant=variant
    )
