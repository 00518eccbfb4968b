"""The persistent job queue and its runner, on a real SQLite file."""

import asyncio

from acai_desktop.core.errors import StoreError
from acai_desktop.core.events import JOB_STATUS_CHANGED, EventBus
from acai_desktop.core.processors.runner import JobRunner
from acai_desktop.core.records import JobStatus
from acai_desktop.core.store.database import Store
from acai_desktop.core.store.jobs import JobRepository
from tests.support.aio import run


async def _open(tmp_path):
    store = await Store.open(tmp_path / "acai.sqlite3")
    return store, JobRepository(store)


def test_job_is_committed_before_it_runs_and_marked_done(tmp_path):
    async def scenario():
        store, jobs = await _open(tmp_path)
        seen_in_db = []

        async def handler(job):
            seen_in_db.append((await jobs.get(job.id)).status)

        runner = JobRunner(jobs, {"work": handler}, EventBus())
        await runner.start()
        job = await runner.enqueue("work", {"n": 1})
        [done] = await runner.wait_for([job.id], timeout=10)
        await runner.stop()
        await store.close()
        return seen_in_db, done

    seen_in_db, done = run(scenario())
    assert seen_in_db == [JobStatus.RUNNING]
    assert done.status == JobStatus.DONE
    assert done.attempts == 1


def test_failures_retry_with_backoff_then_stay_failed_with_error(tmp_path):
    async def scenario():
        store, jobs = await _open(tmp_path)
        calls = []

        async def flaky(job):
            calls.append(job.attempts)
            raise RuntimeError("model unreachable")

        runner = JobRunner(jobs, {"work": flaky}, EventBus(), max_attempts=3, backoff_seconds=0.01)
        await runner.start()
        job = await runner.enqueue("work", {})
        [failed] = await runner.wait_for([job.id], timeout=10)
        await runner.stop()
        await store.close()
        return calls, failed

    calls, failed = run(scenario())
    assert calls == [1, 2, 3]
    assert failed.status == JobStatus.FAILED
    assert "model unreachable" in failed.last_error


def test_a_job_that_succeeds_on_retry_ends_done(tmp_path):
    async def scenario():
        store, jobs = await _open(tmp_path)
        attempts = []

        async def second_time_lucky(job):
            attempts.append(job.attempts)
            if job.attempts == 1:
                raise RuntimeError("429")

        runner = JobRunner(jobs, {"work": second_time_lucky}, EventBus(), backoff_seconds=0.01)
        await runner.start()
        job = await runner.enqueue("work", {})
        [done] = await runner.wait_for([job.id], timeout=10)
        await runner.stop()
        await store.close()
        return attempts, done

    attempts, done = run(scenario())
    assert attempts == [1, 2]
    assert done.status == JobStatus.DONE and done.last_error is None


def test_never_two_jobs_at_once_on_one_conversation(tmp_path):
    async def scenario():
        store, jobs = await _open(tmp_path)
        active: dict[int, int] = {}
        overlaps = []
        concurrent_max = 0

        async def handler(job):
            nonlocal concurrent_max
            conversation = job.conversation_id
            active[conversation] = active.get(conversation, 0) + 1
            if active[conversation] > 1:
                overlaps.append(job.id)
            concurrent_max = max(concurrent_max, sum(active.values()))
            await asyncio.sleep(0.02)
            active[conversation] -= 1

        runner = JobRunner(jobs, {"work": handler}, EventBus(), max_concurrent=3)
        await runner.start()
        queued = [await runner.enqueue("work", {}, conversation_id=1 + i % 2) for i in range(8)]
        await runner.wait_for([j.id for j in queued], timeout=10)
        await runner.stop()
        await store.close()
        return overlaps, concurrent_max

    overlaps, concurrent_max = run(scenario())
    assert overlaps == []
    assert concurrent_max == 2  # the two conversations did run side by side


def test_interrupted_jobs_resume_at_next_start(tmp_path):
    async def first_session():
        store, jobs = await _open(tmp_path)
        started = asyncio.Event()

        async def slow(job):
            started.set()
            await asyncio.sleep(60)

        runner = JobRunner(jobs, {"work": slow}, EventBus())
        await runner.start()
        job = await runner.enqueue("work", {"x": 1})
        await started.wait()
        await runner.stop()  # quitting mid-job
        state = await jobs.get(job.id)
        await store.close()
        return job.id, state

    job_id, state = run(first_session())
    assert state.status == JobStatus.PENDING and state.attempts == 0

    async def second_session():
        store, jobs = await _open(tmp_path)
        ran = []

        async def quick(job):
            ran.append(job.payload)

        statuses = []
        bus = EventBus()
        bus.subscribe(JOB_STATUS_CHANGED, lambda job: statuses.append(job.status))
        runner = JobRunner(jobs, {"work": quick}, bus)
        await runner.start()
        [done] = await runner.wait_for([job_id], timeout=10)
        await runner.stop()
        await store.close()
        return ran, done, statuses

    ran, done, statuses = run(second_session())
    assert ran == [{"x": 1}]
    assert done.status == JobStatus.DONE
    assert statuses[-1] == JobStatus.DONE


def test_a_job_left_running_by_a_crash_is_requeued_on_start(tmp_path):
    async def scenario():
        store, jobs = await _open(tmp_path)
        job = await jobs.enqueue("work", {}, None)
        claimed = await jobs.claim_next()
        assert claimed.id == job.id and claimed.status == JobStatus.RUNNING
        ran = []

        async def handler(j):
            ran.append(j.id)

        runner = JobRunner(jobs, {"work": handler}, EventBus())
        await runner.start()
        await runner.wait_idle(timeout=10)
        await runner.stop()
        await store.close()
        return job.id, ran

    job_id, ran = run(scenario())
    assert ran == [job_id]


class FlakyJobRepository(JobRepository):
    """The real repository, except that recording one outcome fails as a locked database
    would (a narrow stand-in for a disk that refuses one write)."""

    def __init__(self, store, fail_finish_of: int):
        super().__init__(store)
        self.fail_finish_of = fail_finish_of

    async def finish(self, job_id):
        if job_id == self.fail_finish_of:
            raise StoreError("The database is locked by another program; try again.")
        return await super().finish(job_id)


def test_a_failed_outcome_write_does_not_stall_the_conversation(tmp_path):
    async def scenario():
        store = await Store.open(tmp_path / "acai.sqlite3")
        jobs = FlakyJobRepository(store, fail_finish_of=1)
        ran = []

        async def handler(job):
            ran.append(job.id)

        runner = JobRunner(jobs, {"work": handler}, EventBus())
        await runner.start()
        first = await runner.enqueue("work", {}, conversation_id=7)
        second = await runner.enqueue("work", {}, conversation_id=7)
        [done] = await runner.wait_for([second.id], timeout=10)
        await runner.stop()
        stuck = await jobs.get(first.id)
        await store.close()
        return ran, done, stuck

    ran, done, stuck = run(scenario())
    assert ran == [1, 2]
    assert done.status == JobStatus.DONE
    # Its outcome was never written: still 'running', so the next start requeues it.
    assert stuck.status == JobStatus.RUNNING


def test_the_loop_survives_a_queue_error(tmp_path, monkeypatch):
    monkeypatch.setattr("acai_desktop.core.processors.runner.QUEUE_RETRY_SECONDS", 0.01)

    async def scenario():
        store = await Store.open(tmp_path / "acai.sqlite3")
        jobs = JobRepository(store)
        failures = [StoreError("disk I/O error")]
        real_claim = jobs.claim_next

        async def claim_next(busy=()):
            if failures:
                raise failures.pop()
            return await real_claim(busy)

        jobs.claim_next = claim_next
        ran = []

        async def handler(job):
            ran.append(job.id)

        runner = JobRunner(jobs, {"work": handler}, EventBus())
        await runner.start()
        job = await runner.enqueue("work", {})
        [done] = await runner.wait_for([job.id], timeout=10)
        await runner.stop()
        await store.close()
        return failures, ran, done

    failures, ran, done = run(scenario())
    assert failures == [] and ran == [1] and done.status == JobStatus.DONE
