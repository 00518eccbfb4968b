"""Hybrid search over document chunks: the same ranking as memories.

BM25 from the chunks' full-text index (the same cheap expression as for memories, see
:func:`~acai_desktop.core.memory.retrieval.lexical.lexical_match`) and the cosine with
the query's vector, fused by the memories' :func:`~acai_desktop.core.memory.retrieval.
fusion.fuse` with the same weights. A passage has no importance, pin or recency, so
those adjustments don't apply. One hop, as for memories: the database thread starts
the full-text query while the loop finds the nearest chunks (two stages beyond 16,000
chunks, see :mod:`~acai_desktop.core.documents.vectors`) and hands the semantic
candidates over; the database thread then fuses and loads the top ``k``'s text.
"""

from __future__ import annotations

from concurrent.futures import Future

import numpy as np

from acai_desktop.core.documents.model import DocumentScope, RetrievedPassage, ScopeMode
from acai_desktop.core.documents.vectors import ChunkVectors
from acai_desktop.core.memory.query import process_query
from acai_desktop.core.memory.retrieval import floor
from acai_desktop.core.memory.retrieval.candidates import SemanticCandidates
from acai_desktop.core.memory.retrieval.fusion import Evidence, fuse
from acai_desktop.core.memory.retrieval.lexical import lexical_match
from acai_desktop.core.memory.retrieval.results import LEXICAL, SEMANTIC
from acai_desktop.core.memory.retrieval.weights import RetrievalWeights
from acai_desktop.core.models.embeddings.base import Embedder
from acai_desktop.core.store import chunks as chunk_sql
from acai_desktop.core.store import search as sql_search
from acai_desktop.core.store.connection import Database
from acai_desktop.core.store.database import Store

CHUNKS_FTS = "chunks_fts"


class DocumentSearch:
    def __init__(
        self,
        store: Store,
        embedder: Embedder,
        vectors: ChunkVectors,
        weights: RetrievalWeights | None = None,
    ) -> None:
        self.store = store
        self.embedder = embedder
        self.vectors = vectors
        self.weights = weights or RetrievalWeights()

    async def search(
        self, query: str, k: int = 5, scope: DocumentScope | None = None
    ) -> list[RetrievedPassage]:
        """The ``k`` best passages for ``query`` among the documents ``scope`` allows
        (all when None), best first."""
        scope = scope or DocumentScope()
        if scope.mode == ScopeMode.NONE:
            return []
        allowed = list(scope.document_ids) if scope.mode == ScopeMode.SOME else None
        return await self.search_within(query, k, allowed, chosen=allowed)

    async def search_within(
        self,
        query: str,
        k: int,
        allowed: list[int] | None,
        excluded: list[int] | None = None,
        chosen: list[int] | None = None,
    ) -> list[RetrievedPassage]:
        """The ``k`` best passages among the documents ``allowed`` (None: all), never
        in ``excluded`` (other chats' attachments), best first. Each says whether it
        passes the relevance floor (``relevant``); those of the documents ``chosen``
        for the chat (its scope's, its attachments) always do: the choice is the
        evidence ("summarise it" shares no word with any passage)."""
        excluded = excluded or []
        if k <= 0 or not query.strip() or (allowed is not None and not allowed):
            return []
        processed = process_query(query)
        embedded = " ".join(processed.terms) if processed.terms else query
        vector = (await self.embedder.embed([embedded]))[0]
        handoff: Future[SemanticCandidates] = Future()
        job = self.store.submit_read(
            self._rank, processed.terms, vector, handoff, allowed, excluded, k, set(chosen or ())
        )
        # Nothing may be awaited before the handoff is settled: the database thread
        # waits for it once its full-text query is done.
        try:
            ids, scores, spread = self.vectors.nearest_in_spread(
                vector, self.weights.candidates, allowed, excluded
            )
            lowest = float(scores[-1]) if len(scores) else 0.0
            handoff.set_result(
                SemanticCandidates(ids, scores, lowest, spread.mean, spread.spread, spread.items)
            )
        except BaseException as error:
            handoff.set_exception(error)
        return await job

    def _rank(
        self,
        db: Database,
        terms: list[str],
        vector: np.ndarray,
        handoff: Future[SemanticCandidates],
        allowed: list[int] | None,
        excluded: list[int],
        k: int,
        chosen_documents: set[int],
    ) -> list[RetrievedPassage]:
        """On the database thread: lexical candidates, then (once the loop hands the
        semantic ones over) fusion and the top ``k``'s text."""
        weights = self.weights
        # The words' counts in the chunks, kept for the relevance floor's IDF (one
        # statement, not a second one after the fusion).
        counts: dict[str, list[int]] = {}
        match = lexical_match(db, terms, weights.lexical_budget_documents, CHUNKS_FTS, counts)
        hits = (
            chunk_sql.chunk_hits(db, match, weights.candidates, allowed, excluded) if match else []
        )
        semantic = handoff.result()
        bm25_of = dict(hits)
        lexical_ids = [chunk_id for chunk_id, _ in hits]
        listed = set(lexical_ids)
        semantic_ids = semantic.ids.tolist()
        id_list = lexical_ids + sorted(i for i in semantic_ids if i not in listed)
        if not id_list:
            return []
        bm25 = np.array([bm25_of.get(i, 0.0) for i in id_list], np.float32)
        cosine = self.vectors.cosines(id_list, vector)
        # A set's membership, not np.isin: for a hundred ids isin's sorting cost more.
        nearest = set(semantic_ids)
        in_semantic = np.array([i in nearest for i in id_list], bool)
        score = fuse(weights, Evidence(bm25, bm25 > 0, cosine, in_semantic, semantic))
        order = np.argsort(-score, kind="stable")[:k]
        chosen = [id_list[p] for p in order.tolist()]
        passages = chunk_sql.passages_by_id(db, chosen)
        judged = self._floor_items(
            db, terms, semantic, cosine[order], chosen, passages, counts.get(CHUNKS_FTS)
        )
        results: list[RetrievedPassage] = []
        for position, item in zip(order.tolist(), judged, strict=True):
            passage = passages.get(id_list[position])
            if passage is None:
                continue  # removed while we ranked
            reasons = [LEXICAL] if bm25[position] > 0 else []
            if in_semantic[position]:
                reasons.append(SEMANTIC)
            evidence = floor.evidence(item)
            results.append(
                RetrievedPassage(
                    passage,
                    len(results) + 1,
                    round(float(score[position]), 6),
                    reasons,
                    evidence >= 1.0 or passage.document_id in chosen_documents,
                    evidence,
                    item.standing,
                )
            )
        return results

    def _floor_items(
        self,
        db: Database,
        terms: list[str],
        semantic: SemanticCandidates,
        cosines: np.ndarray,
        chosen: list[int],
        passages: dict,
        counts: list[int] | None = None,
    ) -> list[floor.FloorItem]:
        """What the relevance floor reads of each of the ``chosen`` passages (see
        :mod:`acai_desktop.core.memory.retrieval.floor`): their words' share of the
        question's weight (IDF in the chunks' index) and their cosine's standing among
        every chunk searched, against the passages' bars (``RetrievalWeights.
        floor_passage_*``, calibrated by ``eval documents-floor``); ``counts``: how many
        chunks hold each term, if the lexical side counted them already."""
        weights = self.weights
        if counts is None:
            counts = sql_search.document_counts(
                db, terms, weights.lexical_budget_documents, CHUNKS_FTS
            )
        term_weights = floor.term_weights(counts, len(self.vectors))
        standings = semantic.floor_standing(cosines)
        items = []
        for chunk_id, standing in zip(chosen, standings.tolist(), strict=True):
            passage = passages.get(chunk_id)
            text = f"{passage.heading}\n{passage.content}" if passage else ""
            coverage = floor.word_coverage(terms, term_weights, floor.stems_of(text))
            item = floor.FloorItem(
                coverage,
                floor.words_bar(
                    standing,
                    weights.floor_passage_coverage,
                    weights.floor_passage_coverage_without_meaning,
                ),
                standing,
                weights.floor_passage_meaning,
                False,
            )
            items.append(item)
        return items
