"""The PostgreSQL store: one writer connection on one thread, one reader beside it.

The store's functions (``core/store/*.py``) are written against the SQLite store's
``db`` (``core/store/connection.py``, the part of sqlite-utils' ``Database`` they used):
``execute(sql, params)`` with ``?`` parameters, ``atomic()``, ``conn.executemany``, a
cursor's ``lastrowid`` and ``rowcount``. :class:`PostgresDatabase` offers the same over
psycopg 3, translating the portable SQL (:func:`translate`); the SQLite functions that
SQL relies on exist in the schema with SQLite's meaning (``postgres/schema_parts.py``,
``SQLITE_FUNCTIONS``). See docs/architecture.md, "Two stores".


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
from datetime import datetime, timedelta
from decimal import Decimal
from typing import Any, TypeVar

import psycopg
from psycopg import pq
from psycopg.adapt import Loader

from acai_desktop.core.errors import StoreError
from acai_desktop.core.store.dialect import POSTGRESQL

log = logging.getLogger(__name__)
T = TypeVar("T")

_INSERT = re.compile(r"^\s*INSERT\s+(?:OR\s+(IGNORE|REPLACE)\s+)?INTO\s+(\w+)", re.I)
_COLUMNS = re.compile(r"^\s*INSERT\s+(?:OR\s+\w+\s+)?INTO\s+\w+\s*\(([^)]*)\)", re.I)
# SQLite's ``x IS y`` compares NULL as a value; PostgreSQL spells it IS NOT DISTINCT
# FROM (and ``IS NOT y`` IS DISTINCT FROM). Parenthesised with a parameter, it is a 0/1
# value stored in an integer column.
_IS_VALUE_IN_PARENS = re.compile(r"\((\w+(?:\.\w+)?) IS \?\)")
_KEYWORDS_AFTER_IS = r"(?!(?:NULL|NOT|TRUE|FALSE|DISTINCT|UNKNOWN)\b)"
_IS_VALUE = re.compile(rf"\bIS {_KEYWORDS_AFTER_IS}", re.I)
_IS_NOT_VALUE = re.compile(rf"\bIS NOT {_KEYWORDS_AFTER_IS}", re.I)
# ``?1``: SQLite's numbered parameter, used more than once in a statement.
_NUMBERED = re.compile(r"\?(\d+)")
_LIMIT_ALL = re.compile(r"\bLIMIT -1\b", re.I)
# SQLite's "not this index" hint, a unary + before a column (``+m.status``), is an
# error on text in PostgreSQL, whose planner needs no hint.
_UNARY_PLUS = re.compile(r"(\bWHERE|\bAND|\bOR|\()\s*\+(?=[A-Za-z_])", re.I)


class _NumberLoader(Loader):
    """``numeric`` (what ``sum`` and ``round`` of integers give) as SQLite gives it:
    an int when whole, else a float — never a Decimal the callers don't expect."""

    def load(self, data: Any) -> int | float:
        number = Decimal(bytes(data).decode())
        return int(number) if number == number.to_integral_value() else float(number)


def _split_literals(sql: str) -> list[tuple[bool, str]]:
    """``sql`` as (is_literal, text) pieces, so rewriting never touches a quoted string."""
    pieces: list[tuple[bool, str]] = []
    start = 0
    for match in re.finditer(r"'(?:[^']|'')*'", sql):
        pieces.append((False, sql[start : match.start()]))
        pieces.append((True, match.group(0)))
        start = match.end()
    pieces.append((False, sql[start:]))
    return pieces


@functools.lru_cache(maxsize=2048)
def translate(sql: str, primary_keys: tuple[tuple[str, tuple[str, ...]], ...] = ()) -> str:
    """The store functions' SQL (SQLite's spelling) in PostgreSQL's.

    ``?`` becomes ``%s``, ``?1`` ``%(p1)s`` (and a literal ``%`` ``%%``), ``x IS [NOT] y``
    IS [NOT] DISTINCT FROM, ``LIMIT -1`` LIMIT ALL, a unary ``+`` hint goes, ``INSERT OR
    IGNORE`` an ``ON CONFLICT DO NOTHING`` and ``INSERT OR REPLACE`` an upsert on the
    table's primary key (``primary_keys``).
    Everything else is passed as it is: the SQL the two stores share is plain.
    """
    out = []
    for is_literal, text in _split_literals(sql):
        text = text.replace("%", "%%")
        if not is_literal:
            text = _IS_VALUE_IN_PARENS.sub(r"(\1 IS NOT DISTINCT FROM ?)::integer", text)
            text = _IS_NOT_VALUE.sub("IS DISTINCT FROM ", text)
            text = _IS_VALUE.sub("IS NOT DISTINCT FROM ", text)
            text = _NUMBERED.sub(r"%(p\1)s", text)
            text = _LIMIT_ALL.sub("LIMIT ALL", text)
            text = _UNARY_PLUS.sub(r"\1 ", text)
            text = text.replace("?", "%s")
        out.append(text)
    translated = "".join(out)
    insert = _INSERT.match(translated)
    if insert and insert.group(1):
        action, table = insert.group(1).upper(), insert.group(2)
        translated = re.sub(r"\s+OR\s+(IGNORE|REPLACE)\s+", " ", translated, count=1, flags=re.I)
        if action == "IGNORE":
            translated += " ON CONFLICT DO NOTHING"
        else:
            keys = dict(primary_keys).get(table.lower())
            columns = _COLUMNS.match(translated)
            if not keys or not columns:
                raise ValueError(f"INSERT OR REPLACE needs {table}'s key and a column list")
            names = [name.strip() for name in columns.group(1).split(",")]
            updates = ", ".join(f"{n} = EXCLUDED.{n}" for n in names if n not in keys)
            translated += f" ON CONFLICT ({', '.join(keys)}) DO " + (
                f"UPDATE SET {updates}" if updates else "NOTHING"
            )
    return translated


def _local_utc_offset() -> str:
    """This computer's UTC offset now, as an interval PostgreSQL reads ("+01:00")."""
    offset = datetime.now().astimezone().utcoffset() or timedelta(0)
    minutes = int(offset.total_seconds() // 60)
    sign = "-" if minutes < 0 else "+"
    return f"{sign}{abs(minutes) // 60:02d}:{abs(minutes) % 60:02d}"


class PostgresCursor:
    """A psycopg cursor with sqlite3's ``lastrowid``."""

    def __init__(self, cursor: psycopg.Cursor, lastrowid: int | None = None) -> None:
        self._cursor = cursor
        self.lastrowid = lastrowid

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
            cursor.executemany(self._db.translated(sql), rows)

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

    dialect = POSTGRESQL

    def __init__(self, url: str, *, read_only: bool = False) -> None:
        self.connection = psycopg.connect(url, autocommit=True)
        self.connection.adapters.register_loader("numeric", _NumberLoader)
        # Stored times are ISO text in UTC, as SQLite's julianday() reads them; SQLite's
        # 'localtime' is this computer's offset (the schema's date()).
        self.connection.execute("SET TIME ZONE 'UTC'")
        self.connection.execute(
            "SELECT set_config('acai.utc_offset', %s, false)", [_local_utc_offset()]
        )
        self.read_only = read_only
        if read_only:
            self.connection.execute("SET default_transaction_read_only = on")
        self.conn = _ConnectionFacade(self)
        self._primary_keys: tuple[tuple[str, tuple[str, ...]], ...] = ()
        self._tables_with_id: frozenset[str] = frozenset()
        self.refresh_schema()

    def refresh_schema(self) -> None:
        """Read which tables have an ``id`` (for ``lastrowid``) and their primary keys
        (for ``INSERT OR REPLACE``); again after migrating."""
        rows = self.connection.execute(
            "SELECT c.relname, a.attname FROM pg_index i "
            "JOIN pg_class c ON c.oid = i.indrelid "
            "JOIN pg_namespace n ON n.oid = c.relnamespace AND n.nspname = current_schema() "
            "JOIN pg_attribute a ON a.attrelid = c.oid AND a.attnum = ANY(i.indkey) "
            "WHERE i.indisprimary ORDER BY c.relname, array_position(i.indkey, a.attnum)"
        ).fetchall()
        keys: dict[str, list[str]] = {}
        for table, column in rows:
            keys.setdefault(table, []).append(column)
        self._primary_keys = tuple((t, tuple(c)) for t, c in sorted(keys.items()))
        self._tables_with_id = frozenset(t for t, c in keys.items() if c == ["id"])

    def translated(self, sql: str) -> str:
        return translate(sql, self._primary_keys)

    def execute(self, sql: str, params: Sequence | None = None) -> PostgresCursor:
        translated = self.translated(sql)
        insert = _INSERT.match(sql)
        wants_id = (
            insert is not None
            and insert.group(2).lower() in self._tables_with_id
            and "RETURNING" not in sql.upper()
        )
        if wants_id:
            translated += " RETURNING id"
        cursor = self.connection.cursor()
        arguments = list(params) if params is not None else None
        if arguments and "%(p" in translated:  # numbered parameters (?1)
            arguments = {f"p{i}": value for i, value in enumerate(arguments, 1)}
        cursor.execute(translated, arguments)
        lastrowid = None
        if wants_id:
            found = cursor.fetchall()
            lastrowid = found[-1][0] if found else None
        return PostgresCursor(cursor, lastrowid)

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
    # window reconnects (core/server_check.is_store_lost).
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
