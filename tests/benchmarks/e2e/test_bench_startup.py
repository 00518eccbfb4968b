"""``bench startup`` end to end at a tiny size: every figure present and sane, never timed."""

from __future__ import annotations

import json
import subprocess
import sys

from tests.support.benchmarks import benchmark_environment
from tests.support.timeouts import PROGRAM_TIMEOUT_S


def test_bench_startup_reports_app_and_bare_medians():
    env = benchmark_environment()
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "acai_desktop",
            "bench",
            "startup",
            "--memories",
            "25",
            "--runs",
            "1",
            "--settle",
            "0.3",
            "--json",
        ],
        capture_output=True,
        text=True,
        timeout=PROGRAM_TIMEOUT_S,
        env=env,
    )
    assert done.returncode == 0, done.stderr
    report = json.loads(done.stdout)
    assert report["memories"] == 25 and report["runs"] == 1
    for key in ("app_s", "bare_s", "app_painted_s", "app_max_stall_ms", "bare_max_stall_ms"):
        assert report[key] >= 0, key
    # Ready means painted first; the ratio is the two medians'.
    assert 0 < report["app_painted_s"] <= report["app_s"]
    assert report["app_services_s"] > 0
    assert report["bare_s"] > 0
    assert report["ratio"] == round(report["app_s"] / report["bare_s"], 2)
