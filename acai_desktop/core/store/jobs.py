"""Repository for the background job queue.

A job row is committed before its work starts: the processors' jobs for a user's
message are inserted in the same transaction as the message itself (see
:func:`acai_desktop.core.store.conversations.add_turn`), so no crash can separate a
saved message from the learning it is owed. A job may wait for an answer
(``wait_for_message_id``): it is not claimed while that message is ``streaming``.

A job found ``running`` at start-up was interrupted (crash, kill, quit) and goes back to
``pending``. A job that failed is ``failed`` with its reason; it can be queued again
(:func:`revive_failed_jobs`) unless its failure can't be cured by trying again. A job
waiting for a retry (``pending`` with ``run_after``, e.g. the server said Retry-After) can
be run now (:func:`retry_jobs`, what the user's Retry does).
"""

from __future__ import annotations

import json
from collections.abc import Collection
from dataclasses import dataclass

from acai_desktop.core.clock import now_iso
from acai_desktop.core.errors import NotFoundError
from acai_desktop.core.records.jobs import Job, JobStatus
from acai_desktop.core.redaction import redact
from acai_desktop.core.store import session_locks
from acai_desktop.core.store.connection import Database
from acai_desktop.core.store.database import Store

JOB_COLUMNS = (
    "id, kind, payload, conversation_id, status, attempts, last_error, run_after, "
    "created_at, updated_at, wait_for_message_id, revivals, retryable"
)
#: A job waiting for an answer is runnable once that answer is no longer being written
#: (or is gone: its conversation was deleted, which removes the job too).
_ANSWER_FINISHED = (
    "(wait_for_message_id IS NULL OR NOT EXISTS (SELECT 1 FROM messages m "
    "WHERE m.id = jobs.wait_for_message_id AND m.status = 'streaming'))"
)


@dataclass(frozen=True)
class JobSpec:
    """A job to queue: what runs, on what, in which conversation."""

    kind: str
    payload: dict
    conversation_id: int | None = None


def _jobs(cursor) -> list[Job]:
    names = [d[0] for d in cursor.description]
    return [Job.from_row(dict(zip(names, row, strict=True))) for row in cursor.fetchall()]


def fetch_job(db: Database, job_id: int) -> Job:
    found = _jobs(db.execute(f"SELECT {JOB_COLUMNS} FROM jobs WHERE id = ?", [job_id]))
    if not found:
        raise NotFoundError(f"No job with id {job_id}.")
    return found[0]


def insert_job(
    db: Database, spec: JobSpec, *, wait_for_message_id: int | None = None, at: str | None = None
) -> int:
    """Insert a pending job in the caller's transaction; returns its id."""
    at = at or now_iso()
    return db.execute(
        "INSERT INTO jobs (kind, payload, conversation_id, status, attempts, created_at, "
        "updated_at, wait_for_message_id) VALUES (?, ?, ?, 'pending', 0, ?, ?, ?) RETURNING id",
        [spec.kind, json.dumps(spec.payload), spec.conversation_id, at, at, wait_for_message_id],
    ).fetchone()[0]


def enqueue_job(db: Database, kind: str, payload: dict, conversation_id: int | None) -> Job:
    with db.atomic():
        job_id = insert_job(db, JobSpec(kind, payload, conversation_id))
    return fetch_job(db, job_id)


def claim_next_job(
    db: Database, busy_conversations: Collection[int], kinds: Collection[str] | None = None
) -> Job | None:
    """Take the oldest runnable job (of ``kinds``, None: any), skipping conversations that
    already have one running and jobs whose answer is still being written."""
    at = now_iso()
    params: list = [at]
    sql = (
        f"SELECT {JOB_COLUMNS} FROM jobs WHERE status = 'pending' "
        f"AND (run_after IS NULL OR run_after <= ?) AND {_ANSWER_FINISHED} "
        "AND kind NOT IN (SELECT kind FROM paused_job_kinds)"
    )
    if kinds is not None:
        sql += f" AND kind IN ({', '.join('?' for _ in kinds)})"
        params.extend(kinds)
    if busy_conversations:
        marks = ", ".join("?" for _ in busy_conversations)
        sql += f" AND (conversation_id IS NULL OR conversation_id NOT IN ({marks}))"
        params.extend(busy_conversations)
    sql += " ORDER BY id LIMIT 1"
    if db.dialect.shared:
        sql = _across_computers(db, sql)
    with db.atomic():
        db.dialect.lock_for_transaction(db, _CLAIM_LOCK)
        found = _jobs(db.execute(sql, params))
        if not found:
            return None
        db.execute(
            "UPDATE jobs SET status = 'running', attempts = attempts + 1, updated_at = ? "
            "WHERE id = ?",
            [at, found[0].id],
        )
        _hold(db, found[0].id)
    return fetch_job(db, found[0].id)


# On PostgreSQL several computers claim from one queue (docs/architecture.md, "Jobs
# across computers"). A claim locks its row (FOR UPDATE SKIP LOCKED: no two claims take
# one job, none waits on another's row); claims queue on one transaction-scoped lock,
# so "one running job per conversation" holds across computers too (a claim sees the
# running jobs every earlier claim committed). While a job runs, its process holds a
# session lock on it: when that process dies, the server releases it, and the next
# start of any computer puts the job back in the queue; a job whose lock is held is
# still running somewhere and is left alone.
_CLAIM_LOCK = 0x4A4F4253  # "JOBS"
_RUNNING_LOCKS = 0x52554E53  # "RUNS": the first key of a running job's lock (id the second)


def _across_computers(db: Database, sql: str) -> str:
    """The claim's query, leaving out conversations with a job another process runs
    (this process's own are its runner's ``busy_conversations``)."""
    return (
        sql.replace(
            " ORDER BY id LIMIT 1",
            " AND (conversation_id IS NULL OR NOT EXISTS (SELECT 1 FROM jobs AS r "
            "JOIN pg_locks AS l ON l.locktype = 'advisory' "
            f"AND l.classid::bigint = {_RUNNING_LOCKS} AND l.objid::bigint = r.id "
            "AND l.objsubid = 2 AND l.pid != pg_backend_pid() "
            "WHERE r.status = 'running' AND r.conversation_id = jobs.conversation_id))"
            " ORDER BY id LIMIT 1",
        )
        + " FOR UPDATE OF jobs SKIP LOCKED"
    )


def _hold(db: Database, job_id: int) -> None:
    """PostgreSQL: this process runs ``job_id`` (a session lock, see ``_CLAIM_LOCK``)."""
    session_locks.hold(db, _RUNNING_LOCKS, job_id)


def _release(db: Database, job_ids: Collection[int]) -> None:
    session_locks.release(db, _RUNNING_LOCKS, job_ids)


def _orphaned(db: Database, job_ids: list[int]) -> list[int]:
    """PostgreSQL: the running jobs among ``job_ids`` that no live process holds."""
    return session_locks.unheld(db, _RUNNING_LOCKS, job_ids)


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
    _release(db, [job_id])
    return fetch_job(db, job_id)


def fail_job(
    db: Database, job_id: int, error: str, retry_at: str | None, *, retryable: bool = True
) -> Job:
    """Record a failure: pending again after ``retry_at``, or failed if None (``retryable``
    False: trying again can't help, so it is never revived automatically)."""
    status = JobStatus.PENDING if retry_at else JobStatus.FAILED
    with db.atomic():
        db.execute(
            "UPDATE jobs SET status = ?, last_error = ?, run_after = ?, retryable = ?, "
            "updated_at = ? WHERE id = ?",
            [str(status), redact(error), retry_at, bool(retryable), now_iso(), job_id],
        )
    _release(db, [job_id])
    return fetch_job(db, job_id)


def requeue_jobs(db: Database, job_ids: Collection[int] | None = None) -> int:
    """Put running jobs back to pending; the interrupted attempt does not count."""
    sql = (
        f"UPDATE jobs SET status = 'pending', attempts = {db.dialect.later('attempts - 1', '0')}, "
        "updated_at = ? WHERE status = 'running'"
    )
    params: list = [now_iso()]
    if job_ids is None and db.dialect.shared:
        # At a start: only what no live process still runs (another computer's jobs
        # are its own).
        running = db.execute("SELECT id FROM jobs WHERE status = 'running'").fetchall()
        job_ids = _orphaned(db, [row[0] for row in running])
    if job_ids is not None:
        if not job_ids:
            return 0
        sql += f" AND id IN ({', '.join('?' for _ in job_ids)})"
        params.extend(job_ids)
    with db.atomic():
        count = db.execute(sql, params).rowcount
    if job_ids is not None:
        _release(db, job_ids)
    return count


def _where_ids(sql: str, params: list, job_ids: Collection[int] | None) -> str:
    if job_ids is not None:
        sql += f" AND id IN ({', '.join('?' for _ in job_ids)})"
        params.extend(int(i) for i in job_ids)
    return sql


def revive_failed_jobs(
    db: Database,
    job_ids: Collection[int] | None = None,
    *,
    automatic: bool = False,
    max_revivals: int | None = None,
    reset: bool = False,
) -> list[Job]:
    """Queue failed jobs again, with fresh attempts; returns the jobs revived.

    ``automatic``: only jobs whose failure may pass (and, with ``max_revivals``, revived
    fewer times than that since the model last answered); otherwise (the user asked) any
    failed job named. ``reset``: the model just answered a real request, so the count of
    revivals starts again from 0.
    """
    if job_ids is not None and not job_ids:
        return []
    sql = f"SELECT {JOB_COLUMNS} FROM jobs WHERE status = 'failed'"
    params: list = []
    if automatic:
        sql += " AND retryable"
    if max_revivals is not None:
        sql += " AND revivals < ?"
        params.append(max_revivals)
    sql = _where_ids(sql, params, job_ids)
    revivals = "0" if reset else "revivals + 1"
    with db.atomic():
        ids = [job.id for job in _jobs(db.execute(sql, params))]
        if not ids:
            return []
        marks = ", ".join("?" for _ in ids)
        db.execute(
            "UPDATE jobs SET status = 'pending', attempts = 0, run_after = NULL, "
            f"interruptions = 0, revivals = {revivals}, updated_at = ? WHERE id IN ({marks})",
            [now_iso(), *ids],
        )
        return _jobs(db.execute(f"SELECT {JOB_COLUMNS} FROM jobs WHERE id IN ({marks})", ids))


def retry_jobs(db: Database, job_ids: Collection[int] | None = None) -> list[Job]:
    """The user's Retry: failed jobs queued again, and jobs waiting for a later retry
    (a server's Retry-After) run now; ``job_ids`` None: every such job. Returns them."""
    if job_ids is not None and not job_ids:
        return []
    params: list = []
    waiting_sql = _where_ids(
        "SELECT id FROM jobs WHERE status = 'pending' AND run_after IS NOT NULL", params, job_ids
    )
    with db.atomic():
        waiting = [row[0] for row in db.execute(waiting_sql, params).fetchall()]
        if waiting:
            db.execute(
                "UPDATE jobs SET run_after = NULL, updated_at = ? "
                f"WHERE id IN ({', '.join('?' for _ in waiting)})",
                [now_iso(), *waiting],
            )
        revived = revive_failed_jobs(db, job_ids)
    hastened = [fetch_job(db, job_id) for job_id in waiting]
    return sorted(hastened + revived, key=lambda job: job.id)


def count_revivable(db: Database, max_revivals: int) -> int:
    """Failed jobs that an automatic revival capped at ``max_revivals`` would queue again."""
    return db.execute(
        "SELECT count(*) FROM jobs WHERE status = 'failed' AND retryable AND revivals < ?",
        [max_revivals],
    ).fetchone()[0]


def list_jobs(db: Database, statuses: Collection[str] | None = None) -> list[Job]:
    sql = f"SELECT {JOB_COLUMNS} FROM jobs"
    params: list = []
    if statuses:
        sql += f" WHERE status IN ({', '.join('?' for _ in statuses)})"
        params.extend(str(s) for s in statuses)
    return _jobs(db.execute(sql + " ORDER BY id", params))


def pause_job_kind(db: Database, kind: str) -> None:
    """Keep the pending jobs of ``kind`` queued until :func:`resume_job_kind` (every
    process claims through :func:`claim_next_job`, which skips them)."""
    with db.atomic():
        db.execute(
            "INSERT INTO paused_job_kinds (kind, paused_at) VALUES (?, ?) ON CONFLICT DO NOTHING",
            [kind, now_iso()],
        )


def resume_job_kind(db: Database, kind: str) -> None:
    with db.atomic():
        db.execute("DELETE FROM paused_job_kinds WHERE kind = ?", [kind])


def is_job_kind_paused(db: Database, kind: str) -> bool:
    row = db.execute("SELECT 1 FROM paused_job_kinds WHERE kind = ?", [kind]).fetchone()
    return row is not None


def count_jobs_of_kind(db: Database, kind: str) -> dict[str, int]:
    """How many jobs of ``kind`` are in each status (every status present, 0 if none)."""
    counts = {str(status): 0 for status in JobStatus}
    rows = db.execute("SELECT status, count(*) FROM jobs WHERE kind = ? GROUP BY status", [kind])
    counts.update({status: count for status, count in rows})
    return counts


class JobRepository:
    def __init__(self, store: Store) -> None:
        self.store = store

    async def enqueue(self, kind: str, payload: dict, conversation_id: int | None = None) -> Job:
        return await self.store.run(enqueue_job, kind, payload, conversation_id)

    async def claim_next(
        self, busy_conversations: Collection[int] = (), kinds: Collection[str] | None = None
    ) -> Job | None:
        return await self.store.run(
            claim_next_job, list(busy_conversations), None if kinds is None else list(kinds)
        )

    async def next_run_after(self) -> str | None:
        return await self.store.run(next_run_after)

    async def finish(self, job_id: int) -> Job:
        return await self.store.run(finish_job, job_id)

    async def fail(
        self, job_id: int, error: str, retry_at: str | None, *, retryable: bool = True
    ) -> Job:
        return await self.store.run(fail_job, job_id, error, retry_at, retryable=retryable)

    async def requeue(self, job_ids: Collection[int] | None = None) -> int:
        return await self.store.run(requeue_jobs, None if job_ids is None else list(job_ids))

    async def revive_failed(
        self,
        job_ids: Collection[int] | None = None,
        *,
        automatic: bool = False,
        max_revivals: int | None = None,
        reset: bool = False,
    ) -> list[Job]:
        ids = None if job_ids is None else list(job_ids)
        return await self.store.run(
            revive_failed_jobs, ids, automatic=automatic, max_revivals=max_revivals, reset=reset
        )

    async def retry(self, job_ids: Collection[int] | None = None) -> list[Job]:
        return await self.store.run(retry_jobs, None if job_ids is None else list(job_ids))

    async def count_revivable(self, max_revivals: int) -> int:
        return await self.store.run(count_revivable, max_revivals)

    async def get(self, job_id: int) -> Job:
        return await self.store.run(fetch_job, job_id)

    async def pause_kind(self, kind: str) -> None:
        await self.store.run(pause_job_kind, kind)

    async def resume_kind(self, kind: str) -> None:
        await self.store.run(resume_job_kind, kind)

    async def is_kind_paused(self, kind: str) -> bool:
        return await self.store.run(is_job_kind_paused, kind)

    async def count_kind(self, kind: str) -> dict[str, int]:
        return await self.store.run(count_jobs_of_kind, kind)

    async def list(self, statuses: Collection[str] | None = None) -> list[Job]:
        return await self.store.run(list_jobs, statuses)


def claim_job(db: Database, job_id: int) -> Job | None:
    """Take one named job if it is pending (a command running it in the foreground);
    None when it is done, failed, or being run by another process."""
    with db.atomic():
        claimed = db.execute(
            "UPDATE jobs SET status = 'running', attempts = attempts + 1, updated_at = ? "
            "WHERE id = ? AND status = 'pending'",
            [now_iso(), job_id],
        ).rowcount
        if claimed:
            _hold(db, job_id)
    return fetch_job(db, job_id) if claimed else None
