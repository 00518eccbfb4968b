"""The command line. With no command, ``acai-desktop`` opens the window.

Each sub-command lives in ``acai_desktop.commands.<name>`` and exposes
``add_parser(subparsers)``, which registers its parser and sets ``handler`` to a
function taking the parsed arguments and returning the exit code.
"""

from __future__ import annotations

import argparse
import importlib
import logging
import os
import sys
from collections.abc import Callable

from acai_desktop import __version__
from acai_desktop.commands import self_test
from acai_desktop.commands.arguments import add_common_arguments
from acai_desktop.commands.terminal import plain_text_streams
from acai_desktop.core.errors import AcaiError
from acai_desktop.core.models.local_server_process import SERVE_LOCAL_MODEL_FLAG
from acai_desktop.core.profile.upgrade_progress import PROGRESS_LOGGER
from acai_desktop.core.redaction import install_log_redaction, redact

#: 128 + SIGPIPE: what a shell reports for a writer whose reader went away.
BROKEN_PIPE_STATUS = 141
# Sub-command modules in acai_desktop.commands, in the order --help lists them. The
# benchmarks and developer evaluations are ``python -m benchmarks`` (not in the product).
COMMAND_MODULES = (
    "gui", "memories", "docs", "conversations", "import_chats", "mcp", "chat", "jobs",
    "models",
)  # fmt: skip
#: The command each module registers, where its name differs from the module's.
COMMAND_NAMES = {"import_chats": "import"}


def build_parser(argv: list[str] | None = None) -> argparse.ArgumentParser:
    """The whole command line; given the arguments to parse, only what they need: the
    command they start with (or none, for the window with no arguments). Every start of
    the window built all eight commands' parsers (issue 22, start-up from outside)."""
    parser = argparse.ArgumentParser(
        prog="acai-desktop",
        description="ACAI Desktop: a desktop assistant that remembers. "
        "With no command it opens the chat window.",
    )
    parser.add_argument("--version", action="version", version=f"acai-desktop {__version__}")
    add_common_arguments(parser)
    self_test.add_arguments(parser)
    subparsers = parser.add_subparsers(dest="command", metavar="COMMAND")
    for name in _command_modules_for(argv):
        try:
            module = importlib.import_module(f"acai_desktop.commands.{name}")
        except ModuleNotFoundError as error:
            if error.name != f"acai_desktop.commands.{name}":
                raise
            continue
        module.add_parser(subparsers)
    return parser


def _command_modules_for(argv: list[str] | None) -> tuple[str, ...]:
    """Every command module, unless ``argv`` is empty (the window, no command) or starts
    with a command: then that one only (its errors and help are the same)."""
    if argv is None:
        return COMMAND_MODULES
    if not argv:
        return ()
    for module in COMMAND_MODULES:
        if argv[0] == COMMAND_NAMES.get(module, module):
            return (module,)
    return COMMAND_MODULES


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    if argv[:1] == [SERVE_LOCAL_MODEL_FLAG]:
        # The frozen app started as its own local model server (LocalModelServer.launcher).
        from acai_desktop.core.models import local_server_process

        local_server_process.main(argv[1:])
        return 0
    # What a command prints may quote a model or a server: no escape sequence of theirs
    # reaches the user's terminal (the log handlers, set up below, write through it too).
    with plain_text_streams():
        return _main(argv)


def _main(argv: list[str]) -> int:
    parser = build_parser(argv)
    args = parse_arguments(parser, argv)
    handler = getattr(args, "handler", None)
    if args.self_test:
        if handler is not None:
            parser.error("--self-test runs by itself, without a command")
        handler = self_test.run
    elif args.self_test_json and handler is None:
        parser.error("--json goes with --self-test (or with a command that has it)")
    if handler is None:
        gui = importlib.import_module("acai_desktop.commands.gui")
        handler = gui.run
    return run_handler(handler, args)


def parse_arguments(parser: argparse.ArgumentParser, argv: list[str]) -> argparse.Namespace:
    """Parse ``argv`` and set up logging as every command expects it."""
    args = parser.parse_args(argv)
    args.data_dir = getattr(args, "data_dir", None)
    logging.basicConfig(
        level=getattr(args, "log_level", "WARNING").upper(),
        format="%(asctime)s %(levelname)s %(name)s: %(message)s",
    )
    install_log_redaction()  # a server's error body may echo the API key
    _print_progress_on_stderr()
    return args


def run_handler(handler: Callable[[argparse.Namespace], int | None], args) -> int:
    """Run a command's handler: its exit code, or 2 with a one-line error for bad input
    or an environment problem (``AcaiError``), 130 on Ctrl+C, 141 for a closed pipe."""
    try:
        code = int(handler(args) or 0)
        sys.stdout.flush()  # here, where a closed pipe is caught, not at exit
        return code
    except AcaiError as error:
        print(f"acai-desktop: error: {redact(str(error))}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        return 130
    except BrokenPipeError:
        return _reader_went_away()


def _print_progress_on_stderr() -> None:
    """Long operations (updating an old profile's database) say how far they are on
    stderr, one plain line each, whatever the --log-level."""
    handler = logging.StreamHandler(sys.stderr)
    handler.setFormatter(logging.Formatter("acai-desktop: %(message)s"))
    progress = logging.getLogger(PROGRESS_LOGGER)
    progress.addHandler(handler)
    progress.setLevel(logging.INFO)
    progress.propagate = False


def _reader_went_away() -> int:
    """The program reading our output stopped early (``... | head``): what it read was
    whole and nothing was changed by printing, so end quietly, as ``git log | head``
    does, with the status of a process ended by SIGPIPE."""
    # Python would flush stdout again at exit and complain: point it at nothing.
    devnull = os.open(os.devnull, os.O_WRONLY)
    os.dup2(devnull, sys.stdout.fileno())
    os.close(devnull)
    return BROKEN_PIPE_STATUS
