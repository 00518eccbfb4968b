"""Run ``python -m benchmarks …`` as a process, as a developer does (the package is not
installed: the child finds it on the repository path it is given)."""

from __future__ import annotations

import os
import subprocess
import sys

from benchmarks import child_environment
from tests.support.timeouts import PROGRAM_TIMEOUT_S

BENCHMARKS = [sys.executable, "-m", "benchmarks"]


def benchmark_environment(**extra: str) -> dict[str, str]:
    """This process's environment (offscreen Qt, UTF-8 output) plus ``extra``, with the
    repository on the path."""
    env = {**os.environ, "QT_QPA_PLATFORM": "offscreen", "PYTHONIOENCODING": "utf-8"}
    return child_environment({**env, **extra})


def run_benchmarks(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        [*BENCHMARKS, *args],
        capture_output=True,
        text=True,
        encoding="utf-8",
        stdin=subprocess.DEVNULL,
        timeout=PROGRAM_TIMEOUT_S,
        env=benchmark_environment(),
    )
