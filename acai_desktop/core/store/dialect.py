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

Full-text search is an operation of its own per engine, with the same functions:
``db.dialect.full_text`` is FTS5 (``fts5.py``) or PostgreSQL's (``postgres/full_text.py``).
NOTIFY needs no call: PostgreSQL's triggers send it (``postgres/schema_parts.py``).
"""

from __future__ import annotations

import functools
import os
from collections.abc import Collection
from pathlib import Path

SQLITE = "sqlite"
POSTGRESQL = "postgresql"
#: The Unix epoch in SQLite's Julian-day milliseconds (julianday('1970-01-01') * 86400000).
JULIAN_EPOCH_MS = 210866760000000


class SqliteDialect:
    """SQLite's spelling of each operation (the default)."""

    name = SQLITE
    #: Whether several computers write the database at once (PostgreSQL); on SQLite one
    #: process holds the profile (core/profile/lock.py) and its start owns every row.
    shared = False

    @functools.cached_property
    def full_text(self):
        """The full-text operation: FTS5 (``store/fts5.py``)."""
        from acai_desktop.core.store import fts5

        return fts5

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

    def data_version(self, db) -> int | None:
        """A number that changes when another connection commits (None: the store has
        none; its listener says when to look, core/profile/outside_changes.py)."""
        return db.execute("PRAGMA data_version").fetchone()[0]

    def lock_for_transaction(self, db, namespace: int, key: int | None = None) -> None:
        """Wait until no other transaction holds the lock ``(namespace[, key])`` and
        keep it until the caller's transaction ends (SQLite: its write lock, taken
        when the transaction began, already keeps every other writer out)."""

    def hold(self, db, namespace: int, row_id: int) -> None:
        """This process works on ``row_id`` until :meth:`release` or its end, however
        it ends (SQLite: nothing to say; no other process shares the database)."""

    def release(self, db, namespace: int, row_ids: Collection[int]) -> None:
        """This process is done with ``row_ids`` (those it holds; the others are left)."""

    def unheld(self, db, namespace: int, row_ids: Collection[int]) -> list[int]:
        """The rows among ``row_ids`` no live process works on (all of them on SQLite)."""
        return list(row_ids)

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


#: This session's hold on (namespace, id), as pg_locks shows a two-key advisory lock.
_HELD_HERE = (
    "SELECT 1 FROM pg_locks WHERE locktype = 'advisory' AND classid::bigint = ? "
    "AND objid::bigint = ? AND objsubid = 2 AND pid = pg_backend_pid()"
)


class PostgresDialect(SqliteDialect):
    """PostgreSQL's spelling, where it differs."""

    name = POSTGRESQL
    shared = True

    @functools.cached_property
    def full_text(self):
        """FTS5's words and BM25 over kept statistics (``postgres/full_text.py``)."""
        from acai_desktop.core.store.postgres import full_text

        return full_text

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

    def data_version(self, db) -> int | None:
        return None

    def lock_for_transaction(self, db, namespace: int, key: int | None = None) -> None:
        assert db.in_write_transaction(), "a transaction's lock is taken inside one"
        if key is None:
            db.execute("SELECT pg_advisory_xact_lock(?)", [namespace])
        else:
            db.execute("SELECT pg_advisory_xact_lock(?, ?)", [namespace, int(key)])

    # A session advisory lock keyed (namespace, row id): the server releases it when the
    # process's session ends, however it ends, so a start tells another live computer's
    # work (leave it) from a dead one's (put it back).
    def hold(self, db, namespace: int, row_id: int) -> None:
        """Once: holding it again does not stack."""
        db.execute(
            f"SELECT pg_advisory_lock(?, ?) WHERE NOT EXISTS ({_HELD_HERE})",
            [namespace, int(row_id), namespace, int(row_id)],
        )

    def release(self, db, namespace: int, row_ids: Collection[int]) -> None:
        for row_id in row_ids:
            db.execute(
                f"SELECT pg_advisory_unlock(?, ?) FROM ({_HELD_HERE} LIMIT 1) AS held",
                [namespace, int(row_id), namespace, int(row_id)],
            )

    def unheld(self, db, namespace: int, row_ids: Collection[int]) -> list[int]:
        free = []
        for row_id in row_ids:
            taken = db.execute("SELECT pg_try_advisory_lock(?, ?)", [namespace, int(row_id)])
            if taken.fetchone()[0]:
                free.append(row_id)
                db.execute("SELECT pg_advisory_unlock(?, ?)", [namespace, int(row_id)])
        return free

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
