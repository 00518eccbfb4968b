"""A consistent copy of a profile's database, taken without writing to the profile.

``--self-test`` runs on such a copy: it sends a message, saves a note and lets the
processors learn, none of which may land in the user's own memories. The copy is taken
with SQLite's online backup from a query-only connection, so it is consistent even while
the app runs on the same profile, and the original is neither locked for long nor changed.
"""

from __future__ import annotations

import sqlite3
from dataclasses import dataclass
from pathlib import Path

from acai_desktop.core.errors import StoreError

COUNTED_TABLES = ("conversations", "messages", "memories")


@dataclass(frozen=True)
class SnapshotSummary:
    source: Path
    exists: bool  # False: a fresh profile, nothing to copy
    counts: dict[str, int]

    def describe(self) -> str:
        if not self.exists:
            return f"{self.source} holds no database yet (a fresh profile); tested on an empty one"
        counted = ", ".join(f"{count} {table}" for table, count in self.counts.items())
        return f"read {self.source} ({counted}); tested on a copy, the profile is not written"


def _reader(path: Path) -> sqlite3.Connection:
    """A connection that cannot change the data. An ordinary one (made query-only) when
    possible: like the app's own, it removes SQLite's -wal and -shm side files when it
    closes last, leaving the folder as it found it; else a read-only one (a read-only
    folder), which may leave those side files behind."""
    try:
        connection = sqlite3.connect(path)
        connection.execute("PRAGMA query_only = ON")
        connection.execute("SELECT count(*) FROM sqlite_master").fetchone()
        return connection
    except sqlite3.OperationalError:
        return sqlite3.connect(f"{path.resolve().as_uri()}?mode=ro", uri=True)


def snapshot_database(source: Path, target: Path) -> SnapshotSummary:
    """Copy the database at ``source`` to ``target`` (a new file); count what it holds."""
    if source.parent.exists() and not source.parent.is_dir():
        raise StoreError(f"The profile directory {source.parent} is a file, not a directory.")
    if not source.exists():
        return SnapshotSummary(source, False, {})
    try:
        original = _reader(source)
        try:
            copy = sqlite3.connect(target)
            try:
                original.backup(copy)
                check = copy.execute("PRAGMA quick_check").fetchone()[0]
                counts = {}
                for table in COUNTED_TABLES:
                    try:
                        counts[table] = copy.execute(f"SELECT count(*) FROM {table}").fetchone()[0]
                    except sqlite3.OperationalError:
                        counts[table] = 0  # an older schema; opening the copy migrates it
            finally:
                copy.close()
        finally:
            original.close()
    except sqlite3.Error as error:
        raise StoreError(f"Could not read the database {source}: {error}") from error
    if check != "ok":
        raise StoreError(f"The database {source} is damaged: {check}")
    return SnapshotSummary(source, True, counts)
