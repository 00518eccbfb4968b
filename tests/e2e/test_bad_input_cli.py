"""Bad input and unlucky conditions, through the real program as a process on temp
profiles: each ends in one clear line (no traceback) and loses nothing. Issue 20,
items 7 and 10."""

from __future__ import annotations

import hashlib
import json
import os
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest

from acai_desktop.core.profile.lock import ProfileLock
from acai_desktop.core.profile.paths import Profile
from acai_desktop.core.store.conversation_repository import ConversationRepository
from acai_desktop.core.store.database import Store
from acai_desktop.core.store.jobs import JobRepository
from acai_lab.scripted_model import fake_model
from acai_lab.scripted_openai import Reply
from tests.support.aio import run
from tests.support.assistant import configure_profile
from tests.support.sqlite_rows import rows
from tests.support.timeouts import PROGRAM_TIMEOUT_S

ENV = {**os.environ, "PYTHONIOENCODING": "utf-8"}


def program(*args: str | bytes) -> list[str | bytes]:
    return [sys.executable, "-m", "acai_desktop", *args]


def acai(*args: str | bytes) -> subprocess.CompletedProcess:
    return subprocess.run(
        program(*args),
        capture_output=True,
        text=True,
        encoding="utf-8",
        errors="replace",
        timeout=PROGRAM_TIMEOUT_S,
        env=ENV,
    )


def scripted(server) -> list[str]:
    return ["--provider", "custom", "--base-url", server.base_url, "--model", "fake-model"]


def assert_one_line_error(result: subprocess.CompletedProcess, *phrases: str) -> None:
    assert result.returncode == 2, (result.stdout, result.stderr)
    assert "Traceback" not in result.stderr, result.stderr
    assert result.stderr.startswith("acai-desktop: error: "), result.stderr
    assert result.stderr.count("\n") == 1, result.stderr
    for phrase in phrases:
        assert phrase in result.stderr, result.stderr


def digest(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


# -- item 7 ----------------------------------------------------------------------------


@pytest.mark.skipif(sys.platform == "win32", reason="argv bytes: POSIX")
def test_a_message_with_lone_surrogates_is_refused_and_leaves_no_conversation(
    tmp_path, fake_openai
):
    data = tmp_path / "profile"
    # Bytes that are not UTF-8 on the command line reach Python as lone surrogates.
    said = acai("chat", "--data-dir", str(data), *scripted(fake_openai), "--new", b"caf\xe9 ok")
    assert_one_line_error(said, "not valid text", "Nothing was sent")
    assert fake_openai.chat_requests() == []
    database = data / "acai.sqlite3"
    assert not database.exists() or rows(database, "SELECT count(*) FROM conversations") == [(0,)]


@pytest.mark.skipif(sys.platform == "win32", reason="file names as bytes: POSIX")
def test_docs_add_skips_a_file_whose_name_is_not_utf8_and_indexes_the_rest(tmp_path):
    folder = tmp_path / "notes"
    folder.mkdir()
    (folder / "good.txt").write_text("The boiler is serviced every October.", encoding="utf-8")
    bad = os.path.join(os.fsencode(folder), b"bad-\xff-name.txt")
    with open(bad, "wb") as file:
        file.write(b"Text under a name that is not UTF-8.")
    data = tmp_path / "profile"
    result = acai("docs", "add", str(folder), "--json", "--data-dir", str(data))
    assert "Traceback" not in result.stderr, result.stderr
    assert result.returncode == 1, result.stderr  # one file refused
    output = json.loads(result.stdout)
    assert [(d["name"], d["status"]) for d in output["documents"]] == [("good.txt", "ready")]
    ((path, reason),) = [(r["path"], r["error"]) for r in output["refused"]]
    assert path.endswith("bad-\ufffd-name.txt") and "not valid UTF-8" in reason
    human = acai("docs", "add", str(folder), "--data-dir", str(data))
    assert "Traceback" not in human.stderr
    assert "bad-\ufffd-name.txt: its name is not valid UTF-8" in human.stdout


def _profile_with_memories(data: Path) -> Path:
    for text in ("I like green tea", "My sister lives in Lyon"):
        added = acai("memories", "add", text, "--data-dir", str(data))
        assert added.returncode == 0, added.stderr
    return data / "acai.sqlite3"


def test_a_database_with_damaged_text_is_named_damaged_and_export_saves_the_rest(tmp_path):
    data = tmp_path / "profile"
    database = _profile_with_memories(data)
    with sqlite3.connect(database) as db:  # a damaged page: bytes that are not UTF-8
        db.execute("UPDATE memories SET content = CAST(x'49206c696b6520ff746561' AS TEXT) "
                   "WHERE id = 1")  # fmt: skip
    db.close()
    before = digest(database)
    listed = acai("memories", "list", "--data-dir", str(data))
    assert_one_line_error(listed, "is damaged", "last good backup", "memories export")
    assert digest(database) == before
    # What the message offers works: the export saves what is readable.
    exported = acai("memories", "export", str(tmp_path / "saved.json"), "--data-dir", str(data))
    assert exported.returncode == 0, exported.stderr
    saved = json.loads((tmp_path / "saved.json").read_text(encoding="utf-8"))["memories"]
    assert sorted(m["content"] for m in saved) == ["I like \ufffdtea", "My sister lives in Lyon"]


def test_a_database_with_a_damaged_schema_is_named_damaged(tmp_path):
    data = tmp_path / "profile"
    database = _profile_with_memories(data)
    raw = bytearray(database.read_bytes())
    at = raw.find(b"CREATE TABLE memories")
    raw[at + 7] = 0xFF  # the schema's text is not UTF-8 any more
    database.write_bytes(bytes(raw))
    before = digest(database)
    for command in (("memories", "list"), ("conversations", "list"), ("jobs", "list")):
        result = acai(*command, "--data-dir", str(data))
        assert_one_line_error(result, "is damaged", "last good backup", "memories export")
    assert digest(database) == before


def test_listing_into_a_reader_that_stops_early_ends_quietly(tmp_path):
    data = tmp_path / "profile"

    async def many_conversations():
        store = await Store.open(Profile.at(data).ensure().database_path)
        try:
            conversations = ConversationRepository(store)
            for number in range(1500):  # far more JSON than a pipe holds
                await conversations.create(f"Conversation number {number}")
        finally:
            await store.close()

    run(many_conversations())
    process = subprocess.Popen(
        program("conversations", "list", "--json", "--data-dir", str(data)),
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        env=ENV,
    )
    assert process.stdout.read(200).startswith(b'{\n  "conversations"')  # `| head -c 200`
    process.stdout.close()
    error = process.stderr.read().decode("utf-8")
    process.wait(PROGRAM_TIMEOUT_S)
    assert "Traceback" not in error and "BrokenPipe" not in error, error
    assert process.returncode == 141  # as a shell reports a writer whose reader left


# -- item 10 ---------------------------------------------------------------------------


def test_a_nul_in_a_title_is_refused_and_never_written_by_the_markdown_export(tmp_path):
    data = tmp_path / "profile"

    async def build():
        store = await Store.open(Profile.at(data).ensure().database_path)
        try:
            conversations = ConversationRepository(store)
            # As an older version let it be saved.
            chat = await conversations.create("Trip\x00 to Kyoto")
            await conversations.add_message(chat.id, "user", "Plan it.")
            refused = None
            try:
                await conversations.rename(chat.id, "New\x00title")
            except Exception as error:
                refused = error
            return chat.id, refused
        finally:
            await store.close()

    chat_id, refused = run(build())
    assert type(refused).__name__ == "InvalidInputError" and "control characters" in str(refused)
    assert rows(data / "acai.sqlite3", "SELECT title FROM conversations") == [
        ("Trip\x00 to Kyoto",)
    ]
    exported = tmp_path / "trip.md"
    result = acai("conversations", "export", str(chat_id), str(exported), "--data-dir", str(data))
    assert result.returncode == 0, result.stderr
    text = exported.read_bytes()
    assert b"\x00" not in text and text.startswith(b"# Trip to Kyoto\n")


def _export_file(path: Path, memories: list[dict], version: int = 1) -> Path:
    path.write_text(
        json.dumps({"format": "acai-desktop-memories", "version": version, "memories": memories}),
        encoding="utf-8",
    )
    return path


@pytest.mark.parametrize(
    ("memories", "phrase"),
    [
        ([{"uid": "a", "content": "I like tea", "superseded_by_uid": "a"}], "can't name itself"),
        (
            [
                {"uid": "a", "content": "I like tea", "superseded_by_uid": "b"},
                {"uid": "b", "content": "I like coffee", "superseded_by_uid": "a"},
            ],
            "replace each other in a circle",
        ),
        (
            [
                {"uid": "a", "content": "I like tea", "supersedes_uid": "b"},
                {"uid": "b", "content": "I like coffee", "supersedes_uid": "a"},
            ],
            "replace each other in a circle",
        ),
    ],
    ids=["itself", "two-cycle", "two-cycle-by-supersedes"],
)
def test_import_refuses_a_memory_replacing_itself_or_a_cycle(tmp_path, memories, phrase):
    data = tmp_path / "profile"
    file = _export_file(tmp_path / "export.json", memories)
    result = acai("memories", "import", str(file), "--data-dir", str(data))
    assert result.returncode == 2, result.stdout
    assert "Traceback" not in result.stderr and phrase in result.stderr
    assert "nothing was changed" in result.stderr
    database = data / "acai.sqlite3"
    assert not database.exists() or rows(database, "SELECT count(*) FROM memories") == [(0,)]


def test_an_export_from_a_newer_version_says_to_update(tmp_path):
    file = _export_file(tmp_path / "export.json", [{"uid": "a", "content": "x"}], version=3)
    result = acai("memories", "import", str(file), "--data-dir", str(tmp_path / "profile"))
    assert_one_line_error(
        result, "this export is from a newer ACAI Desktop (format 3", "Update ACAI Desktop"
    )
    assert "Input should be 1" not in result.stderr


async def _failed_job(data: Path) -> int:
    store = await Store.open(Profile.at(data).ensure().database_path)
    try:
        jobs = JobRepository(store)
        job = await jobs.enqueue("summary", {"conversation_id": 7}, None)
        await jobs.claim_next()
        await jobs.fail(job.id, "ModelUnreachableError: the model was down", None)
        return job.id
    finally:
        await store.close()


def _retry_and_wait(data: Path) -> subprocess.Popen:
    process = subprocess.Popen(
        program("jobs", "retry", "--all", "--wait", "--json", "--data-dir", str(data)),
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        encoding="utf-8",
        env=ENV,
    )
    said = process.stderr.readline()
    assert "Queued again" in said and "open in another ACAI Desktop" in said, said
    return process


def test_jobs_retry_wait_with_the_window_open_waits_for_it_and_says_so(tmp_path):
    data = tmp_path / "profile"

    job_id = run(_failed_job(data))
    window = ProfileLock(data).acquire()  # as the open window holds the profile
    try:
        process = _retry_and_wait(data)
        assert rows(data / "acai.sqlite3", "SELECT status FROM jobs") == [("pending",)]
        # The window runs it.
        with sqlite3.connect(data / "acai.sqlite3") as db:
            db.execute("UPDATE jobs SET status = 'done' WHERE id = ?", [job_id])
        db.close()
        out, error = process.communicate(timeout=PROGRAM_TIMEOUT_S)
    finally:
        window.release()
    assert process.returncode == 0, error
    assert "Traceback" not in error
    assert [(j["id"], j["status"]) for j in json.loads(out)["jobs"]] == [(job_id, "done")]


def test_jobs_retry_wait_runs_them_itself_when_the_window_closes_first(tmp_path, fake_openai):
    data = tmp_path / "profile"
    job_id = run(_failed_job(data))
    configure_profile(data, fake_openai)
    window = ProfileLock(data).acquire()
    try:
        process = _retry_and_wait(data)
    finally:
        window.release()  # the window closes, its job still pending
    out, error = process.communicate(timeout=PROGRAM_TIMEOUT_S)
    assert process.returncode == 0, error
    assert [(j["id"], j["status"]) for j in json.loads(out)["jobs"]] == [(job_id, "done")]


def test_chat_wait_jobs_says_the_learning_job_failed_and_why(tmp_path, fake_openai):
    def triage_refused(body: dict) -> Reply:
        if body.get("stream"):
            return fake_model(body)
        return Reply(
            status=400,
            error_code="context_length_exceeded",
            error_message="This model's maximum context length is 12 tokens.",
        )

    fake_openai.responder = triage_refused
    data = tmp_path / "profile"
    result = acai(
        "chat", "--data-dir", str(data), *scripted(fake_openai), "--wait-jobs", "My name is John."
    )
    assert result.returncode == 0, result.stderr
    assert "Nothing new stored." not in result.stdout
    assert "The background job to learn from a message failed:" in result.stdout
    assert "maximum context length" in result.stdout and "jobs retry" in result.stdout
    as_json = acai(
        "chat", "--data-dir", str(data), *scripted(fake_openai), "--wait-jobs", "--json",
        "I live in Lyon.",
    )  # fmt: skip
    (learning,) = [j for j in json.loads(as_json.stdout)["jobs"] if j["kind"] == "critical_info"]
    assert learning["status"] == "failed"
    assert "maximum context length" in learning["last_error"]


def test_updating_an_old_profile_says_so_on_the_command_line(tmp_path):
    from tests.support.old_profile import old_profile

    data = tmp_path / "profile"
    old_profile(data)
    result = acai("conversations", "list", "--data-dir", str(data))
    assert result.returncode == 0, result.stderr
    lines = result.stderr.splitlines()
    assert lines[0].startswith("acai-desktop: Updating the database "), result.stderr
    assert "for this version of ACAI Desktop" in lines[0]
    assert lines[-1].startswith("acai-desktop: Database updated in "), result.stderr
    assert "Chat 10" in result.stdout  # nothing lost on the way
    again = acai("conversations", "list", "--data-dir", str(data))
    assert again.stderr == ""  # up to date: nothing to say
