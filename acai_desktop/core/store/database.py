"""The one SQLite connection of a profile, and the one thread allowed to touch it.

Every blocking database call goes through :meth:`Store.run`, which hands it to a
dedicated single-thread executor. The connection is created on that thread, so SQLite
is only ever used from there, and the asyncio (Qt) loop never waits on disk.

Every write transaction starts with ``BEGIN IMMEDIATE`` (:meth:`.connection.Database.atomic`).
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
import logging
import sqlite3
import time
from collections.abc import Callable
from concurrent.futures import Future, ThreadPoolExecutor
from pathlib import Path
from typing import ParamSpec, TypeVar

from acai_desktop.core.errors import NewerDatabaseError, StoreError
from acai_desktop.core.profile.upgrade_progress import progress_log
from acai_desktop.core.store.connection import Database, is_busy
from acai_desktop.core.store.dialect import SQLITE
from acai_desktop.core.store.migrations import migrations
from acai_desktop.core.store.private_files import make_private
from acai_desktop.core.store.reader import Reader

log = logging.getLogger(__name__)
#: While migrating, SQLite calls back every this many virtual-machine steps; a line
#: of progress is written at most every MIGRATION_REPORT_SECONDS.
_PROGRESS_STEPS = 100_000
MIGRATION_REPORT_SECONDS = 2.0

P = ParamSpec("P")
T = TypeVar("T")

BUSY_TIMEOUT_MS = 5000


class DatabaseBusyError(StoreError):
    """Another connection held the database longer than a write waits for it (the busy
    timeout, and for a write transaction PATIENT_WRITE_SECONDS); trying again later may
    succeed."""


def translate_sqlite_error(error: sqlite3.Error, path: Path | str) -> StoreError | None:
    """SQLite's error as a message that tells the user what to do — when it is the
    environment's fault (disk full, read-only, locked, damaged file) — or None when it
    is our bug (bad SQL, a broken constraint), which must be raised as it is.

    Sorted by SQLite's result code, never by the message text (which changes between
    SQLite versions and languages)."""
    code = getattr(error, "sqlite_errorcode", None)
    if code is None:
        if isinstance(error, sqlite3.OperationalError):
            # The one OperationalError the sqlite3 module raises itself, reading a row:
            # stored text that is not UTF-8 ("Could not decode to UTF-8"), which only a
            # damaged page (or another program's bytes) can hold.
            return _damaged_text(path)
        return None  # not from SQLite itself: a closed connection, a bad parameter type
    if is_busy(error):
        # Its own type: a caller that must not lose what it writes tries again.
        return DatabaseBusyError(_LOCKED.format(path=path))
    explain = _ENVIRONMENT_ERRORS.get(code & 0xFF)  # the primary code of an extended one
    return StoreError(explain(path, error)) if explain else None


def _damaged(path: Path | str, error: object = None) -> str:
    detail = f" ({error})" if error is not None else ""
    return (
        f"The database {path} is damaged or is not an ACAI Desktop database{detail}. "
        "Nothing was changed. To recover, restore the last good backup of the data "
        "directory, or save what is still readable with `acai-desktop memories export "
        "FILE` and import it into a new profile (`--data-dir NEW memories import FILE`)."
    )


def _damaged_text(path: Path | str) -> StoreError:
    return StoreError(_damaged(path, "some of its text is not valid UTF-8"))


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
        db = Database(connection)
        db.execute(f"PRAGMA busy_timeout = {BUSY_TIMEOUT_MS}")
        _refuse_a_newer_schema(db, path)
        db.execute("PRAGMA foreign_keys = ON")
        if str(path) != ":memory:":
            mode = db.execute("PRAGMA journal_mode = WAL").fetchone()[0]
            if mode.lower() != "wal":
                log.warning("SQLite refused WAL mode for %s (got %s)", path, mode)
        db.execute("PRAGMA synchronous = NORMAL")
        pending = migrations.pending(db)
        if pending:
            # Under the write lock, so two processes opening an old profile at once don't
            # both apply the same migration (the second would fail half-way).
            with db.atomic(), _reporting_progress(connection, path, len(pending)):
                migrations.apply(db)
        return db
    except sqlite3.Error as error:
        translated = translate_sqlite_error(error, path)
        if translated is None:
            raise
        raise translated from error
    except UnicodeDecodeError as error:
        # A damaged schema page: its table definitions are not even text.
        raise _damaged_text(path) from error


def _refuse_a_newer_schema(db: Database, path: Path | str) -> None:
    """Close ``db`` and refuse it when a newer ACAI Desktop migrated it (issue 39 G9): this
    version would write rows without the columns and links the newer one keeps, and read
    its data wrongly. Checked before anything is written, as the PostgreSQL store's
    ``server_check`` does for a server."""
    newer = migrations.unknown(db)
    if not newer:
        return
    db.close()
    raise NewerDatabaseError(
        f"The database {path} was updated by a newer ACAI Desktop (it has "
        f"{', '.join(newer)}, which this version does not know). Update ACAI Desktop on "
        "this computer to use it; nothing was changed."
    )


@contextlib.contextmanager
def _reporting_progress(connection: sqlite3.Connection, path: Path | str, steps: int):
    """Say that the database is being updated, and every few seconds that it still is:
    a large profile (200,000 messages) takes a minute, which must not look like a hang."""
    started = time.monotonic()
    last = [started]
    fresh = not any(True for _ in connection.execute("SELECT 1 FROM sqlite_master LIMIT 1"))

    def tick() -> int:
        now = time.monotonic()
        if now - last[0] >= MIGRATION_REPORT_SECONDS:
            last[0] = now
            progress_log.info("Still updating the database… %d s so far.", now - started)
        return 0  # go on

    if not fresh:
        progress_log.info(
            "Updating the database %s for this version of ACAI Desktop (%d step%s; a large "
            "profile takes a minute or two)…", path, steps, "" if steps == 1 else "s",
        )  # fmt: skip
    connection.set_progress_handler(tick, _PROGRESS_STEPS)
    try:
        yield
    finally:
        connection.set_progress_handler(None, 0)
    if not fresh:
        progress_log.info("Database updated in %.0f s.", time.monotonic() - started)


class Store:
    """Owns the connection and its thread. Repositories call :meth:`run`; the fast
    reads that must not queue behind a write call :meth:`read`. The SQLite side of
    :class:`~acai_desktop.core.store.interface.MemoryStore`."""

    dialect = SQLITE

    def __init__(self, path: Path | str) -> None:
        self.path = path
        self._executor = ThreadPoolExecutor(max_workers=1, thread_name_prefix="acai-db")
        self._db: Database | None = None
        # An in-memory database is this connection's alone: its reads stay on the writer.
        self._reader = Reader(path, BUSY_TIMEOUT_MS) if str(path) != ":memory:" else None

    @classmethod
    async def open(cls, path: Path | str) -> Store:
        store = cls(path)
        opening = store._executor.submit(connect, path)
        try:
            store._db = await asyncio.wrap_future(opening)
        except BaseException:
            await store._close_after_failed_open(opening)
            raise
        return store

    async def _close_after_failed_open(self, opening: Future[Database]) -> None:
        """A cancelled open (the app told to quit while a migration runs) leaves the
        database thread finishing it: wait for that, then close what it opened, so the
        write-ahead log is folded back and no connection outlives the store."""
        try:
            self._db = await asyncio.wrap_future(opening)
        except BaseException:  # the open failed, never started, or we are cancelled again
            self._db = None
        if self._db is not None:
            with contextlib.suppress(BaseException):  # the open's own error is what counts
                await self.close()
            return
        self._executor.shutdown(wait=False)
        if self._reader is not None:
            self._reader.executor.shutdown(wait=False)

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
        call = functools.partial(fn, self._db, *args, **kwargs)
        return asyncio.get_running_loop().run_in_executor(self._executor, self._translated, call)

    async def read(self, fn: Callable[..., T], *args, **kwargs) -> T:
        """Run ``fn(db, *args, **kwargs)`` on the read-only connection's thread, in one
        read transaction: it sees every write committed before it began, and does not
        wait for the writer's queue. ``fn`` must only read (the connection refuses
        writes). Errors come back as from :meth:`run`."""
        return await self.submit_read(fn, *args, **kwargs)

    def submit_read(self, fn: Callable[..., T], *args, **kwargs) -> asyncio.Future[T]:
        """Like :meth:`read`, but queued at once and the future returned (see :meth:`submit`)."""
        if self._db is None:
            raise StoreError("The database is closed.")
        if self._reader is None:
            return self.submit(fn, *args, **kwargs)
        call = functools.partial(self._reader.call, fn, *args, **kwargs)
        return asyncio.get_running_loop().run_in_executor(
            self._reader.executor, self._translated, call
        )

    def _translated(self, call: Callable[[], T]) -> T:
        """``call()``, with SQLite's errors that are the environment's fault translated."""
        try:
            return call()
        except sqlite3.Error as error:
            translated = translate_sqlite_error(error, self.path)
            if translated is None:
                raise  # our bug: its own traceback says where
            raise translated from error
        except UnicodeDecodeError as error:
            raise _damaged_text(self.path) from error

    async def close(self) -> None:
        if self._db is None:
            return
        db, self._db = self._db, None
        loop = asyncio.get_running_loop()
        if self._reader is not None:
            # First, so that the writer's checkpoint below finds no reader in its way.
            try:
                await loop.run_in_executor(self._reader.executor, self._reader.close_connection)
            finally:
                self._reader.executor.shutdown(wait=True)

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
