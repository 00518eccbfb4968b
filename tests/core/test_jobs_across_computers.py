"""Two computers on one PostgreSQL database share one job queue (issue 27 item 3): each
job is claimed once, one conversation runs one job at a time, and a start puts back only
the jobs no live computer is running."""

from __future__ import annotations

import asyncio

from acai_desktop.core.records.jobs import JobStatus
from acai_desktop.core.store.jobs import JobRepository
from acai_desktop.core.store.store_url import open_store
from tests.support.aio import run


async def _claim_all(jobs: JobRepository) -> list[int]:
    claimed = []
    while (job := await jobs.claim_next()) is not None:
        claimed.append(job.id)
    return claimed


def test_two_computers_claiming_at_once_take_each_job_exactly_once(postgres_url):
    async def scenario():
        first, second = await open_store(postgres_url), await open_store(postgres_url)
        try:
            queue = JobRepository(first)
            queued = [(await queue.enqueue("work", {"n": n})).id for n in range(60)]
            taken = await asyncio.gather(
                _claim_all(JobRepository(first)), _claim_all(JobRepository(second))
            )
            return queued, taken
        finally:
            await first.close()
            await second.close()

    queued, (by_first, by_second) = run(scenario())
    assert sorted(by_first + by_second) == queued  # every job, none twice
    assert not set(by_first) & set(by_second)


def test_a_conversation_runs_one_job_at_a_time_across_computers(postgres_url):
    async def scenario():
        first, second = await open_store(postgres_url), await open_store(postgres_url)
        try:
            jobs_here, jobs_there = JobRepository(first), JobRepository(second)
            one = await jobs_here.enqueue("work", {}, conversation_id=7)
            two = await jobs_here.enqueue("work", {}, conversation_id=7)
            other = await jobs_here.enqueue("work", {}, conversation_id=8)
            running_here = await jobs_here.claim_next()
            there_while_running = await jobs_there.claim_next()
            await jobs_here.finish(running_here.id)
            there_after = await jobs_there.claim_next()
            return (one, two, other), running_here, there_while_running, there_after
        finally:
            await first.close()
            await second.close()

    (one, two, other), running_here, there_while_running, there_after = run(scenario())
    assert running_here.id == one.id
    assert there_while_running.id == other.id  # conversation 7 is busy on the first
    assert there_after.id == two.id


def test_a_start_puts_back_only_the_jobs_no_live_computer_runs(postgres_url):
    async def scenario():
        first, second = await open_store(postgres_url), await open_store(postgres_url)
        jobs_here, jobs_there = JobRepository(first), JobRepository(second)
        job = await jobs_here.enqueue("work", {})
        await jobs_here.claim_next()
        while_alive = await jobs_there.requeue()  # the second computer starts
        status_while_alive = (await jobs_there.get(job.id)).status
        # The first computer dies: its session ends (waited for, so the server has
        # released what it held before the next start looks).
        pid = await first.run(lambda db: db.execute("SELECT pg_backend_pid()").fetchone()[0])
        ended = "SELECT pg_terminate_backend(?, 30000)"
        await second.run(lambda db: db.execute(ended, [pid]).fetchone())
        after_it_died = await jobs_there.requeue()
        status_after = (await jobs_there.get(job.id)).status
        await second.close()
        await first.close()
        return while_alive, status_while_alive, after_it_died, status_after

    while_alive, status_while_alive, after_it_died, status_after = run(scenario())
    assert (while_alive, status_while_alive) == (0, JobStatus.RUNNING)
    assert (after_it_died, status_after) == (1, JobStatus.PENDING)
