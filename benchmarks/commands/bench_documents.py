"""``python -m benchmarks bench documents [--pages N] [--chunks N] [--queries N]
[--memory-mb N] [--large-mb N] [--large-kinds text,markdown,html] [--memory-only] [--json]``.

See :mod:`benchmarks.bench_documents` and
:mod:`benchmarks.documents_memory`. Everything is built in temporary
directories; ``--data-dir`` is never touched. Goals: a 300-page text PDF indexed in
at most 60 s on two cores; search p95 at most 15 ms with 100,000 chunks; indexing any
file the readers accept at most 300 MB of memory above the app's baseline. Recall of
the evidence chunk has no target yet.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import sys

from acai_desktop.core.errors import InvalidInputError

GOAL_PDF_SECONDS = 60.0
GOAL_P95_MS = 15.0
LATENCY_K = 5


def add_parser(actions: argparse._SubParsersAction, common: argparse.ArgumentParser) -> None:
    documents = actions.add_parser(
        "documents",
        parents=[common],
        help="document indexing throughput (PDF and text), search latency, evidence recall",
        description="Indexes a synthetic N-page manual as a text PDF and as plain text "
        "(pages/s), measures recall@k of the evidence chunk for questions about its facts, "
        "and times searches over a profile of --chunks chunks (p50/p95). Goals: 300 PDF "
        f"pages in <= {GOAL_PDF_SECONDS:.0f} s; p95 <= {GOAL_P95_MS:.0f} ms at 100,000 chunks.",
    )
    documents.add_argument("--pages", type=int, default=300, help="pages of the manual")
    documents.add_argument(
        "--chunks", type=int, default=100_000, help="chunks in the latency profile (0: skip)"
    )
    documents.add_argument("--queries", type=int, default=200, help="timed searches")
    documents.add_argument(
        "--memory-mb",
        type=float,
        default=4.0,
        help="size of the one-line and minified JSON files of the memory cases (0: skip them)",
    )
    documents.add_argument(
        "--large-mb",
        type=float,
        default=48.0,
        help="size of the memory case near the 50 MB limit (0: skip it)",
    )
    documents.add_argument(
        "--large-kinds",
        default="text",
        help="kinds of large file, comma-separated: text, markdown, html (default: text)",
    )
    documents.add_argument("--memory-only", action="store_true", help="run the memory cases only")
    documents.add_argument("--json", action="store_true", help="print one JSON object")
    documents.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    from benchmarks.bench_documents import documents_benchmark
    from benchmarks.documents_memory import memory_benchmark

    if args.pages < 1 or args.chunks < 0 or args.queries < 1:
        raise InvalidInputError("--pages and --queries must be at least 1, --chunks at least 0.")
    from benchmarks.documents_memory import LARGE_FILES

    if not 0 <= args.memory_mb <= 50 or not 0 <= args.large_mb <= 50:
        raise InvalidInputError("--memory-mb and --large-mb must be between 0 and 50.")
    large_kinds = tuple(kind.strip() for kind in args.large_kinds.split(",") if kind.strip())
    unknown = [kind for kind in large_kinds if kind not in LARGE_FILES]
    if unknown:
        raise InvalidInputError(
            f"--large-kinds: {', '.join(unknown)} unknown; use {', '.join(LARGE_FILES)}."
        )

    def report(line: str) -> None:
        print(line, file=sys.stderr, flush=True)

    result = {"indexing": None, "latency": None, "memory": None}
    if not args.memory_only:
        result = asyncio.run(documents_benchmark(args.pages, args.chunks, args.queries, report))
    if args.memory_mb > 0:
        result["memory"] = memory_benchmark(args.memory_mb, args.large_mb, report, large_kinds)
    if args.json:
        print(json.dumps(result, indent=2))
    else:
        print(format_report(result))
    return 0


def format_report(result: dict) -> str:
    lines = []
    indexing = result["indexing"]
    if indexing:
        lines += _indexing_lines(result)
    if result.get("memory"):
        lines += memory_lines(result["memory"])
    if hasattr(os, "getloadavg"):
        lines.append("Load average at the end: " + ", ".join(f"{x:.1f}" for x in os.getloadavg()))
    return "\n".join(lines)


def memory_lines(memory: dict) -> list[str]:
    if not memory["available"]:
        return [f"Memory cases: not measured ({memory['why']})."]
    lines = [
        "Peak memory of `docs add FILE` above the baseline (the same command indexing a "
        f"one-line file: {memory['baseline_peak_mb']} MB):"
    ]
    for case in memory["cases"]:
        outcome = f"{case['status']}, {case['chunks']} chunks"
        if case["error"]:
            outcome = f"{case['status']}: {case['error']}"
        if not case["valid"]:
            outcome += f"; NOT its own: the bench's peak was {case['bench_peak_mb']} MB"
        lines.append(
            f"  {case['case']:<34} {case['above_baseline_mb']:>7.1f} MB above "
            f"(peak {case['peak_mb']} MB, {case['seconds']} s; {outcome})"
        )
    goal = "met" if memory["worst_above_baseline_mb"] <= memory["goal_mb"] else "NOT met"
    if not memory["all_own"]:
        goal = "not measured (a figure includes the bench's own peak)"
    lines.append(f"  goal: <= {memory['goal_mb']:.0f} MB above the baseline — {goal}")
    return lines


def _indexing_lines(result: dict) -> list[str]:
    indexing = result["indexing"]
    lines = [f"Indexing a {indexing['pages']}-page manual (about 3,000 characters a page):"]
    for kind in ("pdf", "text"):
        f = indexing[kind]
        lines.append(
            f"  {kind:<4} {f['seconds']:>7.2f} s  {f['pages_per_s']:>7.1f} pages/s  "
            f"{f['chunks']} chunks  (read {f['read_s']} s, embed {f['embed_s']} s, "
            f"store {f['store_s']} s)"
        )
    goal = "met" if indexing["pdf"]["seconds"] <= GOAL_PDF_SECONDS else "NOT met"
    lines.append(f"  goal: {indexing['pages']} PDF pages <= {GOAL_PDF_SECONDS:.0f} s — {goal}")
    recall = indexing["pdf"]["recall"]
    lines.append(
        f"Evidence recall on {recall['questions']} questions about the PDF's facts: "
        + ", ".join(f"{key} {value}" for key, value in recall.items() if key != "questions")
    )
    latency = result["latency"]
    if latency:
        goal = "met" if latency["p95_ms"] <= GOAL_P95_MS else "NOT met"
        lines.append(
            f"Search over {latency['chunks']:,} chunks ({latency['queries']} queries, k=5): "
            f"p50 {latency['p50_ms']} ms, p95 {latency['p95_ms']} ms, max {latency['max_ms']} ms, "
            f"floor p95 {latency['floor_p95_ms']} ms "
            f"(goal p95 <= {GOAL_P95_MS:.0f} ms — {goal}; profile built in {latency['build_s']} s)"
        )
        lines.append(
            "  against the exact search on the same questions: "
            f"{latency['semantic_overlap_mean']:.2%} of the semantic candidates among the exact "
            f"ones (worst question {latency['semantic_overlap_min']:.0%}); the same "
            f"{LATENCY_K} passages in the same order on {latency['same_passages']:.1%} of the "
            f"questions; resident memory {latency['rss_mb']} MB"
        )
    return lines
