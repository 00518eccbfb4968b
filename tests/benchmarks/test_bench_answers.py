"""``bench answers`` measures each of N consecutive turns, learning running behind them
(here against the scripted server, so the figures mean nothing: the shape is checked)."""

from __future__ import annotations

from acai_desktop.core.models.choice import ModelOverrides
from acai_desktop.core.records.jobs import JobStatus
from acai_lab.scripted_model import fake_model
from benchmarks.bench_answers import format_answers_report, measure_answers
from tests.support.aio import run


def test_each_turn_is_measured_and_learning_catches_up(tmp_path, fake_openai):
    fake_openai.responder = fake_model
    overrides = ModelOverrides("custom", fake_openai.base_url, "fake-chat")
    lines: list[str] = []
    report = run(
        measure_answers(tmp_path / "profile", overrides, messages=3, progress=lines.append)
    )
    rows = report["messages"]
    assert [row["message"] for row in rows] == [1, 2, 3]
    assert all(0 < row["first_token_s"] <= row["answer_s"] for row in rows)
    assert all(row["status"] == "complete" for row in rows)
    assert len(lines) == 4 and lines[0].startswith("warm-up")  # then a line per message
    assert report["warm_up_first_token_s"] > 0
    assert report["last_over_first"] == round(
        rows[-1]["first_token_s"] / rows[0]["first_token_s"], 2
    )
    firsts = sorted(row["first_token_s"] for row in rows)  # all three are the first three
    assert report["last_over_first_three_median"] == round(rows[-1]["first_token_s"] / firsts[1], 2)
    # Two per message, all learned, and the chat's title after the first; the warm-up
    # chat learned nothing (temporary).
    assert report["jobs"] == {str(JobStatus.DONE): 7}
    # The scripted model's facts are stored, none waits for a yes (a custom server
    # doesn't ask before remembering).
    assert report["memories_learned"] >= 1 and report["facts_suggested"] == 0
    text = format_answers_report(report)
    assert "last/first time to first token" in text and "goal <= 1.2" in text
    assert "last/median of the first three" in text
    assert "facts waiting for a yes: 0" in text
