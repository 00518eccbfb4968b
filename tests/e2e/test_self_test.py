"""``acai-desktop --self-test``: the real program, as a user or the frozen build runs it."""

from __future__ import annotations

import hashlib
import json
import os
import sqlite3
from pathlib import Path

from acai_desktop.core.profile.paths import DATABASE_FILE
from tests.e2e.test_program import run_program

#: The checks live in acai_lab/, in the repository (the frozen bundle carries it, the
#: wheel does not): the installed program finds it as a source checkout's does.
REPOSITORY = Path(__file__).resolve().parents[2]

EXPECTED_CHECKS = {
    "profile",
    "window",
    "note reaches the memory panel",
    "one turn",
    "answer provenance",
    "learned fact reaches the memory panel",
    "memory health charts",
    "None refcount: chat painting",
    "None refcount: memory search typing",
    "None refcount: memory panel painting",
    "None refcount: Qt models data()",
    "shutdown",
    "Qt warnings",
}


def self_test(data_dir, *extra: str):
    # No QT_QPA_PLATFORM needed: the self-test is offscreen by itself.
    paths = [str(REPOSITORY), *filter(None, os.environ.get("PYTHONPATH", "").split(os.pathsep))]
    result = run_program(
        "--data-dir", str(data_dir), "--self-test", *extra,
        env={"PYTHONPATH": os.pathsep.join(paths)},
    )  # fmt: skip
    assert "Traceback" not in result.stderr, result.stderr
    return result


def digest(path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def test_self_test_passes_on_a_fresh_profile_and_leaves_no_trace(tmp_path):
    data_dir = tmp_path / "fresh"
    result = self_test(data_dir, "--json")
    report = json.loads(result.stdout)
    failed = [check for check in report["checks"] if not check["ok"]]
    assert result.returncode == 0, failed or result.stderr
    assert report["ok"] is True
    assert {check["name"] for check in report["checks"]} == EXPECTED_CHECKS
    assert not data_dir.exists()  # it worked on a temporary profile


def test_self_test_on_an_existing_profile_does_not_change_its_data(tmp_path):
    data_dir = tmp_path / "profile"
    for text in ("I like hiking in the Alps.", "My sister is called Mia."):
        added = run_program("--data-dir", str(data_dir), "memories", "add", text)
        assert added.returncode == 0, added.stderr
    database = data_dir / DATABASE_FILE
    before = digest(database)
    files_before = sorted(p.name for p in data_dir.iterdir())

    result = self_test(data_dir)

    assert result.returncode == 0, result.stdout
    assert "self-test passed" in result.stdout
    assert "2 memories" in result.stdout  # it read the profile's own data
    assert digest(database) == before
    assert sorted(p.name for p in data_dir.iterdir()) == files_before
    with sqlite3.connect(database) as db:
        contents = [row[0] for row in db.execute("SELECT content FROM memories")]
    assert contents == ["I like hiking in the Alps.", "My sister is called Mia."]


def test_self_test_fails_and_says_why_on_a_damaged_database(tmp_path):
    data_dir = tmp_path / "profile"
    data_dir.mkdir()
    (data_dir / DATABASE_FILE).write_bytes(b"this is not a database" * 100)

    result = self_test(data_dir)

    assert result.returncode == 1
    assert "FAIL  profile" in result.stdout
    assert "self-test FAILED" in result.stdout


def test_self_test_json_reports_a_failure(tmp_path):
    not_a_directory = tmp_path / "file"
    not_a_directory.write_text("x")

    result = self_test(not_a_directory, "--json")

    assert result.returncode == 1
    report = json.loads(result.stdout)
    assert report["ok"] is False
    assert report["checks"][0]["name"] == "profile"
    assert "not a directory" in report["checks"][0]["detail"]


def test_self_test_takes_no_command(tmp_path):
    result = run_program("--data-dir", str(tmp_path), "--self-test", "memories", "list")
    assert result.returncode == 2
    assert "--self-test runs by itself" in result.stderr
