"""The background jobs' queue as the ``jobs`` command sees it beside the window: list
them, read some, queue failed ones again. Running them is the job runner's
(core.learning.job_runner), in whichever process holds the profile."""

from __future__ import annotations

from collections.abc import AsyncIterator, Collection, Sequence
from contextlib import asynccontextmanager

from acai_desktop.core.profile.paths import Profile
from acai_desktop.core.profile.store_opening import open_profile_store
from acai_desktop.core.records.jobs import Job, JobStatus
from acai_desktop.core.store.jobs import JobRepository


class JobQueue:
    def __init__(self, jobs: JobRepository) -> None:
        self._jobs = jobs

    async def list(self, statuses: Sequence[JobStatus] | None = None) -> list[Job]:
        """The jobs in ``statuses`` (None: every job)."""
        return await self._jobs.list(statuses)

    async def read(self, job_ids: Collection[int]) -> list[Job]:
        """The jobs ``job_ids``, as they stand now."""
        return [await self._jobs.get(job_id) for job_id in job_ids]

    async def retry(self, job_ids: Collection[int] | None) -> list[Job]:
        """Failed jobs queued again and delayed ones due now: ``job_ids`` (None: all)."""
        return await self._jobs.retry(job_ids)


@asynccontextmanager
async def open_job_queue(profile: Profile) -> AsyncIterator[JobQueue]:
    """The profile's queue, without its lock (its writes are ordinary transactions);
    the store is closed on exit."""
    store = await open_profile_store(profile.ensure())
    try:
        yield JobQueue(JobRepository(store))
    finally:
        await store.close()
