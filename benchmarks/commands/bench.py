"""``python -m benchmarks bench retrieval|conversation|startup|documents|answers|…``: benchmarks.

See :mod:`benchmarks.bench_retrieval` for what ``retrieval`` builds and
measures, :mod:`benchmarks.ui.startup_probe` for one measured start of the window and
:mod:`benchmarks.startup_outer` for starts measured from outside.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import shlex
import statistics
import subprocess
import tempfile
import time
from pathlib import Path

from acai_desktop.commands.arguments import add_common_arguments
from acai_desktop.core.errors import InvalidInputError
from benchmarks import child_environment, python_command
from benchmarks.commands import (
    bench_answers,
    bench_documents,
    bench_import,
    bench_local_model,
    bench_router,
    bench_soak,
)
from benchmarks.commands.eval import parse_positive_list
from benchmarks.startup_outer import measure_outer, startup_environment


def add_parser(subparsers: argparse._SubParsersAction) -> None:
    common = argparse.ArgumentParser(add_help=False)
    add_common_arguments(common, store=False)
    parser = subparsers.add_parser("bench", parents=[common], help="benchmarks")
    actions = parser.add_subparsers(dest="bench_action", metavar="ACTION", required=True)
    retrieval = actions.add_parser(
        "retrieval",
        parents=[common],
        help="hybrid search latency, insert throughput and database size per profile size",
    )
    retrieval.add_argument(
        "--sizes",
        default="1000,10000,100000",
        help="items per profile (half memories, half messages)",
    )
    retrieval.add_argument("--queries", type=int, default=200, help="timed searches per size")
    retrieval.add_argument("--json", action="store_true", help="print one JSON object")
    retrieval.add_argument(
        "--store",
        metavar="URL",
        help="also measure each size on this PostgreSQL server (a database of its own, "
        "dropped after; the user needs CREATEDB), printed beside SQLite's",
    )
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
    bench_documents.add_parser(actions, common)
    bench_answers.add_parser(actions, common)
    bench_import.add_parser(actions, common)
    bench_local_model.add_parser(actions, common)
    bench_router.add_parser(actions, common)

    ui = actions.add_parser(
        "ui",
        parents=[common],
        help="event-loop stalls while an answer streams, a processor runs and the panel is full",
        description="Streams a 2,000-token Markdown answer with code at 200 tokens/s into the "
        "real window (offscreen without a display) while a processor-like worker thread embeds "
        "and writes to SQLite and the memory panel holds 10,000 memories; a 5 ms timer's "
        "lateness is sampled. Goal: max < 50 ms, p99 < 16 ms. Then a 500 x 30 table, a "
        "2,000-row table, 1 MB of prose and 1 MB of code each stream in and are opened "
        "finished: the largest stall of each (goal < 100 ms) and the memory used.",
    )
    ui.add_argument("--json", action="store_true", help="print one JSON object")
    ui.set_defaults(handler=run_ui)
    startup = actions.add_parser(
        "startup",
        parents=[common],
        help="time until the window is painted and responsive, against a bare Qt window",
        description="Builds a profile with N memories (real embeddings) once in a temporary "
        "directory, then starts the real window on it in fresh processes, alternating with a "
        "bare PySide6 window, and prints the medians: app_s (process start until the window "
        "is painted, the profile loaded and the event loop responsive), bare_s, and the "
        "longest stall of a 5 ms timer from the first paint until --settle seconds after "
        "ready and the services are up. Then the outer figures: `acai-desktop gui "
        "--quit-after-ms 1` on a fresh data directory (or, with --outer-profile existing, on a "
        "copy of that profile) against a bare PySide6 window that "
        "shows and quits the same way, each timed as a whole process from spawn to exit "
        "(alternating pairs, medians). With --app only the outer figures are taken.",
    )
    startup.add_argument("--memories", type=int, default=0, help="memories in the profile")
    startup.add_argument("--runs", type=int, default=5, help="starts of each window")
    startup.add_argument(
        "--settle",
        type=float,
        default=3.0,
        help="seconds after ready to keep watching stalls (background loading)",
    )
    startup.add_argument(
        "--outer-runs", type=int, default=7, help="whole-process starts of each (outer ratio)"
    )
    startup.add_argument(
        "--outer-profile",
        choices=("fresh", "existing"),
        default="fresh",
        help="the outer app runs open a fresh, empty data directory (the default) or a copy "
        "of the profile built with --memories memories (an existing profile)",
    )
    startup.add_argument(
        "--app",
        metavar="COMMAND",
        help="time this program as the app, from outside only (e.g. the frozen bundle's "
        "acai-desktop); default: the acai-desktop launcher of this Python",
    )
    startup.add_argument(
        "--bare",
        metavar="COMMAND",
        help="the bare window to compare with (a command line; e.g. the frozen floor "
        "with --quit-after-ms 1); default: a PySide6 window run by this Python",
    )
    startup.add_argument("--json", action="store_true", help="print one JSON object")
    startup.set_defaults(handler=run_startup)


def format_report(report: dict) -> str:
    header = (
        f"{'size':>8} {'store':>10} {'p50 ms':>8} {'p95 ms':>8} {'floor p95':>10} "
        f"{'floor+emb':>10} {'p95/floor+emb':>14} {'turn p50':>9} {'turn p95':>9} "
        f"{'inserts/s':>10} {'db MB':>8}"
    )
    lines = [header]
    for row in report["sizes"]:
        ratio = row["p95_ms"] / max(row["floor_with_embedding_p95_ms"], 1e-9)
        lines.append(
            f"{row['size']:>8} {row.get('store', 'sqlite'):>10} "
            f"{row['p50_ms']:>8.2f} {row['p95_ms']:>8.2f} "
            f"{row['floor_p95_ms']:>10.3f} {row['floor_with_embedding_p95_ms']:>10.3f} "
            f"{ratio:>14.1f} {row['turn_p50_ms']:>9.2f} {row['turn_p95_ms']:>9.2f} "
            f"{row['inserts_per_s']:>10.0f} {row['db_mb']:>8.1f}"
        )
    lines.append(
        "latency: HybridRetriever.search of the top 10, query embedding included; turn: "
        "the search a chat turn makes (the plan's k, read 40 deep); floor: numpy exact "
        "top-10 over the same vectors (floor+emb adds the query embedding)"
    )
    return "\n".join(lines)


def run_retrieval(args: argparse.Namespace) -> int:
    from benchmarks.bench_retrieval import run_benchmark

    sizes = parse_positive_list(args.sizes, "--sizes")
    if args.queries <= 0:
        raise InvalidInputError("--queries must be positive.")
    server = args.store
    if server is not None:
        from acai_desktop.core.store.store_url import is_server_url

        if not is_server_url(server):
            raise InvalidInputError(f"--store must be a postgresql:// URL, not {server!r}.")
    report = asyncio.run(run_benchmark(sizes, queries=args.queries, server=server))
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
    from acai_desktop.core.models.choice import ModelOverrides
    from benchmarks.bench_conversation import run_conversation_benchmark

    if args.messages <= 0 or args.turns <= 1:
        raise InvalidInputError("--messages must be positive and --turns at least 2.")
    overrides = ModelOverrides(args.provider, args.base_url, args.model)
    report = asyncio.run(
        run_conversation_benchmark(overrides, messages=args.messages, turns=args.turns)
    )
    print(json.dumps(report) if args.json else format_conversation_report(report))
    return 0


def format_ui_report(report: dict) -> str:
    return (
        f"event-loop lateness of a {5} ms timer over {report['samples']} samples "
        f"({report['seconds']} s, {report['tokens']} tokens streamed, "
        f"{report['panel_memories']} memories in the panel):\n"
        f"  max {report['max_ms']} ms (goal < 50), p99 {report['p99_ms']} ms (goal < 16), "
        f"median {report['median_ms']} ms\n"
        f"  this machine's floor (idle loop, same timer): max {report['idle_max_ms']} ms, "
        f"p99 {report['idle_p99_ms']} ms"
        + "".join(_large_answer_line(case) for case in report.get("large_answers", []))
    )


def _large_answer_line(case: dict) -> str:
    return (
        f"\n  {case['case']} ({case['chars']:,} characters): largest stall streaming "
        f"{case['stream_max_ms']} ms (p99 {case['stream_p99_ms']}; UI thread busy at most "
        f"{case['stream_max_busy_ms']} ms), opening {case['open_max_ms']} ms (busy "
        f"{case['open_max_busy_ms']} ms) (goal < 100); memory peak {case['rss_peak_mb']} MB, "
        f"growth {case['rss_growth_mb']} MB"
    )


def run_ui(args: argparse.Namespace) -> int:
    from benchmarks.ui.bench_ui import run_ui_benchmark

    report = run_ui_benchmark()
    if args.json:
        print(json.dumps({k: report[k] for k in ("max_ms", "p99_ms", "samples")} | report))
    else:
        print(format_ui_report(report))


# -- bench startup -------------------------------------------------------------------

PROBE_MODULE = "benchmarks.ui.startup_probe"


def _probe(kind: str, data_dir: Path | None, settle: float) -> dict:
    """Start one fresh process that opens a window and reports when it was ready."""
    env = child_environment(startup_environment())
    started_at = time.time()
    command = [*python_command(PROBE_MODULE), kind, "--started-at", repr(started_at)]
    command += ["--settle", str(settle)]
    if data_dir is not None:
        command += ["--data-dir", str(data_dir)]
    done = subprocess.run(command, env=env, capture_output=True, text=True, timeout=600)
    lines = [line for line in done.stdout.splitlines() if line.startswith("{")]
    if done.returncode != 0 or not lines:
        raise RuntimeError(
            f"the {kind} window did not report (exit {done.returncode}): {done.stderr[-2000:]}"
        )
    report = json.loads(lines[-1])
    if report["gave_up"] or report["ready_s"] is None or report["started_s"] is None:
        raise RuntimeError(f"the {kind} window was never ready: {report}")
    return report


def _median(reports: list[dict], key: str) -> float:
    return round(statistics.median(report[key] for report in reports), 3)


def measure_startup(data_dir: Path, *, runs: int, settle: float) -> dict:
    apps, bares = [], []
    for _ in range(runs):  # interleaved, so a busy moment of the machine hits both
        apps.append(_probe("app", data_dir, settle))
        bares.append(_probe("bare", None, settle))
    app_s, bare_s = _median(apps, "ready_s"), _median(bares, "ready_s")
    return {
        "app_s": app_s,
        "bare_s": bare_s,
        "ratio": round(app_s / bare_s, 2),
        "app_painted_s": _median(apps, "painted_s"),
        "app_services_s": _median(apps, "started_s"),
        "app_max_stall_ms": _median(apps, "max_stall_ms"),
        "app_worst_stall_ms": max(report["max_stall_ms"] for report in apps),
        "bare_max_stall_ms": _median(bares, "max_stall_ms"),
        "runs": runs,
        "settle_s": settle,
        "app_ready_s_all": [report["ready_s"] for report in apps],
    }


def _prepare_profile(data_dir: Path, memories: int) -> None:
    """Settings that open without a model server being asked anything at start, and
    ``memories`` memories with real embeddings."""
    from acai_desktop.core.models.settings import ModelSettings, save_model_settings
    from acai_desktop.core.profile.paths import Profile
    from benchmarks.bench_retrieval import build_profile

    profile = Profile.at(data_dir).ensure()
    save_model_settings(profile.settings_path, ModelSettings.for_preset("ollama"))
    asyncio.run(build_profile(profile, memories))


def format_startup_report(report: dict) -> str:
    return "\n".join(_probe_lines(report) + _outer_lines(report))


def _outer_lines(report: dict) -> list[str]:
    if "outer_ratio" not in report:
        return []
    return [
        f"outer: open and quit as whole processes, {_outer_profile_words(report)} "
        f"({report['outer_runs']} alternating pairs, medians)",
        f"  app (gui --quit-after-ms 1): {report['outer_app_s']:.3f} s",
        f"  bare window:                 {report['outer_bare_s']:.3f} s",
        f"  app / bare: {report['outer_ratio']:.2f}x (goal <= 3x)",
    ]


def _outer_profile_words(report: dict) -> str:
    if report["outer_profile"] == "existing":
        return f"a copy of an existing profile ({report['memories']} memories)"
    return "fresh data directory"


def _probe_lines(report: dict) -> list[str]:
    if "ratio" not in report:
        return []
    return [
        f"memories: {report['memories']} ({report['runs']} runs each, medians)",
        f"  app ready:  {report['app_s']:.3f} s  (painted {report['app_painted_s']:.3f} s; "
        f"model client, memory index and jobs up at {report['app_services_s']:.3f} s)",
        f"  bare ready: {report['bare_s']:.3f} s",
        f"  app / bare: {report['ratio']:.2f}x",
        f"  longest 5 ms-timer stall from the first paint until {report['settle_s']:g} s "
        f"after all is up: {report['app_max_stall_ms']:.1f} ms median, "
        f"{report['app_worst_stall_ms']:.1f} ms worst (bare: "
        f"{report['bare_max_stall_ms']:.1f} ms)",
    ]


def run_startup(args: argparse.Namespace) -> int:

    if args.memories < 0 or args.runs < 1 or args.settle <= 0 or args.outer_runs < 1:
        raise InvalidInputError(
            "--memories must be >= 0, --runs and --outer-runs >= 1 and --settle > 0."
        )
    app = shlex.split(args.app) if args.app else None
    bare = shlex.split(args.bare) if args.bare else None
    report: dict = {}
    with tempfile.TemporaryDirectory(prefix="acai-bench-startup-") as directory:
        data_dir = Path(directory) / "profile"
        existing = args.outer_profile == "existing"
        if app is None or existing:
            built = time.perf_counter()
            _prepare_profile(data_dir, args.memories)
            build_s = round(time.perf_counter() - built, 1)
            report = {"memories": args.memories, "build_s": build_s}
        if app is None:  # the probe runs in this Python's app; a given program is timed outside
            report |= measure_startup(data_dir, runs=args.runs, settle=args.settle)
        report |= measure_outer(
            args.outer_runs, app=app, bare=bare, profile=data_dir if existing else None
        )
    print(json.dumps(report) if args.json else format_startup_report(report))
    return 0
