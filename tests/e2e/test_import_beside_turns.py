"""A long ``memories import`` in another process beside a chat (issue 20, item 2): no turn
fails and no answer is lost, however long the import holds the database.

The turns start once the import is writing (its first batch is in, or it holds the write
lock), so they meet it whatever the machine's load; once the 20 turns are done, an import
still running is stopped (its own completion is what the import tests check).
"""

from __future__ import annotations

import os
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

from acai_desktop.core.records.conversations import MessageStatus
from acai_lab.scripted_openai import Reply
from benchmarks.soak_faults import write_import_file
from tests.support.aio import run
from tests.support.assistant import configure_profile, running_assistant
from tests.support.sqlite_rows import rows

MEMORIES = 100_000
TURNS = 20
#: Longest wait for the import to start writing (it reads and checks the file first).
START_SECONDS = 120.0


def answer_of(turn: int) -> str:
    return f"Answer to turn {turn}: " + "every word of it is kept. " * 40


def turn_of(body: dict) -> int:
    question = body["messages"][-1]["content"]
    return int(question.rsplit(" ", 1)[-1].rstrip("?"))


def import_is_writing(database: Path, importer: subprocess.Popen) -> bool:
    """The import committed a batch, or holds the write lock after the schema is made
    (before the fix it wrote everything in one long transaction)."""
    if importer.poll() is not None:
        raise AssertionError(f"the import ended before writing: {importer.communicate()}")
    if not database.exists():
        return False
    connection = sqlite3.connect(database, timeout=0, isolation_level=None)
    try:
        try:
            if connection.execute("SELECT count(*) FROM memories").fetchone()[0] > 0:
                return True
        except sqlite3.OperationalError:  # no schema yet, or its migration holds a lock
            return False
        try:
            connection.execute("BEGIN IMMEDIATE")
            connection.execute("ROLLBACK")
            return False
        except sqlite3.OperationalError:
            return True  # the lock is held, by the import's write
    finally:
        connection.close()


def test_twenty_turns_beside_a_100k_memory_import_lose_nothing(tmp_path, fake_openai):
    fake_openai.responder = lambda body: Reply(text=answer_of(turn_of(body)), chunk_chars=40)
    data = tmp_path / "profile"
    profile = configure_profile(data, fake_openai)
    export = write_import_file(tmp_path / "memories.json", MEMORIES)
    command = [sys.executable, "-m", "acai_desktop", "--data-dir", str(data), "memories"]
    importer = subprocess.Popen(
        [*command, "import", str(export), "--json"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env={**os.environ, "PYTHONIOENCODING": "utf-8"},
    )

    async def turns():
        async with running_assistant(data, fake_openai, start_jobs=False) as assistant:
            conversation = await assistant.conversations.create()
            results, beside = [], 0
            for turn in range(1, TURNS + 1):
                beside += importer.poll() is None
                results.append(
                    await assistant.orchestrator.send(conversation.id, f"Question {turn}?")
                )
            return results, beside

    try:
        deadline = time.monotonic() + START_SECONDS
        while not import_is_writing(profile.database_path, importer):
            assert time.monotonic() < deadline, "the import never started writing"
            time.sleep(0.05)  # polling for the import's first write, not a race
        results, beside = run(turns())
    finally:
        still_running = importer.poll() is None
        importer.kill()
        _, errors = importer.communicate()

    assert still_running or importer.returncode == 0, errors
    print(f"{beside} of {TURNS} turns began while the import ran")
    assert [r.status for r in results] == [MessageStatus.COMPLETE] * TURNS
    assert [r.answer.error for r in results] == [None] * TURNS
    stored = rows(profile.database_path, "SELECT role, status, content FROM messages ORDER BY id")
    expected = []
    for turn in range(1, TURNS + 1):
        expected += [("user", "complete", f"Question {turn}?")]
        expected += [("assistant", "complete", answer_of(turn))]
    assert [tuple(row) for row in stored] == expected  # no turn failed, no answer lost
    # Every message got its vector for recall: that write did not fail as "locked" either.
    embedded = rows(profile.database_path, "SELECT count(*) FROM message_embeddings")
    assert embedded == [(2 * TURNS,)]
