"""``python -m benchmarks bench local-model``: the packaged built-in model against the
Q8_0 copy the app serves (see :mod:`benchmarks.bench_local_model`)."""

from __future__ import annotations

import argparse
import json

from acai_desktop.core.errors import InvalidInputError


def add_parser(actions: argparse._SubParsersAction, common: argparse.ArgumentParser) -> None:
    model = actions.add_parser(
        "local-model",
        parents=[common],
        help="the built-in model's packaged file against the faster copy the app serves",
        description="Makes the built-in model's Q8_0 copy in a temporary folder, then times "
        "reading a prompt and writing an answer with each file (alternating), and checks "
        "that the copy is the same model (perplexity, KL divergence, same next token).",
    )
    model.add_argument("--prompt-tokens", type=int, default=400, help="prompt length")
    model.add_argument("--repeats", type=int, default=3, help="prompt reads per file a round")
    model.add_argument("--rounds", type=int, default=2, help="alternating rounds")
    model.add_argument("--json", action="store_true", help="print one JSON object")
    model.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    from benchmarks.bench_answers import print_progress
    from benchmarks.bench_local_model import format_local_model_report, measure_local_model

    if not 16 <= args.prompt_tokens <= 1500 or args.repeats < 1 or args.rounds < 1:
        raise InvalidInputError(
            "--prompt-tokens must be 16-1500, --repeats and --rounds at least 1"
        )
    report = measure_local_model(
        prompt_tokens=args.prompt_tokens,
        repeats=args.repeats,
        rounds=args.rounds,
        progress=print_progress,
    )
    print(json.dumps(report) if args.json else format_local_model_report(report))
    return 0
