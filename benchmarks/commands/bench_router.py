"""``python -m benchmarks bench router [--prompts FILE] [--per-kind N] [--json]``.

See :mod:`benchmarks.bench_router`: scripted servers on 127.0.0.1, nothing else."""

from __future__ import annotations

import argparse
import json
from pathlib import Path

from acai_desktop.core.errors import InvalidInputError


def add_parser(actions: argparse._SubParsersAction, common: argparse.ArgumentParser) -> None:
    bench = actions.add_parser(
        "router",
        parents=[common],
        help="replay labelled turns against scripted servers under each routing policy",
        description="Route each labelled turn (analysis, choice, fallback) to seven scripted "
        "servers of different speeds, prices, windows and failures, once per policy and once "
        "always to the best model; print cost, median and p95 time, fallbacks and the turns a "
        "model that can't do them got.",
    )
    bench.add_argument("--prompts", type=Path, help="labelled turns (default: the dev set)")
    bench.add_argument("--per-kind", type=int, default=10, help="turns of each kind")
    bench.add_argument("--json", action="store_true", help="print one JSON object")
    bench.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    from benchmarks.bench_router import DEFAULT_PROMPTS, format_report, run_router_benchmark

    if args.per_kind <= 0:
        raise InvalidInputError("--per-kind must be a positive whole number.")
    prompts = args.prompts or DEFAULT_PROMPTS
    if not prompts.is_file():
        raise InvalidInputError(f"{prompts} is not a file.")
    report = run_router_benchmark(prompts, args.per_kind)
    print(json.dumps(report) if args.json else format_report(report))
    return 0
