"""Indexing jobs (issue 20, items 1 and 6): a job that died with the app twice is not
started a third time, a document has at most one indexing job, and an unchanged file
is not indexed again."""

from __future__ import annotations

import asyncio
import sqlite3

from acai_desktop.core.documents.model import DocumentStatus
from acai_desktop.core.records.jobs import JobStatus
from acai_desktop.core.store import documents as sql
from acai_desktop.core.store import jobs as job_sql
from tests.core.test_documents_service import documents_at, handbook
from tests.support.aio import run


def job_row(db_path, job_id: int) -> tuple:
    with sqlite3.connect(db_path) as db:
        return db.execute(
            "SELECT status, interruptions, retryable, last_error FROM jobs WHERE id = ?",
            [job_id],
        ).fetchone()


def test_an_indexing_that_died_twice_is_failed_with_the_reason_and_can_be_retried(tmp_path):
    db_path = tmp_path / "db.sqlite3"
    path = handbook(tmp_path)

    async def die_while_indexing(service, job_id):
        # What a SIGKILL mid-indexing leaves: the job claimed, the document indexing.
        assert await service.store.run(job_sql.claim_job, job_id) is not None
        await service.store.run(sql.set_status, 1, DocumentStatus.INDEXING)

    async def scenario():
        async with documents_at(db_path, runner=False) as (service, _):
            (job_id,) = (await service.add([path])).job_ids
            await die_while_indexing(service, job_id)
            first = await service.recover_interrupted()
            after_first = (await service.get(1), job_row(db_path, job_id))
            await die_while_indexing(service, job_id)
            second = await service.recover_interrupted()
            after_second = (await service.get(1), job_row(db_path, job_id))
        # A later start with a job runner does not run it, not even as a revival.
        async with documents_at(db_path) as (service, runner):
            await runner.wait_idle(timeout=60)
            still = (await service.get(1), job_row(db_path, job_id))
            # The user retries it from the window's job list: it runs, counting afresh.
            (retried,) = await runner.retry([job_id])
            await runner.wait_for([job_id], timeout=60)
            after_retry = (await service.get(1), job_row(db_path, job_id))
        return first, after_first, second, after_second, still, retried, after_retry

    first, after_first, second, after_second, still, retried, after_retry = run(scenario())
    assert first == []
    assert after_first[0].status == DocumentStatus.QUEUED
    assert after_first[1] == ("pending", 1, 1, None)
    assert [d.id for d in second] == [1]
    document, row = after_second
    assert document.status == DocumentStatus.ERROR
    assert "stopped the app twice while indexing" in document.error
    assert row == ("failed", 2, 0, "stopped the app twice while indexing")
    assert still == after_second
    assert retried.status == JobStatus.PENDING
    assert after_retry[0].status == DocumentStatus.READY
    assert after_retry[1][:2] == ("done", 0)


def test_reindex_retries_a_document_given_up_after_two_deaths(tmp_path):
    db_path = tmp_path / "db.sqlite3"
    path = handbook(tmp_path)

    async def scenario():
        async with documents_at(db_path, runner=False) as (service, _):
            (job_id,) = (await service.add([path])).job_ids
            for _ in range(2):
                await service.store.run(job_sql.claim_job, job_id)
                await service.recover_interrupted()
            given_up = await service.get(1)
            report = await service.reindex(1)
            (document,) = await service.index_now(report.job_ids)
            return given_up, report, document

    given_up, report, document = run(scenario())
    assert given_up.status == DocumentStatus.ERROR
    assert [d.id for d in report.queued] == [1]
    assert document.status == DocumentStatus.READY and document.chunk_count == 3
    with sqlite3.connect(db_path) as db:  # the failed job was superseded, not left to retry
        assert db.execute("SELECT count(*), min(status) FROM jobs").fetchone() == (1, "done")


def test_two_processes_adding_the_same_file_queue_one_job(tmp_path):
    db_path = tmp_path / "db.sqlite3"
    path = handbook(tmp_path)

    async def scenario():
        # Two stores on one file: two connections and writer threads, as the window
        # and a `docs add` have.
        async with (
            documents_at(db_path, runner=False) as (window, _),
            documents_at(db_path, runner=False) as (command, _),
        ):
            reports = await asyncio.gather(*(s.add([path]) for s in (window, command) * 3))
            # One of them runs the job; the other finds it taken and indexes nothing.
            finished = await asyncio.gather(
                window.index_now(reports[0].job_ids), command.index_now(reports[1].job_ids)
            )
            return reports, finished

    reports, finished = run(scenario())
    assert len({job_id for report in reports for job_id in report.job_ids}) == 1
    assert sorted(len(done) for done in finished) == [0, 1]
    with sqlite3.connect(db_path) as db:
        assert db.execute("SELECT count(*), min(status) FROM jobs").fetchone() == (1, "done")


def test_an_unchanged_file_is_not_indexed_again_unless_forced(tmp_path):
    db_path = tmp_path / "db.sqlite3"
    path = handbook(tmp_path)

    async def chunk_ids(service):
        return [p.chunk_id for p in await service.passages(1)]

    async def scenario():
        async with documents_at(db_path, runner=False) as (service, _):
            await service.index_now((await service.add([path])).job_ids)
            indexed = await chunk_ids(service)
            # Jobs piled up for it (by killed runs of an older version): each finds the
            # content unchanged and keeps the chunks it has.
            piled = [
                await service.store.run(
                    job_sql.enqueue_job, sql.INDEX_JOB, {"document_id": 1}, None
                )
                for _ in range(3)
            ]
            documents = await service.index_now([job.id for job in piled])
            kept = await chunk_ids(service)
            forced = await service.reindex(1, force=True)
            await service.index_now(forced.job_ids)
            return indexed, documents, kept, await chunk_ids(service)

    indexed, documents, kept, after_force = run(scenario())
    assert [d.status for d in documents] == [DocumentStatus.READY] * 3
    assert kept == indexed  # not cut, embedded and stored again
    assert after_force != indexed and len(after_force) == len(indexed)
