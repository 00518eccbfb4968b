"""``python -m benchmarks bench soak [--turns N] [--json]``: the real window through N turns.

See :mod:`benchmarks.bench_soak`. The hidden ``--child`` options start the
window side (:mod:`benchmarks.ui.soak_driver`); the bench starts it itself.
"""

from __future__ import annotations

import argparse
import json
import sys
import time

from acai_desktop.core.errors import InvalidInputError
from benchmarks.soak_faults import DEFAULT_IMPORT_MEMORIES, LONG_IMPORT_TURN

GOAL_RSS_GROWTH_MB = 50


def add_parser(actions: argparse._SubParsersAction, common: argparse.ArgumentParser) -> None:
    soak = actions.add_parser(
        "soak",
        parents=[common],
        help="drive the real window offscreen through many turns with faults; count crashes, "
        "lost messages, failed jobs, Qt warnings and memory growth",
        description="Drives the real window offscreen through N turns (a child process, so "
        "a crash is counted, not fatal) on a temporary profile, with a built-in scripted "
        "model and injected faults: a dropped stream, server errors, malformed extraction "
        "JSON, a timeout, a 40 MB answer, and a long memories import in another process "
        "beside the turns. Prints turns, crashes, Qt warnings, RSS at the start and end, "
        "failed or un-run jobs, lost messages and answers, what became of the huge answers "
        "and the import, and the database size. Never touches --data-dir.",
    )
    soak.add_argument(
        "--turns", type=int, default=None, help="turns to run (default 300; 200 with --store)"
    )
    soak.add_argument(
        "--import-memories",
        type=int,
        default=DEFAULT_IMPORT_MEMORIES,
        metavar="N",
        help=f"memories in the long import started at turn {LONG_IMPORT_TURN} "
        f"(default {DEFAULT_IMPORT_MEMORIES:,}; 0: no import)",
    )
    soak.add_argument("--json", action="store_true", help="print one JSON object")
    soak.add_argument(
        "--progress-every", type=int, default=10, metavar="N", help="a progress line every N turns"
    )
    soak.add_argument(
        "--store",
        metavar="URL",
        help="instead: the shared-store soak. --processes app processes, each with a data "
        "dir of its own, on one new database on this PostgreSQL server (dropped after; the "
        "user needs CREATEDB), send --turns turns between them (default 200) with "
        "background learning in each; prints messages lost, messages learned twice and "
        "whether a memory edited in one reached the others",
    )
    soak.add_argument(
        "--processes", type=int, default=2, help="app processes of the --store soak (default 2)"
    )
    soak.add_argument("--child", action="store_true", help=argparse.SUPPRESS)
    soak.add_argument("--first-turn", type=int, default=1, help=argparse.SUPPRESS)
    soak.add_argument("--crash-at-turn", type=int, default=None, help=argparse.SUPPRESS)
    soak.set_defaults(handler=run)


def format_report(report: dict) -> str:
    growth = None
    if report["rss_mb_start"] is not None and report["rss_mb_end"] is not None:
        growth = round(report["rss_mb_end"] - report["rss_mb_start"], 1)
    lines = [
        f"turns:          {report['turns']} ({report['turns_sent']} sent, {report['seconds']} s)",
        f"crashes:        {report['crashes']}",
        f"turns stuck:    {len(report['turns_stuck'])}",
        f"messages lost:  {report['messages_lost']} {report['lost_turns'] or ''}".rstrip(),
        f"answers not complete after retries: {len(report['incomplete_answers'])}",
        f"messages never queued for learning: {len(report['messages_not_learned_from'])}",
        f"jobs failed or left un-run: {report['jobs_failed']}  (by status: {report['jobs']})",
        f"Qt warnings:    {report['qt_warnings']}",
        f"RSS:            {report['rss_mb_start']} MB -> {report['rss_mb_end']} MB "
        f"(growth {growth} MB; goal <= {GOAL_RSS_GROWTH_MB} MB; after the first turn to the "
        f"end, {report['window_processes']} window process(es))",
        f"faults injected: {report['faults_injected']}",
        f"answers lost:   {len(report['answers_lost'])} {report['answers_lost'] or ''}".rstrip(),
        _import_line(report["long_import"]),
        f"huge answers:   {report['huge_answers']['turns']} streams of "
        f"{report['huge_answers']['stream_mb']} MB, not cut: "
        f"{len(report['huge_answers']['not_cut'])}; largest answer kept "
        f"{report['largest_answer_mb']} MB",
        f"database:       {report['database_mb']} MB at the end",
    ]
    for sample in report["qt_warning_samples"]:
        lines.append(f"  Qt: {sample}")
    for stuck in report["turns_stuck"]:
        lines.append(f"  stuck: {stuck}")
    for crash in report["crash_reports"]:
        lines.append(
            f"  crash of the window started at turn {crash['first_turn']} "
            f"(exit {crash['exit']}): {crash['reason']}"
        )
    return "\n".join(lines)


def _import_line(figures: dict) -> str:
    if not figures["ran"]:
        return "long import:    not run"
    waits = figures["lock_wait_ms"]
    return (
        f"long import:    {figures['imported']} of {figures['memories']} memories in "
        f"{figures['seconds']} s (exit {figures['exit']}) beside {figures['turns_beside']} "
        f"turns: {len(figures['turns_failed'])} failed, {len(figures['answers_lost'])} "
        f"answers lost, {len(figures['messages_lost'])} messages lost\n"
        f"  a write beside it waited for the lock: p50 {waits.get('p50')} ms, "
        f"p99 {waits.get('p99')} ms, max {waits.get('max')} ms ({waits['probes']} probes)"
    )


def run(args: argparse.Namespace) -> int:
    if args.store is not None:
        return run_on_store(args)
    args.turns = 300 if args.turns is None else args.turns
    if args.turns <= 0:
        raise InvalidInputError("--turns must be positive.")
    if args.import_memories < 0:
        raise InvalidInputError("--import-memories must be 0 or more.")
    if args.child:
        from acai_lab.headless import use_offscreen_platform

        use_offscreen_platform()
        from benchmarks.ui.soak_driver import run_soak_child

        return run_soak_child(args.data_dir, args.first_turn, args.turns, args.crash_at_turn)
    from benchmarks.bench_soak import run_soak

    started = time.monotonic()

    def progress(event: dict) -> None:
        if event.get("event") == "turn" and event["turn"] % args.progress_every == 0:
            print(
                f"  turn {event['turn']} at {time.monotonic() - started:.0f} s: "
                f"RSS {event['rss_mb']} MB, "
                f"{event['qt_warnings']} Qt warnings",
                file=sys.stderr,
                flush=True,
            )

    report = run_soak(args.turns, import_memories=args.import_memories, progress=progress)
    print(json.dumps(report) if args.json else format_report(report))
    return 0


def run_on_store(args: argparse.Namespace) -> int:
    """The shared-store soak (:mod:`benchmarks.store_soak`) on a new database."""
    import tempfile
    from pathlib import Path

    from benchmarks.scratch_store import scratch_store
    from benchmarks.store_soak import DEFAULT_TURNS, format_report, run_store_soak

    turns = DEFAULT_TURNS if args.turns is None else args.turns
    if turns <= 0:
        raise InvalidInputError("--turns must be positive.")
    if args.processes < 2:
        raise InvalidInputError("--processes must be 2 or more.")
    if not args.store.startswith(("postgresql://", "postgres://")):
        raise InvalidInputError("--store takes a PostgreSQL URL (postgresql://…).")

    def progress(line: str) -> None:
        print(f"  {line}", file=sys.stderr, flush=True)

    with (
        tempfile.TemporaryDirectory() as directory,
        scratch_store(args.store, Path(directory)) as database,
    ):
        report = run_store_soak(database, turns, args.processes, progress=progress)
    print(json.dumps(report) if args.json else format_report(report))
    return 0
