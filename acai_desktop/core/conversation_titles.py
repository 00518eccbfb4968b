"""The rule for a conversation title the user types (the store enforces it; the rename
dialog checks it first, so it lives outside the store, where the UI may import it)."""

from __future__ import annotations

from acai_desktop.core.errors import InvalidInputError

MAX_TITLE_CHARS = 200


def clean_title(title: object) -> str:
    """A title the user typed: one line, not empty, at most MAX_TITLE_CHARS characters."""
    if not isinstance(title, str):
        raise InvalidInputError("A conversation title must be text.")
    line = " ".join(title.split())
    if not line:
        raise InvalidInputError("A conversation title can't be empty.")
    if len(line) > MAX_TITLE_CHARS:
        raise InvalidInputError(
            f"A conversation title can be at most {MAX_TITLE_CHARS} characters "
            f"(this one has {len(line)})."
        )
    return line
