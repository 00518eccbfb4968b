"""Text for the status bar."""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Callable, Iterator


def short(text: str, limit: int = 48) -> str:
    """One line of a memory's text, for the status bar."""
    line = " ".join(text.split())
    return line if len(line) <= limit else line[: limit - 1] + "…"


@contextlib.contextmanager
def progress_in_status_bar(show_status: Callable[[str], None]) -> Iterator[None]:
    """Progress lines (an old profile's database being updated: a minute for a large
    one) in the status bar, from whichever thread says them."""
    from acai_desktop.core.profile.upgrade_progress import progress_log

    loop = asyncio.get_running_loop()

    class StatusBar(logging.Handler):
        def emit(self, record: logging.LogRecord) -> None:
            loop.call_soon_threadsafe(show_status, record.getMessage())

    handler = StatusBar(logging.INFO)
    progress_log.addHandler(handler)
    progress_log.setLevel(logging.INFO)
    try:
        yield
    finally:
        progress_log.removeHandler(handler)
