"""The documents benchmark's memory cases: files that once crash-looped the app.

Each case is a file written in a temporary folder and indexed by the real program,
``acai-desktop docs add FILE`` in a fresh profile, as a child process. Its peak
resident memory (the kernel's ``ru_maxrss`` of that child, from ``wait4``) is compared
with the peak of the same command indexing a one-line file: the *baseline*, the app
with its database open and its embedder loaded. The figure is the difference, the
memory the file itself costs; the goal is at most 300 MB for any file the readers
accept. Cases: a 4 MB line with no whitespace, 4 MB of minified JSON, and files near
the 50 MB limit (``large_mb``; 0 leaves them out) of the ``large_kinds`` asked for: words
on one line (text), short lines under headings (Markdown), short paragraphs and a long
one (HTML).
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
    """Records written one at a time (this process's own peak must stay small: see
    :func:`_index`)."""
    rng = random.Random(7)
    with path.open("w", encoding="utf-8") as handle:
        handle.write("[")
        written, number = 1, 0
        while written < size:
            record = {
                "id": number,
                "name": f"item-{rng.randrange(10**6)}",
                "tags": [f"t{rng.randrange(100)}" for _ in range(4)],
                "price": round(rng.uniform(1, 500), 2),
                "ok": rng.random() < 0.5,
            }
            text = ("," if number else "") + json.dumps(record, separators=(",", ":"))
            handle.write(text)
            written += len(text)
            number += 1
        handle.write("]")
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


def _markdown_lines(path: Path, size: int) -> Path:
    """Short lines under a heading every 200 lines: a list of them was the cost."""
    rng = random.Random(13)
    vocabulary = [f"valve{n}" for n in range(500)]
    with path.open("w", encoding="utf-8") as handle:
        written = line_number = 0
        while written < size:
            if line_number % 200 == 0:
                line = f"## Section {line_number // 200}\n\n"
            else:
                line = " ".join(rng.choice(vocabulary) for _ in range(10)) + "\n"
            handle.write(line)
            written += len(line)
            line_number += 1
    return path


def _html_paragraphs(path: Path, size: int) -> Path:
    """Many short paragraphs and one long one: lists of them, or of its words, were the cost."""
    rng = random.Random(17)
    vocabulary = [f"rotor{n}" for n in range(500)]
    with path.open("w", encoding="utf-8") as handle:
        handle.write("<html><head><title>Big page</title></head><body><h1>Parts</h1><p>")
        for _ in range(size // 40 // 1000):
            handle.write(" ".join(rng.choice(vocabulary) for _ in range(1000)) + " ")
        handle.write("</p>\n")
        written = size // 4
        while written < size:
            line = "<p>" + " ".join(rng.choice(vocabulary) for _ in range(4)) + "</p>\n"
            handle.write(line)
            written += len(line)
        handle.write("</body></html>\n")
    return path


#: The large file of each kind ``large_kinds`` may name.
LARGE_FILES = {
    "text": ("words on one line", "large.txt", _words_on_one_line),
    "markdown": ("Markdown, short lines", "large.md", _markdown_lines),
    "html": ("HTML, short paragraphs", "large.html", _html_paragraphs),
}


def _program() -> list[str]:
    if getattr(sys, "frozen", False):
        return [sys.executable]
    return [sys.executable, "-m", "acai_desktop"]


def _index(path: Path, workdir: Path) -> dict:
    """``docs add path`` in a fresh profile: its peak RSS (MB), seconds and outcome.

    Linux counts into a child's peak the peak of the process it was started from (the
    address space it had until ``exec``), so this process's own peak is recorded too:
    a child's figure is only its own when it is above that (``valid``)."""
    import resource

    own_peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / (
        MB if sys.platform == "darwin" else 1024
    )
    profile = workdir / f"profile-{path.name}"  # one per file: large.txt and large.md differ
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
        "bench_peak_mb": round(own_peak, 1),
        "valid": peak > own_peak,
        "seconds": round(seconds, 1),
        "status": document.get("status"),
        "chunks": document.get("chunk_count", 0),
        "error": document.get("error"),
    }


def memory_benchmark(
    size_mb: float, large_mb: float, report: Report, large_kinds: tuple[str, ...] = ("text",)
) -> dict:
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
        for kind in large_kinds if large_mb > 0 else ():
            label, name, write = LARGE_FILES[kind]
            cases.append((f"{label} ({large_mb:g} MB)", write(workdir / name, int(large_mb * MB))))
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
        "all_own": baseline["valid"] and all(result["valid"] for result in results),
        "goal_mb": GOAL_MB,
    }
