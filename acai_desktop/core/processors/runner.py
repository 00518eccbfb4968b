"""The persistent background job runner.

Jobs live in the ``jobs`` table (committed before they run). The runner claims them
one at a time, never two at once for the same conversation, runs the handler for the
job's kind, and records the outcome: done, retried later with exponential backoff, or
failed for good with its error visible. At start-up interrupted jobs are put back.
Jobs never block the chat: they run as tasks on the same loop, and all their blocking
work goes through the store's executor or async HTTP.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Awaitable, Callable, Collection
from datetime import UTC, datetime, timedelta

from acai_desktop.core import events as ev
from acai_desktop.core.errors import AcaiError
from acai_desktop.core.events import EventBus
from acai_desktop.core.records import Job, JobStatus
from acai_desktop.core.store.jobs import JobRepository

log = logging.getLogger(__name__)

JobHandler = Callable[[Job], Awaitable[None]]

FINISHED = (JobStatus.DONE, JobStatus.FAILED)
#: How long the runner waits before trying the queue again after a database error.
QUEUE_RETRY_SECONDS = 5.0


class JobRunner:
    def __init__(
        self,
        jobs: JobRepository,
        handlers: dict[str, JobHandler],
        events: EventBus,
        *,
        max_attempts: int = 4,
        backoff_seconds: float = 2.0,
        max_concurrent: int = 2,
    ) -> None:
        self.jobs = jobs
        self.handlers = handlers
        self.events = events
        self.max_attempts = max_attempts
        self.backoff_seconds = backoff_seconds
        self.max_concurrent = max_concurrent
        self._wake = asyncio.Event()
        self._loop_task: asyncio.Task | None = None
        self._running: dict[int, tuple[Job, asyncio.Task]] = {}
        self._finished = asyncio.Condition()

    async def start(self) -> None:
        recovered = await self.jobs.requeue()
        if recovered:
            log.info("resuming %d job(s) interrupted by the last exit", recovered)
        self._loop_task = asyncio.create_task(self._loop(), name="job-runner")

    async def enqueue(self, kind: str, payload: dict, conversation_id: int | None = None) -> Job:
        if kind not in self.handlers:
            raise ValueError(f"no handler for job kind {kind!r}")
        job = await self.jobs.enqueue(kind, payload, conversation_id)
        self.events.emit(ev.JOB_STATUS_CHANGED, job)
        self._wake.set()
        return job

    async def wait_for(self, job_ids: Collection[int], timeout: float | None = None) -> list[Job]:
        """Wait until every job named is done or failed (or the timeout passes)."""

        async def all_finished() -> list[Job]:
            while True:
                jobs = [await self.jobs.get(job_id) for job_id in job_ids]
                if all(job.status in FINISHED for job in jobs):
                    return jobs
                async with self._finished:
                    with contextlib.suppress(TimeoutError):
                        await asyncio.wait_for(self._finished.wait(), 1.0)

        return await asyncio.wait_for(all_finished(), timeout)

    async def wait_idle(self, timeout: float | None = None) -> None:
        """Wait until no job is pending or running."""

        async def idle() -> None:
            while await self.jobs.list([JobStatus.PENDING, JobStatus.RUNNING]):
                async with self._finished:
                    with contextlib.suppress(TimeoutError):
                        await asyncio.wait_for(self._finished.wait(), 1.0)

        await asyncio.wait_for(idle(), timeout)

    async def stop(self) -> None:
        """Cancel the loop and running jobs; put those jobs back for the next start."""
        if self._loop_task is not None:
            self._loop_task.cancel()
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await self._loop_task
            self._loop_task = None
        interrupted = list(self._running)
        for _, task in self._running.values():
            task.cancel()
        for _, task in list(self._running.values()):
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await task
        self._running.clear()
        if interrupted:
            await self.jobs.requeue(interrupted)

    async def _loop(self) -> None:
        while True:
            self._wake.clear()
            try:
                if not await self._start_runnable_jobs():
                    await self._sleep_until_next()
            except AcaiError as error:
                # The database is locked, full or gone for a moment: the runner must
                # outlive that, or background work silently stops for the session.
                log.warning(
                    "job queue unavailable, retrying in %.0fs: %s", QUEUE_RETRY_SECONDS, error
                )
                await asyncio.sleep(QUEUE_RETRY_SECONDS)

    async def _start_runnable_jobs(self) -> bool:
        started = False
        while len(self._running) < self.max_concurrent:
            busy = {job.conversation_id for job, _ in self._running.values()}
            job = await self.jobs.claim_next({c for c in busy if c is not None})
            if job is None:
                break
            task = asyncio.create_task(self._run(job), name=f"job-{job.id}-{job.kind}")
            self._running[job.id] = (job, task)
            self.events.emit(ev.JOB_STATUS_CHANGED, job)
            started = True
        return started

    async def _sleep_until_next(self) -> None:
        timeout = None
        next_at = await self.jobs.next_run_after()
        if next_at is not None:
            delay = (datetime.fromisoformat(next_at) - datetime.now(UTC)).total_seconds()
            timeout = max(delay, 0.01)
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(self._wake.wait(), timeout)

    async def _run(self, job: Job) -> None:
        finished: Job | None = None
        try:
            try:
                await self.handlers[job.kind](job)
            except asyncio.CancelledError:
                raise
            except Exception as error:
                finished = await self._record_failure(job, error)
            else:
                finished = await self.jobs.finish(job.id)
        except AcaiError as error:
            # The outcome could not be written. The row stays 'running', so the next
            # start requeues it; this session goes on with the other jobs.
            log.error("job %d (%s): could not record its outcome: %s", job.id, job.kind, error)
        finally:
            # Always, even when cancelled: a job left in _running would block its
            # conversation (and a slot) for the rest of the session.
            self._running.pop(job.id, None)
            self._wake.set()
        if finished is not None:
            self.events.emit(ev.JOB_STATUS_CHANGED, finished)
        async with self._finished:
            self._finished.notify_all()

    async def _record_failure(self, job: Job, error: Exception) -> Job:
        reason = f"{type(error).__name__}: {error}"
        if job.attempts >= self.max_attempts:
            log.error("job %d (%s) failed for good: %s", job.id, job.kind, reason)
            return await self.jobs.fail(job.id, reason, None)
        delay = self.backoff_seconds * 2 ** (job.attempts - 1)
        retry_at = (datetime.now(UTC) + timedelta(seconds=delay)).isoformat()
        log.warning("job %d (%s) failed, retrying in %.1fs: %s", job.id, job.kind, delay, reason)
        return await self.jobs.fail(job.id, reason, retry_at)
