"""The ideas ``eval retrieval`` tries against the app's ranking (evaluation package).

Each variant is compared with the app's own retriever on the same profile and query,
so a variant whose option were ignored would fail here.
"""

from __future__ import annotations

import pytest

from acai_desktop.core.memory.retrieval import HybridRetriever, RetrievalWeights
from acai_desktop.core.memory.service import MemoryDraft
from benchmarks.retrieval_variants import (
    RetrievalVariant,
    VariantRetriever,
    build_retriever,
)
from tests.core.test_retrieval import FACTS
from tests.support.aio import run
from tests.support.memory import memory_services


def _compare(tmp_path, variant: RetrievalVariant, body):
    """``body(app, variant_retriever, items)`` on one profile holding FACTS."""

    async def go():
        async with memory_services(tmp_path) as (store, service, _log):
            items = await service.remember_many(
                [MemoryDraft(content=f) for f in FACTS], explicit=True
            )
            app = HybridRetriever(store, service.embedder, service.index)
            tried = build_retriever(
                store,
                service.embedder,
                service.index,
                weights=RetrievalWeights(),
                variant=variant,
            )
            assert isinstance(tried, VariantRetriever)
            return await body(app, tried, items)

    return run(go())


def _ranking(hits):
    return [(h.memory.id, h.score, h.reasons) for h in hits]


@pytest.mark.parametrize(
    "variant",
    [
        RetrievalVariant(fusion="rrf"),
        RetrievalVariant(fusion="lexical"),
        RetrievalVariant(fusion="semantic"),
        RetrievalVariant(stop_words=False),
        RetrievalVariant(semantic_query="raw"),
        RetrievalVariant(lexical_norm="max"),
        RetrievalVariant(lexical_norm="saturate"),
        RetrievalVariant(semantic_norm="minmax"),
    ],
    ids=lambda v: next(f"{k}={x}" for k, x in vars(v).items() if x != vars(RetrievalVariant())[k]),
)
def test_every_variant_ranks_an_exact_match_first_and_differs_from_the_app(tmp_path, variant):
    async def body(app, tried, items):
        # "morning" is in another fact: two lexical candidates, so that each way of
        # weighing words (the share of the query's weight, BM25 saturated, BM25 over
        # the best) ranks differently.
        query = "When is my pottery class on Wednesday morning?"
        hits = await tried.search(query, k=4)
        assert hits and hits[0].memory.id == items[5].id
        assert _ranking(hits) != _ranking(await app.search(query, k=4))

    _compare(tmp_path, variant, body)


def test_lexical_fusion_gives_no_semantic_reason_and_semantic_fusion_no_lexical(tmp_path):
    async def body(app, tried, items):
        query = "pottery class Wednesday"
        reasons = {r for h in await app.search(query, k=8) for r in h.reasons}
        assert {"lexical", "semantic"} <= reasons
        lexical_only = VariantRetriever(
            tried.store, tried.embedder, tried.index, variant=RetrievalVariant(fusion="lexical")
        )
        semantic_only = VariantRetriever(
            tried.store, tried.embedder, tried.index, variant=RetrievalVariant(fusion="semantic")
        )
        assert not any("semantic" in h.reasons for h in await lexical_only.search(query, k=8))
        assert not any("lexical" in h.reasons for h in await semantic_only.search(query, k=8))

    _compare(tmp_path, RetrievalVariant(fusion="rrf"), body)


def test_pseudo_relevance_feedback_moves_the_second_pass(tmp_path):
    async def body(app, tried, items):
        query = "marathon training"
        hits = await tried.search(query, k=5)
        assert hits[0].memory.id == items[7].id
        assert _ranking(hits) != _ranking(await app.search(query, k=5))
        assert await tried.search("tea", k=0) == []

    _compare(tmp_path, RetrievalVariant(prf_docs=2), body)


def test_the_default_variant_is_the_apps_own_retriever(tmp_path):
    async def go():
        async with memory_services(tmp_path) as (store, service, _log):
            retriever = build_retriever(
                store, service.embedder, service.index, weights=RetrievalWeights()
            )
            assert type(retriever) is HybridRetriever
            same = build_retriever(
                store,
                service.embedder,
                service.index,
                weights=RetrievalWeights(),
                variant=RetrievalVariant(),
            )
            assert type(same) is HybridRetriever
        with pytest.raises(ValueError, match="fusion"):
            VariantRetriever(store, service.embedder, service.index, variant=RetrievalVariant("x"))

    run(go())
