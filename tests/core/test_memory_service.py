"""MemoryService on a real SQLite file with the real WordLlama embedder."""

from __future__ import annotations

import asyncio
import logging
import re

import numpy as np
import pytest

from acai_desktop.core import events as ev
from acai_desktop.core.errors import InvalidInputError, NotFoundError, ProtectedMemoryError
from acai_desktop.core.memory.policy import MemoryPolicy
from acai_desktop.core.memory.service import MemoryDraft
from acai_desktop.core.memory.validation import MAX_MEMORY_CHARS
from acai_desktop.core.records.memories import Actor, MemoryKind, MemoryStatus, Origin
from acai_desktop.core.store.conversation_repository import ConversationRepository
from acai_desktop.core.store.memories import MemoryFilter, decode_embedding
from tests.support.aio import run
from tests.support.memory import count_rows, memory_services, retrieve, shared_embedder

PROCESSOR = Actor.CRITICAL_INFO_PROCESSOR
ALL = MemoryFilter(statuses=None)


async def stored_embedding(store, memory_id):
    sql = "SELECT embedding, embedding_model FROM memories WHERE id = ?"
    return await store.run(lambda db: db.execute(sql, [memory_id]).fetchone())


async def fts_ids(store, word):
    if store.dialect == "postgresql":
        sql = (
            "SELECT id FROM memories WHERE search_vector @@ acai_fts_query(ARRAY[?], '|') "
            "ORDER BY id"
        )
    else:
        sql = "SELECT rowid FROM memories_fts WHERE memories_fts MATCH ? ORDER BY rowid"
    rows = await store.run(lambda db: db.execute(sql, [word]).fetchall())
    return [row[0] for row in rows]


async def fts_integrity(store):
    if store.dialect == "postgresql":
        return  # a generated tsvector column can't drift from its row
    # FTS5's own check: with rank=1 it compares the index with the content table.
    await store.run(
        lambda db: db.execute(
            "INSERT INTO memories_fts(memories_fts, rank) VALUES ('integrity-check', 1)"
        )
    )


async def add_messages(store, *texts):
    conversations = ConversationRepository(store)
    conversation = await conversations.create()
    return [(await conversations.add_message(conversation.id, "user", text)).id for text in texts]


# -- remember -----------------------------------------------------------------------


def test_remember_stores_scores_embeds_indexes_and_announces(store_location, tmp_path):
    async def scenario():
        async with memory_services(tmp_path, store_location=store_location) as (
            store,
            service,
            events,
        ):
            item = await service.remember(
                "I prefer Python for backend development", category="Preference"
            )
            assert item.status == MemoryStatus.ACTIVE
            assert item.importance > service.policy.long_term_threshold
            assert item.kind == MemoryKind.FACT and item.origin == Origin.USER
            assert item.meta["uid"]
            blob, model = await stored_embedding(store, item.id)
            expected = shared_embedder().embed_sync([item.content])[0]
            assert model == shared_embedder().name
            assert np.allclose(decode_embedding(blob), expected)
            assert item.id in service.index and len(service.index) == 1
            assert events.memories(ev.MemoryAdded) == [item]
            [created] = await service.history(item.id)
            assert (created.actor, created.action) == (Actor.USER, "created")
            assert created.after["content"] == item.content
            assert await service.get(item.id) == item

    run(scenario())


def test_policy_keeps_small_talk_temporary_but_explicit_always_active(store_location, tmp_path):
    async def scenario():
        async with memory_services(tmp_path, store_location=store_location) as (
            _store,
            service,
            _events,
        ):
            chatter = await service.remember("okay thanks", actor=PROCESSOR)
            asked = await service.remember("okay thanks", explicit=True, kind="note")
            assert chatter.status == MemoryStatus.TEMPORARY
            assert chatter.id not in service.index
            assert asked.status == MemoryStatus.ACTIVE and asked.id in service.index
            listed = [m.id for m in await service.list()]
            assert chatter.id in listed  # temporary: kept and visible, not retrieved

    run(scenario())


@pytest.mark.parametrize(
    ("text", "complaint"),
    [
        ("", "empty"),
        ("   \n\t  ", "empty"),
        ("x" * (1024 * 1024), "at most 20,000"),
        ("before\x00after", "U+0000 (NUL) at position 7"),
        ("bell\x07", "U+0007 (BEL)"),
        ("escape \x1b[31m red", "U+001B (ESC)"),
        ("delete\x7f", "U+007F (DEL)"),
    ],
)
def test_bad_text_is_refused_with_a_clear_error_and_nothing_is_written(
    store_location, tmp_path, text, complaint
):
    async def scenario():
        async with memory_services(tmp_path, store_location=store_location) as (
            store,
            service,
            events,
        ):
            with pytest.raises(InvalidInputError, match=re.escape(complaint)):
                await service.remember(text)
            assert await count_rows(store, "memories") == 0
            assert await count_rows(store, "memory_events") == 0
            assert events.seen == []

    run(scenario())


def test_text_at_the_limit_and_with_newlines_and_tabs_is_accepted(store_location, tmp_path):
    async def scenario():
        async with memory_services(tmp_path, store_location=store_location) as (
            _store,
            service,
            _events,
        ):
            long = await service.remember("a" * MAX_MEMORY_CHARS)
            assert len(long.content) == MAX_MEMORY_CHARS
            lines = await service.remember("  first line\r\n\tsecond line  ")
            assert lines.content == "first line\n\tsecond line"

    run(scenario())


def test_sources_must_be_messages_of_the_profile(store_location, tmp_path):
    async def scenario():
        async with memory_services(tmp_path, store_location=store_location) as (
            store,
            service,
            _events,
        ):
            first, second = await add_messages(store, "I live in Lyon", "and I cycle to work")
            item = await service.remember("The user lives in Lyon", sources=[second, first])
            assert await service.sources(item.id) == [first, second]
            with pytest.raises(NotFoundError, match="No message with id 999"):
                await service.remember("The user cycles", sources=[first, 999])
            assert await count_rows(store, "memories") == 1

    run(scenario())


def test_remember_many_is_one_batch_and_all_or_nothing(store_location, tmp_path):
    async def scenario():
        async with memory_services(tmp_path, store_location=store_location) as (
            store,
            service,
            events,
        ):
            [message] = await add_messages(store, "turn")
            drafts = [
                MemoryDraft(
                    content=f"Caroline went to the support group meeting number {i}",
                    kind="note",
                    sources=[message] if i % 2 else [],
                    meta={"speaker": "Caroline", "dia_id": f"D1:{i}"},
                )
                for i in range(3000)
            ]
            items = await service.remember_many(drafts, explicit=True)
            assert [item.id for item in items] == list(range(1, 3001))
            assert items[5].meta["dia_id"] == "D1:5" and items[5].meta["uid"]
            assert len(service.index) == 3000
            assert len(events.memories(ev.MemoryAdded)) == 3000
            assert await service.sources(items[1].id) == [message]
            assert await service.sources(items[2].id) == []
            assert await count_rows(store, "memory_events") == 3000
            assert await fts_ids(store, "number") == list(range(1, 3001))

            broken = ["fine", "also fine", "bad\x00one", "never reached"]
            with pytest.raises(InvalidInputError, match=r"Memory 3: .*NUL"):
                await service.remember_many(broken)
            assert await count_rows(store, "memories") == 3000

    run(scenario())


def test_unknown_kind_actor_and_ids_are_refused(store_location, tmp_path):
    async def scenario():
        async with memory_services(tmp_path, store_location=store_location) as (
            _store,
            service,
            _events,
        ):
            with pytest.raises(InvalidInputError, match="Unknown memory kind 'poem'"):
                await service.remember("a poem", kind="poem")
            with pytest.raises(InvalidInputError, match="Unknown actor"):
                await service.remember("x y z", actor="robot")
            with pytest.raises(InvalidInputError, match="between 0 and 1"):
                await service.remember("I like tea", confidence=1.5)
            for operation in (
                service.get(42),
                service.history(42),
                service.sources(42),
                service.edit(42, "text"),
                service.pin(42),
                service.unpin(42),
                service.forget(42),
                service.restore(42),
                service.propose_change(42, "text", actor=Actor.USER),
                service.reinforce(42, actor=PROCESSOR),
            ):
                with pytest.raises(NotFoundError, match="No memory with id 42"):
                    await operation
            with pytest.raises(InvalidInputError, match="not a memory id"):
                await service.get("forty-two")

    run(scenario())


# -- edit ---------------------------------------------------------------------------


def test_user_edit_marks_user_edited_reembeds_and_keeps_fts_in_sync(store_location, tmp_path):
    async def scenario():
        async with memory_services(tmp_path, store_location=store_location) as (
            store,
            service,
            events,
        ):
            # Coffee this morning passes (temporary); the user's edit vouches for it.
            item = await service.remember("I had coffee this morning", confidence=0.6)
            events.clear()
            edited = await service.edit(item.id, "I had green tea this morning")
            assert edited.user_edited and edited.protected
            assert item.status == MemoryStatus.TEMPORARY
            assert edited.status == MemoryStatus.ACTIVE  # the user vouched for it
            assert edited.confidence == 1.0
            assert edited.content == "I had green tea this morning"
            blob, _ = await stored_embedding(store, item.id)
            expected = shared_embedder().embed_sync([edited.content])[0]
            assert np.allclose(decode_embedding(blob), expected)
            assert np.allclose(service.index.matrix[0], expected)
            assert await fts_ids(store, "coffee") == []
            assert await fts_ids(store, "tea") == [item.id]
            await fts_integrity(store)
            assert events.memories(ev.MemoryChanged) == [edited]
            last = (await service.history(item.id))[-1]
            assert (last.actor, last.action) == (Actor.USER, "edited")
            assert last.before["content"] == "I had coffee this morning"
            assert last.after["content"] == edited.content

    run(scenario())


def test_processor_edit_of_a_protected_memory_is_refused_and_stored_as_conflict(
    store_location, tmp_path
):
    async def scenario():
        async with memory_services(tmp_path, store_location=store_location) as (
            _store,
            service,
            _events,
        ):
            pinned = await service.remember("My name is John")
            await service.pin(pinned.id)
            with pytest.raises(ProtectedMemoryError, match="is pinned") as refused:
                await service.edit(pinned.id, "My name is Jon", actor=PROCESSOR)
            conflict = refused.value.conflict
            assert conflict.status == MemoryStatus.CONFLICT
            assert conflict.meta["conflicts_with"] == pinned.id
            assert conflict.origin == Origin.CRITICAL_INFO
            assert (await service.get(pinned.id)).content == "My name is John"
            assert conflict.id not in service.index

            plain = await service.remember("The user owns a bike")
            changed = await service.edit(plain.id, "The user owns a red bike", actor=PROCESSOR)
            assert changed.content == "The user owns a red bike" and not changed.user_edited

    run(scenario())


# -- pin, forget, restore -----------------------------------------------------------


def test_pin_and_unpin(store_location, tmp_path):
    async def scenario():
        async with memory_services(tmp_path, store_location=store_location) as (
            _store,
            service,
            events,
        ):
            temporary = await service.remember("hello there", actor=PROCESSOR)
            assert temporary.status == MemoryStatus.TEMPORARY
            pinned = await service.pin(temporary.id)
            assert pinned.pinned and pinned.status == MemoryStatus.ACTIVE
            assert pinned.id in service.index
            again = await service.pin(temporary.id)  # no change, no new history
            unpinned = await service.unpin(temporary.id)
            assert not unpinned.pinned and unpinned.status == MemoryStatus.ACTIVE
            actions = [e.action for e in await service.history(temporary.id)]
            assert actions == ["created", "pinned", "unpinned"]
            assert again == pinned
            assert [m.id for m in events.memories(ev.MemoryChanged)] == [pinned.id, pinned.id]

    run(scenario())


def test_forget_and_restore_bring_back_the_previous_status(store_location, tmp_path):
    async def scenario():
        async with memory_services(tmp_path, store_location=store_location) as (
            store,
            service,
            events,
        ):
            active = await service.remember("I am allergic to peanuts")
            temporary = await service.remember("hmm maybe", actor=PROCESSOR)
            assert temporary.status == MemoryStatus.TEMPORARY
            forgotten = await service.forget(active.id)
            assert forgotten.status == MemoryStatus.FORGOTTEN
            assert active.id not in service.index
            assert events.memories(ev.MemoryRemoved) == [forgotten]
            assert active.id not in [m.id for m in await service.list()]
            assert active.id in [m.id for m in await service.list(ALL)]
            # Forgotten is a status, not a deletion: the text stays indexed for the panel's
            # "forgotten" view, and retrieval filters by status.
            assert await fts_ids(store, "peanuts") == [active.id]
            assert await retrieve(service, "peanuts") == []
            await fts_integrity(store)

            restored = await service.restore(active.id)
            assert restored.status == MemoryStatus.ACTIVE and active.id in service.index
            assert await retrieve(service, "peanuts") == [active.id]
            await service.forget(temporary.id)
            assert (await service.restore(temporary.id)).status == MemoryStatus.TEMPORARY
            assert temporary.id not in service.index
            await fts_integrity(store)
            with pytest.raises(InvalidInputError, match="not forgotten"):
                await service.restore(active.id)
            actions = [(e.actor, e.action) for e in await service.history(active.id)]
            assert actions == [
                (Actor.USER, "created"),
                (Actor.USER, "forgotten"),
                (Actor.USER, "restored"),
            ]

    run(scenario())


def test_processors_cannot_forget_or_pin_protected_memories(store_location, tmp_path):
    async def scenario():
        async with memory_services(tmp_path, store_location=store_location) as (
            _store,
            service,
            _events,
        ):
            item = await service.remember("My sister is called Ana")
            await service.edit(item.id, "My sister is called Anna")
            with pytest.raises(ProtectedMemoryError, match="edited by the user"):
                await service.forget(item.id, actor=PROCESSOR)
            with pytest.raises(ProtectedMemoryError):
                await service.unpin(item.id, actor=Actor.SUMMARY_PROCESSOR)
            assert (await service.get(item.id)).status == MemoryStatus.ACTIVE

    run(scenario())


# -- supersede ----------------------------------------------------------------------


def test_supersede_keeps_both_rows_linked_in_one_transaction(store_location, tmp_path):
    async def scenario():
        async with memory_services(tmp_path, store_location=store_location) as (
            store,
            service,
            events,
        ):
            [message] = await add_messages(store, "I moved to Berlin")
            old = await service.remember("The user lives in Paris", category="Location")
            await service.pin(old.id)
            events.clear()
            new = await service.propose_change(
                old.id, "The user lives in Berlin", sources=[message], actor=Actor.USER
            )
            old_now = await service.get(old.id)
            assert old_now.status == MemoryStatus.SUPERSEDED
            assert old_now.superseded_by == new.id
            assert new.status == MemoryStatus.ACTIVE and new.category == "Location"
            assert new.pinned and not old_now.pinned  # the user's pin moves to the new wording
            assert new.meta["supersedes"] == old.id
            assert await service.sources(new.id) == [message]
            assert new.id in service.index and old.id not in service.index
            assert events.memories(ev.MemoryAdded) == [new]
            assert events.memories(ev.MemoryChanged) == [old_now]
            assert (await service.history(old.id))[-1].action == "superseded"

            with pytest.raises(InvalidInputError, match="superseded; only a current"):
                await service.propose_change(old.id, "The user lives in Rome", actor=Actor.USER)
            # A failing supersede (unknown source) writes neither row.
            before = await count_rows(store, "memories")
            with pytest.raises(NotFoundError):
                await service.propose_change(
                    new.id, "The user lives in Rome", sources=[404], actor=Actor.USER
                )
            assert await count_rows(store, "memories") == before
            assert (await service.get(new.id)).status == MemoryStatus.ACTIVE

    run(scenario())


def test_processor_supersede_of_protected_memory_is_refused_and_kept_as_conflict(
    store_location, tmp_path, caplog
):
    async def scenario():
        async with memory_services(tmp_path, store_location=store_location) as (
            _store,
            service,
            events,
        ):
            old = await service.remember("I am vegetarian")
            await service.edit(old.id, "I am vegan")
            events.clear()
            with caplog.at_level(logging.INFO, logger="acai_desktop.core.memory.service"):
                conflict = await service.propose_change(
                    old.id, "The user eats fish", actor=PROCESSOR
                )
            assert "edited by the user" in caplog.text  # refused, and said why
            assert conflict.status == MemoryStatus.CONFLICT
            assert conflict.meta["conflicts_with"] == old.id
            assert (await service.get(old.id)).status == MemoryStatus.ACTIVE
            assert events.memories(ev.MemoryAdded) == [conflict]
            assert conflict.id not in service.index

            proposed = await service.propose_change(old.id, "The user eats meat", actor=PROCESSOR)
            assert proposed.status == MemoryStatus.CONFLICT

            unprotected = await service.remember("The user has a cat", actor=PROCESSOR)
            successor = await service.propose_change(
                unprotected.id, "The user has two cats", actor=PROCESSOR, confidence=0.8
            )
            assert successor.status == MemoryStatus.ACTIVE
            assert successor.origin == Origin.CRITICAL_INFO
            assert (await service.get(unprotected.id)).superseded_by == successor.id

    run(scenario())


@pytest.mark.parametrize("user_first", [True, False], ids=["user-first", "processor-first"])
def test_user_edit_racing_a_processor_write_ends_with_the_users_edit(
    store_location, tmp_path, user_first
):
    async def scenario():
        async with memory_services(tmp_path, store_location=store_location) as (
            store,
            service,
            _events,
        ):
            fact = await service.remember("The user works at Acme", actor=PROCESSOR)
            user = service.edit(fact.id, "I work at Globex")
            processor = service.propose_change(
                fact.id, "The user works at Initech", actor=PROCESSOR
            )
            calls = (user, processor) if user_first else (processor, user)
            await asyncio.gather(*calls)

            final = await service.get(fact.id)
            assert final.content == "I work at Globex"
            assert final.status == MemoryStatus.ACTIVE and final.user_edited
            assert final.superseded_by is None
            others = [m for m in await service.list(ALL) if m.id != fact.id]
            assert [(m.content, m.status) for m in others] == [
                ("The user works at Initech", MemoryStatus.CONFLICT)
            ]
            assert others[0].meta["conflicts_with"] == fact.id
            # Both interleavings really happened: refused up front, or superseded first and
            # then displaced by the user's edit.
            actions = [e.action for e in await service.history(others[0].id)]
            assert actions == (["conflict"] if user_first else ["created", "conflict"])
            assert set(service.index.ids.tolist()) == {fact.id}
            await fts_integrity(store)

    run(scenario())


# -- reinforce and use --------------------------------------------------------------


def test_reinforce_counts_links_keeps_higher_confidence_and_promotes(store_location, tmp_path):
    async def scenario():
        async with memory_services(
            tmp_path,
            store_location=store_location,
            policy=MemoryPolicy(long_term_threshold=0.5, promote_after_uses=2),
        ) as (
            store,
            service,
            _events,
        ):
            first, second = await add_messages(store, "I watched a film", "a film again")
            # Neither lasting nor passing: temporary until it comes up again.
            item = await service.remember(
                "The user watched a film", actor=PROCESSOR, confidence=0.4, sources=[first]
            )
            assert item.status == MemoryStatus.TEMPORARY
            once = await service.reinforce(
                item.id, actor=PROCESSOR, source_message_ids=[second], confidence=0.7
            )
            assert once.use_count == 1 and once.last_used_at
            assert once.confidence == 0.7 and once.importance > item.importance
            assert once.status == MemoryStatus.TEMPORARY
            assert await service.sources(item.id) == [first, second]
            lower = await service.reinforce(item.id, actor=PROCESSOR, confidence=0.2)
            assert lower.confidence == 0.7
            assert lower.status == MemoryStatus.ACTIVE and item.id in service.index
            actions = [e.action for e in await service.history(item.id)]
            assert actions[-1] == "promoted"

            pinned = await service.remember("My birthday is on 3 May")
            await service.pin(pinned.id)
            reinforced = await service.reinforce(pinned.id, actor=PROCESSOR)
            assert reinforced.use_count == 1 and reinforced.content == pinned.content

    run(scenario())


def test_mark_used_counts_without_history(store_location, tmp_path):
    async def scenario():
        async with memory_services(tmp_path, store_location=store_location) as (
            store,
            service,
            events,
        ):
            a = await service.remember("I like hiking in the Alps")
            b = await service.remember("I play the cello")
            events_before = await count_rows(store, "memory_events")
            events.clear()
            used = await service.mark_used([a.id, b.id, a.id])
            assert [(m.id, m.use_count) for m in used] == [(a.id, 1), (b.id, 1)]
            assert all(m.last_used_at for m in used)
            assert await count_rows(store, "memory_events") == events_before
            assert events.memories(ev.MemoryChanged) == used

    run(scenario())


# -- the index at start-up ----------------------------------------------------------


def test_load_index_holds_exactly_the_active_memories_after_reopening(store_location, tmp_path):
    async def scenario():
        async with memory_services(tmp_path, store_location=store_location) as (
            _store,
            service,
            _events,
        ):
            keep = await service.remember("I prefer Python for backend development")
            gone = await service.remember("I use vim")
            await service.forget(gone.id)
            await service.remember("ok", actor=PROCESSOR)  # temporary
            old = await service.remember("I live in Paris")
            new = await service.propose_change(old.id, "I live in Berlin", actor=Actor.USER)
        async with memory_services(tmp_path, store_location=store_location) as (
            _store,
            service,
            _events,
        ):
            assert sorted(service.index.ids.tolist()) == [keep.id, new.id]
            query = shared_embedder().embed_sync(["backend language"])[0]
            ids, _scores = service.index.top_k(query, 1)
            assert ids.tolist() == [keep.id]

    run(scenario())


def test_a_changed_embedder_reembeds_in_batches_with_progress(store_location, tmp_path):
    async def scenario():
        async with memory_services(tmp_path, store_location=store_location) as (
            _store,
            service,
            _events,
        ):
            items = await service.remember_many(
                [f"Memory about topic {i}" for i in range(25)], explicit=True
            )
            forgotten = await service.forget(items[0].id)
        async with memory_services(tmp_path, store_location=store_location) as (
            store,
            _service,
            _events,
        ):
            # Pretend 20 of them came from another embedder.
            await store.run(
                lambda db: db.execute(
                    "UPDATE memories SET embedding_model = 'old-embedder', embedding = ? "
                    "WHERE id <= 20",
                    [np.ones(8, dtype=np.float32).tobytes()],
                )
            )
        async with memory_services(tmp_path, store_location=store_location) as (
            store,
            service,
            events,
        ):
            # Opening ran load_index(), which re-embedded the 20 in one batch.
            assert set(service.index.ids.tolist()) == {i.id for i in items[1:]}
            progress = events.named(ev.EmbeddingProgress)
            assert progress == [ev.EmbeddingProgress(0, 20), ev.EmbeddingProgress(20, 20)]
            stale = await store.run(
                lambda db: db.execute(
                    "SELECT count(*) FROM memories WHERE embedding_model != ?",
                    [shared_embedder().name],
                ).fetchone()[0]
            )
            assert stale == 0
            events.clear()
            await store.run(
                lambda db: db.execute(
                    "UPDATE memories SET embedding_model = 'old-embedder' WHERE id > 10"
                )
            )
            await service.reembed_stale(batch_size=6)
            assert events.named(ev.EmbeddingProgress) == [
                ev.EmbeddingProgress(0, 15),
                ev.EmbeddingProgress(6, 15),
                ev.EmbeddingProgress(12, 15),
                ev.EmbeddingProgress(15, 15),
            ]
            assert forgotten.id not in service.index

    run(scenario())


def test_validation_refuses_exactly_the_control_characters_except_newline_and_tab():
    import unicodedata

    from acai_desktop.core.memory.validation import clean_memory_text

    for code in range(0x10000):
        char = chr(code)
        # "\r" is not refused: line endings are unified to "\n" first.
        forbidden = char not in "\n\t\r" and unicodedata.category(char) in ("Cc", "Cs")
        text = f"a{char}b"
        if forbidden:
            with pytest.raises(InvalidInputError, match=f"U\\+{code:04X}"):
                clean_memory_text(text)
        else:
            assert clean_memory_text(text).startswith("a")
