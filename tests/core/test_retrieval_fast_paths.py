"""The shortcuts of retrieval's hot path give exactly what the plain way gives."""

from __future__ import annotations

import random

import numpy as np
import pytest

from acai_desktop.core.memory.retrieval.candidates import ScoredCandidates
from acai_desktop.core.memory.retrieval.ranking import _contender_bar, _ranking_keys
from acai_desktop.core.memory.service import MemoryDraft
from acai_desktop.core.records.memories import MEMORY_COLUMNS, MemoryItem
from acai_desktop.core.store.memories import SELECT_COLUMNS, memories_by_id
from tests.support.aio import run
from tests.support.memory import memory_services


def _tier(scores: list[float], first_id: int) -> ScoredCandidates:
    count = len(scores)
    flags = np.zeros(count, bool)
    return ScoredCandidates(
        np.arange(first_id, first_id + count, dtype=np.int64),
        np.asarray(scores, np.float32),
        *[flags] * 7,
    )


def _every_key(tier: int, candidates: ScoredCandidates) -> list[tuple]:
    return [
        (-round(float(score), 6), tier, int(item_id), position)
        for position, (score, item_id) in enumerate(
            zip(candidates.score, candidates.ids, strict=True)
        )
    ]


def test_the_best_k_are_those_of_sorting_every_candidate_even_with_rounding_ties():
    rng = random.Random(5)
    for trial in range(300):
        # Scores crowded within a few millionths: rounding to 6 digits makes ties, and
        # the k-th best sits among candidates that differ below the rounding.
        base = rng.uniform(0.2, 0.9)
        spread = rng.choice([1e-7, 1e-6, 3e-6, 1e-3])
        memories = _tier([base + rng.uniform(0, spread) for _ in range(rng.randint(0, 60))], 1)
        messages = _tier([base + rng.uniform(0, spread) for _ in range(rng.randint(0, 60))], 1)
        k = rng.choice([1, 3, 10, 200])
        plain = sorted(_every_key(0, memories) + _every_key(1, messages))[:k]
        bar = _contender_bar((memories.score, messages.score), k)
        fast = sorted(_ranking_keys(0, memories, bar) + _ranking_keys(1, messages, bar))[:k]
        assert fast == plain, trial


def test_a_nan_score_makes_every_candidate_a_contender():
    memories = _tier([float("nan")] * 12, 1)
    assert _contender_bar((memories.score, _tier([0.5], 100).score), 10) == -np.inf


def test_records_read_for_a_search_are_those_of_the_plain_row_reader(tmp_path):
    async def go():
        async with memory_services(tmp_path) as (store, service, _log):
            items = await service.remember_many(
                [
                    MemoryDraft(content="I keep bees.", category="hobby", meta={"why": "x"}),
                    MemoryDraft(content="My sister lives in Lisbon."),
                ],
                explicit=True,
            )
            await service.pin(items[1].id)
            ids = [item.id for item in items]
            fast = await store.run(memories_by_id, ids)
            rows = await store.run(
                lambda db: db.execute(
                    f"SELECT {SELECT_COLUMNS} FROM memories ORDER BY id"
                ).fetchall()
            )
            plain = [MemoryItem.from_row(dict(zip(MEMORY_COLUMNS, r, strict=True))) for r in rows]
            return fast, plain

    fast, plain = run(go())
    assert list(fast.values()) == plain
    assert plain[0].meta["why"] == "x" and plain[1].pinned is True


def test_a_records_enums_and_meta_are_what_the_plain_conversions_give():
    from acai_desktop.core.records.memories import (
        MEMORY_CONVERTERS,
        MemoryKind,
        MemoryStatus,
        Origin,
    )

    convert = dict(zip(MEMORY_COLUMNS, MEMORY_CONVERTERS, strict=True))
    for column, enum_type in (("kind", MemoryKind), ("origin", Origin), ("status", MemoryStatus)):
        for member in enum_type:
            assert convert[column](member.value) is enum_type(member.value)
            assert convert[column](member) is member
        with pytest.raises(ValueError):
            convert[column]("no such value")
    first, second = convert["meta"]("{}"), convert["meta"]("{}")
    first["changed"] = True
    assert second == {} and convert["meta"](None) == {}
    assert convert["meta"]('{"why": "x"}') == {"why": "x"}


def test_counting_the_words_of_two_tables_at_once_gives_each_tables_own_counts(tmp_path):
    from acai_desktop.core.store import search as sql
    from acai_desktop.core.store.conversations import create_conversation

    terms = ["lisbon", "bees", "sister", "nowhere", 'quo"te']

    async def go():
        async with memory_services(tmp_path) as (store, service, _log):
            await service.remember_many(
                [MemoryDraft(content=t) for t in ("I keep bees.", "My sister lives in Lisbon.")],
                explicit=True,
            )

            def chat(db):
                with db.atomic():
                    chat_id = create_conversation(db, "Chat").id
                    for n, text in enumerate(["Bees again", "My sister called", "Lisbon trip"]):
                        db.execute(
                            "INSERT INTO messages (conversation_id, role, content, created_at) "
                            "VALUES (?, ?, ?, ?)",
                            [chat_id, "user", text, f"2030-01-0{n + 1}T10:00:00+00:00"],
                        )

            await store.run(chat)
            tables = ["messages_fts", "memories_fts"]
            # Counted up to 1 + 1: each message's row holds its neighbours' words too.
            together = await store.read(sql.document_counts_in, terms, 1, tables)
            apart = {t: await store.read(sql.document_counts, terms, 1, t) for t in tables}
            return together, apart

    together, apart = run(go())
    assert together == apart
    assert apart["memories_fts"][:2] == [1, 1] and apart["messages_fts"][:4] == [2, 2, 2, 0]


def test_authors_named_by_the_query_are_each_authors_own_verdict():
    from acai_desktop.core.memory.retrieval.message_tier import is_named, said_by_named

    names = frozenset({"caroline", "mel"})
    authors = ["", "Caroline Lee", "Melanie", "caroline", "", "Mel", "Caroline Lee", "Bob"]
    named = said_by_named(authors, names)
    assert named.dtype == bool and named.tolist() == [is_named(a, names) for a in authors]
    assert named.tolist() == [False, True, False, True, False, True, True, False]
    assert said_by_named([], names).shape == (0,)


def test_an_index_lookup_gives_what_indexing_its_arrays_by_row_gives():
    from acai_desktop.core.memory.vector_index import RankingFacts, VectorIndex

    rng = np.random.default_rng(4)
    index = VectorIndex(8)
    for memory_id in range(1, 40):
        facts = RankingFacts(rng.random(), bool(memory_id % 3), 1e12 + memory_id, memory_id % 5)
        index.upsert(memory_id, rng.random(8).astype(np.float32), facts if memory_id % 4 else None)
    index.remove(7)
    ids = [3, 7, 100, 39, 1, 4, 3]
    query = rng.random(8).astype(np.float32)
    found = index.lookup(ids, query)
    rows = index.rows(ids)
    held = rows >= 0
    safe = np.where(held, rows, 0)
    assert found.indexed.tolist() == held.tolist()
    assert found.known.tolist() == (index._known[safe] & held).tolist()
    assert found.importance.tolist() == index._importance[safe].tolist()
    assert found.conversation_id.tolist() == index._conversation[safe].tolist()
    expected = np.where(held, index._matrix[safe] @ query, 0.0).astype(np.float32)
    assert found.cosine.tobytes() == expected.tobytes()


def test_the_membership_test_is_the_index_as_it_stands():
    from acai_desktop.core.memory.vector_index import VectorIndex

    index = VectorIndex(4)
    index.upsert(5, np.ones(4, np.float32))
    contains = index.membership()
    assert contains(5) and not contains(6)
    index.upsert(6, np.ones(4, np.float32))
    assert contains(6)
    index.remove(5)
    assert not contains(5)
    index.load(np.array([9]), np.ones((1, 4), np.float32))
    assert index.membership()(9) and not index.membership()(6)


def _best_by_full_sort(scores: np.ndarray, count: int) -> list[int]:
    """The plain way: every position sorted best first (earlier first among equals),
    the non-finite ones left out, the first ``count`` kept."""
    order = np.argsort(-scores, kind="stable")
    return [p for p in order.tolist() if np.isfinite(scores[p])][:count]


@pytest.mark.parametrize("seed", range(40))
def test_the_best_positions_are_those_of_sorting_every_score(seed):
    from acai_desktop.core.memory.vector_index import best_positions

    rng = np.random.default_rng(seed)
    size = int(rng.integers(1, 400))
    scores = rng.normal(size=size).astype(np.float32)
    if seed % 2:
        scores = np.round(scores, 1)  # many equal scores, some of them at the cut
    if seed % 3 == 0:
        scores[rng.integers(0, size, size=size // 3 + 1)] = -np.inf  # excluded items
    if seed % 7 == 0:
        scores[rng.integers(0, size)] = np.nan
    for count in (1, 5, 50, size - 1, size, size + 3):
        assert best_positions(scores, count).tolist() == _best_by_full_sort(scores, count)


def test_excluded_items_are_never_semantic_candidates_and_leave_the_statistics():
    from acai_desktop.core.memory.retrieval.retriever import HybridRetriever
    from acai_desktop.core.memory.vector_index import VectorIndex

    rng = np.random.default_rng(8)
    index = VectorIndex(8)
    for item_id in range(1, 121):
        vector = rng.normal(size=8).astype(np.float32)
        index.upsert(item_id, vector / np.linalg.norm(vector))
    index.remove(17)  # the last row moves into its place
    query = index.vector(40)
    excluded = frozenset({40, 41, 17, 999})  # 17 and 999 are not in the index
    retriever = HybridRetriever.__new__(HybridRetriever)
    found = retriever.semantic_candidates(index, query, excluded, 10)
    kept = ~np.isin(index.ids, list(excluded))
    cosines = index.matrix @ query
    best = np.argsort(-np.where(kept, cosines, -np.inf), kind="stable")[:10]
    assert found.ids.tolist() == index.ids[best].tolist()
    assert 40 not in found.ids.tolist()
    assert found.mean == pytest.approx(float(cosines[kept].mean()), abs=1e-6)
    assert found.spread == pytest.approx(float(cosines[kept].std()), abs=1e-6)
    assert found.items == int(kept.sum())
