"""The LoCoMo-format loader (the Memory health view's dataset evaluations read it), on a
small fixture."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from acai_desktop.core.errors import InvalidInputError
from acai_desktop.evaluation.locomo import (
    EvidenceReport,
    load_dataset,
    normalise_dia_ids,
    parse_dataset,
)

FIXTURE = Path(__file__).parent.parent / "fixtures" / "locomo_mini.json"


def test_fixture_loads_turns_observations_and_questions():
    dataset = load_dataset(FIXTURE)
    (sample,) = dataset.samples
    assert (sample.speaker_a, sample.speaker_b) == ("Rosa", "Idris")
    # 14 turns in the file; the one with empty text is no memory.
    assert len(sample.turns) == 13
    assert sample.turns[0].session_date == "7:10 pm on 3 March, 2023"
    assert "running shoes" in next(t.text for t in sample.turns if t.dia_id == "D1:6")
    assert len(sample.observations) == 6
    finish = next(o for o in sample.observations if "Leila" in o.text)
    assert finish.dia_ids == ("D2:1", "D2:3")
    # The malformed "D2:6; D1:3" source of an observation is split too.
    teapot = next(o for o in sample.observations if "knocked" in o.text)
    assert teapot.dia_ids == ("D2:6", "D1:3")
    assert len(sample.questions) == 9


def test_malformed_evidence_is_split_skipped_and_counted():
    dataset = load_dataset(FIXTURE)
    questions = {q.question: q for q in dataset.samples[0].questions}
    assert questions[
        "Who supported Idris at the end of his race, and what was his time?"
    ].evidence == ("D2:1", "D2:3")
    assert questions["What is the name of Rosa's cat?"].evidence == ("D2:4",)
    assert questions["When did Idris run the race?"].evidence == ("D2:1",)
    report = dataset.evidence
    assert (report.split, report.skipped, report.unknown) == (1, 1, 1)
    assert report.entries == 11
    assert "D2:1; D2:3" in report.examples


@pytest.mark.parametrize(
    ("raw", "ids", "split", "skipped"),
    [
        ("D3:4", ["D3:4"], 0, 0),
        (" D03:4 ", ["D3:4"], 0, 0),
        ("D8:6; D9:17", ["D8:6", "D9:17"], 1, 0),
        ("D8:6,D9:17 D1:1", ["D8:6", "D9:17", "D1:1"], 1, 0),
        ("(D5:2)", ["D5:2"], 0, 0),
        ("bogus", [], 0, 1),
        ("", [], 0, 1),
        (None, [], 0, 1),
        (17, [], 0, 1),
    ],
)
def test_normalise_dia_ids(raw, ids, split, skipped):
    report = EvidenceReport()
    assert normalise_dia_ids(raw, report) == ids
    assert (report.split, report.skipped) == (split, skipped)


@pytest.mark.parametrize(
    ("data", "message"),
    [
        ({"not": "a list"}, "top level"),
        ([42], "sample 1"),
        ([{"qa": []}], "sample 1: missing 'conversation'"),
        ([{"conversation": {"speaker_a": "A", "speaker_b": "B"}}], "no sessions with turns"),
        (
            [{"conversation": {"session_1": [{"dia_id": 5, "text": "hi"}]}}],
            "session_1[0].dia_id",
        ),
        (
            [
                {
                    "conversation": {"session_1": [{"dia_id": "D1:1", "text": "hi"}]},
                    "qa": [{"question": None}],
                }
            ],
            "qa[0].question",
        ),
    ],
)
def test_a_file_in_another_format_is_refused_with_the_place_at_fault(data, message):
    with pytest.raises(InvalidInputError, match=message.replace("[", r"\[").replace("]", r"\]")):
        parse_dataset(data)


def test_invalid_json_names_line_and_column(tmp_path):
    path = tmp_path / "broken.json"
    path.write_text('[\n  {"conversation": \n', encoding="utf-8")
    with pytest.raises(InvalidInputError, match="line 3"):
        load_dataset(path)


def test_a_gzipped_dataset_loads_with_its_question_dates(tmp_path):
    import gzip

    raw = json.loads(FIXTURE.read_text())
    raw[0]["qa"][0]["question_date"] = "2023/03/27 (Mon) 23:35"
    path = tmp_path / "dev.json.gz"
    with gzip.open(path, "wt", encoding="utf-8") as stream:
        json.dump(raw, stream)
    (sample,) = load_dataset(path).samples
    assert sample.questions[0].asked_at == "2023-03-27T23:35:00.000000+00:00"
    assert sample.questions[1].asked_at == ""
    broken = tmp_path / "broken.json.gz"
    broken.write_bytes(b"not gzip at all")
    with pytest.raises(InvalidInputError, match="Cannot read the dataset"):
        load_dataset(broken)
