"""DocumentService over a real SQLite file: add, index in the job runner, resume after a
crash, re-index a changed file, remove, folders with a stop, per-conversation scope."""

from __future__ import annotations

import asyncio
import os
import sqlite3
import threading
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path

import pytest

from acai_desktop.core import events as ev
from acai_desktop.core.documents.model import DocumentScope, DocumentStatus, ScopeMode
from acai_desktop.core.documents.readers import read_document
from acai_desktop.core.documents.service import DocumentService
from acai_desktop.core.errors import NotFoundError
from acai_desktop.core.events import EventBus
from acai_desktop.core.learning.job_runner import JobRunner
from acai_desktop.core.models.embeddings.wordllama_embedder import WordLlamaEmbedder
from acai_desktop.core.store.database import Store
from acai_desktop.core.store.documents import INDEX_JOB
from acai_desktop.core.store.jobs import JobRepository
from benchmarks.pdf_writer import write_text_pdf
from tests.support.aio import run

EMBEDDER = WordLlamaEmbedder()


@asynccontextmanager
async def documents_at(
    db_path: Path, *, runner: bool = True, events: EventBus | None = None, embedder=EMBEDDER
) -> AsyncIterator[tuple[DocumentService, JobRunner | None]]:
    store = await Store.open(db_path)
    events = events or EventBus()
    service = DocumentService(store, embedder, events)
    job_runner = None
    try:
        await service.load()
        if runner:
            job_runner = JobRunner(JobRepository(store), {INDEX_JOB: service.handle}, events)
            await job_runner.start()
        yield service, job_runner
    finally:
        if job_runner is not None:
            await job_runner.stop()
        await store.close()


def handbook(folder: Path) -> Path:
    path = folder / "handbook.md"
    path.write_text(
        "# Handbook\n\nWelcome to the team.\n\n## Deployment\n\n"
        "Deployments happen on Tuesdays after the standup.\n\n## Holidays\n\n"
        "Book holidays two weeks ahead in the HR portal.\n",
        encoding="utf-8",
    )
    return path


def test_an_added_file_is_indexed_by_the_job_runner_and_found(tmp_path):
    seen: list = []
    events = EventBus()
    for kind in (ev.DocumentAdded, ev.DocumentChanged, ev.IndexingProgress):
        events.subscribe(kind, seen.append)

    async def scenario():
        async with documents_at(tmp_path / "db.sqlite3", events=events) as (service, runner):
            report = await service.add([handbook(tmp_path)])
            assert [d.status for d in report.queued] == [DocumentStatus.QUEUED]
            await runner.wait_for(report.job_ids, timeout=60)
            (document,) = await service.list()
            hits = await service.search("when do deployments happen", k=2)
            return document, hits

    document, hits = run(scenario())
    assert document.status == DocumentStatus.READY and document.chunk_count == 3
    assert document.sha256 and document.indexed_at
    assert hits[0].passage.heading == "Handbook > Deployment"
    assert "Tuesdays" in hits[0].passage.content and "lexical" in hits[0].reasons
    assert isinstance(seen[0], ev.DocumentAdded)
    statuses = [e.document.status for e in seen if isinstance(e, ev.DocumentChanged)]
    assert statuses == [DocumentStatus.INDEXING, DocumentStatus.READY]
    stages = {e.stage for e in seen if isinstance(e, ev.IndexingProgress)}
    assert stages == {"reading", "embedding", "storing"}


def test_a_queued_or_interrupted_indexing_resumes_at_the_next_start(tmp_path):
    db_path = tmp_path / "db.sqlite3"
    pdf = write_text_pdf(
        tmp_path / "manual.pdf", [[f"Page {n} explains valve number {n}."] for n in range(1, 6)]
    )

    async def queue_only():
        async with documents_at(db_path, runner=False) as (service, _):
            return (await service.add([pdf, handbook(tmp_path)])).job_ids

    job_ids = run(queue_only())
    # A crash while the first was being indexed: its job and document say so.
    with sqlite3.connect(db_path) as db:
        db.execute("UPDATE jobs SET status = 'running', attempts = 1 WHERE id = ?", [job_ids[0]])
        db.execute("UPDATE documents SET status = 'indexing' WHERE id = 1")

    async def restart():
        async with documents_at(db_path) as (service, runner):
            await runner.wait_for(job_ids, timeout=60)
            return await service.list(), await service.search("valve number 4", k=1)

    documents, hits = run(restart())
    assert [(d.name, d.status, d.page_count) for d in documents] == [
        ("manual.pdf", DocumentStatus.READY, 5),
        ("handbook.md", DocumentStatus.READY, 0),
    ]
    assert (hits[0].passage.document_name, hits[0].passage.page) == ("manual.pdf", 4)


def test_reindex_compares_date_and_hash_and_keeps_chunks_of_a_vanished_file(tmp_path):
    path = handbook(tmp_path)

    async def scenario():
        async with documents_at(tmp_path / "db.sqlite3", runner=False) as (service, _):
            await service.index_now((await service.add([path])).job_ids)
            unchanged = await service.reindex()
            os.utime(path, (1_000_000_000, 1_000_000_000))  # touched, same bytes
            touched = await service.reindex()
            path.write_text("# Handbook\n\nDeployments moved to Thursdays.\n", encoding="utf-8")
            changed = await service.reindex(1)
            await service.index_now(changed.job_ids)
            after_change = await service.get(1)
            thursday = await service.search("Thursdays", k=1)
            path.unlink()
            vanished = await service.reindex(1)
            return unchanged, touched, changed, after_change, thursday, vanished

    unchanged, touched, changed, after, thursday, vanished = run(scenario())
    assert unchanged.queued == [] and touched.queued == []
    assert [d.id for d in changed.queued] == [1]
    assert after.status == DocumentStatus.READY and after.chunk_count == 1
    assert "Thursdays" in thursday[0].passage.content
    assert vanished.queued == [] and "does not exist" in vanished.refused[0][1]


def test_removing_a_document_removes_its_chunks_index_rows_and_vectors(tmp_path):
    db_path = tmp_path / "db.sqlite3"
    other = tmp_path / "other.txt"
    other.write_text("Bananas are rich in potassium.", encoding="utf-8")

    async def scenario():
        async with documents_at(db_path, runner=False) as (service, _):
            report = await service.add([handbook(tmp_path), other])
            await service.index_now(report.job_ids)
            removed = await service.remove(1)
            hits = await service.search("deployments Tuesdays", k=5)
            with pytest.raises(NotFoundError):
                await service.remove(1)
            return removed, hits, len(service.vectors)

    removed, hits, vectors = run(scenario())
    assert removed.name == "handbook.md"
    assert all(hit.passage.document_name == "other.txt" for hit in hits)
    assert vectors == 1
    with sqlite3.connect(db_path) as db:
        assert db.execute("SELECT count(*) FROM chunks WHERE document_id = 1").fetchone() == (0,)
        fts = "SELECT count(*) FROM chunks_fts WHERE chunks_fts MATCH 'tuesdays'"
        assert db.execute(fts).fetchone() == (0,)


def test_a_folder_is_added_recursively_with_progress_and_a_stop(tmp_path):
    folder = tmp_path / "notes"
    (folder / "deep").mkdir(parents=True)
    for n in range(5):
        (folder / ("deep" if n % 2 else "") / f"note{n}.md").write_text(
            f"# Note {n}\n\nText {n}.", encoding="utf-8"
        )
    (folder / "photo.jpg").write_bytes(b"\xff\xd8")  # not a document: not even counted
    stop = asyncio.Event()
    progress: list[ev.FolderProgress] = []
    events = EventBus()

    def on_progress(event: ev.FolderProgress) -> None:
        progress.append(event)
        if event.done == 2:
            stop.set()

    events.subscribe(ev.FolderProgress, on_progress)

    async def scenario():
        async with documents_at(tmp_path / "db.sqlite3", runner=False, events=events) as (
            service,
            _,
        ):
            report = await service.add_folder(folder, stop=stop)
            stopped = await service.stop_indexing()  # every queued one: these two
            return report, stopped, await service.list()

    report, stopped, documents = run(scenario())
    assert report.stopped and len(report.queued) == 2
    assert [(p.done, p.total) for p in progress[:3]] == [(0, 5), (1, 5), (2, 5)]
    assert progress[-1].finished and progress[-1].stopped
    assert len(stopped) == 2
    assert all(d.status == DocumentStatus.ERROR and "Stopped" in d.error for d in stopped)
    assert len(documents) == 2


def test_the_document_scope_of_a_conversation_limits_its_evidence(tmp_path):
    other = tmp_path / "recipes.txt"
    other.write_text("Deployments of pancakes happen on Sundays.", encoding="utf-8")

    async def scenario():
        async with documents_at(tmp_path / "db.sqlite3", runner=False) as (service, _):
            await service.index_now((await service.add([handbook(tmp_path), other])).job_ids)
            await service.store.run(
                lambda db: db.execute(
                    "INSERT INTO conversations (id, title, created_at, updated_at) "
                    "VALUES (7, 't', 'x', 'x')"
                )
            )
            everything = await service.evidence_for(7, "when do deployments happen", k=5)
            await service.set_scope(7, DocumentScope(ScopeMode.SOME, (2,)))
            some = await service.evidence_for(7, "when do deployments happen", k=5)
            scope = await service.scope(7)
            await service.set_scope(7, DocumentScope(ScopeMode.NONE))
            none = await service.evidence_for(7, "when do deployments happen", k=5)
            with pytest.raises(NotFoundError):
                await service.set_scope(7, DocumentScope(ScopeMode.SOME, (99,)))
            return everything, some, scope, none

    everything, some, scope, none = run(scenario())
    assert {h.passage.document_id for h in everything} == {1, 2}
    assert {h.passage.document_id for h in some} == {2}
    assert scope == DocumentScope(ScopeMode.SOME, (2,))
    assert none == []


def test_reading_runs_off_the_event_loop_thread(tmp_path):
    threads: list[threading.Thread] = []

    def recording_read(path, on_page=None):
        threads.append(threading.current_thread())
        return read_document(path, on_page)

    async def scenario():
        async with documents_at(tmp_path / "db.sqlite3", runner=False) as (service, _):
            service.indexer.read = recording_read
            await service.index_now((await service.add([handbook(tmp_path)])).job_ids)
            return threading.current_thread()

    loop_thread = run(scenario())
    assert threads and all(t is not loop_thread for t in threads)


def test_documents_embedded_by_another_embedder_are_queued_again(tmp_path):
    db_path = tmp_path / "db.sqlite3"

    class Renamed(WordLlamaEmbedder):
        name = "another-embedder"

    async def first():
        async with documents_at(db_path, runner=False) as (service, _):
            await service.index_now((await service.add([handbook(tmp_path)])).job_ids)

    async def second():
        async with documents_at(db_path, runner=False, embedder=Renamed()) as (service, _):
            return await service.list(), len(service.vectors)

    run(first())
    documents, vectors = run(second())
    assert [d.status for d in documents] == [DocumentStatus.QUEUED] and vectors == 0


def test_adding_an_unchanged_file_again_does_not_index_it_again(tmp_path):
    path = handbook(tmp_path)

    async def scenario():
        async with documents_at(tmp_path / "db.sqlite3", runner=False) as (service, _):
            await service.index_now((await service.add([path])).job_ids)
            again = await service.add([path])
            path.write_text("# Handbook\n\nNew text.\n", encoding="utf-8")
            changed = await service.add([path])
            return again, changed

    again, changed = run(scenario())
    assert [d.id for d in again.unchanged] == [1] and again.job_ids == []
    assert [d.id for d in changed.queued] == [1] and len(changed.job_ids) == 1


def test_reading_a_long_pdf_reports_its_pages_on_the_loop_thread(tmp_path):
    pdf = write_text_pdf(tmp_path / "long.pdf", [[f"Page {n} text."] for n in range(1, 31)])
    heard: list[tuple[int, int, threading.Thread]] = []
    events = EventBus()

    def on_progress(event: ev.IndexingProgress) -> None:
        if event.stage == "reading":
            heard.append((event.done, event.total, threading.current_thread()))

    events.subscribe(ev.IndexingProgress, on_progress)

    async def scenario():
        async with documents_at(tmp_path / "db.sqlite3", runner=False, events=events) as (
            service,
            _,
        ):
            await service.index_now((await service.add([pdf])).job_ids)
            return threading.current_thread()

    loop_thread = run(scenario())
    pages = [(done, total) for done, total, _ in heard if total == 30]
    assert pages == [(n, 30) for n in range(3, 30, 3)]
    assert all(thread is loop_thread for _, _, thread in heard)
