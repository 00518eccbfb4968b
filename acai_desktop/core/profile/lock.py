"""One running assistant per profile.

Two processes on one profile would each think the other's work was interrupted: at
start-up the second one requeues the jobs the first is running (duplicate summaries,
facts reinforced twice) and marks its streaming answer as stopped. An exclusive lock on
a file in the data dir prevents that; the operating system drops it when the process
ends, even by SIGKILL, so a crash never leaves a stale lock behind. The ``memories``
command doesn't take it: its writes are ordinary transactions, safe beside the app.
"""

from __future__ import annotations

import logging
import os
from pathlib import Path

from acai_desktop.core.errors import StoreError

log = logging.getLogger(__name__)

LOCK_FILE = "acai.lock"

try:
    import fcntl
except ImportError:  # Windows: msvcrt below
    fcntl = None


class ProfileInUseError(StoreError):
    """Another ACAI Desktop process (the window, a chat) holds the profile's lock."""


class ProfileLock:
    def __init__(self, data_dir: Path) -> None:
        self.path = Path(data_dir) / LOCK_FILE
        self._file = None

    def acquire(self) -> ProfileLock:
        if self.try_acquire() is None:
            raise ProfileInUseError(
                f"This profile ({self.path.parent}) is already open in another ACAI Desktop "
                f"(process {self.holder()}). Close that one first, or use another --data-dir."
            )
        return self

    def try_acquire(self) -> ProfileLock | None:
        """The lock, or None when another process holds it (the ``docs`` command then
        works beside that process instead of owning the profile)."""
        try:
            handle = open(self.path, "a+", encoding="utf-8")  # noqa: SIM115 (held until release)
        except OSError as error:
            raise StoreError(
                f"ACAI Desktop cannot write in its data directory {self.path.parent} "
                f"({error.strerror or error}): it is read-only or not yours. Check its "
                "permissions, or choose another data directory (--data-dir)."
            ) from None
        try:
            _lock(handle)
        except OSError:
            handle.close()
            return None
        handle.seek(0)
        handle.truncate()
        handle.write(str(os.getpid()))
        handle.flush()
        self._file = handle
        return self

    def holder(self) -> str:
        """The process id the lock file names ("unknown" if it can't be read)."""
        try:
            return self.path.read_text(encoding="utf-8").strip() or "unknown"
        except OSError:
            return "unknown"

    def release(self) -> None:
        if self._file is not None:
            self._file.close()  # closing the descriptor drops the lock
            self._file = None


def _lock(handle) -> None:
    if fcntl is not None:
        fcntl.flock(handle.fileno(), fcntl.LOCK_EX | fcntl.LOCK_NB)
        return
    import msvcrt

    handle.seek(0)
    msvcrt.locking(handle.fileno(), msvcrt.LK_NBLCK, 1)
