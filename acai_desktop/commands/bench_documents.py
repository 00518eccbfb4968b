"""``acai-desktop bench documents [--pages N] [--chunks N] [--queries N] [--json]``.

See :mod:`acai_desktop.evaluation.documents_bench`. Everything is built in temporary
directories; ``--data-dir`` is never touched. Goals: a 300-page text PDF indexed in
at most 60 s on two cores; search p95 at most 15 ms with 100,000 chunks. Recall of the
evidence chunk has no target yet.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import sys

from acai_desktop.core.errors import InvalidInputError

GOAL_PDF_SECONDS = 60.0
GOAL_P95_MS = 15.0


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
    documents.add_argument("--json", action="store_true", help="print one JSON object")
    documents.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    from acai_desktop.evaluation.documents_bench import documents_benchmark

    if args.pages < 1 or args.chunks < 0 or args.queries < 1:
        raise InvalidInputError("--pages and --queries must be at least 1, --chunks at least 0.")

    def report(line: str) -> None:
        print(line, file=sys.stderr, flush=True)

    result = asyncio.run(documents_benchmark(args.pages, args.chunks, args.queries, report))
    if args.json:
        print(json.dumps(result, indent=2))
    else:
        print(format_report(result))
    return 0


def format_report(result: dict) -> str:
    import os

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
    if hasattr(os, "getloadavg"):
        lines.append("Load average at the end: " + ", ".join(f"{x:.1f}" for x in os.getloadavg()))
    return "\n".join(lines)
