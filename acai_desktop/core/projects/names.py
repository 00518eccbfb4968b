"""A project's name: the one rule the store applies and the window's dialog checks first
(it imports this without the store)."""

from __future__ import annotations

from acai_desktop.core.errors import InvalidInputError

#: Longest project name, in characters.
MAX_PROJECT_NAME_CHARS = 80


def clean_project_name(name: object) -> str:
    """The name on one line, spaces folded; InvalidInputError for none or too long."""
    text = " ".join(str(name or "").split())
    if not text:
        raise InvalidInputError("A project needs a name.")
    if len(text) > MAX_PROJECT_NAME_CHARS:
        raise InvalidInputError(
            f"The project name is {len(text)} characters long; the limit is "
            f"{MAX_PROJECT_NAME_CHARS}."
        )
    return text
