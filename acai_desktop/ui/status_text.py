"""Text for the status bar."""

from __future__ import annotations


def short(text: str, limit: int = 48) -> str:
    """One line of a memory's text, for the status bar."""
    line = " ".join(text.split())
    return line if len(line) <= limit else line[: limit - 1] + "…"
