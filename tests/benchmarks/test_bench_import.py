"""``bench import`` at a tiny size: every figure present and sane, never timed."""

from __future__ import annotations

import json

from benchmarks.cli import main


def test_bench_import_reports_every_figure(capsys):
    assert main(["bench", "import", "--conversations", "3", "--messages-per", "4", "--json"]) == 0
    figures = json.loads(capsys.readouterr().out)
    assert figures["conversations"] == 3
    assert figures["messages"] == figures["expected_messages"] == 12
    assert figures["learning_jobs"] > 0
    assert figures["import_s"] > 0 and figures["db_mb"] > 0
    assert 0 <= figures["retrieval_p50_ms"] <= figures["retrieval_p95_ms"]
    assert len(figures["load_before"]) == len(figures["load_after"]) == 3


def test_bench_import_refuses_sizes_it_cannot_build(capsys):
    assert main(["bench", "import", "--messages-per", "1"]) == 2
    assert "--messages-per" in capsys.readouterr().err
