"""``eval router``: task analysis scored against labelled turns, files and all."""

import json

import pytest

from acai_desktop.core.documents.model import DocumentReadError
from acai_desktop.core.errors import InvalidInputError
from benchmarks.cli import main
from benchmarks.eval_router import attached_file, evaluate


def _write(path, items):
    path.write_text("\n".join(json.dumps(item) for item in items) + "\n")


def test_accuracy_per_kind_and_confusion_from_labelled_turns(tmp_path):
    (tmp_path / "files").mkdir()
    (tmp_path / "files" / "cat.png").write_bytes(b"\x89PNG\r\n\x1a\n")
    (tmp_path / "files" / "log.txt").write_text("GET /index 200 12ms\n" * 2000)
    _write(
        tmp_path / "set.jsonl",
        [
            {"text": "What breed is this?", "kind": "vision", "attachments": ["files/cat.png"]},
            {"text": "Any errors here?", "kind": "long", "attachments": ["files/log.txt"]},
            {"text": "Write a SQL query for the top customers.", "kind": "code"},
            {"text": "Solve 3x + 7 = 22.", "kind": "reasoning"},
            {"text": "Hello!", "kind": "writing"},  # mislabelled on purpose: a miss to count
        ],
    )
    report = evaluate(tmp_path / "set.jsonl")
    assert report["accuracy"] == 0.8
    assert report["per_kind"]["vision"] == {"accuracy": 1.0, "count": 1}
    assert report["per_kind"]["writing"] == {"accuracy": 0.0, "count": 1}
    assert report["confusion"]["writing"] == {"chat": 1}
    assert report["confusion"]["long"] == {"long": 1}


def test_the_command_prints_json_and_refuses_a_bad_label(tmp_path, capsys):
    _write(tmp_path / "ok.jsonl", [{"text": "Write a poem about rain.", "kind": "writing"}])
    assert main(["eval", "router", "--prompts", str(tmp_path / "ok.jsonl"), "--json"]) == 0
    printed = json.loads(capsys.readouterr().out)
    assert printed["accuracy"] == 1.0 and printed["per_kind"]["writing"]["count"] == 1
    _write(tmp_path / "bad.jsonl", [{"text": "hi", "kind": "smalltalk"}])
    with pytest.raises(InvalidInputError, match="kind"):
        evaluate(tmp_path / "bad.jsonl")


def test_files_are_read_as_the_app_reads_documents(tmp_path):
    (tmp_path / "notes.md").write_text("# Trip\n\n" + "We walked along the river. " * 50)
    (tmp_path / "photo.JPG").write_bytes(b"\xff\xd8\xff")
    (tmp_path / "data.bin").write_bytes(b"\x00\x01")
    notes = attached_file(tmp_path / "notes.md")
    assert not notes.is_image and 250 < notes.tokens < 400
    assert attached_file(tmp_path / "photo.JPG").is_image
    with pytest.raises(DocumentReadError):
        attached_file(tmp_path / "data.bin")
