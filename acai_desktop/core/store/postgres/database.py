"""The PostgreSQL store: one writer connection on one thread, one reader beside it.

The store's functions (``core/store/*.py``) are written against the SQLite store's
``db`` (``core/store/connection.py``, the part of sqlite-utils' ``Database`` they used):
``execute(sql, params)`` with ``?`` parameters, ``atomic()``, ``conn.executemany``, a
cursor's rows and ``rowcount`` (an insert's id comes from its ``RETURNING id``).
:class:`PostgresDatabase` offers the same over psycopg 3. The SQL is what both engines
speak, the differences named per operation by ``db.dialect`` (``store/dialect.py``);
only its placeholders change here (:func:`placeholders`). See docs/architecture.md, "Two stores".


Concurrency is the SQLite store's: every write runs on the writer's thread, one after
another; reads that must not queue behind a write run on the reader's connection, each
call one read-only transaction (one snapshot, begun with the call).
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import logging
import re
from collections.abc import AsyncIterator, Callable, Iterator, Sequence
from concurrent.futures import ThreadPoolExecutor
from datetime import UTC, datetime, timedelta
from decimal import Decimal
from typing import Any, TypeVar

import psycopg
from psycopg import pq
from psycopg.adapt import Loader

from acai_desktop.core.errors import StoreError
from acai_desktop.core.store.dialect import POSTGRES_DIALECT, POSTGRESQL

log = logging.getLogger(__name__)
T = TypeVar("T")

# A quoted string (its '' escapes included), or a placeholder: ``?`` or ``?NNN``.
_LITERAL_OR_PLACEHOLDER = re.compile(r"'(?:[^']|'')*'|\?(\d*)|%")


class _NumberLoader(Loader):
    """``numeric`` (what ``sum`` and ``round`` of integers give) as SQLite gives it:
    an int when whole, else a float — never a Decimal the callers don't expect."""

    def load(self, data: Any) -> int | float:
        number = Decimal(bytes(data).decode())
        return int(number) if number == number.to_integral_value() else float(number)


class _FlagLoader(Loader):
    """``boolean`` as SQLite's flags read: 1 or 0 (a flag prints and compares the same
    from both stores)."""

    def load(self, data: Any) -> int:
        return 1 if bytes(data) == b"t" else 0


class _TimeLoader(Loader):
    """``timestamptz`` as SQLite's times read: the ISO text ``clock.now_iso`` writes
    (``2026-12-07T10:11:12.345678+00:00``). The session runs in UTC, so the server
    writes ``2026-12-07 10:11:12.345678+00`` (fraction cut short or left out when 0)."""

    def load(self, data: Any) -> str:
        text = bytes(data).decode()
        if len(text) >= 22 and text[10] == " " and text.endswith("+00"):
            clock = text[11:-3]
            fraction = clock[9:] if len(clock) > 8 else ""
            return f"{text[:10]}T{clock[:8]}.{fraction.ljust(6, '0')}+00:00"
        # Another shape (a year past 9999, an offset with minutes): Python reads it.
        moment = datetime.fromisoformat(text)
        return moment.astimezone(UTC).isoformat(timespec="microseconds")


def read_as_sqlite(connection: psycopg.Connection) -> None:
    """Make ``connection`` read rows as SQLite's store gives them: whole numbers as
    ints, flags 0/1, times as ISO text in UTC."""
    connection.adapters.register_loader("numeric", _NumberLoader)
    connection.adapters.register_loader("bool", _FlagLoader)
    connection.adapters.register_loader("timestamptz", _TimeLoader)
    # Times are read back in UTC, as SQLite stores them; the day of a time on this
    # computer's clock uses its offset (dialect.local_day).
    connection.execute("SET TIME ZONE 'UTC'")


def _placeholder(match: re.Match) -> str:
    text = match.group(0)
    if text.startswith("'") or text == "%":
        return text.replace("%", "%%")  # psycopg reads % as its own, even quoted
    return f"%(p{match.group(1)})s" if match.group(1) else "%s"


@functools.lru_cache(maxsize=2048)
def placeholders(sql: str) -> str:
    """The store's SQL with psycopg's placeholders for SQLite's: ``?`` becomes ``%s`` and
    ``?1`` (a numbered parameter, used more than once) ``%(p1)s`` (never inside a quoted
    string); a ``%`` is doubled. The only change PostgreSQL's SQL gets: the statement is
    otherwise what both engines speak (store/dialect.py)."""
    return _LITERAL_OR_PLACEHOLDER.sub(_placeholder, sql)


def _local_utc_offset() -> str:
    """This computer's UTC offset now, as an interval PostgreSQL reads ("+01:00")."""
    offset = datetime.now().astimezone().utcoffset() or timedelta(0)
    minutes = int(offset.total_seconds() // 60)
    sign = "-" if minutes < 0 else "+"
    return f"{sign}{abs(minutes) // 60:02d}:{abs(minutes) % 60:02d}"


class PostgresCursor:
    """A psycopg cursor read as the store functions read sqlite3's (no rows: empty)."""

    def __init__(self, cursor: psycopg.Cursor) -> None:
        self._cursor = cursor

    @property
    def rowcount(self) -> int:
        return self._cursor.rowcount

    @property
    def description(self):
        return self._cursor.description

    def fetchone(self):
        return self._cursor.fetchone() if self._cursor.description else None

    def fetchall(self) -> list:
        return self._cursor.fetchall() if self._cursor.description else []

    def __iter__(self) -> Iterator:
        return iter(self.fetchall())


class _ConnectionFacade:
    """What the store functions use of ``db.conn`` (sqlite3's connection)."""

    def __init__(self, db: PostgresDatabase) -> None:
        self._db = db

    def execute(self, sql: str, params: Sequence = ()) -> PostgresCursor:
        return self._db.execute(sql, params)

    def executemany(self, sql: str, rows) -> None:
        rows = [tuple(row) for row in rows]
        if not rows:
            return
        with self._db.connection.cursor() as cursor:
            cursor.executemany(placeholders(sql), rows)

    @property
    def in_transaction(self) -> bool:
        status = self._db.connection.info.transaction_status
        return status != pq.TransactionStatus.IDLE

    def rollback(self) -> None:
        self._db.connection.rollback()


class PostgresDatabase:
    """One psycopg connection, offering what the store functions use of ``db``
    (``core/store/connection.py``). In autocommit mode: a statement outside
    :meth:`atomic` is its own transaction, so no read leaves a transaction (and its
    snapshot) open."""

    dialect = POSTGRES_DIALECT

    def __init__(self, url: str, *, read_only: bool = False) -> None:
        self.connection = psycopg.connect(url, autocommit=True)
        read_as_sqlite(self.connection)
        self.connection.execute(
            "SELECT set_config('acai.utc_offset', %s, false)", [_local_utc_offset()]
        )
        self.read_only = read_only
        if read_only:
            self.connection.execute("SET default_transaction_read_only = on")
        self.conn = _ConnectionFacade(self)

    def execute(self, sql: str, params: Sequence | None = None) -> PostgresCursor:
        cursor = self.connection.cursor()
        statement = placeholders(sql)
        arguments: Sequence | dict = list(params) if params is not None else []
        if arguments and "%(p" in statement:  # numbered parameters (?1)
            arguments = {f"p{i}": value for i, value in enumerate(arguments, 1)}
        cursor.execute(statement, arguments)
        return PostgresCursor(cursor)

    def query(self, sql: str, params: Sequence | None = None) -> Iterator[dict]:
        cursor = self.execute(sql, params)
        names = [column.name for column in cursor.description or ()]
        for row in cursor.fetchall():
            yield dict(zip(names, row, strict=True))

    def in_write_transaction(self) -> bool:
        """Inside :meth:`atomic` on the writer's connection (a row may be locked)."""
        return not self.read_only and self.conn.in_transaction

    @contextlib.contextmanager
    def atomic(self) -> Iterator[PostgresDatabase]:
        """One transaction, or a savepoint inside one (psycopg nests them)."""
        with self.connection.transaction():
            yield self

    def table_names(self) -> list[str]:
        rows = self.connection.execute(
            "SELECT table_name FROM information_schema.tables "
            "WHERE table_schema = current_schema() ORDER BY table_name"
        ).fetchall()
        return [row[0] for row in rows]

    def close(self) -> None:
        self.connection.close()


def redacted(url: str) -> str:
    """``url`` without a password, for messages and logs."""
    return re.sub(r"(://[^:/@]*):[^@/]*@", r"\1:***@", url)


def translate_postgres_error(error: psycopg.Error, url: str) -> StoreError | None:
    """The server's error as a message for the user when it is the environment's fault
    (unreachable, refused, disk full, read-only), None when it is our bug. Sorted by
    SQLSTATE class, never by message text."""
    where = redacted(url)
    if isinstance(error, psycopg.OperationalError) and error.sqlstate is None:
        return StoreError(f"Cannot reach the PostgreSQL server at {where}: {error}".strip())
    state = error.sqlstate or ""
    # Class 08, or the server shutting down, crashed or starting up (57P01-57P03): the
    # window reconnects (core/profile/server_check.is_store_lost).
    if state.startswith("08") or state in ("57P01", "57P02", "57P03"):
        return StoreError(f"The connection to the PostgreSQL server at {where} was lost.")
    if state in ("40001", "40P01"):
        # Another computer's transaction and ours crossed (a serialisation failure, or
        # the deadlock victim): ours was rolled back whole, so trying again is safe.
        # Busy, as SQLite's locked database: the final save of an answer tries again,
        # and a message not saved says to send it again.
        from acai_desktop.core.store.database import DatabaseBusyError

        return DatabaseBusyError(
            f"The PostgreSQL database at {where} was busy with another computer's change "
            "to the same rows; nothing of this change was written. Try again."
        )
    if state.startswith("53"):
        return StoreError(f"The PostgreSQL server at {where} is out of resources ({error}).")
    if state == "25006":
        return StoreError(f"The PostgreSQL database at {where} is read-only.")
    if state.startswith("28"):
        return StoreError(f"The PostgreSQL server at {where} refused the login ({error}).")
    if state == "3D000":
        return StoreError(f"The database at {where} does not exist.")
    return None


class PostgresStore:
    """The PostgreSQL store (:class:`~acai_desktop.core.store.interface.MemoryStore`)."""

    dialect = POSTGRESQL

    def __init__(self, url: str) -> None:
        self.url = url
        self.path = redacted(url)
        self._executor = ThreadPoolExecutor(max_workers=1, thread_name_prefix="acai-db")
        self._reader_executor = ThreadPoolExecutor(max_workers=1, thread_name_prefix="acai-db-read")
        self._db: PostgresDatabase | None = None
        self._reader: PostgresDatabase | None = None
        self._closed = False
        #: The writer connection's server process: its notices are this store's own.
        self._writer_pid: int | None = None

    @classmethod
    async def open(cls, url: str) -> PostgresStore:
        store = cls(url)
        loop = asyncio.get_running_loop()
        try:
            store._db = await loop.run_in_executor(
                store._executor, store._translated, store._connect
            )
            store._writer_pid = store._db.connection.info.backend_pid
        except BaseException:
            store._executor.shutdown(wait=False)
            store._reader_executor.shutdown(wait=False)
            raise
        return store

    def _connect(self) -> PostgresDatabase:
        from acai_desktop.core.store.migrations import migrations

        db = PostgresDatabase(self.url)
        try:
            migrations.apply(db)
        except BaseException:
            db.close()
            raise
        return db

    async def run(self, fn: Callable[..., T], *args, **kwargs) -> T:
        return await self.submit(fn, *args, **kwargs)

    def submit(self, fn: Callable[..., T], *args, **kwargs) -> asyncio.Future[T]:
        if self._db is None:
            raise StoreError("The database is closed.")
        call = functools.partial(fn, self._db, *args, **kwargs)
        return asyncio.get_running_loop().run_in_executor(self._executor, self._translated, call)

    async def read(self, fn: Callable[..., T], *args, **kwargs) -> T:
        return await self.submit_read(fn, *args, **kwargs)

    def submit_read(self, fn: Callable[..., T], *args, **kwargs) -> asyncio.Future[T]:
        if self._db is None:
            raise StoreError("The database is closed.")
        call = functools.partial(self._read_call, fn, *args, **kwargs)
        return asyncio.get_running_loop().run_in_executor(
            self._reader_executor, self._translated, call
        )

    def _read_call(self, fn: Callable[..., T], *args, **kwargs) -> T:
        """``fn(reader, ...)`` in one read-only transaction; on the reader's thread,
        which opens its connection at its first call."""
        if self._closed:
            raise StoreError("The database is closed.")
        if self._reader is None:
            self._reader = PostgresDatabase(self.url, read_only=True)
        with self._reader.atomic():
            return fn(self._reader, *args, **kwargs)

    def _translated(self, call: Callable[[], T]) -> T:
        try:
            return call()
        except psycopg.Error as error:
            translated = translate_postgres_error(error, self.url)
            if translated is None:
                raise
            raise translated from error

    async def changes(self) -> AsyncIterator[str]:
        """The names of the tables another connection (another computer, another
        process) committed new rows to, as they are committed: PostgreSQL's LISTEN on
        a connection of its own, read on the event loop as the socket becomes readable
        (no polling). First ``""`` once listening, so the caller reads what was written
        before; this store's own writes are left out. Ends with the connection (an
        error): the caller listens again."""
        from acai_desktop.core.store.postgres.schema_parts import CHANGES_CHANNEL

        try:
            connection = await psycopg.AsyncConnection.connect(self.url, autocommit=True)
        except psycopg.Error as error:
            raise translate_postgres_error(error, self.url) or error from error
        async with connection:
            await connection.execute(f"LISTEN {CHANGES_CHANNEL}")
            yield ""
            try:
                async for notice in connection.notifies():
                    own = (
                        self._db is not None and notice.pid == self._db.connection.info.backend_pid
                    )
                    if not own:
                        yield notice.payload
            except psycopg.Error as error:
                raise translate_postgres_error(error, self.url) or error from error

    async def close(self) -> None:
        if self._db is None:
            return
        db, self._db = self._db, None
        loop = asyncio.get_running_loop()

        def close_reader() -> None:
            self._closed = True
            if self._reader is not None:
                self._reader.close()
                self._reader = None

        try:
            await loop.run_in_executor(self._reader_executor, close_reader)
        finally:
            self._reader_executor.shutdown(wait=True)
        try:
            await loop.run_in_executor(self._executor, db.close)
        finally:
            self._executor.shutdown(wait=True)
