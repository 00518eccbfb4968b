"""``acai-desktop --self-test [--json]``: check the real window end to end, offscreen.

See :mod:`acai_desktop.ui.self_test` for the checks. The profile in ``--data-dir`` (or
the default one) is only read: the checks run on a copy of its database, with the
in-process scripted model, so nothing lands in the user's conversations or memories and
no key is read from the keyring. Exit status 0 when every check passed, 1 otherwise.
"""

from __future__ import annotations

import argparse
import json
import sys

from acai_desktop.commands.runner import profile_of


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """Top-level options (the self-test is a flag, not a command)."""
    parser.add_argument(
        "--self-test",
        action="store_true",
        help="open the window offscreen on a copy of the profile, run one turn against a "
        "built-in scripted model and check memory, provenance and Qt; exit 0 if all passed",
    )
    parser.add_argument(
        "--json",
        dest="self_test_json",
        action="store_true",
        help='with --self-test: print {"ok", "checks": [...]} as JSON',
    )


def format_report(report) -> str:
    head = f"ACAI Desktop self-test (PySide6 {report.to_json()['pyside6']}, "
    head += f"Python {report.to_json()['python']}, offscreen)"
    lines = [head]
    for check in report.checks:
        lines.append(f"  {'ok  ' if check.ok else 'FAIL'}  {check.name}: {check.detail}")
    failed = sum(1 for check in report.checks if not check.ok)
    if failed:
        lines.append(f"self-test FAILED: {failed} of {len(report.checks)} checks failed")
    else:
        lines.append(f"self-test passed: all {len(report.checks)} checks")
    return "\n".join(lines)


def run(args: argparse.Namespace) -> int:
    from acai_desktop.evaluation.scripted_profile import keep_away_from_the_keyring
    from acai_desktop.ui.headless import use_offscreen_platform

    use_offscreen_platform()  # before the QApplication exists
    keep_away_from_the_keyring()
    from acai_desktop.ui.self_test import run_self_test

    report = run_self_test(profile_of(args).data_dir)
    if args.self_test_json:
        print(json.dumps(report.to_json(), indent=2))
    else:
        print(format_report(report))
    sys.stdout.flush()
    return 0 if report.ok else 1
