"""``python -m benchmarks bench import [--conversations N] [--messages-per M] [--json]``.

See :mod:`benchmarks.bench_import`. Runs on a temporary profile; never touches
--data-dir.
"""

from __future__ import annotations

import argparse
import json

from acai_desktop.core.errors import InvalidInputError


def add_parser(actions: argparse._SubParsersAction, common: argparse.ArgumentParser) -> None:
    bench = actions.add_parser(
        "import",
        parents=[common],
        help="import a synthetic ChatGPT export into a fresh profile; time it and retrieval",
        description="Generates a synthetic ChatGPT export, imports it into a fresh temporary "
        "profile as `acai-desktop import chatgpt FILE --learn all` does (the learning jobs are "
        "queued, not run), then times 60 searches over the imported profile.",
    )
    bench.add_argument("--conversations", type=int, default=2000, help="conversations")
    bench.add_argument("--messages-per", type=int, default=25, help="messages per conversation")
    bench.add_argument("--json", action="store_true", help="print one JSON object")
    bench.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    from benchmarks.bench_import import format_report, run_import_benchmark

    if args.conversations <= 0 or args.messages_per < 2:
        raise InvalidInputError("--conversations must be positive and --messages-per >= 2.")
    figures = run_import_benchmark(args.conversations, args.messages_per)
    print(json.dumps(figures) if args.json else format_report(figures))
    return 0
