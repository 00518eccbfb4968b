"""``bench router``: labelled turns routed to scripted servers, each policy against always
the best model."""

import json

from benchmarks.bench_router import format_report, run_router_benchmark


def test_every_policy_answers_every_turn_with_a_model_that_can_do_it(tmp_path):
    (tmp_path / "files").mkdir()
    (tmp_path / "files" / "dog.png").write_bytes(b"\x89PNG\r\n\x1a\n")
    (tmp_path / "files" / "big.txt").write_text("the river ran past the old mill " * 6000)
    turns = [
        {"text": "Write a Python function to reverse a list.", "kind": "code"},
        {"text": "Solve for x: 3x + 7 = 22", "kind": "reasoning"},
        {"text": "What breed is this?", "kind": "vision", "attachments": ["files/dog.png"]},
        {"text": "Summarise this.", "kind": "long", "attachments": ["files/big.txt"]},
        {"text": "hello!", "kind": "chat"},
    ]
    prompts = tmp_path / "turns.jsonl"
    prompts.write_text("\n".join(json.dumps(t) for t in turns) + "\n")
    report = run_router_benchmark(prompts, per_kind=1)
    policies = [name for name, row in report.items() if isinstance(row, dict)]
    assert policies == [
        "always the best", "best quality", "balanced", "cheapest", "fastest",
        "on this computer only",
    ]  # fmt: skip
    for name in policies:
        row = report[name]
        assert row["misrouted"] == 0, name
        if name != "on this computer only":  # no model here reads 48k tokens
            assert row["answered"] == 5 and row["unanswered"] == 0, name
    assert report["on this computer only"]["unanswered"] == 1
    # The cloud's strong model costs; a free model on this computer answers what it can.
    assert report["always the best"]["cost_usd"] > report["cheapest"]["cost_usd"]
    assert "always the best" in format_report(report)
