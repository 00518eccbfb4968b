"""The one SQLite connection of a profile, and the one thread allowed to touch it.

Every blocking database call goes through :meth:`Store.run`, which hands it to a
dedicated single-thread executor. The connection is created on that thread, so SQLite
is only ever used from there, and the asyncio (Qt) loop never waits on disk.
"""

from __future__ import annotations

import asyncio
import functools
import logging
import sqlite3
from collections.abc import Callable
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


def translate_sqlite_error(error: sqlite3.Error, path: Path | str) -> StoreError | None:
    """SQLite's error as a message that tells the user what to do — when it is the
    environment's fault (disk full, read-only, locked, damaged file) — or None when it
    is our bug (bad SQL, a broken constraint), which must be raised as it is.

    Sorted by SQLite's result code, never by the message text (which changes between
    SQLite versions and languages)."""
    code = getattr(error, "sqlite_errorcode", None)
    if code is None:
        return None  # not from SQLite itself: a closed connection, a bad parameter type
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
_LOCKED = "The database {path} is locked by another program; try again in a moment."
_ENVIRONMENT_ERRORS = {
    sqlite3.SQLITE_BUSY: lambda path, error: _LOCKED.format(path=path),
    sqlite3.SQLITE_LOCKED: lambda path, error: _LOCKED.format(path=path),
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
        db = Database(sqlite3.connect(str(path), timeout=BUSY_TIMEOUT_MS / 1000))
        db.execute(f"PRAGMA busy_timeout = {BUSY_TIMEOUT_MS}")
        db.execute("PRAGMA foreign_keys = ON")
        if str(path) != ":memory:":
            mode = db.execute("PRAGMA journal_mode = WAL").fetchone()[0]
            if mode.lower() != "wal":
                log.warning("SQLite refused WAL mode for %s (got %s)", path, mode)
        db.execute("PRAGMA synchronous = NORMAL")
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
