"""What differs between the two stores, named per operation (docs/architecture.md,
"Two stores").

The store's functions take ``db``: :class:`~acai_desktop.core.store.connection.Database`
on SQLite, or :class:`~acai_desktop.core.store.postgres.database.PostgresDatabase` on
PostgreSQL, and write one SQL text for both in what both engines speak (``IS [NOT]
DISTINCT FROM``, ``INSERT … ON CONFLICT``, ``TRUE``/``FALSE``). Where the engines really
differ, the function asks its connection's dialect (``db.dialect``) for the operation:
a fragment of SQL (the days between two times, a JSON field, a string aggregate…) or
the operation itself (ids for a bulk insert, the size of the database). Nothing
rewrites SQL at run time; PostgreSQL's connection changes only the placeholder style
(``postgres/database.py``, :func:`~acai_desktop.core.store.postgres.database.placeholders`).

Full-text search, the job claim, advisory locks and NOTIFY are whole operations of
their own on PostgreSQL (``postgres/full_text.py``, ``jobs.py``, ``session_locks.py``,
``conversation_locks.py``), each behind its store function's ``is_postgres`` test.
"""

from __future__ import annotations

import os
from pathlib import Path

SQLITE = "sqlite"
POSTGRESQL = "postgresql"
#: The Unix epoch in SQLite's Julian-day milliseconds (julianday('1970-01-01') * 86400000).
JULIAN_EPOCH_MS = 210866760000000


class SqliteDialect:
    """SQLite's spelling of each operation (the default)."""

    name = SQLITE

    def days_since(self, now: str, then: str) -> str:
        """Days from the time ``then`` to the time ``now`` (SQL expressions, neither NULL;
        ``'now'`` for the current time), fractional, never below 0."""
        return f"max(julianday({now}) - julianday({then}), 0)"

    def epoch_ms(self, time: str) -> str:
        """The time ``time`` as milliseconds since the Unix epoch (whole: SQLite's
        julianday() counts milliseconds; ``vector_index.epoch_ms`` reads text alike)."""
        return f"round(julianday({time}) * 86400000.0) - {JULIAN_EPOCH_MS}"

    def later(self, first: str, second: str) -> str:
        """The later (greater) of two values, neither NULL."""
        return f"max({first}, {second})"

    def contains(self, text: str, part: str) -> str:
        """True when the text ``part`` occurs in ``text`` (no wildcards)."""
        return f"instr({text}, {part}) > 0"

    def json_text(self, column: str, key: str) -> str:
        """The top-level field ``key`` (a name of ours) of the JSON text ``column``, as
        text (NULL when absent)."""
        return f"json_extract({column}, '$.{key}')"

    def json_set_true(self, column: str, key: str) -> str:
        """The JSON text ``column`` with its field ``key`` set to ``true``."""
        return f"json_set({column}, '$.{key}', json('true'))"

    def local_day(self, time: str) -> str:
        """The day (YYYY-MM-DD) of the time ``time`` on this computer's clock."""
        return f"date({time}, 'localtime')"

    def joined(self, value: str) -> str:
        """The aggregate of ``value`` over a group as one text, comma-separated (in no
        particular order)."""
        return f"group_concat({value})"

    def unindexed(self, column: str) -> str:
        """``column`` in a condition the planner must not answer from an index on it
        (SQLite would walk the index instead of looking up a few ids by key)."""
        return f"+{column}"

    def for_update(self, db) -> str:
        """What a read inside a write adds to lock the rows it reads until the write
        ends (SQLite: nothing; its write lock already covers the database)."""
        return ""

    def reserve_ids(self, db, table: str, count: int) -> list[int]:
        """``count`` new ids of ``table`` for rows the caller inserts with explicit ids
        (one ``executemany``): from ``max(id) + 1`` on, as SQLite would assign them,
        under the caller's write lock."""
        first = db.execute(f"SELECT coalesce(max(id), 0) + 1 FROM {table}").fetchone()[0]
        return list(range(first, first + count))

    def register_functions(self, db, functions: dict) -> None:
        """Make the application's SQL functions (name -> (arity, Python function))
        callable in ``db``'s SQL."""
        for name, (arity, function) in functions.items():
            db.conn.create_function(name, arity, function, deterministic=True)

    def database_bytes(self, db, path: Path | str) -> tuple[int, int]:
        """The database's size in bytes: its file and its write-ahead log (0 for one
        that isn't there)."""
        if str(path) == ":memory:":
            return 0, 0

        def size(file: str) -> int:
            try:
                return os.stat(file).st_size
            except FileNotFoundError:
                return 0

        return size(str(path)), size(f"{path}-wal")


class PostgresDialect(SqliteDialect):
    """PostgreSQL's spelling, where it differs."""

    name = POSTGRESQL

    def days_since(self, now: str, then: str) -> str:
        return (
            f"CAST(greatest(extract(epoch FROM CAST({now} AS timestamptz) "
            f"- CAST({then} AS timestamptz)) / 86400.0, 0) AS double precision)"
        )

    def epoch_ms(self, time: str) -> str:
        return f"round(extract(epoch FROM CAST({time} AS timestamptz)) * 1000)"

    def later(self, first: str, second: str) -> str:
        return f"greatest({first}, {second})"

    def contains(self, text: str, part: str) -> str:
        return f"strpos({text}, {part}) > 0"

    def json_text(self, column: str, key: str) -> str:
        return f"(CAST({column} AS jsonb) ->> '{key}')"

    def json_set_true(self, column: str, key: str) -> str:
        return f"CAST(jsonb_set(CAST({column} AS jsonb), '{{{key}}}', 'true') AS text)"

    def local_day(self, time: str) -> str:
        # The session runs in UTC; this computer's offset is the connection's
        # acai.utc_offset (set by PostgresDatabase).
        return (
            f"CAST(CAST(CAST({time} AS timestamptz) AT TIME ZONE "
            "CAST(current_setting('acai.utc_offset') AS interval) AS date) AS text)"
        )

    def joined(self, value: str) -> str:
        return f"string_agg(CAST({value} AS text), ',')"

    def unindexed(self, column: str) -> str:
        return column  # PostgreSQL's planner needs no hint

    def for_update(self, db) -> str:
        return " FOR UPDATE" if db.in_write_transaction() else ""

    def reserve_ids(self, db, table: str, count: int) -> list[int]:
        """From the table's identity sequence, so two computers inserting at once never
        pick the same ids."""
        rows = db.execute(
            "SELECT nextval(pg_get_serial_sequence(?, 'id')) FROM generate_series(1, ?)",
            [table, count],
        ).fetchall()
        return [row[0] for row in rows]

    def register_functions(self, db, functions: dict) -> None:
        """Nothing: PostgreSQL's schema has them, in SQL (its migrations)."""

    def database_bytes(self, db, path: Path | str) -> tuple[int, int]:
        """The database's size on the server (it has no file here), no log of ours."""
        return db.execute("SELECT pg_database_size(current_database())").fetchone()[0], 0


SQLITE_DIALECT = SqliteDialect()
POSTGRES_DIALECT = PostgresDialect()


def dialect_of(db: object) -> SqliteDialect:
    """``db``'s dialect (SQLite's for a connection that names none)."""
    return getattr(db, "dialect", SQLITE_DIALECT)


def is_postgres(db: object) -> bool:
    return dialect_of(db).name == POSTGRESQL


def reserve_ids(db, table: str, count: int) -> list[int]:
    """See :meth:`SqliteDialect.reserve_ids`."""
    return dialect_of(db).reserve_ids(db, table, count)
