"""Retrieval's reads on the read-only connection: the same results as on the writer's
thread, every committed write seen at once, and no wait behind a write in progress."""

from __future__ import annotations

import asyncio
import sqlite3
import threading
from datetime import UTC, datetime

import pytest

from acai_desktop.core.errors import StoreError
from acai_desktop.core.memory.retrieval import HybridRetriever, RetrievedMemory, RetrievedMessage
from acai_desktop.core.memory.service import MemoryDraft
from acai_desktop.core.store.conversations import create_conversation
from tests.core.test_retrieval import FACTS
from tests.support.aio import run
from tests.support.memory import memory_services

CHATS = [
    [
        "Caroline told me she is painting a sunset over the lake for her mother.",
        "That sounds lovely, a sunset over the lake is a great subject.",
        "Yes, last Friday she finished the first layer of blue.",
        "Blue first is a classic way to start a landscape.",
    ],
    [
        "I booked a pottery course in Porto for the spring holidays.",
        "Porto has wonderful tile workshops too.",
        "My brother Tomas will join me there for a week.",
        "A week in Porto with your brother sounds like fun.",
    ],
]
QUESTIONS = [
    "What is Caroline painting?",
    "Where is my pottery course?",
    "Who joins me in Porto?",
    "What did Caroline finish last Friday?",
    "what drink do I like",
    "Where does Leila live?",
    "allergies",
    "a question about nothing stored at all",
]
NOW = datetime(2030, 5, 6, 12, 0, tzinfo=UTC)


class WriterThreadOnly:
    """The store with its reads sent to the writer's thread, as before the read-only
    connection: the reference the read-only path must match."""

    def __init__(self, store) -> None:
        self._store = store

    def submit_read(self, fn, *args, **kwargs):
        return self._store.submit(fn, *args, **kwargs)

    def __getattr__(self, name):
        return getattr(self._store, name)


def _store_chats(db) -> None:
    with db.atomic():
        for number, turns in enumerate(CHATS):
            conversation_id = create_conversation(db, f"Chat {number}").id
            for position, text in enumerate(turns):
                db.execute(
                    "INSERT INTO messages (conversation_id, role, content, author, created_at) "
                    "VALUES (?, ?, ?, ?, ?)",
                    [
                        conversation_id,
                        "user" if position % 2 == 0 else "assistant",
                        text,
                        "Caroline" if number == 0 and position % 2 == 0 else None,
                        f"2030-05-0{3 + position % 2}T10:00:0{position}.000000+00:00",
                    ],
                )


def _summary(hits) -> list[tuple]:
    return [
        (
            type(hit).__name__,
            hit.memory.id if isinstance(hit, RetrievedMemory) else hit.message.id,
            hit.rank,
            hit.score,
            tuple(hit.reasons),
            hit.relevant,
        )
        for hit in hits
    ]


def _with_profile(tmp_path, body):
    async def go():
        async with memory_services(tmp_path) as (store, service, _log):
            await service.remember_many([MemoryDraft(content=f) for f in FACTS], explicit=True)
            await store.run(_store_chats)
            await service.episodes.embed_missing()

            def retriever(on_store) -> HybridRetriever:
                return HybridRetriever(
                    on_store, service.embedder, service.index, messages=service.episodes.index
                )

            return await body(store, service, retriever)

    return run(go())


def test_the_read_connection_ranks_exactly_as_the_writer_thread(tmp_path):
    async def body(store, service, retriever):
        read_only, writer = retriever(store), retriever(WriterThreadOnly(store))
        pairs = []
        for question in QUESTIONS:
            pairs.append(
                (
                    _summary(await read_only.search(question, 10, now=NOW)),
                    _summary(await writer.search(question, 10, now=NOW)),
                )
            )
        return pairs

    pairs = _with_profile(tmp_path, body)
    for read_only, writer in pairs:
        # Scores to within float32 rounding: numpy's SIMD sums may differ in the last bit
        # with the alignment of the arrays, which can move a score across the sixth
        # decimal the hits are rounded to. Everything else, the order included, is exact.
        assert [(*hit[:3], *hit[4:]) for hit in read_only] == [
            (*hit[:3], *hit[4:]) for hit in writer
        ]
        assert [hit[3] for hit in read_only] == pytest.approx([hit[3] for hit in writer], abs=2e-6)
    found = [kind for read_only, _ in pairs for kind, *_ in read_only]
    # Both tiers took part, so both tiers' reads were compared.
    assert "RetrievedMemory" in found and "RetrievedMessage" in found


def test_a_search_sees_each_write_committed_before_it(tmp_path):
    async def body(store, service, retriever):
        search = retriever(store).search
        ids = lambda hits: [h.memory.id for h in hits if isinstance(h, RetrievedMemory)]  # noqa: E731
        before = await search("Which xylophone brand do I own?", 10, now=NOW)
        added = await service.remember("I own a Zildjian xylophone.", explicit=True)
        after_adding = await search("Which xylophone brand do I own?", 10, now=NOW)
        await service.forget(added.id)
        after_forgetting = await search("Zildjian xylophone", 10, now=NOW)

        def add_message(db) -> int:
            with db.atomic():
                chat = create_conversation(db, "Later").id
                return db.execute(
                    "INSERT INTO messages (conversation_id, role, content, created_at) "
                    "VALUES (?, 'user', 'The quokka at the zoo smiled at me.', ?)",
                    [chat, "2030-05-05T10:00:00.000000+00:00"],
                ).lastrowid

        message_id = await store.run(add_message)
        recalled = await search("quokka zoo", 10, now=NOW)
        return (
            added.id,
            ids(before),
            ids(after_adding),
            ids(after_forgetting),
            message_id,
            [h.message.id for h in recalled if isinstance(h, RetrievedMessage)],
        )

    added, before, after_adding, after_forgetting, message_id, recalled = _with_profile(
        tmp_path, body
    )
    assert added not in before
    assert after_adding[0] == added
    assert added not in after_forgetting
    assert recalled[:1] == [message_id]


def test_a_search_does_not_wait_for_a_write_in_progress(tmp_path):
    async def body(store, service, retriever):
        writing, release = threading.Event(), threading.Event()

        def long_write(db) -> None:
            with db.atomic():
                db.execute("UPDATE memories SET importance = importance")
                writing.set()
                release.wait(120)  # held until the search below has finished

        write = asyncio.ensure_future(store.run(long_write))
        await asyncio.to_thread(writing.wait, 120)
        try:
            # A search queued behind the write would wait for release: it never comes.
            hits = await asyncio.wait_for(
                retriever(store).search("Where does Leila live?", 5, now=NOW), 60
            )
        finally:
            release.set()
            await write
        return hits

    hits = _with_profile(tmp_path, body)
    assert "Leila" in hits[0].memory.content


def test_the_read_connection_cannot_write(tmp_path):
    async def body(store, service, retriever):
        with pytest.raises((StoreError, sqlite3.Error)):
            await store.read(lambda db: db.execute("DELETE FROM memories"))
        return await store.run(lambda db: db.execute("SELECT count(*) FROM memories").fetchone())

    (count,) = _with_profile(tmp_path, body)
    assert count == len(FACTS)


def test_closing_after_searches_folds_the_wal_into_the_file(tmp_path):
    async def body(store, service, retriever):
        await retriever(store).search("Where does Leila live?", 5, now=NOW)
        await service.remember("I keep bees on the roof.", explicit=True)
        return store.path

    path = _with_profile(tmp_path, body)
    wal = path.with_name(path.name + "-wal")
    assert not wal.exists() or wal.stat().st_size == 0


def test_an_edit_between_two_searches_is_judged_on_the_new_text(tmp_path):
    """The floor's word stems are cached by text: an edited memory is judged on its new
    words at the next search, and its old text no longer counts."""

    async def body(store, service, retriever):
        search = retriever(store).search
        question = "Which xylophone brand does Leila play?"
        kitten = next(m for m in await store.run(_all_memories) if "kitten" in m.content)
        before = await search(question, 10, now=NOW)
        await service.edit(kitten.id, "Leila plays a Zildjian xylophone in a band.")
        after = await search(question, 10, now=NOW)
        await service.edit(kitten.id, "We adopted a grey kitten called Pixel from the shelter.")
        again = await search(question, 10, now=NOW)
        return kitten.id, before, after, again

    def verdict(hits, memory_id):
        return [
            (hit.relevant, "lexical" in hit.reasons)
            for hit in hits
            if isinstance(hit, RetrievedMemory) and hit.memory.id == memory_id
        ]

    memory_id, before, after, again = _with_profile(tmp_path, body)
    assert verdict(before, memory_id) in ([], [(False, False)])
    assert verdict(after, memory_id) == [(True, True)]
    assert after[0].memory.id == memory_id
    assert verdict(again, memory_id) == verdict(before, memory_id)


def _all_memories(db):
    from acai_desktop.core.store.memories import memories_by_id

    ids = [row[0] for row in db.execute("SELECT id FROM memories")]
    return list(memories_by_id(db, ids).values())
