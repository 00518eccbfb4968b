"""Merging the full-text indexes' segments after start-up (core/store/full_text_upkeep)."""

from __future__ import annotations

import pytest

from acai_desktop.core.memory.retrieval import HybridRetriever
from acai_desktop.core.store.conversations import create_conversation
from acai_desktop.core.store.full_text_upkeep import merge_step, segment_count
from tests.support.aio import run
from tests.support.memory import memory_services


def _chat(db, turns: list[str]) -> None:
    conversation = create_conversation(db, "Chat")
    with db.atomic():
        for position, text in enumerate(turns):
            db.execute(
                "INSERT INTO messages (conversation_id, role, content, created_at) "
                "VALUES (?, ?, ?, '2026-11-01T10:00:00+00:00')",
                [conversation.id, "user" if position % 2 == 0 else "assistant", text],
            )


def test_many_small_writes_leave_segments_that_the_upkeep_merges_into_one(tmp_path):
    async def body():
        async with memory_services(tmp_path) as (store, service, _log):
            for n in range(24):  # one transaction each, as a user's day of chatting
                await service.remember(f"Note {n}: the blue heron nests by pond {n}.")
                await store.run(_chat, [f"Did you see heron {n}?", f"Yes, at pond {n}."])
            retriever = HybridRetriever(
                store, service.embedder, service.index, messages=service.episodes.index
            )
            before = await retriever.search("heron pond 7", k=5)
            counts = [
                await store.run(segment_count, table) for table in ("memories_fts", "messages_fts")
            ]
            steps = await service.upkeep.merge_full_text()
            merged = [
                await store.run(segment_count, table) for table in ("memories_fts", "messages_fts")
            ]
            again = await service.upkeep.merge_full_text()
            after = await retriever.search("heron pond 7", k=5)
            return counts, steps, merged, again, before, after

    counts, steps, merged, again, before, after = run(body())
    assert min(counts) > 1 and steps >= 2
    assert merged == [1, 1]
    assert again == 0  # nothing left to merge
    # The same index, in fewer pieces: the same hits, the same scores.
    assert [(type(h), h.score) for h in after] == [(type(h), h.score) for h in before]
    assert len(after) == 5


def test_only_the_full_text_tables_are_merged(tmp_path):
    async def body():
        async with memory_services(tmp_path) as (store, _service, _log):
            with pytest.raises(ValueError, match="not a full-text table"):
                await store.run(merge_step, "memories")

    run(body())
