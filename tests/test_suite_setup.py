"""The suite's own settings agree with each other."""

import re
import subprocess
import sys
import tomllib
from pathlib import Path

from tests.support.timeouts import PROGRAM_TIMEOUT_S

PYPROJECT = Path(__file__).resolve().parents[1] / "pyproject.toml"


def test_a_subprocess_wait_ends_before_pytest_stops_the_test():
    options = tomllib.loads(PYPROJECT.read_text())["tool"]["pytest"]["ini_options"]
    assert options["timeout"] > PROGRAM_TIMEOUT_S


def test_each_folder_marks_its_tests():
    """The fast loop's -m expression relies on these markers: it must leave out every
    test of tests/ui and tests/e2e, at any depth (tests/benchmarks/e2e). Collected in a
    process of its own, so the answer doesn't depend on what this run selected, and there
    is always something to check."""
    result = subprocess.run(
        [
            *(sys.executable, "-m", "pytest", "--collect-only", "-q", "-p", "no:cacheprovider"),
            *("-m", "not gui and not e2e and not local_model", "tests/ui", "tests/e2e"),
            "tests/benchmarks/e2e",
        ],
        cwd=PYPROJECT.parent,
        capture_output=True,
        text=True,
        timeout=PROGRAM_TIMEOUT_S,
    )
    summary = result.stdout.strip().splitlines()[-1]
    assert result.returncode == 5, result.stdout + result.stderr  # 5: nothing selected
    deselected = re.search(r"\((\d+) deselected\)", summary)
    assert deselected and int(deselected.group(1)) > 0, summary
