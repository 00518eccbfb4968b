"""Text the command line prints is plain text on the user's terminal.

A model's answer, a title it wrote, a memory, a server's error text: any of them may
hold terminal escape sequences (``ESC ] 0 ; title BEL`` sets the window title,
``ESC [ 2 J`` clears the screen, ``\\r`` overwrites a line to hide what it said). The
command line's standard output and error pass :func:`for_terminal` once, at the streams
(:func:`plain_text_streams`, installed by ``cli.main``), so no command can forget it.
Newlines and tabs stay; the data itself (the database, an export file) is not touched.
JSON output is not changed either: it escapes control characters already.
"""

from __future__ import annotations

import re
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from typing import TextIO

# A whole escape sequence goes, not just its ESC (a stray "[31m" would be left), then
# every other control character but tab and newline: C0, DEL and C1.
_CONTROL = re.compile(
    r"""
      \x1b\[[0-?]*[\x20-/]*[@-~]?           # CSI: colours, cursor moves, clearing
    | \x1b\][^\x07\x1b]*(?:\x07|\x1b\\)?    # OSC: window title, hyperlinks, clipboard
    | \x1b[PX^_][^\x1b]*(?:\x1b\\)?         # DCS, SOS, PM, APC strings
    | \x1b[\x20-/]*[0-~]?                   # other ESC sequences (charset, keypad…)
    | \x9b[0-?]*[\x20-/]*[@-~]?             # the one-byte CSI
    | [\x00-\x08\x0b-\x1f\x7f-\x9f]         # every other control character
    """,
    re.VERBOSE,
)


def for_terminal(text: str) -> str:
    """``text`` without escape sequences or control characters (tab and newline kept)."""
    return _CONTROL.sub("", text)


class PlainTextStream:
    """A text stream whose writes pass :func:`for_terminal`; the rest is the stream's."""

    def __init__(self, stream: TextIO) -> None:
        self._stream = stream

    def write(self, text: str) -> int:
        self._stream.write(for_terminal(text))
        return len(text)

    def writelines(self, lines) -> None:
        for line in lines:
            self.write(line)

    def __getattr__(self, name: str):
        return getattr(self._stream, name)


@contextmanager
def plain_text_streams() -> Iterator[None]:
    """``sys.stdout`` and ``sys.stderr`` as :class:`PlainTextStream` meanwhile."""
    saved = sys.stdout, sys.stderr
    sys.stdout, sys.stderr = PlainTextStream(sys.stdout), PlainTextStream(sys.stderr)
    try:
        yield
    finally:
        sys.stdout, sys.stderr = saved
