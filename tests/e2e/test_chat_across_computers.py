"""Two computers sending to one chat at once, on one PostgreSQL database (issue 39 G1):
two data dirs, each a real ``chat --store URL`` process, into the latest conversation,
with a model that streams slowly so the turns overlap. Every message is stored once,
the chat stays one thread (each message follows the one appended before it), and no
answer is an error."""

from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path

import psycopg

from acai_lab.scripted_openai import Reply
from tests.support.timeouts import PROGRAM_TIMEOUT_S

#: Seconds between two streamed words: an answer takes about two seconds, so the two
#: computers' turns overlap.
WORD_DELAY = 0.1
ANSWER = " ".join(["Noted"] * 20)


def _chat(data_dir: Path, url: str, server, message: str) -> subprocess.Popen:
    command = [
        sys.executable, "-m", "acai_desktop", "--data-dir", str(data_dir), "--store", url,
        "chat", "--provider", "custom", "--base-url", server.base_url, "--model", "fake-model",
        message,
    ]  # fmt: skip
    return subprocess.Popen(
        command,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        encoding="utf-8",
        env={**os.environ, "PYTHONIOENCODING": "utf-8"},
    )


def _finished(process: subprocess.Popen) -> tuple[int, str, str]:
    out, err = process.communicate(timeout=PROGRAM_TIMEOUT_S)
    return process.returncode, out, err


def _waiting_on_locks(connection: psycopg.Connection) -> int:
    """The other sessions on this database that wait for a lock."""
    return connection.execute(
        "SELECT count(*) FROM pg_stat_activity WHERE datname = current_database() "
        "AND pid != pg_backend_pid() AND wait_event_type = 'Lock'"
    ).fetchone()[0]


def _both_sending(desktop, laptop, url, server, round_number: int) -> list:
    return [
        _chat(desktop, url, server, f"Desktop, round {round_number}."),
        _chat(laptop, url, server, f"Laptop, round {round_number}."),
    ]


def test_two_computers_sending_to_one_chat_at_once_keep_every_message_in_one_thread(
    tmp_path, fake_openai, postgres_url
):
    fake_openai.responder = lambda request: Reply(text=ANSWER, chunk_delay=WORD_DELAY)
    desktop, laptop = tmp_path / "desktop", tmp_path / "laptop"
    first = _finished(_chat(desktop, postgres_url, fake_openai, "Hello from the desktop."))
    assert first[0] == 0, first[2]
    sent = ["Hello from the desktop."]
    results = []
    with psycopg.connect(postgres_url, autocommit=True) as watcher:
        [conversation_id] = watcher.execute("SELECT id FROM conversations").fetchone()
        # Round 1, made to collide: a third writer holds the chat's row (as a rename on
        # another computer would), so both turns reach the database and wait together,
        # then go at once when it lets go.
        holder = psycopg.connect(postgres_url)
        try:
            holder.execute(
                "SELECT 1 FROM conversations WHERE id = %s FOR UPDATE", [conversation_id]
            )
            processes = _both_sending(desktop, laptop, postgres_url, fake_openai, 1)
            deadline = time.monotonic() + PROGRAM_TIMEOUT_S / 2
            while _waiting_on_locks(watcher) < 2 and time.monotonic() < deadline:
                if any(p.poll() is not None for p in processes):
                    break  # one ended already: its output says why
                time.sleep(0.05)
        finally:
            holder.rollback()
            holder.close()
        results += [_finished(p) for p in processes]
        sent += ["Desktop, round 1.", "Laptop, round 1."]
        # Rounds 2 and 3: both sent at the same moment, streaming side by side.
        for round_number in (2, 3):
            processes = _both_sending(desktop, laptop, postgres_url, fake_openai, round_number)
            results += [_finished(p) for p in processes]
            sent += [f"Desktop, round {round_number}.", f"Laptop, round {round_number}."]
        messages = watcher.execute(
            "SELECT id, parent_id, role, content, status, error FROM messages "
            "WHERE conversation_id = %s ORDER BY id",
            [conversation_id],
        ).fetchall()
        conversations = watcher.execute("SELECT count(*) FROM conversations").fetchone()[0]

    for code, _out, err in results:
        assert code == 0 and "Traceback" not in err, err
    assert conversations == 1
    questions = [m[3] for m in messages if m[2] == "user"]
    assert sorted(questions) == sorted(sent)  # every message stored, each once
    answers = [(m[4], m[5], m[3]) for m in messages if m[2] == "assistant"]
    assert answers == [("complete", None, ANSWER)] * len(sent)  # none saved as an error
    # One thread: the first message is the only root, and each message follows the one
    # appended before it (a question after the answer before it, whichever computer's).
    assert [m[1] for m in messages] == [None, *[m[0] for m in messages[:-1]]]
