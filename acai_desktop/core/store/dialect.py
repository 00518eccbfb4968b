"""Which store a store function is running on (docs/architecture.md, "Two stores").

The store's functions take ``db``: :class:`~acai_desktop.core.store.connection.Database`
on SQLite, or :class:`~acai_desktop.core.store.postgres.database.PostgresDatabase` on
PostgreSQL. Most of their SQL is one text for both; where it really differs (full-text
search, upserts, the job claim) a function asks :func:`is_postgres` and takes its
store's branch.
"""

from __future__ import annotations

SQLITE = "sqlite"
POSTGRESQL = "postgresql"


def dialect_of(db: object) -> str:
    """``"postgresql"`` for the PostgreSQL store's connection, else ``"sqlite"``."""
    return getattr(db, "dialect", SQLITE)


def is_postgres(db: object) -> bool:
    return dialect_of(db) == POSTGRESQL


def reserve_ids(db, table: str, count: int) -> list[int]:
    """``count`` new ids of ``table`` for rows the caller inserts with explicit ids
    (one ``executemany``). SQLite: from ``max(id) + 1`` on, as it would assign them,
    under the caller's write lock. PostgreSQL: from the table's identity sequence, so
    two computers inserting at once never pick the same ids."""
    if is_postgres(db):
        rows = db.execute(
            "SELECT nextval(pg_get_serial_sequence(?, 'id')) FROM generate_series(1, ?)",
            [table, count],
        ).fetchall()
        return [row[0] for row in rows]
    first = db.execute(f"SELECT coalesce(max(id), 0) + 1 FROM {table}").fetchone()[0]
    return list(range(first, first + count))
