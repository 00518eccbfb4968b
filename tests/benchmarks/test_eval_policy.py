"""``eval policy``: the labelled statements, and the real processor path they go through
(the scripted model returns each statement's labelled fact)."""

from __future__ import annotations

import asyncio
import json
from collections import Counter

import pytest

from acai_desktop.core.errors import InvalidInputError
from benchmarks.eval_policy import (
    evaluate_policy,
    format_policy,
    load_statements,
)


def test_the_labelled_set_is_large_varied_and_split():
    statements = load_statements()
    assert len(statements) >= 300
    assert len({s.id for s in statements}) == len(statements)
    assert len({s.text for s in statements}) == len(statements)
    labels = Counter(s.expected for s in statements)
    assert labels["long_term"] >= 150 and labels["temporary"] >= 60 and labels["nothing"] >= 40
    splits = Counter(s.split for s in statements)
    assert splits["held_out"] >= len(statements) // 3 - 1
    for split in ("tune", "held_out"):
        assert {s.expected for s in statements if s.split == split} == set(labels)


def _subset() -> list:
    wanted = {"s001", "s002", "s003", "s004", "s005", "s006", "s010", "s023", "s050"}
    return [s for s in load_statements() if s.id in wanted]


def test_statements_go_through_the_processor_and_land_where_labelled(tmp_path):
    statements = _subset()
    report = asyncio.run(evaluate_policy(statements)).as_dict()
    figures = report["all"]
    assert figures["statements"] == len(statements)
    # vegetarian, Alice, peanuts: long-term; tired, gym today, rain, a hot day: not.
    assert figures["long_term_kept_long_term"] == 1.0
    assert figures["transient_kept_long_term"] == 0.0
    confusion = figures["confusion"]
    assert confusion["temporary"]["temporary"] >= 2  # the grounding check may refuse one
    # "Okay cool, sounds good." never reaches the model (the local gate).
    assert confusion["nothing"]["not kept"] >= 1
    text = format_policy(report)
    assert "long-term kept long-term" in text and "confusion (held_out)" in text


def test_a_broken_statements_file_is_refused_with_its_line(tmp_path):
    path = tmp_path / "bad.jsonl"
    good = {
        "id": "x",
        "text": "hi",
        "expected": "nothing",
        "extracted": {"fact": "The user says hi."},
    }
    path.write_text(json.dumps(good) + "\n{not json\n", encoding="utf-8")
    with pytest.raises(InvalidInputError, match="line 2"):
        load_statements(path)
    path.write_text(json.dumps({**good, "expected": "forever"}) + "\n", encoding="utf-8")
    with pytest.raises(InvalidInputError, match="expected must be one of"):
        load_statements(path)
    with pytest.raises(InvalidInputError, match="Can't read"):
        load_statements(tmp_path / "missing.jsonl")
