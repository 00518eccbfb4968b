"""``bench startup`` end to end at a tiny size: every figure present and sane, never timed."""

from __future__ import annotations

import json
import subprocess
import sys

from tests.support.benchmarks import BENCHMARKS, benchmark_environment
from tests.support.timeouts import PROGRAM_TIMEOUT_S


def bench_startup(*args: str) -> dict:
    done = subprocess.run(
        [*BENCHMARKS, "bench", "startup", *args, "--json"],
        capture_output=True,
        text=True,
        timeout=PROGRAM_TIMEOUT_S,
        env=benchmark_environment(),
    )
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)


def test_bench_startup_reports_app_and_bare_medians():
    report = bench_startup(
        *("--memories", "25", "--runs", "1", "--settle", "0.3", "--outer-runs", "1")
    )
    assert report["memories"] == 25 and report["runs"] == 1
    for key in ("app_s", "bare_s", "app_painted_s", "app_max_stall_ms", "bare_max_stall_ms"):
        assert report[key] >= 0, key
    # Ready means painted first; the ratio is the two medians'.
    assert 0 < report["app_painted_s"] <= report["app_s"]
    assert report["app_services_s"] > 0
    assert report["bare_s"] > 0
    assert report["ratio"] == round(report["app_s"] / report["bare_s"], 2)
    # The outer figures: whole processes, open and quit (issue 22, item 7).
    assert report["outer_runs"] == 1
    assert report["outer_app_s"] > 0 and report["outer_bare_s"] > 0
    assert report["outer_ratio"] == round(report["outer_app_s"] / report["outer_bare_s"], 2)


def test_a_given_program_is_timed_from_outside_only(tmp_path):
    """``--app`` (the frozen bundle in packaging/build.sh) is timed as a whole process,
    against ``--bare``; no probe runs inside it."""
    app = tmp_path / "app.py"
    # Records what it was asked to do, so the test sees the command line it was given.
    app.write_text(
        "import pathlib, sys\n"
        f"pathlib.Path({str(tmp_path / 'asked.txt')!r}).open('a').write("
        "' '.join(sys.argv[1:]) + '\\n')\n"
    )
    report = bench_startup(
        *("--outer-runs", "3", "--app", f"{sys.executable} {app}"),
        *("--bare", f"{sys.executable} -c pass"),
    )
    assert "ratio" not in report and "app_s" not in report  # no probe
    assert report["outer_runs"] == 3 and len(report["outer_app_s_all"]) == 3
    asked = (tmp_path / "asked.txt").read_text().splitlines()
    assert len(asked) == 4  # one untimed start first (it fills the bytecode cache)
    data_dirs = set()
    for line in asked:
        assert line.startswith("gui --quit-after-ms 1 --data-dir ")
        data_dirs.add(line.split()[-1])
    assert len(data_dirs) == 4  # a fresh data directory every run


def test_the_outer_runs_can_open_a_copy_of_an_existing_profile(tmp_path):
    """``--outer-profile existing``: each outer start opens a fresh copy of the profile
    built with ``--memories`` (its schema made, its data there), not an empty one."""
    app = tmp_path / "app.py"
    # Records what each start found in its data directory.
    app.write_text(
        "import pathlib, sys\n"
        "data_dir = pathlib.Path(sys.argv[-1])\n"
        "found = sorted(p.name for p in data_dir.iterdir())\n"
        f"pathlib.Path({str(tmp_path / 'found.txt')!r}).open('a').write(' '.join(found) + '\\n')\n"
        "(data_dir / 'written-by-this-run').touch()\n"
    )
    report = bench_startup(
        *("--memories", "3", "--outer-runs", "2", "--outer-profile", "existing"),
        *("--app", f"{sys.executable} {app}", "--bare", f"{sys.executable} -c pass"),
    )
    assert report["outer_profile"] == "existing" and report["memories"] == 3
    found = (tmp_path / "found.txt").read_text().splitlines()
    assert len(found) == 3  # the untimed first start, then two
    for names in found:
        assert "acai.sqlite3" in names.split()  # the built profile's database
        assert "written-by-this-run" not in names  # a fresh copy each time
