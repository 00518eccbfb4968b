"""``eval policy`` and ``eval panel-search`` as the real program: figures as JSON, and a
broken labelled file refused in one line."""

from __future__ import annotations

import json
import subprocess
import sys

from benchmarks.eval_policy import default_statements_path
from tests.support.benchmarks import benchmark_environment
from tests.support.timeouts import PROGRAM_TIMEOUT_S

ENV = benchmark_environment()


def acai(tmp_path, *args: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "benchmarks", "eval", *args, "--data-dir", str(tmp_path / "d")],
        capture_output=True, text=True, encoding="utf-8", timeout=PROGRAM_TIMEOUT_S, env=ENV,
    )  # fmt: skip


def test_eval_policy_prints_both_shares_per_split(tmp_path):
    lines = default_statements_path().read_text(encoding="utf-8").splitlines()[:6]
    small = tmp_path / "statements.jsonl"
    small.write_text("\n".join(lines) + "\n", encoding="utf-8")
    done = acai(tmp_path, "policy", "--statements", str(small), "--json")
    assert done.returncode == 0, done.stderr
    report = json.loads(done.stdout)
    assert report["all"]["statements"] == 6
    assert report["all"]["long_term_kept_long_term"] == 1.0
    assert report["all"]["transient_kept_long_term"] == 0.0
    assert set(report) >= {"tune", "held_out", "goals", "misses"}


def test_eval_panel_search_prints_recall_and_refuses_a_broken_file(tmp_path):
    queries = tmp_path / "queries.json"
    profile = {
        "name": "mini",
        "memories": [
            {"key": "veg", "category": "Health", "content": "The user is vegetarian"},
            {"key": "job", "category": "Professional", "content": "The user is a nurse"},
        ],
        "queries": [{"query": "food", "expected": ["veg"]}],
    }
    queries.write_text(json.dumps({"profiles": [profile]}), encoding="utf-8")
    done = acai(tmp_path, "panel-search", "--queries", str(queries), "--json")
    assert done.returncode == 0, done.stderr
    report = json.loads(done.stdout)
    assert report["all"]["recall@20"] == 1.0 and report["mini"]["queries"] == 1

    queries.write_text("{broken", encoding="utf-8")
    done = acai(tmp_path, "panel-search", "--queries", str(queries))
    assert done.returncode != 0
    assert "not a labelled query set" in done.stderr and "Traceback" not in done.stderr
    assert len(done.stderr.strip().splitlines()) == 1
