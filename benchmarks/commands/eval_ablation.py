"""``python -m benchmarks eval ablation``: the questions of a LoCoMo-format dataset answered with
the question alone (A), the plan (B), retrieval (C), memory (D) and the whole
conversation (F); see :mod:`acai_desktop.evaluation.ablation`."""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import signal
import sys
import threading

from acai_desktop.commands.arguments import add_model_arguments
from acai_desktop.commands.runner import profile_of
from acai_desktop.core.errors import InvalidInputError, ModelError
from benchmarks.commands.embedders import add_embedder_argument, offline_embedder


def add_ablation_parser(actions: argparse._SubParsersAction, common) -> None:
    ablation = actions.add_parser(
        "ablation",
        parents=[common],
        help="answer a dataset's questions with and without memory (A/B/C/D against F)",
        description="Ask each question (categories 1-4) with the question alone (A), with "
        "the planner's plan (B), with retrieval of the conversation's messages (C), with the "
        "memory the processors built (D) and with the whole conversation (F), and score the "
        "answers with LoCoMo's token F1.",
    )
    ablation.add_argument("--dataset", required=True, help="LoCoMo-format JSON file")
    add_model_arguments(ablation, "model name for answering and for the processors")
    ablation.add_argument(
        "--scripted",
        action="store_true",
        help="no model: a scripted reader answers right exactly when a question's evidence "
        "is in the prompt (the ceiling each configuration's prompts allow)",
    )
    ablation.add_argument("--configs", default="A,B,C,D,F", help="which of A,B,C,D,F to run")
    ablation.add_argument(
        "--limit", type=int, metavar="N", help="the first N sessions of each sample"
    )
    ablation.add_argument("--samples", type=int, metavar="N", help="the first N samples")
    ablation.add_argument(
        "--per-category",
        type=int,
        metavar="N",
        help="the first N questions of each category (LongMemEval: of each question type)",
    )
    ablation.add_argument(
        "--learner",
        choices=("model", "rules"),
        default="model",
        help="who learns D's memory: the model's triage and extraction (default), or the "
        "built-in model's rules (facts from plain statements; no model call)",
    )
    ablation.add_argument(
        "--context-window",
        type=int,
        metavar="TOKENS",
        help="the model's context window, for F (default: the local server's, else 8192)",
    )
    ablation.add_argument(
        "--reader-window",
        type=int,
        metavar="TOKENS",
        help="with --scripted: the context window the scripted reader's server reports, "
        "which the app's automatic prompt budget follows (default: none reported)",
    )
    add_embedder_argument(ablation)
    ablation.add_argument("--judge", action="store_true", help="also ask the model to judge")
    ablation.add_argument("--json", action="store_true", help="print one JSON object")
    ablation.set_defaults(handler=run_ablation)


def _stop_on_ctrl_c(stop: threading.Event) -> None:
    """The first Ctrl+C asks the run to stop after the step under way (its figures so
    far are printed); a second one interrupts at once."""

    def first(signum, frame) -> None:
        print("\nStopping after the current step (Ctrl+C again: at once)...", file=sys.stderr)
        stop.set()
        signal.signal(signal.SIGINT, signal.default_int_handler)

    signal.signal(signal.SIGINT, first)


def parse_configs(text: str) -> tuple[str, ...]:
    from acai_desktop.evaluation.ablation_results import CONFIGS

    chosen = [part.strip().upper() for part in text.split(",") if part.strip()]
    unknown = [c for c in chosen if c not in CONFIGS]
    if not chosen or unknown:
        raise InvalidInputError(
            f"--configs takes some of {','.join(CONFIGS)} separated by commas, not {text!r}."
        )
    return tuple(c for c in CONFIGS if c in chosen)


def _options(args: argparse.Namespace):
    from acai_desktop.evaluation.ablation import AblationOptions

    for name in ("limit", "samples", "context_window", "per_category", "reader_window"):
        value = getattr(args, name)
        if value is not None and value <= 0:
            option = "--" + name.replace("_", "-")
            raise InvalidInputError(f"{option} must be a positive whole number, not {value}.")
    if args.scripted and (args.provider or args.base_url or args.model):
        raise InvalidInputError(
            "--scripted answers with the scripted reader: leave out --provider, --base-url "
            "and --model."
        )
    if args.reader_window is not None and not args.scripted:
        raise InvalidInputError("--reader-window is the scripted reader's: add --scripted.")
    return AblationOptions(
        configs=parse_configs(args.configs),
        limit=args.limit,
        samples=args.samples,
        judge=args.judge,
        context_window=args.context_window,
        per_category=args.per_category,
        learner=args.learner,
        embedder=offline_embedder(args.embedder),
    )


def _overrides(args: argparse.Namespace, dataset, stack: contextlib.ExitStack):
    from acai_desktop.core.models.choice import ModelOverrides

    if not args.scripted:
        return ModelOverrides(args.provider, args.base_url, args.model)
    from acai_lab.scripted_openai import FakeOpenAIServer
    from acai_lab.scripted_profile import keep_away_from_the_keyring
    from benchmarks.ablation_oracle import evidence_reader

    keep_away_from_the_keyring()
    server = stack.enter_context(FakeOpenAIServer())
    server.responder = evidence_reader(dataset)
    if args.reader_window is not None:
        # As vLLM reports it: the app's window probe reads it (core/models/window_probe.py).
        server.models = [*server.models, "scripted-reader"]
        server.model_details = {"scripted-reader": {"max_model_len": args.reader_window}}
    return ModelOverrides("custom", server.base_url, "scripted-reader")


def run_ablation(args: argparse.Namespace) -> int:
    from acai_desktop.evaluation.ablation import evaluate_ablation, run_size
    from acai_desktop.evaluation.ablation_results import AblationReport
    from acai_desktop.evaluation.ablation_text import format_ablation
    from acai_desktop.evaluation.locomo import load_dataset
    from benchmarks.progress import TerminalProgress

    options = _options(args)
    dataset = load_dataset(args.dataset)
    size = run_size(dataset, options)
    learning = f", {size.user_messages} messages to learn from" if size.user_messages else ""
    calls = (
        f"{size.calls_low}–{size.calls_high}"
        if size.calls_high > size.calls_low
        else size.calls_low
    )
    print(
        f"{size.questions} questions x {len(options.configs)} configurations{learning}: "
        f"about {calls} model calls"
        + (", plus reconcile calls" if size.user_messages else "")
        + ". Ctrl+C stops and prints what was measured.",
        file=sys.stderr,
    )
    progress = TerminalProgress(size.steps, "steps")
    report, stop = AblationReport(), threading.Event()
    failed = False
    with contextlib.ExitStack() as stack:
        overrides = _overrides(args, dataset, stack)
        _stop_on_ctrl_c(stop)
        stack.callback(signal.signal, signal.SIGINT, signal.default_int_handler)
        stack.callback(progress.done)
        try:
            asyncio.run(
                evaluate_ablation(
                    dataset,
                    overrides,
                    options,
                    progress=progress.step,
                    stop=stop,
                    report=report,
                    model_of=profile_of(args),
                )
            )
        except KeyboardInterrupt:
            report.stopped = True
        except ModelError as error:
            if not report.answers:
                raise  # nothing measured: the error alone says it
            # The model went away mid-run: say so, and keep what was measured.
            print(f"\nStopped: {error}", file=sys.stderr)
            report.stopped = failed = True
    figures = report.as_dict()
    print(json.dumps(figures) if args.json else format_ablation(figures))
    return 1 if failed else 130 if report.stopped else 0
