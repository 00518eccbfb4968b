"""The documents benchmark's memory cases: files that once crash-looped the app.

Each case is a file written in a temporary folder and indexed by the real program,
``acai-desktop docs add FILE`` in a fresh profile, as a child process. Its peak
resident memory (the kernel's ``ru_maxrss`` of that child, from ``wait4``) is compared
with the peak of the same command indexing a one-line file: the *baseline*, the app
with its database open and its embedder loaded. The figure is the difference, the
memory the file itself costs; the goal is at most 300 MB for any file the readers
accept. Cases: a 4 MB line with no whitespace, 4 MB of minified JSON, and a file of
words on one line near the 50 MB limit (``large_mb``; 0 leaves it out).
"""

from __future__ import annotations

import json
import os
import random
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

GOAL_MB = 300.0
MB = 1024 * 1024

Report = Callable[[str], None]


def _one_line(path: Path, size: int) -> Path:
    path.write_bytes(b"A" * size)
    return path


def _minified_json(path: Path, size: int) -> Path:
    rng = random.Random(7)
    records, length = [], 2
    while length < size:
        record = {
            "id": len(records),
            "name": f"item-{rng.randrange(10**6)}",
            "tags": [f"t{rng.randrange(100)}" for _ in range(4)],
            "price": round(rng.uniform(1, 500), 2),
            "ok": rng.random() < 0.5,
        }
        length += len(json.dumps(record, separators=(",", ":"))) + 1
        records.append(record)
    path.write_text(json.dumps(records, separators=(",", ":")), encoding="utf-8")
    return path


def _words_on_one_line(path: Path, size: int) -> Path:
    rng = random.Random(11)
    vocabulary = [f"{a}{b}" for a in ("pump", "valve", "rotor", "seal") for b in range(250)]
    block = " ".join(rng.choice(vocabulary) for _ in range(200_000)).encode() + b" "
    with path.open("wb") as handle:
        written = 0
        while written < size:
            part = block[: size - written]
            handle.write(part)
            written += len(part)
    return path


def _program() -> list[str]:
    if getattr(sys, "frozen", False):
        return [sys.executable]
    return [sys.executable, "-m", "acai_desktop"]


def _index(path: Path, workdir: Path) -> dict:
    """``docs add path`` in a fresh profile: its peak RSS (MB), seconds and outcome."""
    profile = workdir / f"profile-{path.stem}"
    command = [*_program(), "docs", "add", str(path), "--json", "--data-dir", str(profile)]
    started = time.perf_counter()
    child = subprocess.Popen(
        command,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        env={**os.environ, "PYTHONIOENCODING": "utf-8"},
    )
    # wait4 gives this child's own resource use (getrusage of all children would mix
    # the cases); read the pipes first so a chatty child can't block on them.
    stdout, stderr = child.stdout.read(), child.stderr.read()
    _, status, usage = os.wait4(child.pid, 0)
    child.returncode = os.waitstatus_to_exitcode(status)
    seconds = time.perf_counter() - started
    # ru_maxrss: kilobytes on Linux, bytes on macOS.
    peak = usage.ru_maxrss / (MB if sys.platform == "darwin" else 1024)
    documents = json.loads(stdout).get("documents", []) if stdout.strip() else []
    document = documents[0] if documents else {}
    if child.returncode not in (0, 1) or not document:
        raise RuntimeError(
            f"docs add {path.name} exited {child.returncode}: {stderr.decode()[-2000:]}"
        )
    return {
        "peak_mb": round(peak, 1),
        "seconds": round(seconds, 1),
        "status": document.get("status"),
        "chunks": document.get("chunk_count", 0),
        "error": document.get("error"),
    }


def memory_benchmark(size_mb: float, large_mb: float, report: Report) -> dict:
    """Peak memory of indexing each pathological file, above the baseline."""
    if not hasattr(os, "wait4"):
        return {"available": False, "why": "this system reports no child's peak memory"}
    size = int(size_mb * MB)
    with tempfile.TemporaryDirectory(prefix="acai-docs-memory-") as tmp:
        workdir = Path(tmp)
        report("baseline: indexing a one-line file")
        tiny = workdir / "tiny.txt"
        tiny.write_text("The pump runs at 1200 rpm.\n", encoding="utf-8")
        baseline = _index(tiny, workdir)
        cases = [
            (f"one line, no whitespace ({size_mb:g} MB)", _one_line(workdir / "line.txt", size)),
            (f"minified JSON ({size_mb:g} MB)", _minified_json(workdir / "data.json", size)),
        ]
        if large_mb > 0:
            large = _words_on_one_line(workdir / "large.txt", int(large_mb * MB))
            cases.append((f"words on one line ({large_mb:g} MB)", large))
        results = []
        for name, path in cases:
            report(f"indexing {name}")
            figures = _index(path, workdir)
            figures["above_baseline_mb"] = round(figures["peak_mb"] - baseline["peak_mb"], 1)
            results.append({"case": name, "bytes": path.stat().st_size, **figures})
    worst = max(result["above_baseline_mb"] for result in results)
    return {
        "available": True,
        "baseline_peak_mb": baseline["peak_mb"],
        "cases": results,
        "worst_above_baseline_mb": worst,
        "goal_mb": GOAL_MB,
    }
