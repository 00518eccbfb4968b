"""Reading a file the user names as UTF-8 text, every failure one plain line.

Used by the imports (memories, ChatGPT and Claude exports); ``nothing`` finishes the line
with what did not happen ("nothing was changed"), and the error's type is the caller's.
"""

from __future__ import annotations

from pathlib import Path

from acai_desktop.core.errors import InvalidInputError
from acai_desktop.core.regular_files import NotRegularFileError, open_regular


def read_utf8(
    path: str | Path,
    nothing: str,
    error: type[InvalidInputError] = InvalidInputError,
) -> str:
    """The file's text (a UTF-8 byte-order mark dropped), or ``error`` saying why not:
    missing, unreadable, or not UTF-8 (with the first bad byte's offset)."""
    path = Path(path)
    try:
        with open_regular(path) as handle:  # a named pipe would block for ever
            raw = handle.read()
    except NotRegularFileError as failure:
        raise error(f"{path} is {failure.strerror}; {nothing}.") from None
    except FileNotFoundError:
        raise error(f"No such file: {path}") from None
    except OSError as failure:
        raise error(f"Cannot read {path}: {failure.strerror}") from None
    try:
        return raw.decode("utf-8-sig")
    except UnicodeDecodeError as failure:
        raise error(
            f"{path} is not UTF-8 text (bad byte at offset {failure.start}); {nothing}."
        ) from None
