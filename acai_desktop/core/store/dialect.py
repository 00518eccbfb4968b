"""Which store a store function is running on (docs/architecture.md, "Two stores").

The store's functions take ``db``: sqlite-utils' ``Database`` on SQLite, or
:class:`~acai_desktop.core.store.postgres.database.PostgresDatabase` on PostgreSQL.
Most of their SQL is one text for both; where it really differs (full-text search,
upserts, the job claim) a function asks :func:`is_postgres` and takes its store's branch.
"""

from __future__ import annotations

SQLITE = "sqlite"
POSTGRESQL = "postgresql"


def dialect_of(db: object) -> str:
    """``"postgresql"`` for the PostgreSQL store's connection, else ``"sqlite"``."""
    return getattr(db, "dialect", SQLITE)


def is_postgres(db: object) -> bool:
    return dialect_of(db) == POSTGRESQL
