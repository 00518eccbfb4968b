"""What every command's handler does before its own work: find the profile the command
line names and, when the work is a coroutine, run it on a fresh event loop.

    @command_handler
    async def run(args: argparse.Namespace, profile: Profile) -> int: ...

makes ``run`` the plain ``handler(args) -> exit code`` that ``cli.py`` calls.
"""

from __future__ import annotations

import argparse
import asyncio
import functools
from collections.abc import Callable, Coroutine
from typing import Any

from acai_desktop.core.profile.paths import Profile

CommandWork = Callable[[argparse.Namespace, Profile], Coroutine[Any, Any, int]]


def profile_of(args: argparse.Namespace) -> Profile:
    """``--data-dir``, or the platform's default profile (a handler called without the
    parser, as a test may, has no ``data_dir`` at all), with its store: ``--store``, else
    the one saved in Settings (core/profile/store_choice.py)."""
    return Profile.with_store(getattr(args, "data_dir", None), getattr(args, "store", None))


def command_handler(work: CommandWork) -> Callable[[argparse.Namespace], int]:
    """The handler of a command whose work is ``async def work(args, profile)``."""

    @functools.wraps(work)
    def handler(args: argparse.Namespace) -> int:
        return asyncio.run(work(args, profile_of(args)))

    return handler
