"""The persistent job queue and its runner, on both stores (a SQLite file, a PostgreSQL
database)."""

import asyncio

from acai_desktop.core.errors import InvalidInputError, ModelUnreachableError, StoreError
from acai_desktop.core.events import AnswerFinished, EventBus, JobStatusChanged
from acai_desktop.core.learning.job_runner import JobRunner
from acai_desktop.core.records.jobs import JobStatus
from acai_desktop.core.store.conversation_repository import ConversationRepository
from acai_desktop.core.store.jobs import JobRepository, JobSpec
from acai_desktop.core.store.store_url import open_store
from tests.support.aio import run


async def _open(location):
    store = await open_store(location)
    return store, JobRepository(store)


def test_job_is_committed_before_it_runs_and_marked_done(store_location):
    async def scenario():
        store, jobs = await _open(store_location)
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


def test_failures_retry_with_backoff_then_stay_failed_with_error(store_location):
    async def scenario():
        store, jobs = await _open(store_location)
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


def test_a_job_that_succeeds_on_retry_ends_done(store_location):
    async def scenario():
        store, jobs = await _open(store_location)
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


def test_never_two_jobs_at_once_on_one_conversation(store_location):
    async def scenario():
        store, jobs = await _open(store_location)
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


def test_interrupted_jobs_resume_at_next_start(store_location):
    async def first_session():
        store, jobs = await _open(store_location)
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
        store, jobs = await _open(store_location)
        ran = []

        async def quick(job):
            ran.append(job.payload)

        statuses = []
        bus = EventBus()
        bus.subscribe(JobStatusChanged, lambda event: statuses.append(event.job.status))
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


def test_a_job_left_running_by_a_crash_is_requeued_on_start(store_location):
    async def scenario():
        store, jobs = await _open(store_location)
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


def test_a_failed_outcome_write_does_not_stall_the_conversation(store_location):
    async def scenario():
        store = await open_store(store_location)
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


def test_the_loop_survives_a_queue_error(store_location, monkeypatch):
    monkeypatch.setattr("acai_desktop.core.learning.job_runner.QUEUE_RETRY_SECONDS", 0.01)

    async def scenario():
        store = await open_store(store_location)
        jobs = JobRepository(store)
        failures = [StoreError("disk I/O error")]
        real_claim = jobs.claim_next

        async def claim_next(busy=(), kinds=None):
            if failures:
                raise failures.pop()
            return await real_claim(busy, kinds)

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


def test_a_failed_job_runs_again_when_the_model_is_back_with_a_cap(store_location):
    """A message learned while the model server was down must not be lost for good."""

    async def scenario():
        store, jobs = await _open(store_location)
        server_up = False
        attempts = []

        async def needs_the_model(job):
            attempts.append(job.id)
            if not server_up:
                raise ModelUnreachableError("Could not reach the model server.")

        async def probe():
            return server_up

        runner = JobRunner(
            jobs,
            {"work": needs_the_model},
            EventBus(),
            max_attempts=2,
            backoff_seconds=0.01,
            probe=probe,
            probe_seconds=0.05,
        )
        await runner.start()
        job = await runner.enqueue("work", {})
        [failed] = await runner.wait_for([job.id], timeout=10)
        await asyncio.sleep(0.3)  # several probes while the server is down: no revival
        still_failed = await jobs.get(job.id)
        server_up = True
        for _ in range(200):
            done = await jobs.get(job.id)
            if done.status == JobStatus.DONE:
                break
            await asyncio.sleep(0.05)
        await runner.stop()
        await store.close()
        return failed, still_failed, done, attempts

    failed, still_failed, done, attempts = run(scenario())
    assert failed.status == JobStatus.FAILED and failed.retryable
    assert "Could not reach" in failed.last_error
    assert still_failed.status == JobStatus.FAILED and still_failed.revivals == 0
    assert done.status == JobStatus.DONE and done.revivals == 1
    assert len(attempts) == 3  # two attempts while down, one once the probe said it was back


def test_a_failed_job_gets_another_round_at_every_start(store_location):
    """Issue 20, item 4: revivals at start-up used to run out (3), and then the job
    stayed failed for good, even once the model was fixed."""

    async def session(handler):
        store, jobs = await _open(store_location)
        runner = JobRunner(jobs, {"work": handler}, EventBus(), max_attempts=1, max_revivals=2)
        await runner.start()
        if not await jobs.list():
            await runner.enqueue("work", {})
        await runner.wait_idle(timeout=10)
        await runner.stop()
        [job] = await jobs.list()
        await store.close()
        return job

    calls = []

    async def always_down(job):
        calls.append(job.revivals)
        raise ModelUnreachableError("down")

    async def back(job):
        calls.append(job.revivals)

    states = [run(session(always_down)) for _ in range(5)]
    assert [s.status for s in states] == [JobStatus.FAILED] * 5
    assert calls == [0, 1, 2, 3, 4]  # the first run, then one round at each start
    assert run(session(back)).status == JobStatus.DONE


def test_invalid_content_fails_at_once_and_is_not_revived(store_location):
    async def scenario():
        store, jobs = await _open(store_location)
        calls = []

        async def invalid(job):
            calls.append(job.id)
            raise InvalidInputError("The memory text contains the control character U+0000.")

        runner = JobRunner(jobs, {"work": invalid}, EventBus(), backoff_seconds=0.01)
        await runner.start()
        job = await runner.enqueue("work", {})
        [failed] = await runner.wait_for([job.id], timeout=10)
        await runner.stop()
        restarted = JobRunner(jobs, {"work": invalid}, EventBus())
        await restarted.start()  # a new start revives what may pass; this can't
        await restarted.stop()
        after_restart = await jobs.get(job.id)
        await store.close()
        return calls, failed, after_restart

    calls, failed, after_restart = run(scenario())
    assert calls == [1]
    assert failed.status == JobStatus.FAILED and not failed.retryable
    assert "control character" in failed.last_error
    assert after_restart.status == JobStatus.FAILED and after_restart.revivals == 0


def test_the_user_can_retry_any_failed_job(store_location):
    async def scenario():
        store, jobs = await _open(store_location)
        fail = True

        async def handler(job):
            if fail:
                raise InvalidInputError("refused")

        runner = JobRunner(jobs, {"work": handler}, EventBus())
        await runner.start()
        job = await runner.enqueue("work", {})
        await runner.wait_for([job.id], timeout=10)
        fail = False
        [revived] = await runner.retry([job.id])
        [done] = await runner.wait_for([job.id], timeout=10)
        await runner.stop()
        await store.close()
        return revived, done

    revived, done = run(scenario())
    assert revived.status == JobStatus.PENDING and revived.attempts == 0
    assert done.status == JobStatus.DONE


def test_a_job_waits_for_its_answer_without_spinning(store_location):
    async def scenario():
        store, jobs = await _open(store_location)
        conversations = ConversationRepository(store)
        conversation = await conversations.create()
        bus = EventBus()
        ran = []

        async def handler(job):
            ran.append(job.id)

        runner = JobRunner(jobs, {"work": handler}, bus)
        await runner.start()
        turn = await conversations.add_turn(
            conversation.id, "My name is John.", lambda message_id: [JobSpec("work", {})]
        )
        claims = 0
        real_claim = jobs.claim_next

        async def counting_claim(busy=(), kinds=None):
            nonlocal claims
            claims += 1
            return await real_claim(busy, kinds)

        jobs.claim_next = counting_claim
        bus.emit(JobStatusChanged(await jobs.get(turn.job_ids[0])))
        await asyncio.sleep(0.5)
        ran_while_streaming, claims_while_streaming = list(ran), claims
        answer = await conversations.update_message(turn.answer.id, status="complete")
        bus.emit(AnswerFinished(answer))
        [done] = await runner.wait_for(turn.job_ids, timeout=10)
        await runner.stop()
        await store.close()
        return ran_while_streaming, claims_while_streaming, done

    ran_while_streaming, claims_while_streaming, done = run(scenario())
    assert ran_while_streaming == []
    assert claims_while_streaming <= 2  # woken once, then asleep: no polling loop
    assert done.status == JobStatus.DONE
