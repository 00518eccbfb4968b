"""The shortcuts of retrieval's hot path give exactly what the plain way gives."""

from __future__ import annotations

import random

import numpy as np

from acai_desktop.core.memory.retrieval.candidates import ScoredCandidates
from acai_desktop.core.memory.retrieval.ranking import _contender_bar, _ranking_keys
from acai_desktop.core.memory.service import MemoryDraft
from acai_desktop.core.records import MEMORY_COLUMNS, MemoryItem
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
