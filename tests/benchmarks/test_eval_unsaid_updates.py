"""``eval updates --unsaid``: facts that change without a word, with and without the
Review, on a test clock over a real store."""

import json

import pytest

from acai_desktop.core.errors import InvalidInputError
from benchmarks.cli import main
from benchmarks.eval_updates import read_timelines


def _write(path, items):
    path.write_text("\n".join(json.dumps(item) for item in items) + "\n")


def test_the_review_lowers_the_stale_memory_rate(tmp_path, capsys):
    _write(
        tmp_path / "facts.jsonl",
        [
            # Changes half a year after it was learned, never said: stale until asked.
            {"fact": "The user works as a nurse", "category": "Professional",
             "learned": "2024-01-01", "changed": "2024-07-01"},
            {"fact": "The user's name is Marta", "category": "Personal",
             "learned": "2024-01-01", "changed": None},
            {"fact": "The user lives in Lisbon", "category": "Location",
             "learned": "2024-01-01", "changed": None},
        ],
    )  # fmt: skip
    assert main(["eval", "updates", "--unsaid", str(tmp_path / "facts.jsonl"), "--json"]) == 0
    report = json.loads(capsys.readouterr().out)
    without, with_review = report["without_review"], report["with_review"]
    assert (report["facts"], report["changed"]) == (3, 1)
    # Without answers the job stays a current memory from July on; asked about in
    # January 2025 (a year after it was learned), it is retired.
    assert without["retired"] == 0 and without["asked_per_week"] == 0
    assert with_review["retired"] == 1
    assert with_review["stale_rate"] < without["stale_rate"]
    # Until its year is up the stale job is quoted unmarked; after, "as of".
    assert 0 < without["stale_unmarked"] < 1


def test_a_broken_line_is_refused_with_its_number(tmp_path):
    (tmp_path / "bad.jsonl").write_text('{"fact": "x", "category": "Other"}\n')
    with pytest.raises(InvalidInputError, match="line 1"):
        read_timelines(tmp_path / "bad.jsonl")
