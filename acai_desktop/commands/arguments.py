"""Options every command shares (kept apart from cli.py, which imports the commands:
a command importing cli.py back would make a cycle)."""

from __future__ import annotations

import argparse


def add_common_arguments(parser: argparse.ArgumentParser, *, store: bool = True) -> None:
    """Options every command accepts, before or after the command name (``store``
    False: the benchmarks, whose ``--store`` names a server to measure, not the profile's)."""
    parser.add_argument(
        "--data-dir",
        default=argparse.SUPPRESS,
        help="profile directory (database, settings, logs); default: the platform's "
        "user data directory",
    )
    if store:
        _add_store_argument(parser)
    parser.add_argument(
        "--log-level", default=argparse.SUPPRESS, help="DEBUG, INFO, WARNING (default), ERROR"
    )


def _add_store_argument(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--store",
        default=argparse.SUPPRESS,
        metavar="URL",
        help="where the memory lives for this run: postgresql://USER@HOST[:PORT]/DATABASE "
        "(a PostgreSQL server; the password from the keyring, Settings → Store) or 'local' "
        "(this computer); default: the one chosen in Settings",
    )


def options_of_every_action() -> argparse.ArgumentParser:
    """The parent parser of a command with actions (``docs add``, ``jobs list``…): the
    common options and ``--json``, accepted after the action's name too."""
    common = argparse.ArgumentParser(add_help=False)
    add_common_arguments(common)
    common.add_argument("--json", action="store_true", default=argparse.SUPPRESS, help="print JSON")
    return common


def add_model_arguments(parser: argparse.ArgumentParser, model_help: str) -> None:
    """--provider / --base-url / --model: this run's model, over the saved settings
    (they become ``core.models.choice.ModelOverrides``)."""
    from acai_desktop.core.models.presets import ProviderName

    parser.add_argument("--provider", choices=[p.value for p in ProviderName])
    parser.add_argument("--base-url", help="OpenAI-compatible address, e.g. http://host:port/v1")
    parser.add_argument("--model", help=model_help)


def add_cost_ceiling_argument(parser: argparse.ArgumentParser) -> None:
    """--max-cost: the most a routed answer may cost in this run (over Settings')."""

    def dollars(text: str) -> float:
        try:
            value = float(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"{text!r} is not a number of dollars") from None
        if not value > 0:
            raise argparse.ArgumentTypeError("the most an answer may cost is more than $0")
        return value

    parser.add_argument(
        "--max-cost",
        type=dollars,
        metavar="DOLLARS",
        help="when routing, leave out models whose answer would cost more than this "
        "(default: as set in Settings)",
    )
