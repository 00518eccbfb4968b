"""A read-only connection of a profile, on a thread of its own, for the fast reads.

The writer (:class:`~acai_desktop.core.store.database.Store`) runs every write, one
after another, on its thread; a search queued behind a write (an import's batch, a
learning job's transaction) used to wait for it. WAL lets a reader run beside the
writer, so retrieval's reads go to this connection instead (see docs/architecture.md,
"Storage and concurrency").

Every call is one read transaction (``BEGIN`` ... ``ROLLBACK``: it wrote nothing):

- its statements all see one snapshot of the database, as they did when they queued on
  the writer's thread between two writes;
- the snapshot begins at the call's first statement and ends with the call, so a call
  sees every write committed before it started: a memory the app has just added (its
  write awaited) is found by the next search. No snapshot is held between calls.

The connection is opened (``mode=ro``) on the reader's thread at its first call, so
a command that never searches opens none.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import TypeVar

from acai_desktop.core.store.connection import Database

T = TypeVar("T")


def read_only_connection(path: Path | str, busy_timeout_ms: int) -> Database:
    """A connection that cannot write to ``path`` (SQLite's ``mode=ro``); statements
    run in autocommit unless a call opens a transaction."""
    uri = Path(path).absolute().as_uri() + "?mode=ro"
    connection = sqlite3.connect(
        uri, uri=True, timeout=busy_timeout_ms / 1000, isolation_level=None
    )
    db = Database(connection)
    db.execute(f"PRAGMA busy_timeout = {busy_timeout_ms}")
    return db


class Reader:
    """One read-only connection and the one thread that uses it."""

    def __init__(self, path: Path | str, busy_timeout_ms: int) -> None:
        self.path = path
        self._busy_timeout_ms = busy_timeout_ms
        self._executor = ThreadPoolExecutor(max_workers=1, thread_name_prefix="acai-db-read")
        self._db: Database | None = None
        self._closed = False

    @property
    def executor(self) -> ThreadPoolExecutor:
        return self._executor

    def call(self, fn: Callable[..., T], *args, **kwargs) -> T:
        """``fn(db, *args, **kwargs)`` in one read transaction; runs on the reader's thread."""
        if self._closed:
            raise sqlite3.ProgrammingError("the reader is closed")
        if self._db is None:
            self._db = read_only_connection(self.path, self._busy_timeout_ms)
        conn = self._db.conn
        conn.execute("BEGIN")
        try:
            return fn(self._db, *args, **kwargs)
        finally:
            # A read transaction has nothing to keep: ending it releases the snapshot.
            conn.rollback()

    def close_connection(self) -> None:
        """Close the connection; runs on the reader's thread (then shut the executor down)."""
        self._closed = True
        if self._db is not None:
            self._db.close()
            self._db = None
