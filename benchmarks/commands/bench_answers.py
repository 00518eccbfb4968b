"""``python -m benchmarks bench answers``: time to first token over consecutive messages.

See :mod:`benchmarks.bench_answers`. Runs on a temporary profile; never
touches --data-dir.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import tempfile
from pathlib import Path

from acai_desktop.core.errors import InvalidInputError


def add_parser(actions: argparse._SubParsersAction, common: argparse.ArgumentParser) -> None:
    answers = actions.add_parser(
        "answers",
        parents=[common],
        help="time to first token over consecutive messages, with learning in the background",
        description="Sends N messages one after another in one conversation of a temporary "
        "profile, with the job runner learning from each in the background as in the app, "
        "against the configured model (default: the built-in Local server). Prints the "
        "time to the first token and to the end of each answer, and the last/first ratio "
        "(goal <= 1.2: learning never delays an answer).",
    )
    answers.add_argument("--provider", default="local", help="model provider preset")
    answers.add_argument("--base-url", help="OpenAI-compatible address")
    answers.add_argument("--model", help="model name for every role")
    answers.add_argument("--messages", type=int, default=10, help="messages to send")
    answers.add_argument(
        "--think", type=float, default=0.0, help="seconds between an answer and the next message"
    )
    answers.add_argument(
        "--no-wait-for-learning",
        action="store_true",
        help="don't wait for learning to catch up after the last answer",
    )
    answers.add_argument(
        "--no-warm-up",
        action="store_true",
        help="measure from a cold start (no warm-up turn in a temporary chat first)",
    )
    answers.add_argument("--json", action="store_true", help="print one JSON object")
    answers.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    from acai_desktop.core.models.choice import ModelOverrides
    from benchmarks.bench_answers import (
        format_answers_report,
        measure_answers,
        print_progress,
    )

    if args.messages < 1:
        raise InvalidInputError("--messages must be at least 1")
    if args.think < 0:
        raise InvalidInputError("--think must not be negative")
    overrides = ModelOverrides(args.provider, args.base_url, args.model)
    with tempfile.TemporaryDirectory(prefix="acai-bench-answers-") as folder:
        report = asyncio.run(
            measure_answers(
                Path(folder) / "profile",
                overrides,
                messages=args.messages,
                think_seconds=args.think,
                wait_for_learning=not args.no_wait_for_learning,
                progress=print_progress,
                warm_up=not args.no_warm_up,
            )
        )
    print(json.dumps(report) if args.json else format_answers_report(report))
    return 0
