"""``acai-desktop bench retrieval``: time hybrid retrieval on synthetic profiles.

See :mod:`acai_desktop.core.evaluation.bench` for what is built and measured.
"""

from __future__ import annotations

import argparse
import asyncio
import json

from acai_desktop.cli import add_common_arguments
from acai_desktop.commands import bench_soak
from acai_desktop.commands.eval import parse_positive_list
from acai_desktop.core.errors import InvalidInputError


def add_parser(subparsers: argparse._SubParsersAction) -> None:
    common = argparse.ArgumentParser(add_help=False)
    add_common_arguments(common)
    parser = subparsers.add_parser("bench", parents=[common], help="benchmarks")
    actions = parser.add_subparsers(dest="bench_action", metavar="ACTION", required=True)
    retrieval = actions.add_parser(
        "retrieval",
        parents=[common],
        help="hybrid search latency, insert throughput and database size per profile size",
    )
    retrieval.add_argument("--sizes", default="1000,10000,100000", help="memories per profile")
    retrieval.add_argument("--queries", type=int, default=200, help="timed searches per size")
    retrieval.add_argument("--json", action="store_true", help="print one JSON object")
    retrieval.set_defaults(handler=run_retrieval)

    conversation = actions.add_parser(
        "conversation",
        parents=[common],
        help="processor calls on a scripted conversation, and prompt tokens at a late turn",
        description="Runs a scripted 50-message conversation through the critical-info "
        "processor (counting triage and extraction calls) and a scripted 200-turn "
        "conversation through the summary processor (comparing the tokens sent at the last "
        "turn with the whole history), against the configured model (default: Local).",
    )
    conversation.add_argument("--provider", default="local", help="model provider preset")
    conversation.add_argument("--base-url", help="OpenAI-compatible address")
    conversation.add_argument("--model", help="model name for every role")
    conversation.add_argument("--messages", type=int, default=50, help="user messages, part 1")
    conversation.add_argument("--turns", type=int, default=200, help="turns, part 2")
    conversation.add_argument("--json", action="store_true", help="print one JSON object")
    conversation.set_defaults(handler=run_conversation)
    bench_soak.add_parser(actions, common)


def format_report(report: dict) -> str:
    header = (
        f"{'size':>8} {'p50 ms':>8} {'p95 ms':>8} {'floor p95':>10} {'floor+emb':>10} "
        f"{'p95/floor+emb':>14} {'inserts/s':>10} {'db MB':>8}"
    )
    lines = [header]
    for row in report["sizes"]:
        ratio = row["p95_ms"] / max(row["floor_with_embedding_p95_ms"], 1e-9)
        lines.append(
            f"{row['size']:>8} {row['p50_ms']:>8.2f} {row['p95_ms']:>8.2f} "
            f"{row['floor_p95_ms']:>10.3f} {row['floor_with_embedding_p95_ms']:>10.3f} "
            f"{ratio:>14.1f} {row['inserts_per_s']:>10.0f} {row['db_mb']:>8.1f}"
        )
    lines.append(
        "latency: HybridRetriever.search, query embedding included; floor: numpy exact "
        "top-10 over the same vectors (floor+emb adds the query embedding)"
    )
    return "\n".join(lines)


def run_retrieval(args: argparse.Namespace) -> int:
    from acai_desktop.core.evaluation.bench import run_benchmark

    sizes = parse_positive_list(args.sizes, "--sizes")
    if args.queries <= 0:
        raise InvalidInputError("--queries must be positive.")
    report = asyncio.run(run_benchmark(sizes, queries=args.queries))
    print(json.dumps(report) if args.json else format_report(report))
    return 0


def format_conversation_report(report: dict) -> str:
    calls, prompt = report["processor_calls"], report["prompt"]
    return "\n".join(
        [
            f"model: {report['provider']} / {report['model']}",
            f"processor calls on {calls['messages']} scripted user messages:",
            f"  stopped by the local gate (no call): {calls['gated_without_a_call']}",
            f"  triage calls:     {calls['triage_calls']}",
            f"  extraction calls: {calls['extraction_calls']}",
            f"  reconcile calls:  {calls['reconcile_calls']}",
            f"  facts stored:     {calls['facts_stored']}  ({calls['seconds']} s)",
            f"prompt at turn {prompt['turns']}:",
            f"  whole history:  {prompt['tokens_whole_history']} tokens",
            f"  sent:           {prompt['tokens_sent']} tokens "
            f"({prompt['ratio']:.1%}; budget {prompt['budget_tokens']}; "
            f"{prompt['summaries']} summaries; {prompt['seconds']} s)",
        ]
    )


def run_conversation(args: argparse.Namespace) -> int:
    from acai_desktop.core.assistant import ModelOverrides
    from acai_desktop.core.evaluation.conversation_bench import run_conversation_benchmark

    if args.messages <= 0 or args.turns <= 1:
        raise InvalidInputError("--messages must be positive and --turns at least 2.")
    overrides = ModelOverrides(args.provider, args.base_url, args.model)
    report = asyncio.run(
        run_conversation_benchmark(overrides, messages=args.messages, turns=args.turns)
    )
    print(json.dumps(report) if args.json else format_conversation_report(report))
    return 0
