"""Opening a file the user named, or one found in a folder they chose: regular files only.

A named pipe called ``notes.txt`` would block ``open()`` until something writes to it
(a folder's indexing, an attachment or an import hung, and quitting waited for it);
reading a device never ends; a symbolic link that loops fails with ELOOP. So a file is
opened without blocking (``O_NONBLOCK``: a pipe opens at once), checked on the open
descriptor (no gap between the check and the read for another file to slip into), and
refused with an :class:`OSError` whose ``strerror`` says what it is instead. The
callers' own ``except OSError`` turn that into their one-line refusal.
"""

from __future__ import annotations

import errno
import os
import stat
from pathlib import Path
from typing import BinaryIO

#: Said of a symbolic link that leads back to itself (directly or through others).
LOOP = "a symbolic link that loops (it leads back to itself)"


class NotRegularFileError(OSError):
    """The path is a pipe, a device, a socket or a folder, or a link that loops."""

    def __init__(self, path: str | Path, what: str) -> None:
        super().__init__(errno.EINVAL, what, str(path))


def file_type_name(mode: int) -> str | None:
    """What a non-regular file is, in words ("a named pipe (FIFO)"); None for a regular one."""
    if stat.S_ISREG(mode):
        return None
    if stat.S_ISDIR(mode):
        return "a folder"
    if stat.S_ISFIFO(mode):
        return "a named pipe (FIFO), not a regular file"
    if stat.S_ISSOCK(mode):
        return "a socket, not a regular file"
    if stat.S_ISCHR(mode) or stat.S_ISBLK(mode):
        return "a device, not a regular file"
    return "not a regular file"


def why_not_regular(path: str | Path) -> str | None:
    """Why ``path`` (its links followed) can't be read as a file, or None if it can.
    Missing files and permissions are the caller's to find when it opens the file."""
    try:
        mode = os.stat(path).st_mode
    except OSError as error:
        return LOOP if error.errno == errno.ELOOP else None
    return file_type_name(mode)


def open_regular(path: str | Path) -> BinaryIO:
    """``path`` opened for reading in binary, if it is a regular file (links followed);
    else :class:`NotRegularFileError`. Other failures are the usual OSErrors."""
    flags = os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_BINARY", 0)
    try:
        descriptor = os.open(path, flags)
    except OSError as error:
        if error.errno == errno.ELOOP:
            raise NotRegularFileError(path, LOOP) from None
        raise
    try:
        what = file_type_name(os.fstat(descriptor).st_mode)
        if what is not None:
            raise NotRegularFileError(path, what)
        if hasattr(os, "set_blocking"):
            os.set_blocking(descriptor, True)  # reads of a regular file as usual
        return os.fdopen(descriptor, "rb")
    except BaseException:
        os.close(descriptor)
        raise
