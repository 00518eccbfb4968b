"""What a store location opens: a PostgreSQL URL the server's store, anything else a
SQLite file (docs/architecture.md, "Two stores")."""

from __future__ import annotations

from pathlib import Path

from acai_desktop.core.store.interface import MemoryStore

SERVER_SCHEMES = ("postgresql://", "postgres://")


def is_server_url(location: Path | str) -> bool:
    """True for a ``postgresql://`` (or ``postgres://``) URL."""
    return isinstance(location, str) and location.lower().startswith(SERVER_SCHEMES)


async def open_store(location: Path | str) -> MemoryStore:
    """Open (and migrate) the store at ``location``: a PostgreSQL URL opens
    :class:`PostgresStore`, a path (or ``":memory:"``) the SQLite :class:`Store`."""
    if is_server_url(location):
        # Imported here: SQLite users never load psycopg (a dependency, loaded on use).
        from acai_desktop.core.store.postgres.database import PostgresStore

        return await PostgresStore.open(str(location))
    from acai_desktop.core.store.database import Store

    return await Store.open(location)
