"""The one SQLite connection of a profile, and the one thread allowed to touch it.

Every blocking database call goes through :meth:`Store.run`, which hands it to a
dedicated single-thread executor. The connection is created on that thread, so SQLite
is only ever used from there, and the asyncio (Qt) loop never waits on disk.

Every write transaction starts with ``BEGIN IMMEDIATE`` (:meth:`ImmediateDatabase.atomic`).
Our transactions read, then write; begun deferred, the read takes a snapshot, and when
another process commits meanwhile the write can't proceed: SQLite answers "database is
locked" at once, without waiting out the busy timeout (14 of 48 parallel ``memories
add`` failed so). Taking the write lock first makes a second writer wait its turn.

And it waits patiently: when another process of the app holds the lock past the busy
timeout (an import between two of its batches on a loaded machine, a checkpoint), the
``BEGIN IMMEDIATE`` is tried again, off the loop, for up to PATIENT_WRITE_SECONDS before
the error reaches the user. Retrying only the ``BEGIN`` is always safe: a transaction
that could not begin wrote nothing.
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import itertools
import logging
import sqlite3
import time
from collections.abc import Callable, Iterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import ParamSpec, TypeVar

from sqlite_utils import Database

from acai_desktop.core.errors import StoreError
from acai_desktop.core.store.migrations import migrations
from acai_desktop.core.store.private_files import make_private

log = logging.getLogger(__name__)

P = ParamSpec("P")
T = TypeVar("T")

BUSY_TIMEOUT_MS = 5000
#: How long a write transaction keeps trying to begin while another program holds the
#: database (a large import, a checkpoint), beyond the first attempt's busy timeout.
PATIENT_WRITE_SECONDS = 60.0
#: The longest pause between two attempts to begin a write transaction.
_LONGEST_PAUSE_SECONDS = 0.5
_savepoint_names = itertools.count(1)


class DatabaseBusyError(StoreError):
    """Another connection held the database longer than a write waits for it (the busy
    timeout, and for a write transaction PATIENT_WRITE_SECONDS); trying again later may
    succeed."""


def is_busy(error: sqlite3.Error) -> bool:
    """SQLITE_BUSY or SQLITE_LOCKED (any extended code), sorted by code, not by text."""
    code = getattr(error, "sqlite_errorcode", None)
    return code is not None and code & 0xFF in (sqlite3.SQLITE_BUSY, sqlite3.SQLITE_LOCKED)


class ImmediateDatabase(Database):
    """sqlite-utils' Database whose transactions take the write lock when they begin."""

    @contextlib.contextmanager
    def atomic(self) -> Iterator[ImmediateDatabase]:
        """One transaction (``BEGIN IMMEDIATE`` ... ``COMMIT``), or a savepoint inside one."""
        conn = self.conn
        if conn.in_transaction:
            name = f"acai_{next(_savepoint_names)}"
            conn.execute(f"SAVEPOINT {name}")
            try:
                yield self
            except BaseException:
                # An error may have ended the whole transaction already; then there is
                # no savepoint left to roll back to, and the original error must show.
                if conn.in_transaction:
                    conn.execute(f"ROLLBACK TO {name}")
                    conn.execute(f"RELEASE {name}")
                raise
            conn.execute(f"RELEASE {name}")
            return
        begin_patiently(conn)
        try:
            yield self
        except BaseException:
            conn.rollback()
            raise
        try:
            conn.commit()
        except BaseException:
            conn.rollback()
            raise


def begin_patiently(conn: sqlite3.Connection) -> None:
    """``BEGIN IMMEDIATE``, tried again while another connection holds the write lock,
    for up to PATIENT_WRITE_SECONDS (each try first waits out the busy timeout)."""
    deadline = time.monotonic() + PATIENT_WRITE_SECONDS
    pause = 0.05
    while True:
        try:
            conn.execute("BEGIN IMMEDIATE")
            return
        except sqlite3.OperationalError as error:
            if not is_busy(error) or time.monotonic() >= deadline:
                raise
        log.info("database busy; trying to begin the write again in %.2fs", pause)
        time.sleep(pause)  # on the database thread: the loop goes on meanwhile
        pause = min(pause * 2, _LONGEST_PAUSE_SECONDS)


def translate_sqlite_error(error: sqlite3.Error, path: Path | str) -> StoreError | None:
    """SQLite's error as a message that tells the user what to do — when it is the
    environment's fault (disk full, read-only, locked, damaged file) — or None when it
    is our bug (bad SQL, a broken constraint), which must be raised as it is.

    Sorted by SQLite's result code, never by the message text (which changes between
    SQLite versions and languages)."""
    code = getattr(error, "sqlite_errorcode", None)
    if code is None:
        return None  # not from SQLite itself: a closed connection, a bad parameter type
    if is_busy(error):
        # Its own type: a caller that must not lose what it writes tries again.
        return DatabaseBusyError(_LOCKED.format(path=path))
    explain = _ENVIRONMENT_ERRORS.get(code & 0xFF)  # the primary code of an extended one
    return StoreError(explain(path, error)) if explain else None


def _damaged(path: Path | str, error: sqlite3.Error) -> str:
    return (
        f"The database {path} is damaged or is not an ACAI Desktop database ({error}). "
        "Nothing was changed. Restore it from a backup, or start with another --data-dir."
    )


_READ_ONLY = (
    "The database {path} is read-only, so nothing can be saved. Check the permissions "
    "of the file and its folder, or choose another data directory (--data-dir)."
)
# In WAL mode SQLite must create -wal and -shm files beside the database, so a
# read-only folder fails with "cannot open" rather than "read-only".
_CANNOT_OPEN = (
    "The database {path} cannot be opened: the file or its folder is missing or "
    "read-only (SQLite keeps journal files beside the database). Check the permissions, "
    "or choose another data directory (--data-dir)."
)
_LOCKED = (
    "The database {path} is busy: another program (or another ACAI Desktop command, such "
    "as an import) is writing to it. Try again in a moment."
)
_ENVIRONMENT_ERRORS = {
    sqlite3.SQLITE_PROTOCOL: lambda path, error: _LOCKED.format(path=path),
    sqlite3.SQLITE_READONLY: lambda path, error: _READ_ONLY.format(path=path),
    sqlite3.SQLITE_PERM: lambda path, error: _READ_ONLY.format(path=path),
    sqlite3.SQLITE_CANTOPEN: lambda path, error: _CANNOT_OPEN.format(path=path),
    sqlite3.SQLITE_FULL: lambda path, error: (
        f"The disk holding {path} is full, so nothing more can be saved. Free some "
        "space, then try again."
    ),
    sqlite3.SQLITE_IOERR: lambda path, error: (
        f"The disk could not read or write {path} ({error}). Check the disk, then try again."
    ),
    sqlite3.SQLITE_NOMEM: lambda path, error: (
        "The computer ran out of memory for the database; close some programs and try again."
    ),
    sqlite3.SQLITE_NOLFS: lambda path, error: (
        f"The file system holding {path} cannot store a file this large."
    ),
    sqlite3.SQLITE_CORRUPT: _damaged,
    sqlite3.SQLITE_NOTADB: _damaged,
}


def connect(path: Path | str) -> Database:
    """Open (and migrate) the database file. Runs on the database thread."""
    try:
        make_private(path)
        # isolation_level IMMEDIATE: even a write made outside ``atomic()`` (whose
        # transaction Python opens implicitly) takes the write lock first.
        connection = sqlite3.connect(
            str(path), timeout=BUSY_TIMEOUT_MS / 1000, isolation_level="IMMEDIATE"
        )
        db = ImmediateDatabase(connection)
        db.execute(f"PRAGMA busy_timeout = {BUSY_TIMEOUT_MS}")
        db.execute("PRAGMA foreign_keys = ON")
        if str(path) != ":memory:":
            mode = db.execute("PRAGMA journal_mode = WAL").fetchone()[0]
            if mode.lower() != "wal":
                log.warning("SQLite refused WAL mode for %s (got %s)", path, mode)
        db.execute("PRAGMA synchronous = NORMAL")
        if migrations.pending(db):
            # Under the write lock, so two processes opening an old profile at once don't
            # both apply the same migration (the second would fail half-way).
            with db.atomic():
                migrations.apply(db)
        return db
    except sqlite3.Error as error:
        translated = translate_sqlite_error(error, path)
        if translated is None:
            raise
        raise translated from error


class Store:
    """Owns the connection and its thread. Repositories call :meth:`run`."""

    def __init__(self, path: Path | str) -> None:
        self.path = path
        self._executor = ThreadPoolExecutor(max_workers=1, thread_name_prefix="acai-db")
        self._db: Database | None = None

    @classmethod
    async def open(cls, path: Path | str) -> Store:
        store = cls(path)
        loop = asyncio.get_running_loop()
        try:
            store._db = await loop.run_in_executor(store._executor, connect, path)
        except BaseException:
            store._executor.shutdown(wait=False)
            raise
        return store

    async def run(self, fn: Callable[..., T], *args, **kwargs) -> T:
        """Run ``fn(db, *args, **kwargs)`` on the database thread and return its result.

        ``fn`` should wrap writes that belong together in ``db.atomic()``. SQLite errors
        that are the environment's fault (read-only, full, locked, damaged) come back as
        :class:`StoreError` with a readable message; the others are bugs and raise as is.
        """
        return await self.submit(fn, *args, **kwargs)

    def submit(self, fn: Callable[..., T], *args, **kwargs) -> asyncio.Future[T]:
        """Like :meth:`run`, but ``fn`` is queued at once and the future is returned,
        so the caller can work on the loop while the database thread runs it."""
        if self._db is None:
            raise StoreError("The database is closed.")
        db = self._db
        loop = asyncio.get_running_loop()
        call = functools.partial(self._call, fn, db, *args, **kwargs)
        return loop.run_in_executor(self._executor, call)

    def _call(self, fn: Callable[..., T], db: Database, *args, **kwargs) -> T:
        try:
            return fn(db, *args, **kwargs)
        except sqlite3.Error as error:
            translated = translate_sqlite_error(error, self.path)
            if translated is None:
                raise  # our bug: its own traceback says where
            raise translated from error

    async def close(self) -> None:
        if self._db is None:
            return
        db, self._db = self._db, None
        loop = asyncio.get_running_loop()

        def finish() -> None:
            # Fold the WAL back into the main file so a copied data dir is complete.
            try:
                db.execute("PRAGMA wal_checkpoint(TRUNCATE)")
            except sqlite3.Error as error:
                if translate_sqlite_error(error, self.path) is None:
                    db.close()
                    raise  # our bug
                # Read-only or busy: the WAL stays beside the database, whose data is
                # whole with it; the next writable open folds it back.
                log.info("WAL left unfolded on close (%s)", error)
            db.close()

        try:
            await loop.run_in_executor(self._executor, finish)
        finally:
            self._executor.shutdown(wait=True)
