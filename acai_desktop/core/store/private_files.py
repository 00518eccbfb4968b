"""The database and its journal files are readable by their owner only (0600).

SQLite creates a new database with the umask's mode (often 0644) and gives its -wal and
-shm files the mode of the database file. So the file is created 0600 before SQLite
opens it (an empty file is a valid empty database), and an older profile's files are
tightened; the journal files then follow.
"""

from __future__ import annotations

import logging
import os
import stat
from pathlib import Path

log = logging.getLogger(__name__)

PRIVATE_FILE_MODE = 0o600
JOURNAL_SUFFIXES = ("-wal", "-shm", "-journal")


def make_private(path: Path | str) -> None:
    """Create ``path`` 0600 if missing; take group and other access off it and its journal
    files. Failures are left for SQLite to report (a read-only folder, say)."""
    if str(path) == ":memory:" or str(path).startswith("file:"):
        return
    path = Path(path)
    try:
        os.close(os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, PRIVATE_FILE_MODE))
    except FileExistsError:
        pass
    except OSError as error:
        log.debug("could not create %s ahead of SQLite: %s", path, error)
        return
    for file in (path, *(path.with_name(path.name + suffix) for suffix in JOURNAL_SUFFIXES)):
        try:
            mode = stat.S_IMODE(file.stat().st_mode)
            if mode & 0o077:
                os.chmod(file, mode & ~0o077)
        except FileNotFoundError:
            continue
        except OSError as error:  # read-only media, someone else's file
            log.debug("could not make %s private: %s", file, error)
