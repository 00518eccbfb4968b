"""``python -m benchmarks``: the benchmarks (``bench …``) and the developer evaluations
(``eval …``), with the product's command-line conventions (``--data-dir``,
``--log-level``, one-line errors with exit status 2; see :mod:`acai_desktop.cli`).

Each command module in :mod:`benchmarks.commands` exposes ``add_parser(subparsers)``,
as the product's commands do.
"""

from __future__ import annotations

import argparse
import sys

from acai_desktop.cli import parse_arguments, run_handler
from acai_desktop.commands.arguments import add_common_arguments
from benchmarks.commands import bench, eval


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="python -m benchmarks",
        description="ACAI Desktop's benchmarks and developer evaluations (not installed "
        "with the app; run from the repository).",
    )
    add_common_arguments(parser, store=False)
    subparsers = parser.add_subparsers(dest="command", metavar="COMMAND", required=True)
    bench.add_parser(subparsers)
    eval.add_parser(subparsers)
    return parser


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    args = parse_arguments(build_parser(), argv)
    return run_handler(args.handler, args)
