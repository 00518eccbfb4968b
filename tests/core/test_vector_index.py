"""VectorIndex's ranking facts: they move with their rows, and the service keeps them
equal to the database after every kind of write."""

from __future__ import annotations

import sqlite3

import numpy as np
import pytest

from acai_desktop.core.memory.policy import MemoryPolicy
from acai_desktop.core.memory.service import MemoryDraft
from acai_desktop.core.memory.transfer import export_memories, import_memories
from acai_desktop.core.memory.vector_index import RankingFacts, VectorIndex
from acai_desktop.core.records.memories import Actor, MemoryItem
from acai_desktop.core.store import search as sql
from tests.support.aio import run
from tests.support.memory import memory_services


def _facts(memory_id: int) -> RankingFacts:
    return RankingFacts(
        importance=memory_id / 1000,
        pinned=memory_id % 2 == 0,
        touched_ms=float(memory_id * 1000),
        conversation_id=memory_id % 5 - 1,
    )


def _unit(rng, dimensions=4):
    vector = rng.normal(size=dimensions).astype(np.float32)
    return vector / np.linalg.norm(vector)


def test_facts_follow_their_memory_through_growth_removal_and_reload():
    rng = np.random.default_rng(3)
    index = VectorIndex(4)
    vectors = {i: _unit(rng) for i in range(1, 201)}  # grows past the first 64 rows
    for memory_id, vector in vectors.items():
        index.upsert(memory_id, vector, _facts(memory_id))
    for memory_id in range(1, 201, 3):  # each removal moves the last row into the hole
        index.remove(memory_id)
        del vectors[memory_id]
    index.upsert(5, vectors[5])  # a new vector, no facts given: the old ones stay
    query = _unit(rng)
    ids = [*vectors, 1, 9999]  # 1 was removed, 9999 never existed
    found = index.lookup(ids, query)
    for position, memory_id in enumerate(ids):
        if memory_id not in vectors:
            assert not found.indexed[position] and not found.known[position]
            assert found.cosine[position] == 0
            continue
        expected = _facts(memory_id)
        assert found.known[position]
        assert found.importance[position] == pytest.approx(expected.importance)
        assert bool(found.pinned[position]) == expected.pinned
        assert found.touched_ms[position] == expected.touched_ms
        assert found.conversation_id[position] == expected.conversation_id
        assert found.cosine[position] == pytest.approx(float(vectors[memory_id] @ query), abs=1e-6)

    # A load forgets the facts until they are given again, for the ids it holds.
    index.load(np.array([2, 3]), np.stack([vectors[2], vectors[3]]))
    assert not index.lookup([2, 3], None).known.any()
    index.set_facts_many(
        np.array([3, 77]),
        np.array([0.9, 0.1], np.float32),
        np.array([True, False]),
        np.array([5000.0, 1.0]),
        np.array([4, 4]),
    )
    found = index.lookup([2, 3, 77], None)
    assert found.known.tolist() == [False, True, False]
    assert found.importance[1] == pytest.approx(0.9) and found.pinned[1]
    assert found.touched_ms[1] == 5000.0 and found.conversation_id[1] == 4
    # A brand-new row has no facts until they are given.
    index.upsert(8, vectors[8])
    assert not index.lookup([8], None).known[0]
    index.set_facts(8, _facts(8))
    assert index.lookup([8], None).known[0]


def test_lookup_reads_cosines_from_a_current_product_and_never_from_a_stale_one():
    rng = np.random.default_rng(5)
    index = VectorIndex(4)
    vectors = {i: _unit(rng) for i in range(1, 11)}
    for memory_id, vector in vectors.items():
        index.upsert(memory_id, vector, _facts(memory_id))
    query = _unit(rng)
    ids = [10, 3, 7, 42]  # 42 is not indexed
    product = index.cosines(query)
    expected = [float(vectors[i] @ query) for i in ids[:3]] + [0.0]
    # Current: every cosine is the product's own element for the id's row.
    found = index.lookup(ids, query, product)
    by_id = dict(zip(product.ids.tolist(), product.scores.tolist(), strict=True))
    assert found.cosine.tolist() == pytest.approx([by_id[i] for i in ids[:3]] + [0.0], abs=0)
    assert found.cosine.tolist() == pytest.approx(expected, abs=1e-6)

    def check_stale_product_is_not_used(change) -> None:
        change()
        stale = index.lookup(ids, query, product)
        fresh = [
            float(vectors[i] @ query) if i in vectors else 0.0 for i in ids
        ]  # the index as it is now
        assert stale.cosine.tolist() == pytest.approx(fresh, abs=1e-6)

    # A memory edited since the product (its vector changed in place)...
    vectors[3] = -vectors[3]
    check_stale_product_is_not_used(lambda: index.upsert(3, vectors[3]))
    product = index.cosines(query)
    # ...or removed, which moves the last row (10) into its hole...
    del vectors[7]
    check_stale_product_is_not_used(lambda: index.remove(7))
    product = index.cosines(query)
    # ...or a new one, or a reload: the product is read no more.
    vectors[42] = _unit(rng)
    check_stale_product_is_not_used(lambda: index.upsert(42, vectors[42]))
    product = index.cosines(query)
    kept = sorted(vectors)
    check_stale_product_is_not_used(
        lambda: index.load(np.array(kept[::-1]), np.stack([vectors[i] for i in kept[::-1]]))
    )
    # New facts move no row: the product stays current.
    product = index.cosines(query)
    index.set_facts(10, _facts(11))
    assert (
        index.lookup([10], query, product).cosine[0]
        == product.scores[product.ids.tolist().index(10)]
    )


@pytest.mark.parametrize(
    "timestamp",
    [
        "2026-11-29T13:30:01.123456+00:00",
        "2026-11-29T13:30:01.123500+00:00",  # half a millisecond: rounds up
        "2026-11-29T13:30:01.999800+00:00",  # rounds into the next second
        "2026-11-29T15:30:01.000000+02:00",
        "2023-05-08 10:00:00",  # no zone: UTC, as SQLite reads it
        "2023-05-08",
    ],
)
def test_touched_time_is_read_as_sqlite_reads_it(timestamp):
    item = MemoryItem(
        id=1,
        kind="fact",
        content="x",
        origin="user",
        created_at=timestamp,
        updated_at=timestamp,
    )
    expected = (
        sqlite3.connect(":memory:")
        .execute(f"SELECT round(julianday(?) * 86400000.0) - {sql.JULIAN_EPOCH_MS}", [timestamp])
        .fetchone()[0]
    )
    assert RankingFacts.of(item).touched_ms == expected


def test_touched_time_is_the_later_of_update_and_use_and_nan_when_unreadable():
    item = MemoryItem(
        id=1,
        kind="fact",
        content="x",
        origin="user",
        created_at="2024-01-01T00:00:00+00:00",
        updated_at="2024-01-01T00:00:00+00:00",
        last_used_at="2024-01-02T00:00:00+00:00",
        conversation_id=None,
    )
    facts = RankingFacts.of(item)
    assert facts.touched_ms == 1704153600000.0 and facts.conversation_id == -1
    broken = MemoryItem(
        id=1, kind="fact", content="x", origin="user", created_at="?", updated_at="not a date"
    )
    assert np.isnan(RankingFacts.of(broken).touched_ms)


async def _index_matches_database(store, index):
    """Every active memory is indexed with the facts the database has, and only they."""
    ids, importance, pinned, touched_ms, conversation = await store.run(sql.active_ranking_facts)
    assert sorted(index.ids.tolist()) == sorted(ids.tolist())
    found = index.lookup(ids.tolist(), None)
    assert found.known.all()
    assert np.allclose(found.importance, importance)
    assert (found.pinned == pinned).all()
    assert (found.touched_ms == touched_ms).all()
    assert (found.conversation_id == conversation).all()


def test_the_service_keeps_the_index_facts_equal_to_the_database(tmp_path):
    async def go():
        async with memory_services(tmp_path / "a", policy=MemoryPolicy()) as (store, service, _):
            from acai_desktop.core.store.conversations import create_conversation

            conversation = await store.run(create_conversation, "chat")
            items = await service.remember_many(
                [MemoryDraft(content=f"Fact number {i} about the garden shed.") for i in range(8)],
                explicit=True,
            )
            ids = [item.id for item in items]
            await _index_matches_database(store, service.index)
            await service.remember(
                "The allotment opens at dawn.", conversation_id=conversation.id, explicit=True
            )
            await service.pin(ids[0])
            await service.edit(ids[1], "Fact one was corrected: the shed is blue.")
            await service.forget(ids[2])
            await service.mark_used([ids[3], ids[4]])
            await service.reinforce(ids[5], actor=Actor.CRITICAL_INFO_PROCESSOR)
            await service.propose_change(
                ids[6], "The shed was replaced by a greenhouse.", actor=Actor.USER
            )
            await _index_matches_database(store, service.index)
            await service.unpin(ids[0])
            await service.restore(ids[2])
            await _index_matches_database(store, service.index)

            # What start-up builds (load + facts from SQL) is the same.
            service.index.load(np.zeros(0, np.int64), np.zeros((0, 256), np.float32))
            await service.load_index()
            await _index_matches_database(store, service.index)
            await export_memories(service, tmp_path / "export.json")

        async with memory_services(tmp_path / "b") as (store, service, _):
            await import_memories(service, tmp_path / "export.json")
            await _index_matches_database(store, service.index)

    run(go())
