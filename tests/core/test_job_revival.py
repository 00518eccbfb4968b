"""Issue 20, items 3 and 4: failed and delayed jobs, against a half-working server.

Jobs that call the model through the real client and SDK, on the fault-injecting scripted
server: ``/v1/models`` answers while every completion fails with 500, or completions are
refused with a 429 asking for a day's pause. Waits are for conditions (bounded), never
for a time to pass.
"""

from __future__ import annotations

import asyncio
import functools
import logging
from datetime import UTC, datetime, timedelta

from acai_desktop.core.events import AnswerFinished, EventBus
from acai_desktop.core.learning.job_failures import MAX_RETRY_AFTER_SECONDS
from acai_desktop.core.learning.job_runner import JobRunner
from acai_desktop.core.models.start import model_answers
from acai_desktop.core.records.conversations import Message, MessageStatus
from acai_desktop.core.records.jobs import JobStatus
from acai_desktop.core.store.database import Store
from acai_desktop.core.store.jobs import JobRepository
from acai_lab.scripted_openai import Reply
from tests.core.conftest import client_for
from tests.support.aio import run

HELLO = [{"role": "user", "content": "Hello"}]
BOUND_S = 60


async def until(condition, what: str) -> None:
    """Wait until ``condition()`` (a coroutine function) is true, for at most BOUND_S."""

    async def poll():
        while not await condition():
            await asyncio.sleep(0.02)

    try:
        await asyncio.wait_for(poll(), BOUND_S)
    except TimeoutError:
        raise AssertionError(f"still waiting for: {what}") from None


def _runner(jobs, client, *, checks_the_model: bool = False, **options) -> JobRunner:
    """A runner whose jobs make one completion; ``checks_the_model``: with the app's own
    check of the model (a one-token completion) while failed jobs wait."""

    async def learn(job):
        await client.complete(HELLO, role="triage")

    defaults = {"max_attempts": 2, "backoff_seconds": 0.01}
    defaults.update(options)
    probe = functools.partial(model_answers, client) if checks_the_model else None
    return JobRunner(jobs, {"learn": learn}, EventBus(), probe=probe, **defaults)


def test_a_server_that_lists_models_but_fails_completions_uses_up_no_revival(
    tmp_path, fake_openai, caplog
):
    """The runner used to ask /v1/models whether the model was back: it was, so the job
    was revived at 0, 30 and 60 s, failed each time, and then stayed failed for good."""
    fake_openai.failing_completions = 500

    async def scenario():
        store = await Store.open(tmp_path / "acai.sqlite3")
        jobs = JobRepository(store)
        client = client_for(fake_openai, max_retries=0)
        runner = _runner(jobs, client, checks_the_model=True, probe_seconds=0.02)
        try:
            await runner.start()
            job = await runner.enqueue("learn", {})
            [failed] = await runner.wait_for([job.id], timeout=BOUND_S)

            def checks() -> int:
                return sum(1 for r in fake_openai.chat_requests() if r.json.get("max_tokens") == 1)

            async def checked_thrice() -> bool:
                return checks() >= 3

            await until(checked_thrice, "three checks of the model")
            still = await jobs.get(job.id)
            fake_openai.failing_completions = None  # the server is fixed

            async def done() -> bool:
                return (await jobs.get(job.id)).status == JobStatus.DONE

            await until(done, "the job to run again once the model answers")
            return failed, still, await jobs.get(job.id)
        finally:
            await runner.stop()
            await client.close()
            await store.close()

    with caplog.at_level(logging.ERROR, logger="acai_desktop.core.learning.job_runner"):
        failed, still, done = run(scenario())
    assert failed.status == JobStatus.FAILED and "HTTP 500" in failed.last_error
    # /v1/models answered all along; the checks were real completions, which failed.
    assert fake_openai.requests_to("/v1/models") == []
    assert still.status == JobStatus.FAILED and still.revivals == 0
    assert done.status == JobStatus.DONE
    # What the log promised is what happened.
    assert "it runs again at the next start, or sooner once the model answers" in caplog.text


def test_a_real_completion_revives_failed_jobs_and_resets_their_count(tmp_path, fake_openai):
    async def scenario():
        store = await Store.open(tmp_path / "acai.sqlite3")
        jobs = JobRepository(store)
        client = client_for(fake_openai, max_retries=0)
        runner = _runner(jobs, client, max_revivals=2)
        try:
            fake_openai.failing_completions = 500
            await runner.start()
            job = await runner.enqueue("learn", {})
            await runner.wait_for([job.id], timeout=BOUND_S)
            # As a run of start-ups leaves it: revived more often than the cap.
            await store.run(lambda db: db.execute("UPDATE jobs SET revivals = 5"))
            fake_openai.failing_completions = None
            # An answer in the chat completed: a real completion succeeded.
            answer = Message(1, 1, "assistant", "Hi!", MessageStatus.COMPLETE, "now")
            runner.events.emit(AnswerFinished(answer, (), ()))

            async def done() -> bool:
                return (await jobs.get(job.id)).status == JobStatus.DONE

            await until(done, "the job revived by the chat answer")
            return await jobs.get(job.id)
        finally:
            await runner.stop()
            await client.close()
            await store.close()

    done = run(scenario())
    assert done.status == JobStatus.DONE and done.revivals == 0  # reset, not counted


def test_a_job_that_succeeds_with_the_model_revives_the_others(tmp_path, fake_openai):
    async def scenario():
        store = await Store.open(tmp_path / "acai.sqlite3")
        jobs = JobRepository(store)
        client = client_for(fake_openai, max_retries=0)
        runner = _runner(jobs, client)
        try:
            fake_openai.failing_completions = 500
            await runner.start()
            first = await runner.enqueue("learn", {})
            await runner.wait_for([first.id], timeout=BOUND_S)
            fake_openai.failing_completions = None
            second = await runner.enqueue("learn", {})  # its completion succeeds

            async def both_done() -> bool:
                states = [(await jobs.get(j.id)).status for j in (first, second)]
                return states == [JobStatus.DONE] * 2

            await until(both_done, "the failed job revived by the other's success")
        finally:
            await runner.stop()
            await client.close()
            await store.close()

    run(scenario())


def test_jobs_answered_part_way_do_not_revive_each_other(tmp_path, fake_openai):
    """A job whose first call is answered and second fails proves nothing: two such jobs
    reviving each other would loop for ever."""
    calls: list[int] = []

    def triage_yes_extraction_fails(body: dict) -> Reply:
        calls.append(1)
        if body.get("model") == "fake-extraction":
            return Reply(status=500, error_message="extraction model crashed")
        return Reply(text="yes")

    fake_openai.responder = triage_yes_extraction_fails

    async def scenario():
        store = await Store.open(tmp_path / "acai.sqlite3")
        jobs = JobRepository(store)
        client = client_for(fake_openai, max_retries=0)

        async def learn(job):
            await client.complete(HELLO, role="triage")
            await client.complete(HELLO, role="extraction")

        runner = JobRunner(jobs, {"learn": learn}, EventBus(), max_attempts=1)
        try:
            await runner.start()
            queued = [await runner.enqueue("learn", {}) for _ in range(2)]
            failed = await runner.wait_for([j.id for j in queued], timeout=BOUND_S)
            # Let the runner act on anything it noticed, then look again.
            await runner.enqueue("learn", {"marker": True})
            await runner.wait_idle(timeout=BOUND_S)
            return failed, [await jobs.get(j.id) for j in queued]
        finally:
            await runner.stop()
            await client.close()
            await store.close()

    failed, after = run(scenario())
    assert [j.status for j in failed] == [JobStatus.FAILED] * 2
    assert [(j.status, j.revivals) for j in after] == [(JobStatus.FAILED, 0)] * 2
    assert len(calls) == 6  # two calls for each of the three jobs, nothing more


def test_a_days_retry_after_is_capped_and_the_users_retry_runs_it_now(tmp_path, fake_openai):
    """A 429 with ``Retry-After: 86400`` pushed a job a day ahead, invisibly, and
    ``jobs retry`` said there was no failed job."""
    fake_openai.script(Reply(status=429, headers={"retry-after": "86400"}))

    async def scenario():
        store = await Store.open(tmp_path / "acai.sqlite3")
        jobs = JobRepository(store)
        client = client_for(fake_openai, max_retries=0)
        runner = _runner(jobs, client, max_attempts=4)
        try:
            await runner.start()
            job = await runner.enqueue("learn", {})

            async def delayed() -> bool:
                return (await jobs.get(job.id)).last_error is not None

            await until(delayed, "the rate-limited attempt")
            waiting = await jobs.get(job.id)
            [queued] = await runner.retry([job.id])
            [done] = await runner.wait_for([job.id], timeout=BOUND_S)
            return waiting, queued, done
        finally:
            await runner.stop()
            await client.close()
            await store.close()

    before = datetime.now(UTC)
    waiting, queued, done = run(scenario())
    assert waiting.status == JobStatus.PENDING and "rate-limiting" in waiting.last_error
    wait = datetime.fromisoformat(waiting.run_after) - before
    assert timedelta(seconds=MAX_RETRY_AFTER_SECONDS - 60) < wait
    assert wait <= timedelta(seconds=MAX_RETRY_AFTER_SECONDS + 60)
    assert waiting.waits_until() is not None
    assert queued.run_after is None and queued.waits_until() is None
    assert done.status == JobStatus.DONE and done.attempts == 2
