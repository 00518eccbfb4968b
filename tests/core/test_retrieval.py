"""Hybrid retrieval over a real profile: ranking, reasons, filters, hostile queries."""

from __future__ import annotations

import asyncio
import threading
from datetime import UTC, datetime, timedelta

import pytest

from acai_desktop.core.memory.query import (
    content_terms,
    fts_match_expression,
    process_query,
)
from acai_desktop.core.memory.retrieval import HybridRetriever, RetrievalWeights
from acai_desktop.core.memory.retrieval.lexical import lexical_match
from acai_desktop.core.memory.service import MemoryDraft
from acai_desktop.core.memory.vector_index import VectorIndex
from acai_desktop.core.rules.words import tokenize
from tests.support.aio import run
from tests.support.memory import memory_services

FACTS = [
    "My sister Leila lives in Lisbon and works as an architect.",
    "I am allergic to peanuts, so no satay sauce please.",
    "We adopted a grey kitten called Pixel from the shelter.",
    "I prefer green tea to coffee in the morning.",
    "My daughter's birthday party will have a pirate theme.",
    "I go to pottery class every Wednesday evening.",
    "The car's transmission died, so I take the bus to work.",
    "I am training for a half marathon along the canal.",
]


def _with_retriever(
    store_location, tmp_path, body, *, weights: RetrievalWeights | None = None, facts=FACTS
):
    async def go():
        async with memory_services(tmp_path, store_location=store_location) as (
            store,
            service,
            _log,
        ):
            items = await service.remember_many(
                [MemoryDraft(content=f) for f in facts], explicit=True
            )
            retriever = HybridRetriever(store, service.embedder, service.index, weights=weights)
            return await body(retriever, service, items)

    return run(go())


def test_a_query_sharing_rare_words_ranks_its_memory_first(store_location, tmp_path):
    async def body(retriever, service, items):
        hits = await retriever.search("Where does Leila live?", k=3)
        assert hits[0].memory.id == items[0].id
        assert "lexical" in hits[0].reasons
        assert [h.rank for h in hits] == [1, 2, 3]
        assert hits[0].score >= hits[1].score >= hits[2].score

    _with_retriever(store_location, tmp_path, body)


def test_a_paraphrase_with_no_shared_word_is_found_semantically(store_location, tmp_path):
    async def body(retriever, service, items):
        hits = await retriever.search("What drink do I like?", k=3)
        tea = items[3].id
        assert tea in [h.memory.id for h in hits]
        hit = next(h for h in hits if h.memory.id == tea)
        assert "semantic" in hit.reasons and "lexical" not in hit.reasons

    _with_retriever(store_location, tmp_path, body)


def test_only_active_memories_are_returned_and_exclusions_hold(store_location, tmp_path):
    async def body(retriever, service, items):
        await service.forget(items[0].id)
        hits = await retriever.search("Leila Lisbon architect sister", k=10)
        assert items[0].id not in [h.memory.id for h in hits]
        hits = await retriever.search("kitten Pixel", k=10, exclude_ids=[items[2].id])
        assert items[2].id not in [h.memory.id for h in hits]
        assert all(h.memory.status == "active" for h in hits)

    _with_retriever(store_location, tmp_path, body)


def test_pinned_memories_are_listed_and_marked(store_location, tmp_path):
    async def body(retriever, service, items):
        await service.pin(items[1].id)
        pinned = await retriever.pinned()
        assert [m.id for m in pinned] == [items[1].id]
        hits = await retriever.search("peanut allergy", k=3)
        assert hits[0].memory.id == items[1].id
        assert "pinned" in hits[0].reasons

    _with_retriever(store_location, tmp_path, body)


def test_pinned_memories_are_read_while_the_writer_is_busy(store_location, tmp_path):
    """A chat turn reads its pinned memories on the read-only connection: not behind a
    long write (an import's batch, a learning job's transaction)."""

    async def body(retriever, service, items):
        await service.pin(items[1].id)
        gate = threading.Event()
        writing = service.store.submit(lambda db: gate.wait())  # the writer is taken
        try:
            reading = asyncio.ensure_future(retriever.pinned())
            done, _ = await asyncio.wait([reading], timeout=30)
        finally:
            gate.set()  # (before asserting, so a failure does not hang)
        await writing
        assert reading in done, "the pinned memories waited for the writer"
        assert [m.id for m in await reading] == [items[1].id]

    _with_retriever(store_location, tmp_path, body)


def test_facts_that_bear_on_a_kind_of_request_are_found_in_either_store(store_location, tmp_path):
    async def body(retriever, service, items):
        dinner = "What should I cook for dinner?"
        found = await retriever.bearing_facts(dinner)
        assert [(m.id, tells) for m, tells in found] == [(items[1].id, "your diet")]
        # the sister's city is hers; nothing bears on a flat tyre
        assert await retriever.bearing_facts("Any good bakeries near me?") == found
        assert await retriever.bearing_facts("How do I fix a flat tyre?") == []
        assert await retriever.bearing_facts(dinner, exclude_ids=[items[1].id]) == []
        await service.forget(items[1].id)
        assert await retriever.bearing_facts(dinner) == []
        # What is known of the user: every active fact, the most important first.
        await service.pin(items[2].id)  # changed last: first among equally important ones
        about_me = await retriever.bearing_facts("What do you know about me?")
        assert {m.id for m, _ in about_me} == {i.id for i in items if i.id != items[1].id}
        assert about_me[0][0].id == items[2].id
        assert {tells for _, tells in about_me} == {"you"}

    _with_retriever(store_location, tmp_path, body)


def test_conversation_boost_is_reported(store_location, tmp_path):
    async def body(retriever, service, items):
        from acai_desktop.core.store.conversations import create_conversation

        conversation = await service.store.run(create_conversation, "chat")
        item = await service.remember(
            "The canal path floods after heavy rain.",
            conversation_id=conversation.id,
            explicit=True,
        )
        hits = await retriever.search("canal", k=5, conversation_id=conversation.id)
        hit = next(h for h in hits if h.memory.id == item.id)
        assert "this_conversation" in hit.reasons

    _with_retriever(store_location, tmp_path, body)


@pytest.mark.parametrize(
    "query",
    [
        "",
        "   ",
        '"',
        '""" unbalanced "quote',
        "*",
        "pottery*",
        "AND",
        "OR NOT AND",
        "NEAR(",
        "NEAR(pottery class, 2)",
        "content: pottery",
        "category:food",
        "^start",
        "-minus +plus",
        "(((",
        "tea) OR (coffee",
        "thé au café ☕ 🍵",
        "日本語のクエリ",
        "a\x00b",
        "the what did how",
        "x" * 5000,
        " ".join(f"word{i}" for i in range(200)),
    ],
)
def test_hostile_or_empty_queries_never_break_the_search(store_location, tmp_path, query):
    async def body(retriever, service, items):
        hits = await retriever.search(query, k=5)
        assert len(hits) <= 5
        if not query.strip():
            assert hits == []

    _with_retriever(store_location, tmp_path, body, facts=FACTS[:3])


def test_k_zero_returns_nothing(store_location, tmp_path):
    async def body(retriever, service, items):
        assert await retriever.search("tea", k=0) == []

    _with_retriever(store_location, tmp_path, body)


def test_an_empty_profile_returns_nothing(store_location, tmp_path):
    async def go():
        async with memory_services(tmp_path, store_location=store_location) as (
            store,
            service,
            _log,
        ):
            retriever = HybridRetriever(store, service.embedder, VectorIndex(256))
            assert await retriever.search("anything at all", k=5) == []
            assert await retriever.pinned() == []

    run(go())


def test_common_words_are_left_out_of_the_full_text_query(store_location, tmp_path):
    facts = [f"Coffee note number {i}" for i in range(12)] + ["Espresso coffee at the station"]

    async def body(retriever, service, items):
        terms = ["coffee", "espresso", "absent"]
        assert await service.store.run(lexical_match, terms, 5) == '"espresso"'
        assert await service.store.run(lexical_match, terms, 100) == '"coffee" OR "espresso"'
        # Every word commoner than the budget: the two rarest must occur together.
        assert await service.store.run(lexical_match, ["note", "coffee"], 3) == (
            '"note" AND "coffee"'
        )
        assert await service.store.run(lexical_match, ["absent", "nothing"], 3) is None
        hits = await retriever.search("espresso coffee", k=1)
        assert hits[0].memory.id == items[-1].id

    _with_retriever(
        store_location,
        tmp_path,
        body,
        facts=facts,
        weights=RetrievalWeights(lexical_budget_documents=5),
    )


def test_the_and_of_common_words_grows_until_it_matches_few_rows(store_location, tmp_path):
    # "note" and "number" (12 rows each) always occur together, so AND-ing them alone
    # would still match 12 rows; the next rarest word joins until few rows match.
    facts = [f"Coffee note number {i}" + (" kettle" if i < 2 else "") for i in range(12)]
    facts += [f"Kettle on the stove {i}" for i in range(11)]

    async def body(retriever, service, items):
        terms = ["note", "number", "kettle"]
        assert await service.store.run(lexical_match, terms, 5) == (
            '"note" AND "number" AND "kettle"'
        )
        # Counts stop at the budget, so these tie and keep the query's order; the
        # first two ("stove", "number") never occur together: the AND stops at them.
        assert await service.store.run(lexical_match, ["stove", "number", "kettle"], 5) == (
            '"stove" AND "number"'
        )

    _with_retriever(store_location, tmp_path, body, facts=facts)


def test_a_lone_word_commoner_than_the_budget_is_not_scored(store_location, tmp_path):
    facts = [f"Coffee note number {i}" for i in range(12)] + ["Espresso at the station"]

    async def body(retriever, service, items):
        # Its IDF is near zero: scoring its thousands of rows would add nothing.
        assert await service.store.run(lexical_match, ["coffee"], 5) is None
        assert await service.store.run(lexical_match, ["coffee", "absent"], 5) is None
        assert await service.store.run(lexical_match, ["espresso"], 5) == '"espresso"'
        hits = await retriever.search("coffee", k=3)
        assert len(hits) == 3  # the semantic side still finds them

    _with_retriever(
        store_location,
        tmp_path,
        body,
        facts=facts,
        weights=RetrievalWeights(lexical_budget_documents=5),
    )


def test_query_processing():
    assert tokenize("Caroline's café—OK?") == ["caroline", "s", "café", "ok"]
    assert content_terms("What did Caroline's sister say about the café?") == [
        "caroline",
        "sister",
        "café",
    ]
    assert content_terms("the the a of") == []
    assert fts_match_expression([]) is None
    assert fts_match_expression(['he said "hi"']) == '"he said ""hi"""'
    assert fts_match_expression(["near", "and"]) == '"near" OR "and"'
    processed = process_query("When did Melanie visit Paris in May 2023?")
    assert processed.names == ["Melanie", "Paris", "May"]
    assert processed.dates == ["may", "2023"]
    assert processed.temporal
    assert not process_query("What is my dog called?").temporal


def test_vector_index_keeps_ids_and_rows_in_step():
    import numpy as np

    index = VectorIndex(3)
    rng = np.random.default_rng(1)
    vectors = {i: v / np.linalg.norm(v) for i, v in enumerate(rng.normal(size=(100, 3)), 1)}
    for memory_id, vector in vectors.items():
        index.upsert(memory_id, vector)
    assert len(index) == 100 and 7 in index
    for memory_id in range(1, 101, 3):
        index.remove(memory_id)
        vectors.pop(memory_id)
    index.remove(12345)  # unknown: nothing happens
    assert len(index) == len(vectors) and 1 not in index
    query = np.array([1.0, 0.0, 0.0], dtype=np.float32)
    ids, scores = index.similarities(query)
    for memory_id, score in zip(ids.tolist(), scores.tolist(), strict=True):
        assert score == pytest.approx(float(vectors[memory_id] @ query), abs=1e-6)
    top_ids, top_scores = index.top_k(query, 5)
    expected = sorted(vectors, key=lambda i: -float(vectors[i] @ query))[:5]
    assert top_ids.tolist() == expected
    assert list(top_scores) == sorted(top_scores, reverse=True)
    assert np.allclose(index.vector(expected[0]), vectors[expected[0]])
    index.load(np.array([5, 6]), np.stack([vectors[5], vectors[6]]))
    assert sorted(index.ids.tolist()) == [5, 6] and index.matrix.shape == (2, 3)
    assert index.top_k(query, 10)[0].tolist() == sorted([5, 6], key=lambda i: -vectors[i][0])


def test_ranking_is_the_same_with_facts_from_the_index_or_from_the_database(
    store_location, tmp_path
):
    """The index's facts (importance, pin, recency, conversation) are a copy of the
    database's: with an index that has none, the retriever reads them with SQL, and
    the ranking must not change."""

    async def body(retriever, service, items):
        from acai_desktop.core.store.conversations import create_conversation

        conversation = await service.store.run(create_conversation, "chat")
        await service.remember(
            "Leila's kitten sleeps on the pottery wheel.",
            conversation_id=conversation.id,
            explicit=True,
        )
        await service.pin(items[2].id)
        await service.mark_used([items[0].id, items[5].id])
        await service.reinforce(items[7].id, actor="critical_info_processor")
        # Memories of different ages: written behind the service's back, then reloaded.
        for item, days in ((items[3], 45), (items[4], 400)):
            await service.store.run(
                lambda db, item=item, days=days: db.execute(
                    "UPDATE memories SET updated_at = ? WHERE id = ?",
                    [(datetime.now(UTC) - timedelta(days=days)).isoformat(), item.id],
                )
            )
        await service.load_index(reembed=False)
        bare = VectorIndex(service.index.dimensions)
        bare.load(service.index.ids.copy(), service.index.matrix.copy())  # no facts
        assert not bare.lookup(bare.ids.tolist(), None).known.any()
        from_sql = HybridRetriever(service.store, service.embedder, bare)
        queries = ["Leila kitten", "pottery", "what do I drink", "green tea", "birthday", "sister"]
        for query in queries:
            for conversation_id in (None, conversation.id):
                expected = await retriever.search(query, k=6, conversation_id=conversation_id)
                got = await from_sql.search(query, k=6, conversation_id=conversation_id)
                assert [(h.memory.id, h.score, h.reasons) for h in got] == [
                    (h.memory.id, h.score, h.reasons) for h in expected
                ]
                assert expected

    _with_retriever(store_location, tmp_path, body)


def test_an_active_memory_missing_from_the_index_is_still_found_by_its_words(
    store_location, tmp_path
):
    async def body(retriever, service, items):
        service.index.remove(items[6].id)  # as if its vector were still being recomputed
        hits = await retriever.search("transmission bus", k=3)
        assert hits[0].memory.id == items[6].id
        assert hits[0].reasons[0] == "lexical"
        # A forgotten memory is still in the full-text index, but never returned.
        await service.forget(items[6].id)
        hits = await retriever.search("transmission bus", k=3)
        assert items[6].id not in [h.memory.id for h in hits]

    _with_retriever(store_location, tmp_path, body)


def test_a_failure_on_the_loop_side_leaves_the_database_thread_free(store_location, tmp_path):
    async def body(retriever, service, items):
        def broken(index, vector, excluded, candidates):
            raise RuntimeError("semantic side failed")

        retriever.semantic_candidates = broken
        with pytest.raises(RuntimeError, match="semantic side failed"):
            await retriever.search("Leila", k=3)
        assert await service.store.run(lambda db: db.execute("SELECT 1").fetchone()[0]) == 1

    _with_retriever(store_location, tmp_path, body)


class _WaitingEmbedder:
    """An embedder that must wait (as one over the network does) until released."""

    def __init__(self, inner) -> None:
        self.inner = inner
        self.name, self.dimensions = inner.name, inner.dimensions
        self.released = asyncio.Event()
        self.asked = asyncio.Event()

    def embeds_now(self, texts):
        return False

    async def embed(self, texts):
        self.asked.set()
        await self.released.wait()
        return await self.inner.embed(texts)


def test_an_embedder_that_waits_never_holds_the_database_thread(store_location, tmp_path):
    """The query is embedded on the loop while the database thread already runs the
    full-text queries only when the embedder embeds it at once; one that waits (the
    network) embeds first, so other database work goes on meanwhile."""

    async def body(retriever, service, items):
        waiting = _WaitingEmbedder(service.embedder)
        slow = HybridRetriever(retriever.store, waiting, retriever.index)
        search = asyncio.ensure_future(slow.search("Where does Leila live?", k=3))
        await waiting.asked.wait()
        # The database thread is free while the embedding is pending.
        one = asyncio.ensure_future(
            service.store.run(lambda db: db.execute("SELECT 1").fetchone()[0])
        )
        done, _ = await asyncio.wait([one], timeout=5)
        waiting.released.set()  # (before asserting, so a failure does not hang)
        slow_hits = await search
        assert one in done, "the database thread waited for the embedding"
        assert await one == 1
        inline_hits = await retriever.search("Where does Leila live?", k=3)
        assert service.embedder.embeds_now(["leila live"])
        assert [(h.memory.id, h.score) for h in slow_hits] == [
            (h.memory.id, h.score) for h in inline_hits
        ]
        assert slow_hits[0].memory.id == items[0].id

    _with_retriever(store_location, tmp_path, body)


def test_a_word_in_a_short_memory_outweighs_it_in_a_long_one_as_bm25_weighs_it(
    store_location, tmp_path
):
    # BM25 (FTS5's, and PostgreSQL's full_text.bm25_rank) normalises a word's weight by
    # the row's length: one mention in a short memory beats one in a long memory, even
    # when the long one was stored first (ts_rank alone scored them alike).
    facts = [
        *FACTS[:4],
        "After a long week of meetings, deadlines and travel, I finally signed up for "
        "a weekend pottery workshop in the old town near the river.",
        "Pottery relaxes me.",
        *(fact for fact in FACTS[4:] if "pottery" not in fact),
    ]

    async def body(retriever, service, items):
        from acai_desktop.core.store import search

        ids, scores, _ = await retriever.store.read(
            search.lexical_hits, '"pottery"', 5, lambda _rowid: True
        )
        long_one, short_one = items[4].id, items[5].id
        assert ids[:2] == [short_one, long_one]
        assert scores[0] > scores[1]

    _with_retriever(store_location, tmp_path, body, facts=facts)


def test_a_fact_holding_more_of_the_question_outranks_a_shorter_one_holding_less(
    store_location, tmp_path
):
    # BM25 favours the short row: "I go to pottery class every Wednesday evening." (two
    # of the question's words) ranked above a long fact that holds three of them. A
    # memory's words count by the share of the question's weight they hold
    # (memory_tier.held_weight), whatever the fact's length.
    longer = (
        "After a long week of meetings and deadlines I finally glazed the vase from my "
        "pottery class, and the Wednesday group loved its colour."
    )
    facts = [*FACTS, longer, "My teacher retired."]

    async def body(retriever, service, items):
        hits = await retriever.search("Did my pottery group on Wednesday meet my new teacher?", 3)
        ranked = [hit.memory.id for hit in hits]
        shorter = next(item.id for item in items if item.content == FACTS[5])
        assert ranked.index(items[len(FACTS)].id) < ranked.index(shorter)

    _with_retriever(store_location, tmp_path, body, facts=facts)
