"""The persistent background job runner.

Jobs live in the ``jobs`` table (committed before they run). The runner claims them
one at a time, never two at once for the same conversation, runs the handler for the
job's kind, and records the outcome: done, retried later with exponential backoff, or
failed with its error visible. At start-up interrupted jobs are put back.
Jobs never block the chat: they run as tasks on the same loop, and all their blocking
work goes through the store's executor or async HTTP. A server's Retry-After is
honoured up to MAX_RETRY_AFTER_SECONDS; the job waits ``pending`` with its ``run_after``
(shown by ``jobs list`` and the window) and the user's Retry runs it at once.

A failed job is not failed for good. A failure that trying again can't cure (the
content is invalid) is recorded as not retryable and never revived automatically; any
other failed job is queued again:

- at every start, one more round;
- when the model is seen working — a real completion succeeded: an answer in the chat,
  or a call of a job that then finished. That also resets the job's count of revivals.
  A server that lists its models but fails every completion is *not* working;
- when the runner's own check succeeds: while failed jobs wait, it asks the model for
  a one-token completion now and then (backing off to PROBE_MAX_SECONDS). These
  revivals count, at most ``max_revivals`` per job until the model answers real work
  again, so a server that answers the check but fails the jobs can't keep them looping.

The user can retry any failed job (window, ``acai-desktop jobs retry``). A refused key
(401/403) is not retried with backoff: the job fails at once, saying so.

On a model server that answers one request at a time and that learning shares with the
chat (Ollama, LM Studio, llama.cpp; the built-in model gives learning a server of its own,
see core.models.learning_server, unless that one couldn't start), a turn the user waits for
goes first: while a turn runs, the job kinds named in
``yield_to_turns`` start no new job, and a running one is cancelled and put back in the
queue (the interrupted attempt does not count). They carry on a few seconds after the turn
(``quiet_after_turn_s``: the user reads, and often asks again at once), and wait again
while the user types the next message (:meth:`JobRunner.defer`): a request the server has
begun reading can't be taken back, so it is better not to start one the user would wait
behind.

The runner sleeps until there is work: a job queued or revived, an answer finished (jobs
wait for their turn's answer), a scheduled retry, or, every IDLE_POLL_SECONDS, work
queued by another process (``acai-desktop jobs retry``).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from collections.abc import Awaitable, Callable, Collection
from datetime import UTC, datetime

from acai_desktop.core import events as ev
from acai_desktop.core.errors import (
    AcaiError,
)
from acai_desktop.core.events import EventBus
from acai_desktop.core.learning.job_failures import failure_of
from acai_desktop.core.models.call_tally import tallying_model_answers
from acai_desktop.core.records.conversations import MessageStatus
from acai_desktop.core.records.jobs import Job, JobStatus
from acai_desktop.core.store.jobs import JobRepository

log = logging.getLogger(__name__)

JobHandler = Callable[[Job], Awaitable[None]]
#: True when the model answered a real (tiny) completion: the check that it is back.
ModelProbe = Callable[[], Awaitable[bool]]

FINISHED = (JobStatus.DONE, JobStatus.FAILED)
#: How long the runner waits before trying the queue again after a database error.
QUEUE_RETRY_SECONDS = 5.0
#: How many times the runner's check may queue a failed job again before the model
#: answers real work (a chat answer, a job's call) again.
MAX_REVIVALS = 3
#: While failed jobs wait for the model, check it this often (doubling up to the maximum).
PROBE_FIRST_SECONDS = 30.0
PROBE_MAX_SECONDS = 600.0
#: The longest the runner sleeps without looking at the queue (work queued elsewhere).
IDLE_POLL_SECONDS = 30.0
#: After a turn, work that yields to turns waits this long (the user reads the answer and
#: may ask again at once).
QUIET_AFTER_TURN_SECONDS = 4.0


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
        max_revivals: int = MAX_REVIVALS,
        probe: ModelProbe | None = None,
        probe_seconds: float = PROBE_FIRST_SECONDS,
        yield_to_turns: Collection[str] = (),
        quiet_after_turn_s: float = QUIET_AFTER_TURN_SECONDS,
    ) -> None:
        self.jobs = jobs
        self.handlers = handlers
        self.events = events
        self.max_attempts = max_attempts
        self.backoff_seconds = backoff_seconds
        self.max_concurrent = max_concurrent
        self.max_revivals = max_revivals
        self.probe = probe
        self.probe_seconds = probe_seconds
        self._wake = asyncio.Event()
        #: A real completion succeeded (chat answer, a job's call): revive and reset.
        self._model_answered = False
        #: The runner's check got an answer: revive, counted against max_revivals.
        self._check_answered = False
        self._loop_task: asyncio.Task | None = None
        self._probe_task: asyncio.Task | None = None
        self._unsubscribers: list[Callable[[], None]] = []
        self._running: dict[int, tuple[Job, asyncio.Task]] = {}
        self._finished = asyncio.Condition()
        self._kinds: frozenset[str] | None = None  # see start()
        #: Job kinds that step aside while a turn runs (they use the chat's model server).
        self.yield_to_turns = frozenset(yield_to_turns)
        #: The answers being written now (TurnStarted without its TurnEnded yet).
        self._turns: set[int] = set()
        #: Jobs whose handler is running now: only those are cancelled for a turn.
        self._in_handler: set[int] = set()
        #: Jobs cancelled to let a turn go first, to be put back in the queue.
        self._preempted: set[int] = set()
        self.quiet_after_turn_s = quiet_after_turn_s
        #: Until then (time.monotonic()) work that yields to turns waits: a turn just
        #: ended, or the user is typing.
        self._quiet_until = 0.0

    async def start(self, *, kinds: Collection[str] | None = None) -> None:
        """Run queued jobs from now on; ``kinds``: only jobs of these kinds (without a
        model, the ones that need none), with no reviving of failed jobs and no asking
        the model whether it is back."""
        self._kinds = None if kinds is None else frozenset(kinds)
        recovered = await self.jobs.requeue()
        if recovered:
            log.info("resuming %d job(s) interrupted by the last exit", recovered)
        if self._kinds is None:
            await self._revive_automatically("a new start")  # one more round each start
        self._unsubscribers = [
            self.events.subscribe(ev.JobStatusChanged, self._on_job_status_changed),
            self.events.subscribe(ev.AnswerFinished, self._on_answer_finished),
            self.events.subscribe(ev.TurnStarted, self._on_turn_started),
            self.events.subscribe(ev.TurnEnded, self._on_turn_ended),
        ]
        self._loop_task = asyncio.create_task(self._loop(), name="job-runner")
        if self.probe is not None and self._kinds is None:
            self._probe_task = asyncio.create_task(self._probe_loop(), name="job-model-probe")

    async def retry(self, job_ids: Collection[int] | None = None) -> list[Job]:
        """The user asks: queue these failed jobs, and run these jobs waiting for a later
        retry, now (None: every such job)."""
        queued = await self.jobs.retry(job_ids)
        self._announce(queued)
        return queued

    def wake(self) -> None:
        """Jobs were queued or resumed outside the runner (an import): look now."""
        self._wake.set()

    def _on_job_status_changed(self, event: ev.JobStatusChanged) -> None:
        if event.job.status == JobStatus.PENDING:
            self._wake.set()  # queued or revived elsewhere (the orchestrator, a retry)

    def _on_answer_finished(self, event: ev.AnswerFinished) -> None:
        # An answer is finished: the jobs of its turn may run now.
        if event.message.status == MessageStatus.COMPLETE:
            self._model_answered = True  # a real completion: the model works again
        self._wake.set()

    def _on_turn_started(self, event: ev.TurnStarted) -> None:
        self._turns.add(event.answer_id)
        self._step_aside()

    def defer(self, seconds: float) -> None:
        """The user is about to ask (typing): work that yields to turns waits ``seconds``
        from now, and what runs of it steps aside at once."""
        if not self.yield_to_turns:
            return
        self._quiet_until = max(self._quiet_until, time.monotonic() + seconds)
        self._step_aside()

    def _step_aside(self) -> None:
        for job_id in self._in_handler:
            job, task = self._running[job_id]
            if job.kind in self.yield_to_turns:
                # Synchronously, before the turn's request leaves: the job's request is
                # closed first, so the server is free when the answer asks.
                self._preempted.add(job_id)
                task.cancel()

    def _on_turn_ended(self, event: ev.TurnEnded) -> None:
        self._turns.discard(event.answer_id)
        if self.yield_to_turns:
            self._quiet_until = max(self._quiet_until, time.monotonic() + self.quiet_after_turn_s)
        self._wake.set()

    @property
    def paused_kinds(self) -> frozenset[str]:
        """The kinds that wait now: a turn runs, has just ended, or the user types."""
        if self._turns or time.monotonic() < self._quiet_until:
            return self.yield_to_turns
        return frozenset()

    def _claimable_kinds(self) -> frozenset[str] | None:
        """The kinds a job may be claimed of now (None: any)."""
        paused = self.paused_kinds
        if not paused:
            return self._kinds
        return (self._kinds if self._kinds is not None else frozenset(self.handlers)) - paused

    def _announce(self, jobs: list[Job]) -> None:
        for job in jobs:
            self.events.emit(ev.JobStatusChanged(job))
        if jobs:
            self._wake.set()

    async def _revive_automatically(
        self, why: str, *, max_revivals: int | None = None, reset: bool = False
    ) -> list[Job]:
        revived = await self.jobs.revive_failed(
            automatic=True, max_revivals=max_revivals, reset=reset
        )
        if revived:
            log.info("queued %d failed job(s) again: %s", len(revived), why)
        self._announce(revived)
        return revived

    async def _probe_loop(self) -> None:
        """While failed jobs wait for the model, ask it now and then for a real (tiny)
        completion; when it answers, queue them again (counted: see MAX_REVIVALS)."""
        assert self.probe is not None
        delay = self.probe_seconds
        while True:
            await asyncio.sleep(delay)
            try:
                if not await self.jobs.count_revivable(self.max_revivals):
                    delay = self.probe_seconds
                    continue
                answered = await self.probe()
            except AcaiError as error:
                log.info("model check failed: %s", error)
                answered = False
            if answered:
                self._check_answered = True
                self._wake.set()
            # Doubling either way: a server that answers the check but fails the jobs
            # is asked less and less often.
            delay = min(delay * 2, PROBE_MAX_SECONDS)

    async def enqueue(self, kind: str, payload: dict, conversation_id: int | None = None) -> Job:
        if kind not in self.handlers:
            raise ValueError(f"no handler for job kind {kind!r}")
        job = await self.jobs.enqueue(kind, payload, conversation_id)
        self.events.emit(ev.JobStatusChanged(job))
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
        while self._unsubscribers:
            self._unsubscribers.pop()()
        for task in (self._probe_task, self._loop_task):
            if task is not None:
                task.cancel()
                with contextlib.suppress(asyncio.CancelledError, Exception):
                    await task
        self._probe_task = self._loop_task = None
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
                if self._model_answered:
                    self._model_answered = self._check_answered = False
                    await self._revive_automatically("the model answered a request", reset=True)
                elif self._check_answered:
                    self._check_answered = False
                    await self._revive_automatically(
                        "the model answered a check", max_revivals=self.max_revivals
                    )
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
        kinds = self._claimable_kinds()
        while len(self._running) < self.max_concurrent and (kinds is None or kinds):
            busy = {job.conversation_id for job, _ in self._running.values()}
            job = await self.jobs.claim_next({c for c in busy if c is not None}, kinds)
            if job is None:
                break
            task = asyncio.create_task(self._run(job), name=f"job-{job.id}-{job.kind}")
            self._running[job.id] = (job, task)
            self.events.emit(ev.JobStatusChanged(job))
            started = True
        return started

    async def _sleep_until_next(self) -> None:
        timeout = IDLE_POLL_SECONDS
        next_at = await self.jobs.next_run_after()
        if next_at is not None:
            delay = (datetime.fromisoformat(next_at) - datetime.now(UTC)).total_seconds()
            timeout = min(max(delay, 0.01), IDLE_POLL_SECONDS)
        quiet_left = self._quiet_until - time.monotonic()
        if quiet_left > 0:  # paused work may start then
            timeout = min(timeout, quiet_left + 0.01)
        # Not asyncio.wait_for: on Python 3.11 a cancel (stop) that meets the wake-up
        # can leave it waiting for its inner task for the whole timeout.
        waiter = asyncio.ensure_future(self._wake.wait())
        try:
            await asyncio.wait({waiter}, timeout=timeout)
        finally:
            waiter.cancel()

    async def _run(self, job: Job) -> None:
        finished: Job | None = None
        try:
            try:
                self._in_handler.add(job.id)
                try:
                    with tallying_model_answers() as tally:
                        await self.handlers[job.kind](job)
                finally:
                    self._in_handler.discard(job.id)
            except asyncio.CancelledError:
                if job.id not in self._preempted:
                    raise
                finished = await self._put_back(job)
            except Exception as error:
                finished = await self._record_failure(job, error)
            else:
                finished = await self.jobs.finish(job.id)
                if tally.answered:
                    # The model answered real work: the jobs that failed may pass now.
                    # (Not when the job failed: a job whose first call was answered and
                    # second was not proves nothing, and two such jobs would revive each
                    # other for ever.)
                    self._model_answered = True
        except AcaiError as error:
            # The outcome could not be written. The row stays 'running', so the next
            # start requeues it; this session goes on with the other jobs.
            log.error("job %d (%s): could not record its outcome: %s", job.id, job.kind, error)
        finally:
            # Always, even when cancelled: a job left in _running would block its
            # conversation (and a slot) for the rest of the session.
            self._running.pop(job.id, None)
            self._preempted.discard(job.id)
            self._wake.set()
        if finished is not None:
            self.events.emit(ev.JobStatusChanged(finished))
        async with self._finished:
            self._finished.notify_all()

    async def _put_back(self, job: Job) -> Job:
        """A turn took the model server from ``job``: it waits in the queue again."""
        log.info("job %d (%s) steps aside for an answer; it runs after it", job.id, job.kind)
        await self.jobs.requeue([job.id])
        return await self.jobs.get(job.id)

    async def _record_failure(self, job: Job, error: Exception) -> Job:
        failure = failure_of(
            job, error, max_attempts=self.max_attempts, backoff_seconds=self.backoff_seconds
        )
        return await self.jobs.fail(
            job.id, failure.reason, failure.retry_at, retryable=failure.retryable
        )
