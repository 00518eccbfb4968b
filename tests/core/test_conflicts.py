"""Resolving a conflict: the user keeps the new fact or the old memory.

Real SQLite file, real WordLlama embedder, the assistant's own retrieval.
"""

from __future__ import annotations

import pytest

from acai_desktop.core import events as ev
from acai_desktop.core.errors import InvalidInputError, NotFoundError, ProtectedMemoryError
from acai_desktop.core.records.memories import Actor, MemoryStatus
from acai_desktop.core.store.memories import MemoryFilter
from tests.core.test_memory_service import fts_ids, fts_integrity
from tests.support.aio import run
from tests.support.memory import memory_services, retrieve

PROCESSOR = Actor.CRITICAL_INFO_PROCESSOR
ALL = MemoryFilter(statuses=None)


async def pinned_with_conflict(service, old_text="I live in Berlin", new_text="I moved to Lisbon"):
    """A pinned memory and a processor's contradicting fact, stored as its conflict."""
    old = await service.remember(old_text)
    old = await service.pin(old.id)
    conflict = await service.propose_change(old.id, new_text, actor=PROCESSOR)
    assert conflict.status == MemoryStatus.CONFLICT
    assert conflict.meta["conflicts_with"] == old.id
    return old, conflict


def test_keep_new_activates_the_conflict_supersedes_the_old_one_and_moves_the_pin(
    store_location, tmp_path
):
    async def scenario():
        async with memory_services(tmp_path, store_location=store_location) as (
            store,
            service,
            events,
        ):
            old, conflict = await pinned_with_conflict(service)
            assert await retrieve(service, "where do I live Berlin Lisbon") == [old.id]
            events.clear()

            new = await service.resolve_conflict(conflict.id, keep="new")

            assert new.id == conflict.id
            assert new.status == MemoryStatus.ACTIVE
            assert new.user_edited and new.pinned and new.protected
            assert "conflicts_with" not in new.meta and new.meta["supersedes"] == old.id
            stored_old = await service.get(old.id)
            assert stored_old.status == MemoryStatus.SUPERSEDED
            assert stored_old.superseded_by == new.id and not stored_old.pinned
            assert stored_old.content == "I live in Berlin"  # kept, only replaced

            # History: one row each, by the user, saying what happened.
            last_new = (await service.history(new.id))[-1]
            assert (last_new.actor, last_new.action) == (Actor.USER, "conflict_accepted")
            assert last_new.before["status"] == "conflict"
            assert last_new.after["status"] == "active"
            last_old = (await service.history(old.id))[-1]
            assert (last_old.actor, last_old.action) == (Actor.USER, "superseded")
            assert last_old.after["superseded_by"] == new.id

            # Index, full-text index and retrieval follow.
            assert set(service.index.ids.tolist()) == {new.id}
            assert await fts_ids(store, "lisbon") == [new.id]
            await fts_integrity(store)
            assert await retrieve(service, "where do I live Berlin Lisbon") == [new.id]

            assert events.memories(ev.MemoryChanged) == [new, stored_old]
            assert events.memories(ev.MemoryAdded) == events.memories(ev.MemoryRemoved) == []

    run(scenario())


def test_an_accepted_fact_is_protected_from_processors_afterwards(store_location, tmp_path):
    async def scenario():
        async with memory_services(tmp_path, store_location=store_location) as (
            _store,
            service,
            _events,
        ):
            old = await service.remember("I am vegetarian")
            await service.edit(old.id, "I am vegan")  # user-edited, not pinned
            conflict = await service.propose_change(old.id, "The user eats fish", actor=PROCESSOR)
            new = await service.resolve_conflict(conflict.id, keep="new")
            assert not new.pinned  # nothing to move: the old one was not pinned
            assert new.user_edited and new.confidence == 1.0

            again = await service.propose_change(new.id, "The user eats meat", actor=PROCESSOR)
            assert again.status == MemoryStatus.CONFLICT
            assert again.meta["conflicts_with"] == new.id
            assert (await service.get(new.id)).status == MemoryStatus.ACTIVE

    run(scenario())


def test_keep_old_forgets_the_conflict_and_leaves_the_old_memory_alone(store_location, tmp_path):
    async def scenario():
        async with memory_services(tmp_path, store_location=store_location) as (
            store,
            service,
            events,
        ):
            old, conflict = await pinned_with_conflict(service)
            old_history = await service.history(old.id)
            events.clear()

            rejected = await service.resolve_conflict(conflict.id, keep="old")

            assert rejected.id == conflict.id
            assert rejected.status == MemoryStatus.FORGOTTEN
            assert await service.get(old.id) == old
            assert await service.history(old.id) == old_history
            last = (await service.history(conflict.id))[-1]
            assert (last.actor, last.action) == (Actor.USER, "conflict_rejected")
            assert events.memories(ev.MemoryRemoved) == [rejected]
            assert events.memories(ev.MemoryChanged) == []
            assert conflict.id not in [m.id for m in await service.list()]
            assert set(service.index.ids.tolist()) == {old.id}
            assert await retrieve(service, "where do I live Berlin Lisbon") == [old.id]
            await fts_integrity(store)

            # Soft: restoring brings it back as the conflict it was, to decide again.
            restored = await service.restore(conflict.id)
            assert restored.status == MemoryStatus.CONFLICT
            assert restored.meta["conflicts_with"] == old.id

    run(scenario())


def test_keep_new_when_the_old_memory_was_forgotten_meanwhile_replaces_nothing(
    store_location, tmp_path
):
    async def scenario():
        async with memory_services(tmp_path, store_location=store_location) as (
            _store,
            service,
            _events,
        ):
            old, conflict = await pinned_with_conflict(service)
            await service.forget(old.id)
            new = await service.resolve_conflict(conflict.id, keep="new")
            assert new.status == MemoryStatus.ACTIVE and not new.pinned
            assert "supersedes" not in new.meta
            stored_old = await service.get(old.id)
            assert stored_old.status == MemoryStatus.FORGOTTEN
            assert stored_old.superseded_by is None
            assert set(service.index.ids.tolist()) == {new.id}

    run(scenario())


def test_refusals_name_the_problem_and_change_nothing(store_location, tmp_path):
    async def scenario():
        async with memory_services(tmp_path, store_location=store_location) as (
            _store,
            service,
            events,
        ):
            old, conflict = await pinned_with_conflict(service)
            before = await service.list(ALL)
            events.clear()

            with pytest.raises(ProtectedMemoryError, match="Only the user"):
                await service.resolve_conflict(conflict.id, keep="new", actor=PROCESSOR)
            with pytest.raises(ProtectedMemoryError, match="summary_processor"):
                await service.resolve_conflict(
                    conflict.id, keep="old", actor=Actor.SUMMARY_PROCESSOR
                )
            with pytest.raises(InvalidInputError, match=f"Memory {old.id} is active, not a"):
                await service.resolve_conflict(old.id, keep="new")
            with pytest.raises(NotFoundError, match="No memory with id 999"):
                await service.resolve_conflict(999, keep="old")
            with pytest.raises(InvalidInputError, match="keep must be"):
                await service.resolve_conflict(conflict.id, keep="both")  # type: ignore[arg-type]
            with pytest.raises(InvalidInputError, match="not a memory id"):
                await service.resolve_conflict("abc", keep="new")

            assert await service.list(ALL) == before
            assert events.seen == []

            # Resolved once, it is no longer a conflict.
            await service.resolve_conflict(conflict.id, keep="new")
            with pytest.raises(InvalidInputError, match="is active, not a conflict"):
                await service.resolve_conflict(conflict.id, keep="old")

    run(scenario())
