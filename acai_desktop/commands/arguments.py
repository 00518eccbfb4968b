"""Options every command shares (kept apart from cli.py, which imports the commands:
a command importing cli.py back would make a cycle)."""

from __future__ import annotations

import argparse


def add_common_arguments(parser: argparse.ArgumentParser) -> None:
    """Options every command accepts, before or after the command name."""
    parser.add_argument(
        "--data-dir",
        default=argparse.SUPPRESS,
        help="profile directory (database, settings, logs); default: the platform's "
        "user data directory",
    )
    parser.add_argument(
        "--log-level", default=argparse.SUPPRESS, help="DEBUG, INFO, WARNING (default), ERROR"
    )
