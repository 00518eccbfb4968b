"""``acai-desktop gui`` (also the default command): open the chat window."""

from __future__ import annotations

import argparse
import logging
import os
import sys
from typing import NoReturn

from acai_desktop.commands.runner import profile_of
from acai_desktop.core.errors import InvalidInputError

# Smoke tests, screenshots and the frozen-build check start the window and need it
# to quit by itself; the variable reaches the default command, which has no options.
QUIT_AFTER_ENV = "ACAI_DESKTOP_QUIT_AFTER_MS"


def add_parser(subparsers: argparse._SubParsersAction) -> None:
    from acai_desktop.commands.arguments import add_common_arguments

    parser = subparsers.add_parser(
        "gui", help="open the chat window (the default)", description=__doc__
    )
    add_common_arguments(parser)
    parser.add_argument(
        "--quit-after-ms",
        type=int,
        metavar="MS",
        default=None,
        help=(
            "quit by itself MS milliseconds after the profile is open "
            f"(smoke tests; also ${QUIT_AFTER_ENV})"
        ),
    )
    parser.set_defaults(handler=run)


def quit_after_ms(args: argparse.Namespace) -> int | None:
    value = getattr(args, "quit_after_ms", None)
    if value is None and os.environ.get(QUIT_AFTER_ENV):
        try:
            value = int(os.environ[QUIT_AFTER_ENV])
        except ValueError as error:
            raise InvalidInputError(
                f"{QUIT_AFTER_ENV} must be a whole number of milliseconds"
            ) from error
    if value is not None and value < 0:
        raise InvalidInputError("--quit-after-ms must not be negative")
    return value


def run(args: argparse.Namespace) -> NoReturn:
    delay = quit_after_ms(args)
    profile = profile_of(args)
    # Qt loads only when the window is wanted: `--help` and the other commands
    # start without it.
    from acai_desktop.ui.app import run_gui

    end_process(run_gui(profile, quit_after_ms=delay, process_ends=True))


def end_process(code: int) -> NoReturn:
    """End the program once the window has shut down, without tearing the interpreter
    down. By then everything the app opened is closed (tasks cancelled and awaited, the
    database and the model client closed, the local model server stopped: see
    ui/session.py), and output is flushed here; what is left is freeing every object of
    Qt, numpy, openai… one by one, which took longer than the whole start of the window
    (issue 22: start-up measured as a whole process, open and quit)."""
    logging.shutdown()
    sys.stdout.flush()
    sys.stderr.flush()
    os._exit(code)
