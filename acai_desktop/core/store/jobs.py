"""Repository for the background job queue.

A job row is committed before its work starts; a job found ``running`` at start-up
was interrupted (crash, kill, quit) and goes back to ``pending``.
"""

from __future__ import annotations

import json
from collections.abc import Collection

from sqlite_utils import Database

from acai_desktop.core.clock import now_iso
from acai_desktop.core.errors import NotFoundError
from acai_desktop.core.records import Job, JobStatus
from acai_desktop.core.redaction import redact
from acai_desktop.core.store.database import Store

JOB_COLUMNS = (
    "id, kind, payload, conversation_id, status, attempts, last_error, run_after, "
    "created_at, updated_at"
)


def _jobs(cursor) -> list[Job]:
    names = [d[0] for d in cursor.description]
    return [Job.from_row(dict(zip(names, row, strict=True))) for row in cursor.fetchall()]


def fetch_job(db: Database, job_id: int) -> Job:
    found = _jobs(db.execute(f"SELECT {JOB_COLUMNS} FROM jobs WHERE id = ?", [job_id]))
    if not found:
        raise NotFoundError(f"No job with id {job_id}.")
    return found[0]


def enqueue_job(db: Database, kind: str, payload: dict, conversation_id: int | None) -> Job:
    at = now_iso()
    with db.atomic():
        cursor = db.execute(
            "INSERT INTO jobs (kind, payload, conversation_id, status, attempts, created_at, "
            "updated_at) VALUES (?, ?, ?, 'pending', 0, ?, ?)",
            [kind, json.dumps(payload), conversation_id, at, at],
        )
    return fetch_job(db, cursor.lastrowid)


def claim_next_job(db: Database, busy_conversations: Collection[int]) -> Job | None:
    """Take the oldest runnable job, skipping conversations that already have one running."""
    at = now_iso()
    params: list = [at]
    sql = (
        f"SELECT {JOB_COLUMNS} FROM jobs WHERE status = 'pending' "
        "AND (run_after IS NULL OR run_after <= ?)"
    )
    if busy_conversations:
        marks = ", ".join("?" for _ in busy_conversations)
        sql += f" AND (conversation_id IS NULL OR conversation_id NOT IN ({marks}))"
        params.extend(busy_conversations)
    with db.atomic():
        found = _jobs(db.execute(sql + " ORDER BY id LIMIT 1", params))
        if not found:
            return None
        db.execute(
            "UPDATE jobs SET status = 'running', attempts = attempts + 1, updated_at = ? "
            "WHERE id = ?",
            [at, found[0].id],
        )
    return fetch_job(db, found[0].id)


def next_run_after(db: Database) -> str | None:
    row = db.execute(
        "SELECT min(run_after) FROM jobs WHERE status = 'pending' AND run_after IS NOT NULL"
    ).fetchone()
    return row[0] if row else None


def finish_job(db: Database, job_id: int) -> Job:
    with db.atomic():
        db.execute(
            "UPDATE jobs SET status = 'done', last_error = NULL, updated_at = ? WHERE id = ?",
            [now_iso(), job_id],
        )
    return fetch_job(db, job_id)


def fail_job(db: Database, job_id: int, error: str, retry_at: str | None) -> Job:
    """Record a failure: pending again after ``retry_at``, or failed for good if None."""
    status = JobStatus.PENDING if retry_at else JobStatus.FAILED
    with db.atomic():
        db.execute(
            "UPDATE jobs SET status = ?, last_error = ?, run_after = ?, updated_at = ? "
            "WHERE id = ?",
            [str(status), redact(error), retry_at, now_iso(), job_id],
        )
    return fetch_job(db, job_id)


def requeue_jobs(db: Database, job_ids: Collection[int] | None = None) -> int:
    """Put running jobs back to pending; the interrupted attempt does not count."""
    sql = (
        "UPDATE jobs SET status = 'pending', attempts = max(attempts - 1, 0), updated_at = ? "
        "WHERE status = 'running'"
    )
    params: list = [now_iso()]
    if job_ids is not None:
        if not job_ids:
            return 0
        sql += f" AND id IN ({', '.join('?' for _ in job_ids)})"
        params.extend(job_ids)
    with db.atomic():
        return db.execute(sql, params).rowcount


def list_jobs(db: Database, statuses: Collection[str] | None = None) -> list[Job]:
    sql = f"SELECT {JOB_COLUMNS} FROM jobs"
    params: list = []
    if statuses:
        sql += f" WHERE status IN ({', '.join('?' for _ in statuses)})"
        params.extend(str(s) for s in statuses)
    return _jobs(db.execute(sql + " ORDER BY id", params))


class JobRepository:
    def __init__(self, store: Store) -> None:
        self.store = store

    async def enqueue(self, kind: str, payload: dict, conversation_id: int | None = None) -> Job:
        return await self.store.run(enqueue_job, kind, payload, conversation_id)

    async def claim_next(self, busy_conversations: Collection[int] = ()) -> Job | None:
        return await self.store.run(claim_next_job, list(busy_conversations))

    async def next_run_after(self) -> str | None:
        return await self.store.run(next_run_after)

    async def finish(self, job_id: int) -> Job:
        return await self.store.run(finish_job, job_id)

    async def fail(self, job_id: int, error: str, retry_at: str | None) -> Job:
        return await self.store.run(fail_job, job_id, error, retry_at)

    async def requeue(self, job_ids: Collection[int] | None = None) -> int:
        return await self.store.run(requeue_jobs, None if job_ids is None else list(job_ids))

    async def get(self, job_id: int) -> Job:
        return await self.store.run(fetch_job, job_id)

    async def list(self, statuses: Collection[str] | None = None) -> list[Job]:
        return await self.store.run(list_jobs, statuses)
