"""The real program as a process: bad places, bad input and a refused key end in a clear
message (no traceback, nothing half-written), and no secret reaches the disk or the log."""

from __future__ import annotations

import contextlib
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from acai_lab.scripted_openai import Reply
from tests.support.readonly import read_only
from tests.support.sqlite_rows import rows
from tests.support.timeouts import PROGRAM_TIMEOUT_S

#: No system keyring in these runs: keys live in the profile's secrets.json.
NO_KEYRING = {"PYTHON_KEYRING_BACKEND": "keyring.backends.fail.Keyring"}
KEY = "correct-horse-battery-staple-42"  # a custom server's key: no pattern spots it
OPENAI_STYLE = "sk-proj-Q3vT8xLm2NpR7sKw4YbZ1cDe"


def acai(*args: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "acai_desktop", *args],
        capture_output=True,
        text=True,
        encoding="utf-8",
        timeout=PROGRAM_TIMEOUT_S,
        env={**os.environ, "PYTHONIOENCODING": "utf-8", **NO_KEYRING, **(env or {})},
    )


def scripted(server) -> list[str]:
    return ["--provider", "custom", "--base-url", server.base_url, "--model", "fake-model"]


def assert_clear_refusal(result: subprocess.CompletedProcess, *phrases: str) -> None:
    assert result.returncode == 2, (result.stdout, result.stderr)
    assert "Traceback" not in result.stderr, result.stderr
    assert result.stderr.startswith("acai-desktop: error: "), result.stderr
    for phrase in phrases:
        assert phrase in result.stderr, result.stderr


# -- secrets ---------------------------------------------------------------------


def test_a_401_echoing_the_key_is_stored_and_logged_without_it(tmp_path, fake_openai):
    data = tmp_path / "profile"
    data.mkdir()
    (data / "secrets.json").write_text(json.dumps({"custom": KEY}), encoding="utf-8")
    fake_openai.script(
        Reply(status=401, error_message=f"Incorrect API key provided: {KEY} ({OPENAI_STYLE})")
    )
    result = acai(
        "chat", "--data-dir", str(data), *scripted(fake_openai), "--json", "Hello", env={}
    )
    assert result.returncode == 1, result.stderr
    # The key was really sent, and the server really echoed it...
    assert fake_openai.chat_requests()[0].headers["authorization"] == f"Bearer {KEY}"
    # ...but neither the saved error, the output nor the log holds it.
    ((error,),) = rows(data / "acai.sqlite3", "select error from messages where role='assistant'")
    for text in (error, result.stdout, result.stderr):
        assert KEY not in text and OPENAI_STYLE not in text
    assert "Incorrect API key provided: [redacted]" in error
    assert "turn failed" in result.stderr  # the failure was logged, redacted
    # A custom server doesn't read OPENAI_API_KEY: the hint doesn't point there.
    assert "OPENAI_API_KEY" not in error and "Enter the key this server expects" in error


def test_echoed_keys_without_digits_reach_neither_the_database_nor_stderr(tmp_path, fake_openai):
    """Issue 20, item 8: ``sk-test-XXXXXXXXXXXXXXXXXXXXXXXX`` has no digit and was stored
    in ``messages.error`` and printed on stderr; a configured key of no known shape must
    go the same way."""
    no_digits = "sk-test-XXXXXXXXXXXXXXXXXXXXXXXX"
    words_key = "velvet-harbor-lantern-quiet"
    data = tmp_path / "profile"
    data.mkdir()
    (data / "secrets.json").write_text(json.dumps({"custom": words_key}), encoding="utf-8")
    fake_openai.responder = lambda body: Reply(
        status=500, error_message=f"upstream refused {no_digits} (configured: {words_key})"
    )
    result = acai("chat", "--data-dir", str(data), *scripted(fake_openai), "Hello", env={})
    assert result.returncode == 1, result.stderr
    assert fake_openai.chat_requests()[0].headers["authorization"] == f"Bearer {words_key}"
    ((error,),) = rows(data / "acai.sqlite3", "select error from messages where role='assistant'")
    assert "upstream refused [redacted] (configured: [redacted])" in error
    assert "upstream refused [redacted]" in result.stderr  # printed, and logged, redacted
    for text in (error, result.stdout, result.stderr):
        assert no_digits not in text and words_key not in text


def test_the_no_keyring_warning_appears_only_when_a_key_is_kept_in_the_file(tmp_path, fake_openai):
    data = tmp_path / "profile"
    without_key = acai("chat", "--data-dir", str(data), *scripted(fake_openai), "Hello")
    assert without_key.returncode == 0, without_key.stderr
    assert "keyring" not in without_key.stderr
    (data / "secrets.json").write_text(json.dumps({"custom": KEY}), encoding="utf-8")
    with_key = acai("chat", "--data-dir", str(data), *scripted(fake_openai), "Hello again")
    assert with_key.returncode == 0, with_key.stderr
    assert "warning: API keys are stored in" in with_key.stderr
    assert KEY not in with_key.stderr


# -- clear errors ----------------------------------------------------------------


def test_a_data_dir_that_is_a_file_is_refused_clearly(tmp_path, fake_openai):
    not_a_folder = tmp_path / "profile.txt"
    not_a_folder.write_text("notes", encoding="utf-8")
    for command in (
        ["memories", "list"],
        ["chat", *scripted(fake_openai), "Hello"],
    ):
        result = acai(command[0], "--data-dir", str(not_a_folder), *command[1:])
        assert_clear_refusal(result, "is a file, not a folder", "--data-dir")
    assert not_a_folder.read_text(encoding="utf-8") == "notes"


def leave_journal_files_behind(database: Path) -> None:
    """What a crash leaves: a process with the database open in WAL mode is killed."""
    script = (
        "import os, signal, sqlite3\n"
        f"db = sqlite3.connect({str(database)!r})\n"
        "db.execute('PRAGMA journal_mode = WAL')\n"
        'db.execute("INSERT INTO conversations (title, created_at, updated_at) '
        "VALUES ('crash', 'now', 'now')\")\n"
        "db.commit()\n"
        "os.kill(os.getpid(), signal.SIGKILL)\n"
    )
    subprocess.run([sys.executable, "-c", script], check=False)
    assert database.with_name(database.name + "-wal").exists()


@pytest.mark.parametrize("after_a_crash", [False, True], ids=["closed-cleanly", "after-a-crash"])
def test_a_read_only_data_dir_lists_without_a_traceback_and_refuses_chat(
    tmp_path, fake_openai, after_a_crash
):
    data = tmp_path / "profile"
    added = acai("memories", "add", "I like tea", "--data-dir", str(data))
    assert added.returncode == 0, added.stderr
    database = data / "acai.sqlite3"
    if after_a_crash:
        leave_journal_files_behind(database)
    with contextlib.ExitStack() as stack:
        stack.enter_context(read_only(database, directory=True))
        for journal in data.glob("acai.sqlite3-*"):
            stack.enter_context(read_only(journal))
        listed = acai("memories", "list", "--json", "--data-dir", str(data))
        chat = acai("chat", "--data-dir", str(data), *scripted(fake_openai), "Hello")
    # Without SQLite's journal files listing can't open the database; with them (left by
    # a crash) it can read. Either way: a clear answer, never a traceback.
    assert "Traceback" not in listed.stderr, listed.stderr
    if after_a_crash:
        assert listed.returncode == 0, listed.stderr
        assert [m["content"] for m in json.loads(listed.stdout)["memories"]] == ["I like tea"]
        assert listed.stderr == ""
    else:
        assert_clear_refusal(listed, "read-only")
    assert_clear_refusal(chat, "read-only")
    assert fake_openai.chat_requests() == []


def test_a_first_start_in_a_read_only_folder_is_refused_clearly(tmp_path):
    folder = tmp_path / "empty"
    folder.mkdir()
    with read_only(folder):
        chat = acai("chat", "--data-dir", str(folder), "Hello")
    assert_clear_refusal(chat, "read-only", "--data-dir")
    assert list(folder.iterdir()) == []


def test_deeply_nested_json_on_import_is_refused_clearly(tmp_path):
    data = tmp_path / "profile"
    deep = "[" * 200_000 + "]" * 200_000
    path = tmp_path / "deep.json"
    path.write_text(
        '{"format": "acai-desktop-memories", "version": 1, "memories": '
        f'[{{"uid": "a", "content": "x", "meta": {{"v": {deep}}}}}]}}',
        encoding="utf-8",
    )
    result = acai("memories", "import", str(path), "--data-dir", str(data))
    assert_clear_refusal(result, "nested", "nothing was changed")
    # Deep but within the parser's reach: refused by the meta limit, with the place.
    path.write_text(
        json.dumps(
            {
                "format": "acai-desktop-memories",
                "version": 1,
                "memories": [
                    {"uid": "a", "content": "x", "meta": {"v": json.loads("[" * 50 + "]" * 50)}}
                ],
            }
        ),
        encoding="utf-8",
    )
    result = acai("memories", "import", str(path), "--data-dir", str(data))
    assert_clear_refusal(result, "memories[0].meta", "nested more than 20 levels")
    assert rows(data / "acai.sqlite3", "select count(*) from memories") == [(0,)]


def test_a_huge_meta_on_import_is_refused_with_the_limit(tmp_path):
    data = tmp_path / "profile"
    path = tmp_path / "huge.json"
    document = {
        "format": "acai-desktop-memories",
        "version": 1,
        "memories": [
            {"uid": "small", "content": "I like tea"},
            {"uid": "huge", "content": "I like coffee", "meta": {"blob": "x" * 10_000_000}},
        ],
    }
    path.write_text(json.dumps(document), encoding="utf-8")
    result = acai("memories", "import", str(path), "--data-dir", str(data))
    assert_clear_refusal(result, "memories[1].meta", "the limit is 65,536 bytes")
    assert rows(data / "acai.sqlite3", "select count(*) from memories") == [(0,)]


def test_chat_with_an_empty_new_message_creates_nothing(tmp_path, fake_openai):
    data = tmp_path / "profile"
    first = acai("chat", "--data-dir", str(data), *scripted(fake_openai), "Hello")
    assert first.returncode == 0, first.stderr
    before = rows(data / "acai.sqlite3", "select count(*) from conversations")
    for message in ("", "   "):
        result = acai("chat", "--data-dir", str(data), *scripted(fake_openai), "--new", message)
        assert rows(data / "acai.sqlite3", "select count(*) from conversations") == before
        assert_clear_refusal(result, "The message is empty")
    # Refused before anything is opened: not even a new profile's folder appears.
    fresh = tmp_path / "fresh"
    result = acai("chat", "--data-dir", str(fresh), *scripted(fake_openai), "--new", "")
    assert_clear_refusal(result, "The message is empty")
    assert not fresh.exists()
