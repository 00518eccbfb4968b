"""The program as real processes: a kill mid-answer, parallel writers, ``jobs list|retry``."""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import re
import signal
import sqlite3
import subprocess
import sys
import time
from datetime import UTC, datetime, timedelta
from pathlib import Path

from acai_desktop.core.errors import ModelUnreachableError
from acai_desktop.core.learning.job_failures import MAX_RETRY_AFTER_SECONDS
from acai_desktop.core.store.database import Store
from acai_desktop.core.store.jobs import JobRepository
from acai_lab.scripted_model import fake_model
from acai_lab.scripted_openai import Reply
from tests.support.aio import run
from tests.support.assistant import configure_profile, running_assistant
from tests.support.sqlite_rows import rows
from tests.support.timeouts import PROGRAM_TIMEOUT_S

PARALLEL_WRITERS = 48


def program(*args: str) -> list[str]:
    return [sys.executable, "-m", "acai_desktop", *args]


def run_program(*args: str, timeout: float = PROGRAM_TIMEOUT_S) -> subprocess.CompletedProcess:
    return subprocess.run(
        program(*args),
        capture_output=True,
        text=True,
        encoding="utf-8",
        timeout=timeout,
        env={**os.environ, "PYTHONIOENCODING": "utf-8"},
    )


def scripted(server) -> list[str]:
    return ["--provider", "custom", "--base-url", server.base_url, "--model", "fake-model"]


def test_sigkill_mid_answer_loses_no_learning_the_next_start_runs_the_jobs(tmp_path, fake_openai):
    """Defect 2: the jobs used to be queued only after the answer; 39 of 66 killed turns
    were never learned from."""

    def slow_story(body: dict) -> Reply:
        reply = fake_model(body)
        if body.get("stream"):
            reply = Reply(text=" ".join(f"word{i}" for i in range(400)), chunk_delay=0.05)
        return reply

    fake_openai.responder = slow_story
    data = tmp_path / "profile"
    process = subprocess.Popen(
        program("chat", "--data-dir", str(data), *scripted(fake_openai),
                "My name is John. Write me a long story."),
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )  # fmt: skip
    db = data / "acai.sqlite3"
    deadline = time.monotonic() + 120
    partial: list[tuple] = []
    while time.monotonic() < deadline and not partial:
        assert process.poll() is None, "the chat ended before it was killed"
        time.sleep(0.1)
        if db.exists():
            with contextlib.suppress(sqlite3.OperationalError):  # schema not created yet
                partial = rows(
                    db, "SELECT id FROM messages WHERE role = 'assistant' AND content != ''"
                )
    process.send_signal(signal.SIGKILL)
    process.wait(10)
    assert partial, "no partial answer was saved while streaming"
    assert rows(db, "SELECT kind, status FROM jobs ORDER BY id") == [
        ("critical_info", "pending"),
        ("summary", "pending"),
        ("title", "pending"),
    ]
    assert not any("durable_fact" in json.dumps(r.json) for r in fake_openai.chat_requests())

    fake_openai.responder = fake_model

    async def restart():
        async with running_assistant(data, fake_openai) as assistant:
            await assistant.runner.wait_idle(timeout=60)
            messages = await assistant.conversations.messages(1)
            return await assistant._jobs.list(), await assistant.memories.list(), messages

    jobs, memories, messages = run(restart())
    assert [(j.kind, j.status) for j in jobs] == [
        ("critical_info", "done"), ("summary", "done"), ("title", "done")
    ]  # fmt: skip
    assert [m.content for m in memories] == ["The user's name is John"]
    assert messages[1].status == "stopped"


def test_parallel_writers_all_succeed(tmp_path):
    """Defect 6: 14 of 48 parallel `memories add` failed with "database is locked"."""
    data = tmp_path / "profile"
    first = run_program("memories", "add", "--data-dir", str(data), "The first note")
    assert first.returncode == 0, first.stderr
    env = {**os.environ, "PYTHONIOENCODING": "utf-8"}
    writers = [
        subprocess.Popen(
            program("memories", "add", "--data-dir", str(data), f"Parallel note number {n}"),
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            env=env,
        )
        for n in range(PARALLEL_WRITERS)
    ]
    failures = []
    # The writers run at once: one deadline for all of them, not one wait each.
    deadline = time.monotonic() + PROGRAM_TIMEOUT_S
    for writer in writers:
        _, err = writer.communicate(timeout=max(1.0, deadline - time.monotonic()))
        if writer.returncode != 0:
            failures.append(err.strip().splitlines()[-1:] or [f"exit {writer.returncode}"])
    assert failures == []
    contents = [r[0] for r in rows(data / "acai.sqlite3", "SELECT content FROM memories")]
    assert sorted(contents) == sorted(
        ["The first note", *(f"Parallel note number {n}" for n in range(PARALLEL_WRITERS))]
    )


async def _failed_jobs(data: Path, reasons: list[Exception]) -> list[int]:
    """Jobs as the runner leaves them when the model was down: failed, with the reason."""
    store = await Store.open(data / "acai.sqlite3")
    try:
        jobs = JobRepository(store)
        ids = []
        for number, reason in enumerate(reasons):
            job = await jobs.enqueue("summary", {"conversation_id": 100 + number}, None)
            await jobs.claim_next()
            await jobs.fail(job.id, f"{type(reason).__name__}: {reason}", None)
            ids.append(job.id)
        return ids
    finally:
        await store.close()


def test_jobs_list_and_retry_from_the_command_line(tmp_path, fake_openai):
    data = tmp_path / "profile"
    data.mkdir()
    unreachable = ModelUnreachableError("Could not reach the model server at <b>host</b>.")
    ids = run(_failed_jobs(data, [unreachable, unreachable]))

    listed = run_program("jobs", "list", "--json", "--data-dir", str(data))
    assert listed.returncode == 0, listed.stderr
    jobs = json.loads(listed.stdout)["jobs"]
    assert [(j["id"], j["kind"], j["status"], j["retryable"]) for j in jobs] == [
        (ids[0], "summary", "failed", True),
        (ids[1], "summary", "failed", True),
    ]
    assert "Could not reach the model server" in jobs[0]["last_error"]
    human = run_program("jobs", "list", "--data-dir", str(data))
    assert f"#{ids[0]}" in human.stdout and "Could not reach" in human.stdout

    one = run_program("jobs", "retry", str(ids[0]), "--json", "--data-dir", str(data))
    assert one.returncode == 0, one.stderr
    assert [(j["id"], j["status"]) for j in json.loads(one.stdout)["jobs"]] == [(ids[0], "pending")]
    unknown = run_program("jobs", "retry", "999", "--data-dir", str(data))
    assert unknown.returncode == 2 and "No failed or delayed job with id 999" in unknown.stderr
    assert "Traceback" not in unknown.stderr

    # --all --wait: run them now against a model that answers.
    configure_profile(data, fake_openai)
    everything = run_program("jobs", "retry", "--all", "--wait", "--json", "--data-dir", str(data))
    assert everything.returncode == 0, everything.stderr
    assert [(j["id"], j["status"]) for j in json.loads(everything.stdout)["jobs"]] == [
        (ids[1], "done")
    ]
    # The one queued by the first retry ran too: the runner takes every pending job.
    assert rows(data / "acai.sqlite3", "SELECT status FROM jobs ORDER BY id") == [
        ("done",),
        ("done",),
    ]


async def _rate_limited_learning_job(data: Path, server) -> int:
    """A turn whose learning job the server refuses with ``429 Retry-After: 86400``,
    through the real runner and client; returns the job's id once it waits."""
    async with running_assistant(data, server) as assistant:
        conversation = await assistant.conversations.create()
        await assistant.orchestrator.send(conversation.id, "I live in Lisbon.")
        [job_id] = [j.id for j in await assistant._jobs.list() if j.kind == "critical_info"]
        job = await assistant._jobs.get(job_id)
        while job.last_error is None:  # its first attempt's outcome, however long
            await asyncio.sleep(0.05)
            job = await assistant._jobs.get(job_id)
        return job_id


def test_a_job_delayed_by_retry_after_is_listed_with_its_time_and_retry_runs_it(
    tmp_path, fake_openai
):
    """Issue 20, item 3: a day's Retry-After hid the job for a day; `jobs list` did not
    show it and `jobs retry` said there was no failed job."""
    data = tmp_path / "profile"
    fake_openai.responder = lambda body: (
        fake_model(body)
        if body.get("stream")
        else Reply(status=429, headers={"retry-after": "86400"}, error_message="slow down")
    )
    started = datetime.now(UTC)
    job_id = run(asyncio.wait_for(_rate_limited_learning_job(data, fake_openai), 120))

    listed = run_program("jobs", "list", "--json", "--data-dir", str(data))
    assert listed.returncode == 0, listed.stderr
    [job] = [j for j in json.loads(listed.stdout)["jobs"] if j["id"] == job_id]
    assert job["status"] == "pending" and "slow down" in job["last_error"]
    waits = datetime.fromisoformat(job["run_after"]) - started
    assert timedelta(seconds=MAX_RETRY_AFTER_SECONDS - 120) < waits
    assert waits <= timedelta(seconds=MAX_RETRY_AFTER_SECONDS + 120)
    human = run_program("jobs", "list", "--data-dir", str(data))
    at_time = r"(\d{4}-\d\d-\d\d )?\d\d:\d\d"
    line = rf"#{job_id} .*waits until {at_time} \(`jobs retry {job_id}` runs it now\)"
    assert re.search(line, human.stdout), human.stdout

    fake_openai.responder = fake_model  # the server takes requests again
    retried = run_program("jobs", "retry", str(job_id), "--wait", "--json", "--data-dir", str(data))
    assert retried.returncode == 0, retried.stderr
    assert [(j["id"], j["status"]) for j in json.loads(retried.stdout)["jobs"]] == [
        (job_id, "done")
    ]
