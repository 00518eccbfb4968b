"""``python -m benchmarks eval router``: task analysis against labelled turns; see
:mod:`benchmarks.eval_router`."""

from __future__ import annotations

import argparse
import json
from pathlib import Path

from acai_desktop.core.errors import InvalidInputError


def add_router_parser(actions: argparse._SubParsersAction, common) -> None:
    router = actions.add_parser(
        "router",
        parents=[common],
        help="how often task analysis names a turn's kind (chat, code, reasoning, writing, "
        "vision, long)",
        description="Analyse each labelled turn of a JSON-lines file as the app does before "
        "a turn (no model call) and score the kinds it names.",
    )
    router.add_argument(
        "--prompts",
        required=True,
        type=Path,
        help='JSON lines {"text": …, "kind": …, "attachments": [paths relative to the file]}',
    )
    router.add_argument(
        "--rules-only",
        action="store_true",
        help="without the meaning signal (as with a provider's embedder)",
    )
    router.add_argument("--json", action="store_true", help="print one JSON object")
    router.set_defaults(handler=run_router)


def run_router(args: argparse.Namespace) -> int:
    from acai_desktop.core.routing.turn_meaning import offline_turn_meaning
    from benchmarks.eval_router import evaluate, format_report

    if not args.prompts.is_file():
        raise InvalidInputError(f"{args.prompts} is not a file.")
    report = evaluate(args.prompts, None if args.rules_only else offline_turn_meaning())
    print(json.dumps(report) if args.json else format_report(report))
    return 0
