"""``acai-desktop chat`` as a real process: scripted server, SIGKILL mid-job, local model."""

from __future__ import annotations

import contextlib
import json
import os
import signal
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import pytest

from acai_lab.scripted_model import fake_model
from acai_lab.scripted_openai import Reply
from tests.support.aio import run
from tests.support.assistant import running_assistant
from tests.support.sqlite_rows import rows
from tests.support.timeouts import PROGRAM_TIMEOUT_S


def chat_command(data_dir: Path, *args: str) -> list[str]:
    return [sys.executable, "-m", "acai_desktop", "chat", "--data-dir", str(data_dir), *args]


def scripted(server) -> list[str]:
    return ["--provider", "custom", "--base-url", server.base_url, "--model", "fake-model"]


def run_chat(
    data_dir: Path, *args: str, timeout: float = PROGRAM_TIMEOUT_S
) -> subprocess.CompletedProcess:
    return subprocess.run(
        chat_command(data_dir, *args),
        capture_output=True,
        text=True,
        encoding="utf-8",
        timeout=timeout,
        env={**os.environ, "PYTHONIOENCODING": "utf-8"},
    )


def test_chat_json_reports_answer_memories_used_and_stored(tmp_path, fake_openai):
    fake_openai.responder = fake_model
    data = tmp_path / "profile"
    first = run_chat(
        data, *scripted(fake_openai), "--wait-jobs", "--json", "I prefer Python for backend."
    )
    assert first.returncode == 0, first.stderr
    stored = json.loads(first.stdout)["stored"]
    assert [(m["content"], m["kind"], m["status"]) for m in stored] == [
        ("The user prefers Python for backend", "fact", "active")
    ]

    second = run_chat(
        data, *scripted(fake_openai), "--new", "--json", "Which language for my backend?"
    )
    assert second.returncode == 0, second.stderr
    reply = json.loads(second.stdout)
    assert set(reply) >= {"conversation_id", "answer", "status", "memories_used", "stored"}
    assert reply["status"] == "complete"
    assert reply["conversation_id"] != json.loads(first.stdout)["conversation_id"]
    used = reply["memories_used"][0]
    assert used["content"] == "The user prefers Python for backend"
    assert used["rank"] == 1 and used["reasons"] and used["score"] > 0
    assert used["tier"] == "fact"
    # What was said in the first chat comes back too, as a message of that chat.
    recalled = [u for u in reply["memories_used"] if u["tier"] == "message"]
    first_chat = json.loads(first.stdout)["conversation_id"]
    assert [(u["conversation_id"], u["content"]) for u in recalled][:1] == [
        (first_chat, "I prefer Python for backend.")
    ]
    assert recalled[0]["id"] is None and recalled[0]["message_id"] > 0
    assert "Python" in reply["answer"]


def test_chat_reports_what_a_message_asked_to_forget(tmp_path, fake_openai):
    fake_openai.responder = fake_model
    data = tmp_path / "profile"
    learned = run_chat(
        data, *scripted(fake_openai), "--wait-jobs", "--json", "I prefer Python for backend."
    )
    assert learned.returncode == 0, learned.stderr
    [memory] = json.loads(learned.stdout)["stored"]
    asked = run_chat(
        data, *scripted(fake_openai), "--wait-jobs", "--json",
        "Please forget that I prefer Python for backend.",
    )  # fmt: skip
    assert asked.returncode == 0, asked.stderr
    reply = json.loads(asked.stdout)
    assert reply["forgotten"] == [{"id": memory["id"], "content": memory["content"]}]
    assert reply["stored"] == []
    run_chat(data, *scripted(fake_openai), "--wait-jobs", "I prefer green tea in the morning.")
    human = run_chat(data, *scripted(fake_openai), "--wait-jobs", "Forget that I prefer tea.")
    assert human.returncode == 0, human.stderr
    assert "Forgotten, as you asked" in human.stdout
    assert "The user prefers green tea in the morning" in human.stdout.split("Forgotten")[1]


def test_chat_with_an_unreachable_model_says_so_and_keeps_the_message(tmp_path):
    data = tmp_path / "profile"
    result = run_chat(
        data,
        "--provider", "custom", "--base-url", "http://127.0.0.1:9/v1", "--model", "m",
        "Hello, are you there?",
    )  # fmt: skip
    assert result.returncode == 1
    assert "could not reach" in result.stderr.lower() or "unreachable" in result.stderr.lower()
    assert "Traceback" not in result.stderr
    saved = rows(data / "acai.sqlite3", "SELECT role, content, status FROM messages ORDER BY id")
    assert saved[0] == ("user", "Hello, are you there?", "complete")
    assert saved[1][2] == "error"


def test_sigkill_during_background_jobs_loses_nothing_and_jobs_finish(tmp_path, fake_openai):
    extraction_started = []

    def slow_extraction(body):
        reply = fake_model(body)
        if '"facts"' in body["messages"][0]["content"]:
            extraction_started.append(time.monotonic())
            reply.delay = 30  # the process is killed while it waits for this
        return reply

    fake_openai.responder = slow_extraction
    data = tmp_path / "profile"
    process = subprocess.Popen(
        chat_command(data, *scripted(fake_openai), "--wait-jobs", "My name is John."),
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
    )
    deadline = time.monotonic() + 120
    while not extraction_started and time.monotonic() < deadline:
        assert process.poll() is None, process.stderr.read()
        time.sleep(0.05)
    assert extraction_started, "the extraction job never started"
    process.send_signal(signal.SIGKILL)
    process.wait(10)

    db = data / "acai.sqlite3"
    assert rows(db, "SELECT role, content FROM messages ORDER BY id") == [
        ("user", "My name is John."),
        ("assistant", "Here is my answer to: My name is John."),
    ]
    assert ("critical_info", "running") in rows(db, "SELECT kind, status FROM jobs")

    fake_openai.responder = fake_model

    async def restart():
        async with running_assistant(data, fake_openai) as assistant:
            await assistant.runner.wait_idle(timeout=60)
            return await assistant._jobs.list(), await assistant.memories.list()

    jobs, memories = run(restart())
    assert {(j.kind, j.status) for j in jobs} == {
        ("critical_info", "done"), ("summary", "done"), ("title", "done")
    }  # fmt: skip
    assert [m.content for m in memories] == ["The user's name is John"]


def test_sigkill_mid_answer_keeps_the_partial_answer_marked_stopped(tmp_path, fake_openai):
    fake_openai.script(Reply(text=" ".join(f"word{i}" for i in range(200)), chunk_delay=0.05))
    data = tmp_path / "profile"
    process = subprocess.Popen(
        chat_command(data, *scripted(fake_openai), "Write a long story"),
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    db = data / "acai.sqlite3"
    deadline = time.monotonic() + 60
    partial = []
    while time.monotonic() < deadline and not partial:
        time.sleep(0.1)
        if db.exists():
            with contextlib.suppress(sqlite3.OperationalError):  # schema not created yet
                partial = rows(
                    db,
                    "SELECT content FROM messages WHERE role = 'assistant' AND content != ''",
                )
    process.send_signal(signal.SIGKILL)
    process.wait(10)
    assert partial, "no partial answer was saved while streaming"

    async def restart():
        async with running_assistant(data, fake_openai, start_jobs=False) as assistant:
            return await assistant.conversations.messages(1)

    user, answer = run(restart())
    assert user.content == "Write a long story"
    assert answer.status == "stopped" and answer.content.startswith("word0 word1")
    assert "closed while this answer was being written" in answer.error


@pytest.mark.local_model
# The real model on a CPU: loading it, one answer and the extraction jobs can take
# minutes on a slow machine. The program gets 600 s, the test 660 s, so a hung program
# still fails with its own output before pytest-timeout stops the test.
@pytest.mark.timeout(660)
def test_one_turn_against_the_real_local_model(tmp_path):
    data = tmp_path / "profile"
    result = run_chat(
        data,
        "--provider", "local", "--new", "--wait-jobs", "--json",
        "My name is John and I prefer Python for backend development.",
        timeout=600,
    )  # fmt: skip
    assert result.returncode == 0, result.stderr
    reply = json.loads(result.stdout)
    assert reply["status"] == "complete" and reply["answer"].strip()

    db = data / "acai.sqlite3"
    # Whatever the small model said, the tables agree with each other.
    assert rows(db, "SELECT count(*) FROM jobs WHERE status IN ('pending', 'running')") == [(0,)]
    assert rows(db, "SELECT role, status FROM messages ORDER BY id") == [
        ("user", "complete"),
        ("assistant", "complete"),
    ]
    memories = rows(db, "SELECT id, status FROM memories")
    assert {status for _, status in memories} <= {"active", "temporary", "superseded", "conflict"}
    assert rows(
        db, "SELECT count(*) FROM memories m WHERE NOT EXISTS "
        "(SELECT 1 FROM memory_events e WHERE e.memory_id = m.id AND e.action = 'created')"
    ) == [(0,)]  # fmt: skip
    assert rows(
        db, "SELECT count(*) FROM memory_sources s WHERE NOT EXISTS "
        "(SELECT 1 FROM messages m WHERE m.id = s.message_id)"
    ) == [(0,)]  # fmt: skip
    assert rows(db, "SELECT count(*) FROM memories_fts") == [(len(memories),)]
    stored_ids = {m["id"] for m in reply["stored"]}
    assert stored_ids <= {memory_id for memory_id, _ in memories}
    leftovers = subprocess.run(
        ["pgrep", "-f", f"local_server_process.*{data}"], capture_output=True, text=True
    )
    assert leftovers.stdout.strip() == "", "the local model server outlived the command"
    # Learning ran after the answer on the chat's server, not on a lowest-priority
    # server of its own that waits for spare CPU on a busy machine.
    assert not (data / "logs" / "learning-model.log").exists()


@pytest.mark.local_model
@pytest.mark.timeout(660)
def test_the_built_in_model_memory_commands_are_answered_by_the_app(tmp_path):
    """Issue 40: with the built-in model, remember, "What do you know about me?" and
    forget are answered from memory, by the app, in the same words every time."""
    data = tmp_path / "profile"

    def say(text: str) -> dict:
        args = ("--provider", "local", "--new", "--wait-jobs", "--json", text)
        result = run_chat(data, *args, timeout=600)
        assert result.returncode == 0, result.stderr
        return json.loads(result.stdout)

    told = say("Remember that I live in Lisbon.")
    assert told["answer"] == "I'll remember that you live in Lisbon."
    asked = say("What do you know about me?")
    assert asked["answer"] == "Here is what I remember about you:\n\n- The user lives in Lisbon."
    assert [(m["content"], m["reasons"]) for m in asked["memories_used"]] == [
        ("The user lives in Lisbon.", ["about you"])
    ]
    assert say("Forget that I live in Lisbon.")["answer"] == "I'll forget that you live in Lisbon."
    assert say("What do you know about me?")["answer"] == "I don't remember anything about you yet."
    # Written by the app: no answer of the model's among them.
    db = data / "acai.sqlite3"
    assert rows(db, "SELECT DISTINCT model FROM messages WHERE role = 'assistant'") == [
        ("ACAI (from memory)",)
    ]
