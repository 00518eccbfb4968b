"""``acai-desktop docs`` and ``chat --json``'s evidence, as real processes on a temp profile."""

from __future__ import annotations

import json
import os
import signal
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

from acai_lab.scripted_model import fake_model
from benchmarks.pdf_writer import write_text_pdf
from tests.support.timeouts import PROGRAM_TIMEOUT_S


def acai(data_dir: Path, *args: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "acai_desktop", *args, "--data-dir", str(data_dir)],
        capture_output=True,
        text=True,
        encoding="utf-8",
        timeout=PROGRAM_TIMEOUT_S,
        env={**os.environ, "PYTHONIOENCODING": "utf-8"},
    )


def docs_json(data_dir: Path, *args: str) -> tuple[int, dict]:
    done = acai(data_dir, "docs", *args, "--json")
    return done.returncode, json.loads(done.stdout) if done.stdout.strip() else {}


def library(folder: Path) -> Path:
    (folder / "guides").mkdir(parents=True)
    (folder / "guides" / "deploy.md").write_text(
        "# Deploy\n\nWe deploy on Tuesdays with the blue-green script.\n\n"
        "## Rollback\n\nRun rollback.sh within ten minutes.\n",
        encoding="utf-8",
    )
    (folder / "guides" / "page.html").write_text(
        "<h1>Coffee</h1><p>The espresso machine is descaled every Monday.</p>",
        encoding="utf-8",
    )
    write_text_pdf(
        folder / "manual.pdf",
        [[f"Chapter {n}: the pump of model {n} runs at {n * 100} rpm."] for n in range(1, 8)],
    )
    (folder / "blob.txt").write_bytes(b"\x00\x01\x02binary")
    return folder


def test_docs_add_list_search_reindex_remove(tmp_path):
    data = tmp_path / "profile"
    folder = library(tmp_path / "library")
    big = tmp_path / "huge.txt"
    with big.open("wb") as handle:
        handle.truncate(51 * 1024 * 1024)

    code, added = docs_json(data, "add", str(folder), str(big))
    assert code == 1  # a file was refused and one could not be indexed
    by_name = {d["name"]: d for d in added["documents"]}
    assert {n: d["status"] for n, d in by_name.items()} == {
        "blob.txt": "error",
        "deploy.md": "ready",
        "page.html": "ready",
        "manual.pdf": "ready",
    }
    assert "binary" in by_name["blob.txt"]["error"]
    assert by_name["manual.pdf"]["page_count"] == 7 and by_name["manual.pdf"]["chunk_count"] == 7
    assert [r["path"] for r in added["refused"]] == [str(big)]
    assert "the limit is 50 MB" in added["refused"][0]["error"]

    code, listed = docs_json(data, "list")
    assert code == 0 and len(listed["documents"]) == 4

    code, found = docs_json(data, "search", "pump of model 5 rpm", "-k", "2")
    top = found["results"][0]
    assert (top["document"], top["page"], top["rank"]) == ("manual.pdf", 5, 1)
    assert "500 rpm" in top["content"] and top["chunk_id"] > 0 and top["score"] > 0

    human = acai(data, "docs", "search", "rollback within minutes")
    assert human.returncode == 0 and "deploy.md" in human.stdout and "Rollback" in human.stdout

    deploy = folder / "guides" / "deploy.md"
    deploy.write_text("# Deploy\n\nWe now deploy on Thursdays.\n", encoding="utf-8")
    code, reindexed = docs_json(data, "reindex")
    assert [d["name"] for d in reindexed["documents"] if d["status"] == "ready"] == ["deploy.md"]
    code, found = docs_json(data, "search", "Thursdays", "-k", "1")
    assert found["results"][0]["document"] == "deploy.md"

    code, removed = docs_json(data, "remove", str(by_name["manual.pdf"]["id"]))
    assert code == 0 and removed["name"] == "manual.pdf"
    code, found = docs_json(data, "search", "pump of model 5 rpm")
    assert all(hit["document"] != "manual.pdf" for hit in found["results"])

    missing = acai(data, "docs", "remove", "999")
    assert missing.returncode == 2 and "No document with id 999" in missing.stderr


def test_chat_json_lists_the_evidence_used(tmp_path, fake_openai):
    fake_openai.responder = fake_model
    data = tmp_path / "profile"
    pdf = write_text_pdf(
        tmp_path / "warranty.pdf",
        [
            ["Welcome to your new kettle."],
            ["Cleaning: descale the kettle with vinegar monthly."],
            ["Warranty: the kettle is covered for 24 months from purchase."],
        ],
    )
    code, _ = docs_json(data, "add", str(pdf))
    assert code == 0
    chat = acai(
        data,
        "chat",
        "--provider",
        "custom",
        "--base-url",
        fake_openai.base_url,
        "--model",
        "fake-model",
        "--json",
        "How many months is the kettle warranty?",
    )
    assert chat.returncode == 0, chat.stderr
    evidence = json.loads(chat.stdout)["evidence_used"]
    assert set(evidence[0]) >= {"document", "chunk_id", "page", "rank", "score", "snippet"}
    assert (evidence[0]["document"], evidence[0]["page"], evidence[0]["rank"]) == (
        "warranty.pdf",
        3,
        1,
    )
    assert "24 months" in evidence[0]["snippet"]

    human = acai(
        data,
        "chat",
        "--provider",
        "custom",
        "--base-url",
        fake_openai.base_url,
        "--model",
        "fake-model",
        "How do I descale the kettle?",
    )
    assert human.returncode == 0, human.stderr
    assert "Sources: warranty.pdf, p. 2" in human.stdout


def test_docs_scope_of_a_conversation(tmp_path):
    data = tmp_path / "profile"
    note = tmp_path / "note.md"
    note.write_text("# Note\n\nText.", encoding="utf-8")
    code, _ = docs_json(data, "add", str(note))
    assert code == 0
    missing = acai(data, "docs", "scope", "1")
    assert missing.returncode == 2 and "No conversation with id 1" in missing.stderr
    with sqlite3.connect(data / "acai.sqlite3") as db:
        db.execute(
            "INSERT INTO conversations (id, title, created_at, updated_at) "
            "VALUES (1, 't', 'x', 'x')"
        )
    assert docs_json(data, "scope", "1") == (0, {"mode": "all", "document_ids": []})
    assert docs_json(data, "scope", "1", "1") == (0, {"mode": "some", "document_ids": [1]})
    none = acai(data, "docs", "scope", "1", "none")
    assert none.returncode == 0 and "uses no documents" in none.stdout
    wrong = acai(data, "docs", "scope", "1", "7")
    assert wrong.returncode == 2 and "No document with id 7" in wrong.stderr


def _kill_mid_indexing(data: Path, path: Path, started: str) -> None:
    """Start `docs add path` and SIGKILL it once the query ``started`` counts a row."""

    child = subprocess.Popen(
        [sys.executable, "-m", "acai_desktop", "docs", "add", str(path), "--data-dir", str(data)],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
    )
    deadline = time.monotonic() + PROGRAM_TIMEOUT_S
    staged = 0
    while not staged:
        assert child.poll() is None, child.stderr.read().decode()
        assert time.monotonic() < deadline, "the indexing never started"
        if (data / "acai.sqlite3").exists():
            try:
                with sqlite3.connect(f"file:{data / 'acai.sqlite3'}?mode=ro", uri=True) as db:
                    staged = db.execute(started).fetchone()[0]
            except sqlite3.OperationalError:
                pass  # the tables are being created
        time.sleep(0.05)  # polling the database for a condition, not waiting out a race
    child.send_signal(signal.SIGKILL)
    child.wait(timeout=PROGRAM_TIMEOUT_S)
    child.stderr.close()


def test_a_docs_add_killed_twice_mid_indexing_is_not_run_a_third_time(tmp_path):
    data = tmp_path / "profile"
    big = tmp_path / "big.txt"
    paragraph = " ".join(f"valve{n % 997} pump{n % 89}" for n in range(2000))
    big.write_text("\n\n".join([paragraph] * 1500), encoding="utf-8")  # about 40 MB

    # Killed with part of its chunks stored (staged), then killed again once the
    # second add, which finds the job interrupted and runs it again, is running it.
    _kill_mid_indexing(data, big, "SELECT count(*) FROM chunks WHERE ordinal < 0")
    _kill_mid_indexing(
        data, big, "SELECT count(*) FROM jobs WHERE status = 'running' AND interruptions = 1"
    )
    with sqlite3.connect(data / "acai.sqlite3") as db:
        assert db.execute("SELECT count(*), max(status) FROM jobs").fetchone() == (1, "running")

    code, listed = docs_json(data, "list")
    (document,) = listed["documents"]
    assert code == 0 and document["status"] == "error"
    assert "stopped the app twice while indexing" in document["error"]
    human = acai(data, "docs", "list")
    assert "stopped the app twice while indexing" in human.stdout
    jobs = acai(data, "jobs", "list")
    assert "stopped the app twice while indexing" in jobs.stdout, jobs.stdout

    code, again = docs_json(data, "list")  # another start: still not run by itself
    assert again["documents"][0]["status"] == "error"

    # The user may retry it.
    big.write_text("# Short now\n\nThe valve is checked weekly.\n", encoding="utf-8")
    code, retried = docs_json(data, "reindex", str(document["id"]))
    assert code == 0 and retried["documents"][0]["status"] == "ready"
    code, found = docs_json(data, "search", "valve checked weekly", "-k", "1")
    assert found["results"][0]["document"] == "big.txt"
