"""``db``: what the store's functions use of one SQLite connection.

Every store function takes ``db`` and uses four things of it: ``execute(sql, params)``,
``query(sql, params)`` (rows as dicts), ``atomic()`` (one transaction, or a savepoint
inside one) and ``conn`` (the ``sqlite3`` connection: ``executemany``,
``in_transaction``). sqlite-utils' ``Database`` gave them; importing it (with click,
dateutil and pluggy) took 314 M instructions on top of the window's modules, paid before
the window could show the profile (issue 22, start-up measured from outside).
:class:`Database` gives the same four with sqlite-utils' meaning:

- a statement outside a transaction is committed at once (a failed one leaves none
  open);
- recursive triggers are on, so a ``REPLACE`` that deletes a row fires its delete
  triggers (the full-text indexes stay in step);
- ``atomic()`` begins ``BEGIN IMMEDIATE``, patiently (see :mod:`.database`'s docstring).

The PostgreSQL store's ``PostgresDatabase`` offers the same four over psycopg.
"""

from __future__ import annotations

import contextlib
import itertools
import logging
import re
import sqlite3
import time
from collections.abc import Iterator, Sequence
from typing import Any

from acai_desktop.core.store.dialect import SQLITE_DIALECT

log = logging.getLogger(__name__)

#: How long a write transaction keeps trying to begin while another program holds the
#: database (a large import, a checkpoint), beyond the first attempt's busy timeout.
PATIENT_WRITE_SECONDS = 60.0
#: The longest pause between two attempts to begin a write transaction.
_LONGEST_PAUSE_SECONDS = 0.5
_savepoint_names = itertools.count(1)
# The statement's first word, after blanks, empty statements and comments.
_FIRST_WORD = re.compile(r"(?:\s|;|--[^\n]*(?:\n|$)|/\*.*?\*/)*([A-Za-z]*)", re.S)
_TRANSACTION_CONTROL = frozenset({"BEGIN", "COMMIT", "END", "ROLLBACK", "SAVEPOINT", "RELEASE"})

Parameters = Sequence[Any] | dict[str, Any]


def is_busy(error: sqlite3.Error) -> bool:
    """SQLITE_BUSY or SQLITE_LOCKED (any extended code), sorted by code, not by text."""
    code = getattr(error, "sqlite_errorcode", None)
    return code is not None and code & 0xFF in (sqlite3.SQLITE_BUSY, sqlite3.SQLITE_LOCKED)


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


class Database:
    """One SQLite connection as the store's functions use it (see the module's docstring)."""

    #: What differs from PostgreSQL, per operation (store/dialect.py).
    dialect = SQLITE_DIALECT

    def __init__(self, conn: sqlite3.Connection) -> None:
        self.conn = conn
        # As sqlite-utils did on every connection: without it a REPLACE deletes the
        # old row without firing the triggers that keep its full-text index in step.
        conn.execute("PRAGMA recursive_triggers = ON")

    def execute(self, sql: str, parameters: Parameters | None = None) -> sqlite3.Cursor:
        """Run one statement; outside a transaction a write is committed at once."""
        conn = self.conn
        was_in_transaction = conn.in_transaction
        try:
            cursor = conn.execute(sql) if parameters is None else conn.execute(sql, parameters)
        except Exception:
            if not was_in_transaction and conn.in_transaction:
                # The failed statement opened an implicit transaction that nothing
                # would commit; it would capture every later write.
                conn.execute("ROLLBACK")
            raise
        if (
            not was_in_transaction
            and conn.in_transaction
            and _first_word(sql) not in _TRANSACTION_CONTROL
        ):
            # The implicit transaction sqlite3 opened for a write; a write that returns
            # rows (RETURNING) hands them over read, as the commit ends the statement.
            if cursor.description is None:
                conn.execute("COMMIT")
            else:
                returned = FetchedRows(cursor.fetchall(), cursor.description)
                conn.execute("COMMIT")
                return returned
        return cursor

    def query(self, sql: str, parameters: Parameters | None = None) -> Iterator[dict[str, Any]]:
        """The rows of a query as dicts, column name to value."""
        cursor = self.execute(sql, parameters)
        names = [column[0] for column in cursor.description]
        return (dict(zip(names, row, strict=True)) for row in cursor)

    @contextlib.contextmanager
    def atomic(self) -> Iterator[Database]:
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

    def table_names(self) -> list[str]:
        """The tables, by name (as ``PostgresDatabase.table_names``)."""
        rows = self.conn.execute(
            "SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name"
        )
        return [name for (name,) in rows]

    def close(self) -> None:
        self.conn.close()


class FetchedRows:
    """The rows a statement returned, read already (a cursor's reading methods)."""

    def __init__(self, rows: list, description) -> None:
        self._rows = rows
        self.description = description
        self.rowcount = len(rows)

    def fetchone(self):
        return self._rows.pop(0) if self._rows else None

    def fetchall(self) -> list:
        rows, self._rows = self._rows, []
        return rows

    def __iter__(self) -> Iterator:
        return iter(self.fetchall())


def _first_word(sql: str) -> str:
    match = _FIRST_WORD.match(sql)
    return match.group(1).upper() if match else ""


def contents_by_id(db: Database, table: str, ids: Sequence[int]) -> dict[int, str]:
    """The ``content`` column of the rows of ``table`` (a name of ours, never the user's)
    among ``ids``, by id: the text alone, not the rest of a wide row."""
    if not len(ids):
        return {}
    marks = ",".join("?" * len(ids))
    rows = db.execute(
        f"SELECT id, content FROM {table} WHERE id IN ({marks})", [int(i) for i in ids]
    ).fetchall()
    return {row[0]: row[1] for row in rows}
