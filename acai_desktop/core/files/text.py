"""Reading a file the user names as UTF-8 text, every failure one plain line.

Used by the imports (memories, ChatGPT and Claude exports); ``nothing`` finishes the line
with what did not happen ("nothing was changed"), and the error's type is the caller's.
"""

from __future__ import annotations

import os
from pathlib import Path

from acai_desktop.core.errors import InvalidInputError
from acai_desktop.core.files.regular import NotRegularFileError, open_regular

#: The largest file an import reads. It is read whole and parsed in memory, which takes
#: about twice the file's size on top of it (a 2 GB export needed 4.5 GB of RAM): a
#: larger one is refused before it is read, with this limit named.
MAX_IMPORT_BYTES = 1536 * 1024 * 1024
MAX_IMPORT_LABEL = "1.5 GB"


def read_utf8(
    path: str | Path,
    nothing: str,
    error: type[InvalidInputError] = InvalidInputError,
) -> str:
    """The file's text (a UTF-8 byte-order mark dropped), or ``error`` saying why not:
    missing, unreadable, not a regular file, over :data:`MAX_IMPORT_BYTES`, or not
    UTF-8 (with the first bad byte's offset)."""
    path = Path(path)
    try:
        with open_regular(path) as handle:  # a named pipe would block for ever
            size = os.fstat(handle.fileno()).st_size
            if size > MAX_IMPORT_BYTES:
                raise error(
                    f"{path} is {size / 1024**3:.1f} GB; an import reads files of up to "
                    f"{MAX_IMPORT_LABEL} (it holds the whole file in memory, about three "
                    f"times its size); {nothing}."
                )
            raw = handle.read(MAX_IMPORT_BYTES + 1)
        if len(raw) > MAX_IMPORT_BYTES:  # it grew since it was opened
            raise error(f"{path} is over {MAX_IMPORT_LABEL}, the limit of an import; {nothing}.")
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
