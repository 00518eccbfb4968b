"""``acai-desktop --self-test [--json]``: check the real window end to end, offscreen.

The checks and their scripted model are not the product: they live in the repository's
``acai_lab`` package (:mod:`acai_lab.self_test`), which the frozen bundle carries (its
build and its .deb run the check) and a source checkout has on its path, but the wheel
does not ship. So this command imports it only when it runs, and where it is missing it
says so (exit 2) instead of failing with a traceback.

The profile in ``--data-dir`` (or the default one) is only read: the checks run on a copy
of its database, with the in-process scripted model, so nothing lands in the user's
conversations or memories and no key is read from the keyring. Exit status 0 when every
check passed, 1 otherwise.
"""

from __future__ import annotations

import argparse
import json
import sys

from acai_desktop.commands.runner import profile_of

LAB_MISSING = (
    "acai-desktop: --self-test is not part of this installation: it comes with the "
    "installer (the frozen bundle, the .deb) and with a source checkout (acai_lab)."
)


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


def run(args: argparse.Namespace) -> int:
    try:
        from acai_lab import self_test
    except ModuleNotFoundError as missing:
        if missing.name != "acai_lab":
            raise
        print(LAB_MISSING, file=sys.stderr)
        return 2
    report = self_test.run_offscreen(profile_of(args).data_dir)
    print(json.dumps(report.to_json(), indent=2) if args.self_test_json else report.as_text())
    sys.stdout.flush()
    return 0 if report.ok else 1
