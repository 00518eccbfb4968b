"""What a search hides beyond its caller's ids (another project's items, what was
written after ``as_of``) is read by the ranking itself, in its one read transaction on
the database thread, and handed back to the loop for the semantic side: no read of its
own before the search. The hand-back never leaves either thread waiting, whatever
fails or is cancelled."""

from __future__ import annotations

import asyncio
import sqlite3
import threading

import pytest

from acai_desktop.core.clock import parse_utc
from acai_desktop.core.memory.retrieval import HybridRetriever, RetrievedMemory
from acai_desktop.core.memory.retrieval.ranking import rank as rank_on_database
from acai_desktop.core.memory.service import MemoryDraft
from acai_desktop.core.records.projects import ProjectScope
from acai_desktop.core.store import projects
from tests.support.aio import run
from tests.support.memory import memory_services

FACTS = [
    "My sister Leila lives in Lisbon and works as an architect.",
    "I am allergic to peanuts, so no satay sauce please.",
    "We adopted a grey kitten called Pixel from the shelter.",
    "I prefer green tea to coffee in the morning.",
]
# Another project's: found by its words and by its meaning unless hidden.
OTHER_PROJECT = "Leila, my sister the architect, designs houses in Lisbon."
LATER = "Leila the architect collects old maps of Lisbon harbours."
QUERY = "Leila Lisbon architect"
BY_MEANING = "a relative planning homes"
DEEP = 100  # more than every item of the profile


def _with_profile(store_location, tmp_path, body):
    async def go():
        async with memory_services(tmp_path, store_location=store_location) as (
            store,
            service,
            _log,
        ):

            async def remember(*texts):
                return await service.remember_many(
                    [MemoryDraft(content=t) for t in texts], explicit=True
                )

            items = await remember(*FACTS)
            project = await store.run(projects.create_project, "Garden")
            (other,) = await remember(OTHER_PROJECT)
            await store.run(projects.set_memory_project, other.id, project.id)
            (later,) = await remember(LATER)
            retriever = HybridRetriever(store, service.embedder, service.index)
            return await body(retriever, store, items, other, later)

    return run(go())


def _reads_of(store) -> list:
    """Each function the store's reader is given from now on (the store's own method,
    wrapped: every read still runs)."""
    reads = []
    submit_read = store.submit_read

    def counted(fn, *args, **kwargs):
        reads.append(fn)
        return submit_read(fn, *args, **kwargs)

    store.submit_read = counted
    return reads


def _memory_ids(hits) -> list[int]:
    return [h.memory.id for h in hits if isinstance(h, RetrievedMemory)]


def test_what_a_scope_or_a_time_hides_is_read_by_the_ranking_itself(store_location, tmp_path):
    async def body(retriever, store, items, other, later):
        everything = _memory_ids(await retriever.search(QUERY, DEEP))
        reads = _reads_of(store)
        as_of = parse_utc(items[-1].created_at)
        found = {
            "scoped": await retriever.search(QUERY, DEEP, scope=ProjectScope(None)),
            "then": await retriever.search(QUERY, DEEP, as_of=as_of),
            # No word in common: every memory is a candidate by its meaning alone, so
            # the semantic side must leave the hidden ones out itself.
            "meaning scoped": await retriever.search(BY_MEANING, DEEP, scope=ProjectScope(None)),
            "meaning then": await retriever.search(BY_MEANING, DEEP, as_of=as_of),
        }
        found = {name: set(_memory_ids(hits)) for name, hits in found.items()}
        return everything, found, reads, {i.id for i in items}, other.id, later.id

    everything, found, reads, facts, other, later = _with_profile(store_location, tmp_path, body)
    assert {other, later} <= set(everything)
    assert found["scoped"] == found["meaning scoped"] == facts | {later}
    assert found["then"] == found["meaning then"] == facts
    # One trip to the reader per search: the ranking, which read what it hides itself.
    assert reads == [rank_on_database] * 4


async def _reader_is_free(store) -> bool:
    return await store.read(lambda db: db.execute("SELECT 1").fetchone()[0]) == 1


def test_a_failure_reading_what_is_hidden_is_the_search_error(store_location, tmp_path):
    async def body(retriever, store, items, other, later):
        await store.run(lambda db: db.execute("ALTER TABLE projects RENAME TO projects_gone"))
        with pytest.raises(Exception, match="projects"):
            await retriever.search(QUERY, DEEP, scope=ProjectScope(None))
        assert await _reader_is_free(store)
        await store.run(lambda db: db.execute("ALTER TABLE projects_gone RENAME TO projects"))
        hits = await retriever.search(QUERY, DEEP, scope=ProjectScope(None))
        return set(_memory_ids(hits)), {i.id for i in items} | {later.id}

    found, seen = _with_profile(store_location, tmp_path, body)
    assert found == seen


class _FailingEmbedder:
    """Embeds at once, on the loop (as WordLlama does), and fails."""

    def __init__(self, inner) -> None:
        self.name, self.dimensions = inner.name, inner.dimensions

    def embeds_now(self, texts):
        return True

    async def embed(self, texts):
        raise RuntimeError("embedder failed")


def test_an_embedder_failing_while_the_hidden_ids_are_read_fails_the_search(
    store_location, tmp_path
):
    async def body(retriever, store, items, other, later):
        failing = HybridRetriever(store, _FailingEmbedder(retriever.embedder), retriever.index)
        for scope in (ProjectScope(None), None):
            with pytest.raises(RuntimeError, match="embedder failed"):
                await failing.search(QUERY, DEEP, scope=scope)
        return await _reader_is_free(store)

    assert _with_profile(store_location, tmp_path, body)


def test_a_search_cancelled_while_the_hidden_ids_are_read_frees_the_reader(
    store_location, tmp_path
):
    """Cancelled while it waits for the ranking to hand back what it hides: the ranking
    still ends (the loop settles its handoff), and the next search runs."""

    async def body(retriever, store, items, other, later):
        gate = threading.Event()
        busy = store.submit_read(lambda db: gate.wait())  # the reader is taken...
        reads = _reads_of(store)
        search = asyncio.ensure_future(retriever.search(QUERY, DEEP, scope=ProjectScope(None)))
        try:
            while not reads:  # ...until the search has queued its ranking behind it
                await asyncio.sleep(0)
            await asyncio.sleep(0)  # and waits for what the ranking hides
            assert not search.done()
            search.cancel()
        finally:
            gate.set()
        await busy
        with pytest.raises(asyncio.CancelledError):
            await search
        hits = await retriever.search(QUERY, DEEP, scope=ProjectScope(None))
        return set(_memory_ids(hits)), {i.id for i in items} | {later.id}

    found, seen = _with_profile(store_location, tmp_path, body)
    assert found == seen


def test_a_reader_failing_before_the_ranking_begins_fails_the_search(tmp_path):
    """The ranking never starts, so nothing hands back what it hides: the search raises
    the reader's error rather than wait (SQLite: its reader closed, as closing the store
    does first)."""

    async def body(retriever, store, items, other, later):
        reader = store._reader
        await asyncio.get_running_loop().run_in_executor(reader.executor, reader.close_connection)
        with pytest.raises(sqlite3.ProgrammingError, match="reader is closed"):
            await retriever.search(QUERY, DEEP, scope=ProjectScope(None))
        return True

    assert _with_profile(tmp_path / "acai.sqlite3", tmp_path, body)
